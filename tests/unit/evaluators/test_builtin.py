import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.models.trajectory import Event, make_event
from tests.unit.evaluators.helpers import context, evaluate


def test_file_exists_passes_when_globs_hold(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (ctx.workspace / "hello.txt").write_text("hi")
    (ctx.workspace / "pkg").mkdir()
    (ctx.workspace / "pkg" / "mod.py").write_text("")
    r = evaluate(
        {"use": "file-exists", "must": ["hello.txt", "**/*.py"], "mustNot": ["*.orig"]}, ctx
    )
    assert r.passed and r.score == 100 and not r.error


def test_file_exists_control_missing_file_fails(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (ctx.workspace / "x.orig").write_text("")
    r = evaluate({"use": "file-exists", "must": ["hello.txt"], "mustNot": ["*.orig"]}, ctx)
    assert not r.passed and r.score == 0 and not r.error
    assert "missing: hello.txt" in r.message and "x.orig" in r.message


@pytest.mark.parametrize("pattern", ["../outside.txt", "/etc/passwd", "", ".", "  "])
def test_file_exists_patterns_stay_inside_the_workspace(tmp_path: Path, pattern: str) -> None:
    ctx = context(tmp_path)
    with pytest.raises(ConfigError, match="is not a pattern for files in the workspace"):
        evaluate({"use": "file-exists", "must": [pattern]}, ctx)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"use": "trajectory-check", "toolPattern": "Bash", "min": 3, "max": 1}, "below min"),
        ({"use": "trajectory-check", "toolPattern": {}}, "at least one agent"),
        ({"use": "command", "run": "true", "weight": 1e999}, "from 0 to 1000000"),
        # 1e307 is finite, but 100 times it is not: every trial's weighted mean was NaN.
        ({"use": "command", "run": "true", "weight": 1e307}, r"from 0 to 1000000 .*got 1e\+307"),
        ({"use": "command", "run": "true", "weight": -1}, "from 0 to 1000000"),
        ({"use": "command", "run": "true", "gate": None}, "expected true or false, got null"),
        ({"use": "command", "run": "true", "label": True}, "expected a string, got true"),
    ],
)
def test_entries_that_could_never_work_are_config_errors(
    tmp_path: Path, entry: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        evaluate(entry, context(tmp_path))


def test_command_checks_the_exit_code_and_saves_output(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    r = evaluate({"use": "command", "run": "echo hello; exit 3", "expectExit": 3}, ctx)
    assert r.passed
    log = ctx.trial.root / r.details["log"]
    assert "hello" in log.read_text()


def test_command_control_wrong_exit_fails(tmp_path: Path) -> None:
    r = evaluate({"use": "command", "run": "exit 1"}, context(tmp_path))
    assert not r.passed and not r.error and r.details["exitCode"] == 1


def test_command_runs_in_the_workspace(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (ctx.workspace / "marker").write_text("")
    assert evaluate({"use": "command", "run": "test -f marker"}, ctx).passed


def test_command_timeout_fails(tmp_path: Path) -> None:
    r = evaluate({"use": "command", "run": "sleep 5", "timeoutSec": 0.3}, context(tmp_path))
    assert not r.passed and "timed out" in r.message


def _calls(*names: str) -> list[Event]:
    return [
        make_event(
            "tool_call",
            id=str(i),
            name=n,
            kind="shell" if n == "Bash" else "other",
            input={"command": f"run {n}"},
        )
        for i, n in enumerate(names)
    ]


def test_trajectory_check_counts_matching_calls(tmp_path: Path) -> None:
    ctx = context(tmp_path, _calls("Bash", "Read", "Bash"))
    r = evaluate({"use": "trajectory-check", "toolPattern": "Bash|shell", "min": 2, "max": 2}, ctx)
    assert r.passed and r.metrics["matched_calls"] == 2


def test_trajectory_check_control_no_match_fails(tmp_path: Path) -> None:
    ctx = context(tmp_path, _calls("Read", "BashOutput"))
    r = evaluate({"use": "trajectory-check", "toolPattern": "Bash"}, ctx)
    assert not r.passed and r.metrics["matched_calls"] == 0


def test_trajectory_check_max_is_enforced(tmp_path: Path) -> None:
    ctx = context(tmp_path, _calls("Bash", "Bash", "Bash"))
    assert not evaluate({"use": "trajectory-check", "toolPattern": "Bash", "max": 2}, ctx).passed


def test_trajectory_check_per_agent_map(tmp_path: Path) -> None:
    ctx = context(tmp_path, _calls("Bash"), agent="codex")
    entry = {"use": "trajectory-check", "toolPattern": {"scripted": "Nope", "codex": "Bash"}}
    assert evaluate(entry, ctx).passed
    entry = {"use": "trajectory-check", "toolPattern": {"scripted": "Bash"}}
    assert not evaluate(entry, ctx).passed


def test_trajectory_check_input_pattern(tmp_path: Path) -> None:
    ctx = context(tmp_path, _calls("Bash"))
    base = {"use": "trajectory-check", "toolPattern": "Bash"}
    assert evaluate({**base, "inputPattern": "run Bash"}, ctx).passed
    assert not evaluate({**base, "inputPattern": "pytest"}, ctx).passed


def _scorer(tmp_path: Path, body: str) -> list[str]:
    script = tmp_path / "case" / "score.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text("import json, sys\npaths = json.load(sys.stdin)\n" + body)
    return [sys.executable, "score.py"]


def _external(tmp_path: Path, body: str, **extra: object) -> object:
    ctx = context(tmp_path)
    command, *args = _scorer(tmp_path, body)
    return evaluate({"use": "external", "command": command, "args": args, **extra}, ctx)


def test_external_values_become_metrics(tmp_path: Path) -> None:
    body = (
        "assert paths['workspace'] and paths['trajectory'] and paths['caseDir']\n"
        "print(json.dumps({'values': [{'name': 'quality', 'value': 80, 'confidenceLevel': 70},"
        " {'name': 'style', 'value': 40}]}))\n"
    )
    r = _external(tmp_path, body, scoreMetric="quality", passThreshold=75)
    assert r.passed and r.score == 80 and not r.error  # type: ignore[attr-defined]
    assert r.metrics == {"quality": 80, "style": 40}  # type: ignore[attr-defined]
    assert r.details["levels"] == {"quality": {"confidenceLevel": 70}}  # type: ignore[attr-defined]


def test_external_low_score_fails_without_error(tmp_path: Path) -> None:
    body = "print(json.dumps({'values': [{'name': 'q', 'value': 10}]}))\n"
    r = _external(tmp_path, body, scoreMetric="q")
    assert not r.passed and not r.error  # type: ignore[attr-defined]
    assert r.counted  # type: ignore[attr-defined]


def test_external_values_without_score_metric_are_metrics_only(tmp_path: Path) -> None:
    body = (
        "print(json.dumps({'values': [{'name': 'q', 'value': 10}, {'name': 'r', 'value': 90}]}))\n"
    )
    r = _external(tmp_path, body)
    assert r.metrics == {"q": 10, "r": 90}  # type: ignore[attr-defined]
    assert not r.counted and not r.error  # type: ignore[attr-defined]
    assert "not scored" in r.message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("print(json.dumps({'values': [{'name': 'q', 'value': 101}]}))", "from 0 to 100"),
        ("print(json.dumps({'values': [{'name': 'q', 'value': -1}]}))", "from 0 to 100"),
        ("print(json.dumps({'values': [{'name': 'q', 'value': True}]}))", "from 0 to 100"),
        (
            "print(json.dumps({'values': [{'name': 'q', 'value': 5, 'confidenceLevel': 300}]}))",
            "confidenceLevel",
        ),
        ("print(json.dumps({'values': [{'value': 5}]}))", "name is missing"),
        ("print(json.dumps({'values': [{'name': 'q'}]}))", "has no value"),
        ("print('not json')", "not JSON"),
        ("print(json.dumps({'values': []}))", "empty"),
        ("sys.exit(4)", "exited 4"),
        ("import time; time.sleep(5)", "timed out"),
    ],
)
def test_external_bad_output_is_an_error_not_a_low_score(
    tmp_path: Path, body: str, message: str
) -> None:
    r = _external(tmp_path, body, timeoutSec=0.5)
    assert r.error and not r.passed, r  # type: ignore[attr-defined]
    assert message in r.message  # type: ignore[attr-defined]


def test_external_unknown_score_metric_is_an_error(tmp_path: Path) -> None:
    body = "print(json.dumps({'values': [{'name': 'q', 'value': 50}]}))\n"
    r = _external(tmp_path, body, scoreMetric="missing")
    assert r.error  # type: ignore[attr-defined]


def test_external_missing_program_is_an_error(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    r = evaluate({"use": "external", "command": "no-such-program-xyz"}, ctx)
    assert r.error and "not found" in r.message


def test_external_never_uses_a_shell(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    body = (
        "open('argv.json', 'w').write(json.dumps(sys.argv[1:]))\n"
        "print(json.dumps({'values': [{'name': 'argv', 'value': 100}]}))\n"
    )
    command, *args = _scorer(tmp_path, body)
    r = evaluate({"use": "external", "command": command, "args": [*args, "; touch pwned"]}, ctx)
    assert r.passed
    assert json.loads((ctx.case_dir / "argv.json").read_text()) == ["; touch pwned"]
    assert not (ctx.case_dir / "pwned").exists() and not (ctx.workspace / "pwned").exists()
    # Control: the same command line through a shell does run the planted command.
    subprocess.run(
        " ".join([command, *args, "; touch pwned"]), shell=True, cwd=ctx.case_dir, check=False
    )
    assert (ctx.case_dir / "pwned").exists()


def test_trajectory_check_input_pattern_sees_the_text_as_written(tmp_path: Path) -> None:
    call = make_event(
        "tool_call", name="Bash", kind="shell", input={"command": 'grep "x y" café.txt'}
    )
    ctx = context(tmp_path, [call])
    base = {"use": "trajectory-check", "toolPattern": "Bash"}
    assert evaluate({**base, "inputPattern": 'grep "x y" café'}, ctx).passed
    failed = evaluate({**base, "inputPattern": "pytest"}, ctx)
    assert not failed.passed and "with input /pytest/" in failed.message
