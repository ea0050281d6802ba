"""``proctor run --repeat-check N`` in-process against the scripted agent: a deterministic suite
passes, an evaluator that counts its calls fails naming the first difference, real agents and
model-backed evaluators are left out and listed, and a comparison that never compares is caught
by the same assertions."""

from __future__ import annotations

import json
import shutil
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.session import repeat_check
from proctor.session.repeat_comparison import Comparison
from tests.conftest import CliResult, MakeCase, Run, run_cases

PLAN = {
    "turns": [
        {"say": "Writing it."},
        {"read": "README.md"},
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"say": "Done."},
    ]
}
EVALUATORS = [
    {"use": "file-exists", "must": ["hello.txt"], "gate": True},
    {"use": "command", "run": "grep -q hello hello.txt", "label": "greets"},
    {"use": "trajectory-check", "toolPattern": "Bash|shell", "min": 1},
]
COUNTER = """#!/bin/sh
# Scores 10, 20, 30, ... : one more each time it runs (the count is kept outside the workspace).
cat > /dev/null
n=$(cat "$COUNTER" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$COUNTER"
echo "{\\"values\\": [{\\"name\\": \\"count\\", \\"value\\": $((n * 10))}]}"
"""


def deterministic_case(make_case: MakeCase, agents: list[str] | None = None) -> Path:
    config = {
        "agents": agents or ["scripted"],
        "timeoutSec": 30,
        "repeats": 2,
        "evaluators": EVALUATORS,
    }
    return make_case("hello", config=config, plan=PLAN, src={"README.md": "# hello\n"})


def counting_case(make_case: MakeCase, tmp_path: Path) -> None:
    external = {
        "use": "external",
        "command": "count.sh",
        "scoreMetric": "count",
        "env": {"COUNTER": str(tmp_path / "n")},
    }
    folder = make_case(
        "counted",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [external]},
        plan=PLAN,
    )
    script = folder / "count.sh"
    script.write_text(COUNTER)
    script.chmod(0o755)


def test_a_deterministic_suite_is_identical_three_times(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case)
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 0, result.err
    check = result.json()
    assert check["identical"] is True and check["exitCode"] == 0
    assert (check["repetitions"], check["trialsCompared"], check["evaluatorsCompared"]) == (
        3,
        2,
        6,
    )
    assert check["differenceCount"] == 0 and check["firstDifference"] is None
    assert check["excludedTrials"] == [] and check["excludedEvaluators"] == []
    folders = sorted(out.glob("run-*"))
    assert sorted(r["folder"] for r in check["runs"]) == [str(f) for f in folders]
    for folder in folders:
        suite = json.loads((folder / "suite.json").read_text())
        assert suite["exitCode"] == 0 and len(list(folder.glob("trials/hello/*/*/*"))) == 2


def test_the_agents_and_keys_are_checked_before_the_first_repetition_only(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.session import run as session_run

    checked: list[str] = []
    real_preflight, real_keys = session_run.preflight, session_run.check_keys
    monkeypatch.setattr(
        session_run, "preflight", lambda *a, **k: checked.append("agents") or real_preflight(*a)
    )
    monkeypatch.setattr(
        session_run, "check_keys", lambda *a, **k: checked.append("keys") or real_keys(*a)
    )
    deterministic_case(make_case)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 0, result.err
    assert checked == ["agents", "keys"]  # once, not once per repetition


def assert_counter_fails_naming_first_difference(result: Any) -> None:
    assert result.code == 1, result.err
    first = (
        "trial counted/scripted/default/1: evaluators[0] (external).score is 10.0 in "
        "repetition 1 and 20.0 in repetition 2"
    )
    assert "- verdict: **different (2 differences)**" in result.out
    assert f"- first difference: {first}" in result.out


def test_an_evaluator_that_counts_its_calls_fails_the_check(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    counting_case(make_case, tmp_path)
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert_counter_fails_naming_first_difference(result)
    assert len(list(out.glob("run-*"))) == 2


def test_the_stderr_line_names_the_first_difference_masked(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI log that keeps stderr only still says what differed; a key in it is masked, as on
    stdout."""
    counting_case(make_case, tmp_path)
    secret = "sk-ant-s3cr3t-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    (tmp_path / "cases" / "counted").rename(tmp_path / "cases" / f"counted-{secret}")
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert result.code == 1, result.err
    assert (
        "proctor: repeat check: different (2 differences); first: trial "
        "counted-***/scripted/default/1: evaluators[0] (external).score is 10.0 in repetition "
        "1 and 20.0 in repetition 2\n"
    ) in result.err
    assert secret not in result.err and secret not in result.out
    assert "- first difference: trial counted-***/scripted/default/1:" in result.out
    as_json, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--json")
    assert as_json.code == 1 and secret not in as_json.out
    assert as_json.json()["firstDifference"]["trial"] == "counted-***/scripted/default/1"


def test_control_a_check_that_never_compares_passes_the_counting_suite(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never_compares(first: list[Any], other: list[Any], **_: Any) -> Comparison:
        return Comparison(len(first), 0, [], [])

    monkeypatch.setattr(repeat_check, "compare_repetitions", never_compares)
    counting_case(make_case, tmp_path)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2")
    with pytest.raises(AssertionError):
        assert_counter_fails_naming_first_difference(result)
    assert result.code == 0


def test_an_external_program_whose_confidence_changes_fails_the_check(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    counting_case(make_case, tmp_path)
    script = tmp_path / "cases" / "counted" / "count.sh"
    # The same value every time, with a confidence that counts the runs.
    script.write_text(
        COUNTER.replace('\\"value\\": $((n * 10))', '\\"value\\": 50, \\"confidenceLevel\\": $n')
    )
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--json")
    assert result.code == 1, result.err
    first = result.json()["firstDifference"]
    assert first["path"] == "evaluators[0] (external).levels.count.confidenceLevel"
    assert (first["first"], first["other"]) == (1.0, 2.0)


def test_a_real_agent_is_left_out_and_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case, ["scripted", "claude-code"])
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2", "--json")
    assert result.code == 0, result.err
    check = result.json()
    reason = "not deterministic: a real agent"
    assert check["excludedTrials"] == [
        {"what": f"hello/claude-code/default/{n}", "reason": reason} for n in (1, 2)
    ]
    assert check["trialsCompared"] == 2
    assert not list(out.glob("run-*/trials/hello/claude-code"))


def test_only_real_agents_is_a_configuration_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case, ["codex"])
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert result.code == 2
    assert "nothing deterministic to repeat" in result.err and "Traceback" not in result.err
    assert not out.exists() or not list(out.glob("run-*"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--repeat-check", "2", "--dry-run"), "use one or the other"),
        (("--repeat-check", "1"), "--repeat-check"),
        (("--repeat-check", "two"), "--repeat-check"),
        (("--repeat-check", "101"), "'--repeat-check': 101 is not in the range 2<=x<=100"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    proctor: Run, make_case: MakeCase, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    deterministic_case(make_case)
    result, _ = run_cases(proctor, tmp_path, *args)
    assert result.code == 2 and message in result.err and "Traceback" not in result.err


def test_a_model_backed_evaluator_is_left_out_and_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    judge = {"use": "llm-judge", "rubric": "evaluation.md", "label": "notes"}
    folder = make_case(
        "judged",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [EVALUATORS[0], judge]},
        plan={
            **PLAN,
            "roles": {"judge": [{"json": {"score": 85, "rationale": "Fine."}}]},
        },
        src={"README.md": "# hello\n"},
    )
    (folder / "evaluation.md").write_text("Score 0-100: is hello.txt there?\n")
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"judge": "scripted/judge"}}))
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--config", str(config))
    assert result.code == 0, result.err
    assert (
        '- `judged: evaluators[1] (llm-judge, "notes")`: model-backed: its result comes from a '
        "model" in result.out
    )
    assert "- evaluators compared: 1 per repetition" in result.out


def test_a_model_backed_evaluator_of_another_condition_only_is_not_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """``--condition base``: the judge runs under ``judged`` only, so never in the repetitions,
    and is not said to be left out; the control, ``--condition judged``, lists it."""
    judge = {"use": "llm-judge", "rubric": "evaluation.md", "conditions": ["judged"]}
    folder = make_case(
        "hello",
        config={
            "agents": ["scripted"],
            "timeoutSec": 30,
            "conditions": {"base": {}, "judged": {}},
            "evaluators": [EVALUATORS[0], judge],
        },
        plan={**PLAN, "roles": {"judge": [{"json": {"score": 85, "rationale": "Fine."}}] * 2}},
        src={"README.md": "# hello\n"},
    )
    (folder / "evaluation.md").write_text("Score 0-100: is hello.txt there?\n")
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"judge": "scripted/judge"}}))
    args = ("--repeat-check", "2", "--config", str(config), "--json", "--condition")
    result, _ = run_cases(proctor, tmp_path, *args, "base")
    assert result.code == 0, result.err
    assert result.json()["excludedEvaluators"] == []
    judged, _ = run_cases(proctor, tmp_path, *args, "judged")
    assert judged.code == 0, judged.err
    assert [e["what"] for e in judged.json()["excludedEvaluators"]] == [
        "hello: evaluators[1] (llm-judge)"
    ]


def test_only_the_first_repetition_is_applied_to_the_findings_ledger(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    failing = [{"use": "file-exists", "must": ["missing.txt"], "label": "absent"}]
    config = {"agents": ["scripted"], "timeoutSec": 30, "evaluators": failing}
    make_case("hello", config=config, plan=PLAN, src={"README.md": "# hello\n"})
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "3")
    assert result.code == 0, result.err
    runs = out.glob("run-*")
    repetitions = {json.loads((f / "run.json").read_text())["repetition"]: f for f in runs}
    assert sorted(repetitions) == [1, 2, 3]
    ledger = json.loads((out / "findings.json").read_text())
    assert ledger["runs"] == [repetitions[1].name]
    (finding,) = ledger["findings"]
    assert finding["failures"] == 1 and finding["state"] == "open"
    # The first repetition's report lists the finding; a later one's says why it lists none.
    first = proctor("report", str(repetitions[1]))
    assert f"| new | `{finding['id']}` |" in first.out
    assert "repetition" not in first.err
    later = proctor("report", str(repetitions[3]))
    assert later.code == first.code and "## Findings" not in later.out
    assert (
        f"proctor: note: {repetitions[3].name} is repetition 3 of a repeat check; the findings "
        "ledger takes in the first repetition only, whose report lists the findings it "
        "proposed, reopened or resolved (`proctor findings` lists them all)\n"
    ) in later.err
    # A later ordinary run is applied as usual.
    again, _ = run_cases(proctor, tmp_path)
    assert again.code == 1
    ledger = json.loads((out / "findings.json").read_text())
    assert len(ledger["runs"]) == 2 and ledger["findings"][0]["failures"] == 2


LEDGER_NOTE = (
    "is repetition 2 of a repeat check; the findings ledger takes in the first repetition only, "
    "whose report lists the findings it proposed, reopened or resolved (`proctor findings` "
    "lists them all)"
)


def killed_midway(run_dir: Path) -> None:
    """``run_dir`` as a run killed after its first trial leaves it: no ``finishedAt``, and no
    record of its later trials."""
    manifest = json.loads((run_dir / "run.json").read_text())
    manifest.pop("finishedAt")
    (run_dir / "run.json").write_text(json.dumps(manifest))
    for trial in (run_dir / "trials/hello/scripted/default").iterdir():
        if trial.name != "1":
            (trial / "trial.json").unlink()


def test_a_resume_of_a_later_repetition_says_the_findings_ledger_never_takes_it_in(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    failing = [{"use": "file-exists", "must": ["missing.txt"], "label": "absent"}]
    config = {"agents": ["scripted"], "timeoutSec": 30, "repeats": 2, "evaluators": failing}
    make_case("hello", config=config, plan=PLAN, src={"README.md": "# hello\n"})
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert result.code == 0, result.err
    runs = {json.loads((f / "run.json").read_text())["repetition"]: f for f in out.glob("run-*")}
    killed_midway(runs[2])
    resumed = proctor("run", "--resume", str(runs[2]))
    assert resumed.code == 1, resumed.err
    assert f"proctor: resumed {runs[2]}: 1 kept, 1 run now" in resumed.err
    # In the words `proctor report` of the folder uses.
    note = f"proctor: note: {runs[2].name} {LEDGER_NOTE}\n"
    assert note in resumed.err, resumed.err
    assert note in proctor("report", str(runs[2])).err
    assert json.loads((out / "findings.json").read_text())["runs"] == [runs[1].name]
    # The control: a resume of the first repetition, which the ledger takes in, says none.
    (out / "findings.json").unlink()
    killed_midway(runs[1])
    first = proctor("run", "--resume", str(runs[1]))
    assert first.code == 1, first.err
    assert "is repetition" not in first.err, first.err
    assert json.loads((out / "findings.json").read_text())["runs"] == [runs[1].name]


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def as_real_agent(run_dir: Path, agent: str = "claude-code") -> None:
    """A stored run of the scripted agent made into one of ``agent`` (its trials' folders and
    records): what a real agent's run with kept workspaces holds."""
    for case in (run_dir / "trials").iterdir():
        (case / "scripted").rename(case / agent)
        for trial_json in (case / agent).glob("*/*/trial.json"):
            record = json.loads(trial_json.read_text())
            record["agent"] = agent
            trial_json.write_text(json.dumps(record))


def recorded_run(proctor: Run, tmp_path: Path) -> Path:
    result, out = run_cases(proctor, tmp_path, "--keep-workspace")
    assert result.code in (0, 1), result.err
    (run_dir,) = out.glob("run-*")
    as_real_agent(run_dir)
    return run_dir


def recheck(
    proctor: Run, tmp_path: Path, stored: Path, repetitions: int, *args: str
) -> tuple[CliResult, Path]:
    """``--repeat-check N --recorded STORED`` over the suite's claude-code trials."""
    return run_cases(
        proctor,
        tmp_path,
        "--agent",
        "claude-code",
        "--repeat-check",
        str(repetitions),
        "--recorded",
        str(stored),
        *args,
    )


def test_recorded_trials_of_a_real_agent_are_re_evaluated(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A stored claude-code run (kept workspaces): its deterministic evaluators give the same
    results three times; the counting evaluator is caught, naming the first difference."""
    deterministic_case(make_case)
    counting_case(make_case, tmp_path)
    stored = recorded_run(proctor, tmp_path)
    before = snapshot(stored)
    result, out = recheck(proctor, tmp_path, stored, 3, "--json")
    assert result.code == 1, result.err
    check = result.json()
    assert check["recorded"] == str(stored) and check["recordedTrials"] == 3
    assert (check["trialsCompared"], check["evaluatorsCompared"]) == (3, 7)
    # Compared from the stored run, a planned claude-code trial is not also excluded.
    assert [e for e in check["excludedTrials"] if "a real agent" in e["reason"]] == []
    assert check["runs"] == [{"repetition": n, "folder": None, "exitCode": 0} for n in (1, 2, 3)]
    first = check["firstDifference"]
    assert first["trial"] == "counted/claude-code/default/1"
    assert first["path"] == "evaluators[0] (external).score"
    assert (first["first"], first["other"]) == (20.0, 30.0)  # the stored run counted 10
    assert {d["trial"] for d in check["differences"]} == {"counted/claude-code/default/1"}
    assert len(list(out.glob("run-*"))) == 1  # re-evaluating writes no run
    assert snapshot(stored) == before  # nor anything into the stored run


def test_recorded_trials_that_cannot_be_re_evaluated_are_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case)
    stored = recorded_run(proctor, tmp_path)
    trials = stored / "trials" / "hello" / "claude-code" / "default"
    shutil.rmtree(trials / "2" / "workspace")
    result, _ = recheck(proctor, tmp_path, stored, 2, "--json")
    assert result.code == 0, result.err
    check = result.json()
    assert check["recordedTrials"] == 1 and check["trialsCompared"] == 1
    assert {
        "what": f"{stored.name}: hello/claude-code/default/2",
        "reason": "not re-evaluated: its workspace was not kept (run it with --keep-workspace)",
    } in check["excludedTrials"]
    shutil.rmtree(trials / "1" / "workspace")
    nothing, _ = recheck(proctor, tmp_path, stored, 2)
    assert nothing.code == 2 and "no trial of --recorded" in nothing.err
    alone, _ = run_cases(proctor, tmp_path, "--recorded", str(stored))
    assert alone.code == 2 and "give it too" in alone.err
    results, _ = recheck(proctor, tmp_path, stored.parent, 2)  # the results directory
    assert results.code == 2
    assert f"--recorded {stored.parent}: a results directory; name one of its run folders" in (
        results.err
    )
    # A folder that is no run (the suite's, given by mistake): one sentence naming the option.
    cases = tmp_path / "cases"
    folder, _ = recheck(proctor, tmp_path, cases, 2)
    assert folder.code == 2
    assert f"--recorded {cases}: not a run folder (it holds no run.json and no trial)" in (
        folder.err
    )


def test_control_a_re_evaluation_that_reads_the_stored_results_finds_nothing(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repeat_check, "reevaluate", lambda trial, _scratch: trial.record)
    counting_case(make_case, tmp_path)
    stored = recorded_run(proctor, tmp_path)
    result, _ = recheck(proctor, tmp_path, stored, 2)
    assert result.code == 0  # what the real check above catches goes unseen


def test_a_check_that_compares_no_evaluator_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--no-evaluate")
    assert result.code == 0, result.err
    assert "- note: no evaluator result was compared" in result.out
    assert "compared no evaluator result" in result.err
    evaluated, _ = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert "no evaluator result" not in evaluated.out + evaluated.err  # the control


READS_THE_TRIAL = """#!/usr/bin/env python3
# Scores 100 when the trajectory it is given holds events (a missing file: an error).
import json, sys
paths = json.load(sys.stdin)
with open(paths["trajectory"]) as fh:
    count = sum(1 for _ in fh)
print(json.dumps({"values": [{"name": "events", "value": 100 if count else 0}]}))
"""


def test_a_re_evaluation_gives_the_evaluators_the_trial_s_files(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluator that reads the trial's trajectory from its trial folder finds it when
    re-evaluated, as when it was recorded (a missing file was the same error every time, so
    the check said identical while every re-evaluation failed)."""
    external = {"use": "external", "command": "events.py", "scoreMetric": "events"}
    folder = make_case(
        "reads",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [external]},
        plan=PLAN,
    )
    (folder / "events.py").write_text(READS_THE_TRIAL)
    (folder / "events.py").chmod(0o755)
    stored = recorded_run(proctor, tmp_path)
    (recorded,) = stored.glob("trials/reads/claude-code/default/1/trial.json")
    assert json.loads(recorded.read_text())["status"] == "passed"
    reevaluated = repeat_check.reevaluate
    seen: list[Any] = []

    def keep(trial: Any, scratch: Path) -> Any:
        seen.append(reevaluated(trial, scratch))
        return seen[-1]

    monkeypatch.setattr(repeat_check, "reevaluate", keep)
    result, _ = recheck(proctor, tmp_path, stored, 2, "--json")
    assert result.code == 0, result.err
    assert [r.status for r in seen] == ["passed", "passed"]
    assert [r.evaluators[0].error for r in seen] == [False, False]


def test_a_profile_of_the_scripted_agent_is_not_re_evaluated_as_well(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    deterministic_case(make_case, agents=["myscript"])
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"codingagents": {"myscript": {"agent": "scripted"}}}))
    stored_result, out = run_cases(proctor, tmp_path, "--config", str(config), "--keep-workspace")
    assert stored_result.code == 0, stored_result.err
    (stored,) = out.glob("run-*")
    result, _ = run_cases(
        proctor, tmp_path, "--config", str(config), "--repeat-check", "2",
        "--recorded", str(stored), "--json",
    )  # fmt: skip
    assert result.code == 0, result.err
    check = result.json()
    assert check["recordedTrials"] == 0 and check["identical"]
    reasons = {e["reason"] for e in check["excludedTrials"]}
    assert reasons == {"not re-evaluated: a scripted trial, which the repeat check runs itself"}
    # --recorded was asked for and gave nothing: said, though the scripted trials were compared.
    assert f"--recorded {stored}: no trial of it could be re-evaluated" in caplog.text


def test_an_unreadable_stored_trial_is_listed_and_none_left_says_why(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case)
    stored = recorded_run(proctor, tmp_path)
    trials = stored / "trials" / "hello" / "claude-code" / "default"
    (trials / "1" / "trial.json").write_text("{bad")
    result, _ = recheck(proctor, tmp_path, stored, 2, "--json")
    assert result.code == 0, result.err
    check = result.json()
    assert check["recordedTrials"] == 1
    (unreadable,) = [
        e
        for e in check["excludedTrials"]
        if e["what"] == f"{stored.name}: hello/claude-code/default/1"
    ]
    assert unreadable["reason"].startswith("not re-evaluated: unreadable trial.json")
    shutil.rmtree(trials / "2" / "workspace")
    nothing, _ = recheck(proctor, tmp_path, stored, 2)
    assert nothing.code == 2
    assert "hello/claude-code/default/2: its workspace was not kept" in nothing.err
    assert "hello/claude-code/default/1: unreadable trial.json" in nothing.err


def test_a_flipped_verdict_is_named_by_its_evaluator_not_by_the_status(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    flaky = {
        "use": "command",
        "run": f"n=$(cat {tmp_path}/flip 2>/dev/null || echo 0); echo $((n+1)) > {tmp_path}/flip; "
        "test $n -eq 0",
        "label": "first time only",
    }
    make_case(
        "flips",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [flaky]},
        plan=PLAN,
    )
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--json")
    assert result.code == 1, result.err
    first = result.json()["firstDifference"]
    assert first["path"] == 'evaluators[0] (command, "first time only").passed'
    assert "status" in {d["path"] for d in result.json()["differences"]}  # still listed, after


def test_the_ci_job_summary_gets_the_repeat_check_not_each_repetition(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deterministic_case(make_case)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "3")
    assert result.code == 0, result.err
    text = summary.read_text()
    assert text.count("# proctor repeat check") == 1 and "verdict: **identical**" in text
    assert "# proctor run" not in text  # the control of a plain run, below
    run_cases(proctor, tmp_path)
    assert summary.read_text().count("# proctor run") == 1


def on_second_call(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, act: Callable[[], None]
) -> None:
    """``module.name`` patched to ``act()`` before its second call (the second repetition's)."""
    real = getattr(module, name)
    calls = 0

    def patched(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            act()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, patched)


def test_ctrl_c_at_a_repetition_s_start_still_reports_what_finished(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interrupt that lands outside the trials (the next run's start, its reports): the
    summary of the repetitions that finished is printed, with exit 130."""
    deterministic_case(make_case)

    def interrupt() -> None:
        raise KeyboardInterrupt

    on_second_call(monkeypatch, repeat_check, "run_plan", interrupt)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 130, result.err
    check = result.json()
    assert check["interrupted"] and [r["repetition"] for r in check["runs"]] == [1, 2]
    assert check["runs"][1]["folder"] is None
    assert "repeat check: interrupted after 1 of 3 repetitions finished" in result.err


def test_ctrl_c_never_takes_another_process_s_run_for_the_repetition_cut_short(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another proctor's run that finished in the same results directory while repetition 2
    was starting: the interrupt's summary names no folder for repetition 2, and never reads
    that run's trials as its, compared with repetition 1 as a repetition that finished."""
    deterministic_case(make_case)
    out = tmp_path / "out"

    def another_run_then_interrupt() -> None:
        (first,) = out.glob("run-*")
        other = out / "run-29991231T235959Z-ffffff"  # sorts after every run of the check
        shutil.copytree(first, other)
        journal = other / "journal.jsonl"  # started and finished by another process
        lines = [json.loads(line) for line in journal.read_text().splitlines()]
        journal.write_text("".join(json.dumps({**e, "pid": 1}) + "\n" for e in lines))
        raise KeyboardInterrupt

    on_second_call(monkeypatch, repeat_check, "run_plan", another_run_then_interrupt)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 130, result.err
    check = result.json()
    assert [(r["repetition"], r["folder"]) for r in check["runs"]][1] == (2, None)
    assert check["trialsCompared"] == 0
    assert "interrupted after 1 of 3 repetitions finished" in result.err


def test_ctrl_c_while_a_repetition_s_reports_are_written_keeps_that_repetition(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop_handlers: None,
) -> None:
    """The interrupt lands while the repetition's run is written: every trial of it had
    ended, so it is written whole (saying interrupted), finished, and compared before the
    check stops."""
    import os

    from proctor.session import finish

    deterministic_case(make_case)
    on_second_call(
        monkeypatch, finish, "write_reports", lambda: os.kill(os.getpid(), signal.SIGINT)
    )
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 130, result.err
    check = result.json()
    assert [(r["repetition"], r["folder"] is not None) for r in check["runs"]] == [
        (1, True),
        (2, True),
    ]
    assert check["trialsCompared"] == 2 and check["differenceCount"] == 0
    assert "interrupted after 2 of 3 repetitions finished" in result.err
    assert len(list(out.glob("run-*"))) == 2


def test_the_budget_is_the_whole_check_s_not_each_repetition_s(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]}
    make_case("bud", config={"agents": ["scripted"], "timeoutSec": 30}, plan=plan)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}}))
    priced, _ = run_cases(proctor, tmp_path, "--config", str(config), "--json")
    assert priced.code == 0, priced.err
    each = priced.json()["totals"]["costUsd"]
    assert each and each > 0
    # One trial a repetition: none passes the budget alone, the three together do, once.
    argv = ("--config", str(config), "--repeat-check", "3", "--budget-usd", f"{2.5 * each:.6f}")
    result, _ = run_cases(proctor, tmp_path, *argv)
    assert result.code == 0, result.err
    assert result.err.count("passed the budget") == 1, result.err
