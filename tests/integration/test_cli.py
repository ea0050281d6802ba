"""Errors users can fix are one sentence and exit 2; validate and report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import single_run_dir, write_case


@pytest.mark.parametrize(
    ("setup", "args", "expected"),
    [
        (lambda c: write_case(c, "x", config="{oops"), (), "malformed JSON at line 1"),
        (lambda c: write_case(c, "x", config={"repeats": "2x"}), (), "field 'repeats'"),
        (
            lambda c: write_case(c, "x", config={"evaluators": [{"use": "nope"}]}),
            (),
            "unknown evaluator 'nope'",
        ),
        (
            lambda c: write_case(c, "x"),
            ("--agent", "ghost"),
            "--agent ghost: unknown agent 'ghost'",
        ),
        (
            lambda c: write_case(c, "x", config={"agents": ["ghost"]}),
            (),
            "field 'agents[0]': unknown agent 'ghost'",
        ),
        (
            lambda c: write_case(c, "x"),
            ("--case", "nomatch"),
            "--case nomatch: no case matches (cases: x)",
        ),
        (  # a typo beside a name that matches: refused, not a run of less than was asked
            lambda c: write_case(c, "x"),
            ("--case", "x", "--case", "nomatch"),
            "--case nomatch: no case matches (cases: x)",
        ),
        (  # a tag no case carries: named, with the tags there are
            lambda c: write_case(c, "x", config={"tags": ["smoke"]}),
            ("--tag", "nomatch"),
            "--tag nomatch: no case carries it (tags: smoke)",
        ),
        (  # a near miss of a name, a tag or a condition names the one meant
            lambda c: write_case(c, "fix-a-bug"),
            ("--case", "fix-a-bgu"),
            "--case fix-a-bgu: no case matches (did you mean 'fix-a-bug'? cases: fix-a-bug)",
        ),
        (
            lambda c: write_case(c, "x", config={"tags": ["smoke"]}),
            ("--tag", "smok"),
            "--tag smok: no case carries it (did you mean 'smoke'? tags: smoke)",
        ),
        (
            lambda c: write_case(c, "x", config={"conditions": {"base": {}, "with-skill": {}}}),
            ("--condition", "with-skil"),
            "--condition with-skil: case 'x' has no such condition (did you mean "
            "'with-skill'? its conditions: base, with-skill)",
        ),
        (
            lambda c: write_case(c, "x", config={"conditions": {"base": {}, "with-skill": {}}}),
            ("--first-condition", "bas"),
            "--first-condition bas: no case has that condition (did you mean 'base'? "
            "conditions: base, with-skill)",
        ),
        (
            lambda c: (write_case(c, "x"), write_case(c, "y", config={"tags": ["slow"]})),
            ("--case", "x", "--tag", "slow"),
            "--tag slow: no case --case picks carries it (tags: none)",
        ),
        (  # a name that matches a skipped case: its skip line says why, not "no case matches"
            lambda c: (write_case(c, "x"), write_case(c, "y", prompt="  ")),
            ("--case", "y"),
            "nothing runnable (skipped: y: prompt.md is empty)",
        ),
        (  # a project of evals written as code: the command that runs them
            lambda c: (c / "evals").mkdir() or (c / "evals" / "a.eval.py").write_text("x = 1\n"),
            (),
            "it holds evals written as code: `proctor eval --dir ",
        ),
        (  # an empty folder: what a case folder is, not "no case matched"
            lambda c: None,
            (),
            "nothing runnable (no case folder, one holding prompt.md and config.json, nor a task "
            "file there)",
        ),
        (lambda c: write_case(c, "x"), ("--config", "/nonexistent/proctor.json"), "no such file"),
    ],
)
def test_run_config_errors_exit_2_with_one_sentence(
    proctor: Any, tmp_path: Path, setup: Any, args: tuple[str, ...], expected: str
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    setup(cases)
    result = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"), *args)
    assert result.code == 2
    assert expected in result.err
    assert "Traceback" not in result.err
    errors = [line for line in result.err.splitlines() if line.startswith("proctor: error:")]
    assert len(errors) == 1
    assert not (tmp_path / "out").exists()


def test_validate_says_why_nothing_is_runnable(proctor: Any, tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "a.eval.py").write_text("x = 1\n")
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2 and "Traceback" not in result.err
    assert f"--source {tmp_path}: nothing runnable (skipped: evals: missing required file" in (
        result.err
    )
    assert f"`proctor eval --dir {tmp_path}` runs them" in result.err


def test_missing_source_exits_2(proctor: Any, tmp_path: Path) -> None:
    result = proctor("run", "--source", str(tmp_path / "missing"))
    assert result.code == 2 and "no such file or directory" in result.err


def test_bad_top_config_names_the_field(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "x")
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"gate": {"minPassRate": 2}}))
    result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(top))
    assert result.code == 2
    assert f"proctor: error: {top}: field 'gate.minPassRate'" in result.err


def test_validate_lists_runnable_and_skipped(proctor: Any, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "good", plan={"turns": []}, qna="```rules\na => b\n```\n")
    (cases / "half").mkdir()
    (cases / "half" / "config.json").write_text("{}")
    result = proctor("validate", "--source", str(cases))
    assert result.code == 0
    assert "ok       good: agents scripted; repeats 1; 0 evaluators; plan.json; 1 qna rule" in (
        result.out
    )
    assert "skipped  half: missing required file prompt.md" in result.out
    # A case's A/B conditions are named, in the order the matrix takes them.
    ab = {"conditions": {"baseline": {}, "with-skill": {}}}
    write_case(cases, "paired", config=ab, plan={"turns": []})
    listed = proctor("validate", "--source", str(cases))
    assert "ok       paired: agents scripted; conditions baseline, with-skill; repeats 1;" in (
        listed.out
    ), listed.err


def test_validate_exits_2_on_config_error(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "bad", config={"timeoutSec": -1})
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert result.code == 2 and "field 'timeoutSec'" in result.err
    assert len(result.err.strip().splitlines()) == 1  # one problem: one sentence


def test_validate_reports_every_problem_of_every_case_in_one_pass(
    proctor: Any, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "bad-timeout", config={"timeoutSec": -1})
    write_case(cases, "bad-evaluator", config={"evaluators": [{"use": "no-such-evaluator"}]})
    write_case(cases, "bad-plan", plan={"turns": [{"teleport": {}}]})
    write_case(cases, "good", plan={"turns": []})
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"gate": {"minPassRate": 2}}))
    result = proctor("validate", "--source", str(cases), "--config", str(top))
    assert result.code == 2, result.out + result.err
    prefix = "proctor: error: "
    errors = [line for line in result.err.splitlines() if line.startswith(prefix)][:-1]
    assert len(errors) == 4, result.err  # the top-level file and the three cases, at once
    assert any("timeoutSec" in e for e in errors) and any("no-such-evaluator" in e for e in errors)
    assert any("bad-plan" in e or "teleport" in e for e in errors)
    assert "ok       good:" in result.out
    # 3 cases and proctor.json; the three broken cases among the 4 found
    assert "1 runnable of 4 cases found, 0 skipped, 4 problems, " in result.out
    assert "Traceback" not in result.err
    # Control: `run` still stops at the first problem, before any trial.
    run = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert run.code == 2 and not (tmp_path / "out").exists()


def test_report_recomputes_with_new_thresholds_without_rerunning(
    proctor: Any, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "flaky",
        config={"repeats": 3, "evaluators": [{"use": "file-exists", "must": ["ok.txt"]}]},
        plan={"variants": [[{"write": {"path": "ok.txt", "content": ""}}], [{"say": "no"}]]},
    )
    result = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert result.code == 1
    run_dir = single_run_dir(tmp_path / "out")
    stamps = {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()}

    again = proctor("report", str(run_dir), "--reporter", "json")
    assert again.code == 1
    stored = json.loads((run_dir / "suite.json").read_text())
    assert again.json()["groups"] == stored["groups"]

    lenient = tmp_path / "lenient.json"
    lenient.write_text(json.dumps({"gate": {"minPassRate": 0.6}}))
    relaxed = proctor("report", str(run_dir), "--config", str(lenient), "--reporter", "json")
    assert relaxed.code == 0
    assert relaxed.json()["groups"][0]["passRate"] == pytest.approx(2 / 3)
    assert {p: p.stat().st_mtime_ns for p in run_dir.rglob("*") if p.is_file()} == stamps

    md = proctor("report", str(run_dir))
    assert "| flaky | scripted | default | 2/3 |" in md.out


def test_report_refuses_a_newer_schema(proctor: Any, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "x", plan={"turns": []})
    proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    run_dir = single_run_dir(tmp_path / "out")
    trial = run_dir / "trials/x/scripted/default/1/trial.json"
    data = json.loads(trial.read_text())
    data["schemaVersion"] = 99
    trial.write_text(json.dumps(data))
    result = proctor("report", str(run_dir))
    assert result.code == 2 and "schemaVersion 99 is newer" in result.err


def test_report_on_a_folder_without_trials(proctor: Any, tmp_path: Path) -> None:
    result = proctor("report", str(tmp_path))
    assert result.code == 2 and "is this a run folder?" in result.err


def test_report_and_compare_of_runs_stopped_before_any_trial_say_so(
    proctor: Any, tmp_path: Path
) -> None:
    """A run folder holding no run.json and no trial (a run stopped as its folder was made),
    or a results directory of only such folders, is said to be that, as --resume says it."""
    out = tmp_path / "out"
    empty = out / "run-20261207T104508Z-6578a6"
    empty.mkdir(parents=True)
    said = "or a run stopped before it started any trial; start a new run"
    for command in ("report", "compare"):
        result = proctor(command, str(empty))
        assert result.code == 2 and f"{empty}: not a run folder (no run.json and no trial " in (
            result.err
        )
        assert said in result.err and "is this a run folder" not in result.err
    result = proctor("report", str(out))
    assert result.code == 2
    assert (
        f"{out}: a results directory whose run folders (run-20261207T104508Z-6578a6) hold no "
        "run (no run.json and no trial record: runs stopped before they started any trial); "
        "start a new run"
    ) in result.err
    resumed = proctor("run", "--resume", str(empty))
    assert resumed.code == 2 and "a run stopped before it started any trial" in resumed.err


def test_a_folder_inside_a_run_folder_given_for_it_names_the_run_folder(
    proctor: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`proctor report RUN/trials` or a trial's folder (one level or more too deep) names the
    run folder that holds it, never asks whether it is one."""
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "x", plan={"turns": []})
    proctor("run", "--source", str(cases), "--out", str(out))
    run_dir = single_run_dir(out)
    for inside in (run_dir / "trials", run_dir / "trials/x/scripted/default/1"):
        result = proctor("report", str(inside))
        assert result.code == 2 and "Traceback" not in result.err
        assert (
            f"{inside}: a folder inside the run folder {run_dir}, not a run folder; name the "
            "run folder"
        ) in result.err
    monkeypatch.chdir(run_dir / "trials" / "x")
    here = proctor("report", ".")
    assert here.code == 2 and f"inside the run folder {run_dir}, not" in here.err
    monkeypatch.chdir(run_dir)  # named from inside the run: by its path, not "."
    below = proctor("report", "trials")
    assert f"inside the run folder {run_dir}, not" in below.err, below.err
    # A project's own run.json above a folder that is no run's makes it no run folder.
    project = tmp_path / "proj"
    (project / "results" / "oops").mkdir(parents=True)
    (project / "run.json").write_text("{}")
    monkeypatch.chdir(project)
    other = proctor("report", "results/oops")
    assert other.code == 2 and "inside the run folder" not in other.err, other.err


def test_a_results_directory_given_for_a_run_folder_names_its_newest_run(
    proctor: Any, tmp_path: Path
) -> None:
    """`proctor report proctor-results` (one level too high): report, compare and annotate
    say it is a results directory and name its newest run folder."""
    cases, out = tmp_path / "cases", tmp_path / "out"
    write_case(cases, "x", plan={"turns": []})
    proctor("run", "--source", str(cases), "--out", str(out))
    run_dir = single_run_dir(out)
    expected = f"{out}: a results directory, not a run folder; name "
    for args in (
        ("report", str(out)),
        ("compare", str(out)),
        ("annotate", str(out), "x/scripted/default/1", "--verdict", "failed", "--note", "n"),
    ):
        result = proctor(*args)
        assert result.code == 2 and expected in result.err, args
        assert f"(the newest: {run_dir})" in result.err and "Traceback" not in result.err
    assert not (out / "annotations.json").exists()


def test_an_add_on_zip_is_checked_as_a_src_zip_is(proctor: Any, tmp_path: Path) -> None:
    import zipfile

    cases = tmp_path / "cases"
    write_case(cases, "p", config={"provision": {"skills": [{"name": "s", "path": "skill.zip"}]}})
    skill = cases / "p" / "skill.zip"
    with zipfile.ZipFile(skill, "w") as zf:
        zf.writestr("s/SKILL.md", "# a skill\n")
    assert proctor("validate", "--source", str(cases)).code == 0  # the control: a good zip
    skill.write_bytes(b"PK\x03\x04 not a zip at all")
    result = proctor("validate", "--source", str(cases))
    assert result.code == 2 and "field 'provision.skills[0].path'" in result.err
    assert "not a valid zip file" in result.err and "Traceback" not in result.err
    skill.unlink()
    (cases / "p" / "skill.txt").write_text("a file\n")
    write_case(cases, "p", config={"provision": {"skills": [{"name": "s", "path": "skill.txt"}]}})
    result = proctor("validate", "--source", str(cases))
    assert result.code == 2 and "is neither a folder nor a .zip" in result.err


def test_help_lists_commands(proctor: Any) -> None:
    result = proctor("--help")
    assert result.code == 0
    for name in ("run", "validate", "report"):
        assert name in result.out


def test_missing_add_on_paths_are_config_errors(proctor: Any, tmp_path: Path) -> None:
    write_case(
        tmp_path / "cases", "p", config={"provision": {"plugins": [{"name": "x", "path": "nope"}]}}
    )
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert (
        result.code == 2
        and "field 'provision.plugins[0].path'" in result.err
        and "does not exist" in result.err
    )
    write_case(tmp_path / "c2", "m", config={"provision": {"mcps": [{"name": "x"}]}})
    result = proctor("validate", "--source", str(tmp_path / "c2"))
    assert result.code == 2 and "give 'command' or 'url'" in result.err


def test_a_run_time_limit_past_a_day_is_refused_as_a_bad_option(proctor: Any) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "cases"
    result = proctor("run", "--source", str(examples), "--timeout", "1e9")
    assert result.code == 2 and "'--timeout'" in result.err and "86400" in result.err
    assert "Traceback" not in result.err
