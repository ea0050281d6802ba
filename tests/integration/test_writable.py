"""`run` and `validate` check, before anything, that the results directory and the temporary
folder (every trial's workspace and scratch home) are writable."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run


def test_an_unwritable_results_directory_stops_run_and_validate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")  # a file where the results folder should go: even root cannot
    out = blocked / "results"
    run = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    # Given as --out, refused by the option before anything (proctor.json's out, by the run).
    said = f"--out {out}: {blocked} is a file, not a folder; the results folder cannot be made"
    assert run.code == 2 and said in run.err, run.err
    validate = proctor(
        "validate", "--source", str(tmp_path / "cases"), "--config", str(_top(tmp_path, out))
    )
    assert validate.code == 2 and "cannot be made" in validate.err
    fine = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "ok"))
    assert fine.code == 0  # control
    assert stat.S_ISREG(blocked.stat().st_mode)


def _top(tmp_path: Path, out: Path) -> Path:
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"out": str(out)}))
    return top


def test_validate_does_not_make_the_results_directory(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "later"
    result = proctor(
        "validate", "--source", str(tmp_path / "cases"), "--config", str(_top(tmp_path, out))
    )
    assert result.code == 0, result.err
    assert not out.exists()


def test_a_results_directory_inside_a_fixture_is_refused(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Results inside a fixture would be copied into the next trials' workspaces."""
    make_case("a", plan={"turns": [{"say": "hi"}]}, src={"x.txt": "x"})
    cases = tmp_path / "cases"
    for out in (cases / "a" / "src" / "results", cases / "a" / "src"):
        run = proctor("run", "--source", str(cases), "--out", str(out))
        assert run.code == 2 and "inside the fixture" in run.err and "of case 'a'" in run.err
        assert not (cases / "a" / "src" / "results").exists()
    validate = proctor(
        "validate",
        "--source",
        str(cases),
        "--config",
        str(_top(tmp_path, cases / "a" / "src" / "r")),
    )
    assert validate.code == 2 and "the results directory" in validate.err
    assert "inside the fixture" in validate.err
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    looped = proctor("run", "--source", str(cases), "--out", str(loop / "results"))
    assert looped.code == 2 and "Traceback" not in looped.err
    # Controls: next to the cases (as the default is), and inside the case folder but outside
    # its fixture (`proctor run` from inside a case folder writes ./proctor-results there).
    beside = proctor("run", "--source", str(cases), "--out", str(cases / "results"))
    assert beside.code == 0, beside.err
    inside = proctor("run", "--source", str(cases / "a"), "--out", str(cases / "a" / "results"))
    assert inside.code == 0, inside.err


def test_a_results_directory_where_a_case_without_a_fixture_would_keep_one_is_refused(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A case folder without `src/`: results written there would become its fixture."""
    make_case("c", plan={"turns": [{"say": "hi"}]})
    cases = tmp_path / "cases"
    run = proctor("run", "--source", str(cases), "--out", str(cases / "c" / "src" / "res"))
    assert run.code == 2 and f"inside {cases / 'c' / 'src'}, where case 'c' keeps" in run.err
    assert not (cases / "c" / "src").exists()
    # The control: beside it, in the case folder, the run goes on.
    beside = proctor("run", "--source", str(cases), "--out", str(cases / "c" / "res"))
    assert beside.code == 0, beside.err


def test_numbers_no_clock_or_timer_holds_are_refused_by_validate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """An evaluator's timeout of 1e300, a NaN weight-like number, or a plan's endless sleep
    passed validation and then crashed every trial; now each is one sentence and exit 2."""
    cases = [
        ("big", {"evaluators": [{"use": "command", "run": "true", "timeoutSec": 1e300}]}, None),
        (
            "inf",
            '{"evaluators": [{"use": "external", "command": "x", "timeoutSec": Infinity}]}',
            None,
        ),
        ("sleep", None, {"turns": [{"sleep": 1e400}]}),
        ("shell", None, {"turns": [{"shell": "true", "timeoutSec": 1e12}]}),
    ]
    for name, config, plan in cases:
        if isinstance(config, dict):
            config = json.dumps({"agents": ["scripted"], **config})
        elif config is not None:
            config = '{"agents": ["scripted"], ' + config[1:]
        plan_text = json.dumps(plan).replace("1e400", "Infinity") if plan else None
        folder = make_case(name, config=config, plan={"turns": [{"say": "x"}]})
        if plan_text:
            (folder / "plan.json").write_text(plan_text.replace("Infinity", "1e400"))
        checked = proctor("validate", "--source", str(folder))
        assert checked.code == 2 and "Traceback" not in checked.err, (name, checked.err)


@pytest.mark.parametrize("rubric", ["/etc/passwd", "../outside.md", "sub/../../outside.md"])
def test_a_judge_rubric_outside_the_case_folder_is_refused(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    rubric: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "ANTHROPIC_API_KEY", "sk-ant-not-a-real-key-0000"
    )  # validate checks it is set
    (tmp_path / "cases").mkdir(exist_ok=True)
    (tmp_path / "cases" / "outside.md").write_text("not the case's\n")
    judge = {"use": "llm-judge", "rubric": rubric, "model": "anthropic/claude-x"}
    folder = make_case("judged", config={"agents": ["scripted"], "evaluators": [judge]})
    (folder / "evaluation.md").write_text("Score it.\n")
    checked = proctor("validate", "--source", str(folder))
    assert checked.code == 2 and "outside the case folder" in checked.err, checked.err
    # control: the case's own rubric, also through a folder of the case
    (folder / "sub").mkdir()
    inside = {"use": "llm-judge", "rubric": "sub/../evaluation.md", "model": "anthropic/claude-x"}
    make_case("judged", config={"agents": ["scripted"], "evaluators": [inside]})
    assert proctor("validate", "--source", str(folder)).code == 0


def test_a_folder_where_a_trial_json_goes_is_named_as_the_record_not_a_temp_file(
    make_case: MakeCase, tmp_path: Path
) -> None:
    """A folder put where a trial's record goes while it runs: its worker says it could not
    write that record, naming `trial.json`, not the temp file it wrote first (which is gone)."""
    out = tmp_path / "out"
    trial = "trials/a/scripted/default/1/trial.json"
    mkdir = f"find {out} -maxdepth 1 -name 'run-2*' -exec mkdir -p {{}}/{trial} ';'"
    make_case("a", plan={"turns": [{"shell": mkdir}, {"say": "done"}]})
    argv = ["run", "--source", str(tmp_path / "cases"), "--out", str(out)]
    run = subprocess.run(
        [sys.executable, "-m", "proctor", *argv], capture_output=True, text=True, timeout=120
    )
    record = next(out.glob("run-*")) / trial
    assert record.is_dir(), run.stderr
    said = f"proctor: trial a/scripted/default/1 was not recorded: {record}: Is a directory"
    assert said in run.stderr, run.stderr
    assert ".tmp" not in run.stderr and "Traceback" not in run.stderr
