"""``proctor grounding`` in-process on the shipped example: the grounded advisor passes, the
inventive one fails on the same checkpoints, and every exit code has a case."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from tests.conftest import MakeCase, Run, run_cases, single_run_dir

EXAMPLE = Path(__file__).parents[2] / "examples" / "addons" / "advisor"
CHECKPOINTS = str(EXAMPLE / "checkpoints.json")
PYTHON = shlex.quote(sys.executable)
GROUNDED = f"{PYTHON} {EXAMPLE / 'grounded_advisor.py'}"
INVENTIVE = f"{PYTHON} {EXAMPLE / 'inventive_advisor.py'}"
KEYS = {"ok", "checked", "failed", "errors", "results", "notJudged", "notes"}
RESULT_KEYS = {"id", "waste", "ok", "ungrounded", "ungroundedCount", "advice", "error"}


def test_the_grounded_example_advisor_passes_every_checkpoint(proctor: Run) -> None:
    result = proctor("grounding", "--advisor", GROUNDED, "--checkpoints", CHECKPOINTS, "--json")
    assert result.code == 0, result.out + result.err
    report = result.json()
    assert set(report) == KEYS and report["ok"] is True
    assert (report["checked"], report["failed"], report["errors"]) == (6, 0, 0)
    assert all(set(r) == RESULT_KEYS and r["ok"] for r in report["results"])
    assert any("whether the advice is good" in item for item in report["notJudged"])


def test_the_inventive_example_advisor_fails_on_the_same_checkpoints(proctor: Run) -> None:
    result = proctor("grounding", "--advisor", INVENTIVE, "--checkpoints", CHECKPOINTS, "--json")
    assert result.code == 1
    report = result.json()
    assert report["ok"] is False and report["failed"] == report["checked"] == 6
    by_id = {r["id"]: r for r in report["results"]}
    reread = by_id["reread-loop"]["ungrounded"][0]
    assert reread["figure"] == "4,200"
    assert reread["text"] == "You wasted 4,200 tokens on redundant reads."
    borrowed = [u["figure"] for u in by_id["explore-5min"]["ungrounded"]]
    assert borrowed == ["14", "120,000"]  # 14 belongs to reread-loop's signals, not these
    # The limit: steady-edit's minutesElapsed is 14, so "re-read files 14 times" passes there.
    assert [u["figure"] for u in by_id["steady-edit"]["ungrounded"]] == ["120,000"]


def test_live_draws_half_with_waste_and_half_without(proctor: Run) -> None:
    args = ("grounding", "--advisor", GROUNDED, "--checkpoints", CHECKPOINTS, "--json")
    report = proctor(*args, "--live", "4").json()
    assert [r["waste"] for r in report["results"]].count(True) == 2
    assert report["checked"] == 4 and "just-started" not in {r["id"] for r in report["results"]}
    assert proctor(*args, "--live", "4", "--seed", "0").json() == report
    short = proctor(*args, "--live", "6").json()
    assert short["checked"] == 5 and "took 3 with and 2 without" in short["notes"][-1]


def test_live_with_nothing_eligible_fails_because_it_cannot_pass_without_running(
    proctor: Run, tmp_path: Path
) -> None:
    path = tmp_path / "checkpoints.jsonl"
    path.write_text('{"id": "a", "signals": {"phase": "start"}}\n')
    result = proctor("grounding", "--advisor", GROUNDED, "--checkpoints", str(path), "--live", "2")
    assert result.code == 1
    assert "cannot pass without running" in result.out + result.err
    assert "FAIL" in result.out and "Not judged" in result.out
    as_json = proctor(
        "grounding", "--advisor", GROUNDED, "--checkpoints", str(path), "--live", "2", "--json"
    )
    assert as_json.code == 1 and as_json.json()["checked"] == 0
    assert any("cannot pass without running" in note for note in as_json.json()["notes"])


def test_without_live_nothing_eligible_or_nothing_said_does_not_pass(
    proctor: Run, tmp_path: Path
) -> None:
    """Every checkpoint run (no --live), none of whose signals holds a figure: nothing was
    checked, so it fails as --live does. An advisor that prints nothing on every eligible
    checkpoint (broken, silently) fails too; one that says something passes (the control)."""
    none = tmp_path / "none.jsonl"
    none.write_text('{"id": "a", "signals": {"phase": "reading"}}\n')
    result = proctor("grounding", "--advisor", "echo hi", "--checkpoints", str(none), "--json")
    assert result.code == 1 and result.json()["checked"] == 1
    assert any("cannot pass without running" in n for n in result.json()["notes"])
    text = proctor("grounding", "--advisor", "echo hi", "--checkpoints", str(none))
    assert text.code == 1 and "FAIL: no checkpoint whose signals hold a figure ran" in text.out
    silent = proctor("grounding", "--advisor", "true", "--checkpoints", CHECKPOINTS, "--json")
    assert silent.code == 1 and silent.json()["failed"] == 0
    assert any("printed nothing" in n for n in silent.json()["notes"])
    said = proctor("grounding", "--advisor", "echo hi", "--checkpoints", CHECKPOINTS, "--json")
    assert said.code == 0, said.out


def test_a_forwarded_value_is_checked_as_a_figure_and_shown_masked(
    proctor: Run, tmp_path: Path, monkeypatch: Any
) -> None:
    """--env MYV forwards a value that is masked in the report; a figure equal to it in the
    advice is still checked (it was masked first, and never checked), and shown masked."""
    monkeypatch.setenv("MYV", "12345")
    args = ("grounding", "--advisor", "echo 'cut 12345 tokens'", "--checkpoints", CHECKPOINTS)
    result = proctor(*args, "--env", "MYV", "--json")
    assert result.code == 1, result.out
    report = result.json()
    ungrounded = [u for r in report["results"] for u in r["ungrounded"]]
    assert ungrounded and all(u["figure"] == "***" and u["value"] is None for u in ungrounded)
    assert "12345" not in result.out + result.err


def test_the_text_report_names_each_ungrounded_figure_and_its_sentence(proctor: Run) -> None:
    result = proctor("grounding", "--advisor", INVENTIVE, "--checkpoints", CHECKPOINTS)
    assert result.code == 1
    assert "FAIL  reread-loop (waste): 2 ungrounded figures" in result.out
    assert "4,200 in: You wasted 4,200 tokens on redundant reads." in result.out
    assert "whether the advice is good" in result.out


def test_a_bad_field_is_one_sentence_and_exit_2(proctor: Run, tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.json"
    path.write_text(json.dumps([{"id": "cp-7", "signals": {"n": 12}, "waste": "often"}]))
    result = proctor("grounding", "--advisor", GROUNDED, "--checkpoints", str(path))
    assert result.code == 2 and result.out == ""
    assert result.err.startswith(f"proctor: error: {path}, checkpoint 'cp-7': field ")
    assert "waste" in result.err and "Traceback" not in result.err
    assert result.err.count("\n") == 1


def test_a_missing_file_and_an_empty_advisor_are_configuration_errors(
    proctor: Run, tmp_path: Path
) -> None:
    missing = proctor("grounding", "--advisor", GROUNDED, "--checkpoints", str(tmp_path / "no"))
    assert missing.code == 2 and "does not exist" in missing.err
    empty = proctor("grounding", "--advisor", " ", "--checkpoints", CHECKPOINTS)
    assert empty.code == 2 and "--advisor" in empty.err
    zero = proctor("grounding", "--advisor", GROUNDED, "--checkpoints", CHECKPOINTS, "--live", "0")
    assert zero.code == 2


def test_an_advisor_that_fails_is_exit_3_never_a_pass(proctor: Run) -> None:
    args = ("--checkpoints", CHECKPOINTS, "--live", "2", "--json")
    result = proctor("grounding", "--advisor", "exit 5", *args)
    assert result.code == 3
    report = result.json()
    assert report["errors"] == 2 and not report["ok"]
    assert all(r["error"] == "the advisor exited 5" for r in report["results"])


STORED_RUN = Path(__file__).parents[1] / "fixtures" / "results-v1" / "example-suite"


def test_a_stored_run_gives_checkpoints_and_the_same_rule_applies(
    proctor: Run, tmp_path: Path
) -> None:
    advisor = tmp_path / "quote_tokens.py"
    advisor.write_text(
        "import json, sys\nprint(f\"You used {json.load(sys.stdin)['tokensSoFar']:,} tokens.\")\n"
    )
    args = ("grounding", "--checkpoints", str(STORED_RUN), "--live", "4", "--json")
    grounded = proctor(*args, "--advisor", f"{PYTHON} {advisor}")
    assert grounded.code == 0, grounded.out + grounded.err
    assert grounded.json()["checked"] == 4
    assert all("/scripted/" in r["id"] for r in grounded.json()["results"])
    invented = proctor(*args, "--advisor", "echo 'You used 2,749 tokens.'")
    assert invented.code == 1  # 2,749 is the figure of 3 trials out of 17: the others fail


def test_a_trial_excluded_with_annotate_makes_no_checkpoint_of_a_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}
    make_case("fix", config={"repeats": 2}, plan=plan)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    marked = proctor(
        "annotate", run_dir, "fix/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 0, marked.err
    result = proctor("grounding", "--advisor", "cat >/dev/null", "--checkpoints", run_dir, "--json")
    report = result.json()
    assert [r["id"] for r in report["results"]] == ["fix/scripted/default/2"]
    assert report["notes"][0] == (
        "1 trial excluded by hand (`proctor annotate`) made no checkpoint: fix/scripted/default/1"
    )


def test_a_trial_with_no_transcript_read_makes_no_checkpoint_of_a_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A trial whose agent left no transcript (stopped at its timeout before writing one, or a
    setup that failed before it started) recorded zeros nobody measured: no checkpoint, said
    in a note, and a run of nothing else cannot pass the check."""
    plan = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}]}
    make_case("fix", plan=plan)
    make_case("unset", config={"setup": ["exit 7"]}, plan=plan)
    _, out = run_cases(proctor, tmp_path)
    run_dir = str(single_run_dir(out))
    args = ("grounding", "--advisor", "echo 'You have used 0 tokens.'", "--json")
    result = proctor(*args, "--checkpoints", run_dir)
    report = result.json()
    assert result.code == 0, result.out + result.err
    assert [r["id"] for r in report["results"]] == ["fix/scripted/default/1"]
    assert report["notes"][0] == (
        "1 trial with no transcript read (no figure measured) made no checkpoint: "
        "unset/scripted/default/1 (infra-error)"
    )
    marked = proctor(
        "annotate", run_dir, "fix/scripted/default/1", "--verdict", "excluded", "--note", "x"
    )
    assert marked.code == 0, marked.err
    alone = proctor(*args, "--checkpoints", run_dir)
    assert alone.code == 1 and alone.json()["checked"] == 0, alone.out + alone.err
