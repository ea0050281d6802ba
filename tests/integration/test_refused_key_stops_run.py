"""A key a provider refused stops the run from starting further trials: every one of them would
meet the same refusal (Claude Code goes on retrying a 401 until its whole timeoutSec is spent).
The trials not started are left for `--resume`."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

KEY = "sk-ant-api03-refused-test-key-0003"

# Counts its calls in $CALLS; a key refused, or (with $OTHER) another failure.
STAND_IN = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
echo x >> "$CALLS"
if [ -n "$OTHER" ]; then echo "Segmentation fault" >&2; exit 139; fi
echo 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}' >&2
exit 1
"""


@pytest.fixture
def refusing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir()
    binary.write_text(STAND_IN)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("OTHER", raising=False)
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "mode": "headless"}
    config.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    return config


def calls(tmp_path: Path) -> int:
    return (tmp_path / "calls").read_text().count("x")


def test_an_agent_key_refused_starts_no_further_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path, refusing: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"], "repeats": 3})
    argv = ("--config", str(refusing), "--concurrency", "1")
    result, out = run_cases(proctor, tmp_path, *argv)
    assert result.code == 130, result.err  # stopped short, as an interrupted run
    assert calls(tmp_path) == 1
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "a", agent="claude-code")
    assert trial["reason"].startswith("authentication failed: API Error: 401"), trial
    assert not (run_dir / "trials/a/claude-code/default/2").exists()
    # Why it stopped, said once, in the run's exit reason: no "interrupted" line before it,
    # as of a Ctrl-C; the reports and run.json say it too.
    why = (
        "interrupted after 1 of 3 trials finished (2 not started), as a provider refused a key "
        "in trial a/claude-code/default/1 (authentication failed) and every trial after it "
        "would meet the same refusal until the key is mended; of the finished ones: "
    )
    lines = result.err.splitlines()
    assert "proctor: interrupted" not in lines, result.err
    assert result.err.count("refused a key") == 1, result.err
    assert f"proctor: exit 130: {why}" in result.err
    assert lines[-1].startswith("proctor: `proctor run --resume "), result.err
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["exitReason"].startswith(why), suite["exitReason"]
    said = json.loads((run_dir / "run.json").read_text())["stoppedBecause"]
    assert said.startswith("a provider refused a key in trial a/claude-code/default/1 ")
    report = proctor("report", str(run_dir))
    assert report.code == 130 and f"(interrupted): {why}" in report.out, report.out
    assert KEY not in result.out + result.err
    # Mended, the resume runs the two left.
    result = proctor("run", "--resume", str(run_dir))
    assert calls(tmp_path) == 2, result.err  # one more: the first of the two refused again
    assert (
        result.code == 130
        and "(1 not started), as a provider refused a key in trial "
        "a/claude-code/default/2 (authentication failed)"
        in result.err
    )


def test_control_another_agent_error_runs_every_trial(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    refusing: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTHER", "1")
    make_case("a", config={"agents": ["claude-code"], "repeats": 3})
    argv = ("--config", str(refusing), "--concurrency", "1")
    result, _out = run_cases(proctor, tmp_path, *argv)
    assert result.code == 3, result.err
    assert calls(tmp_path) == 3
    assert "refused a key" not in result.err


def test_an_answering_model_s_key_refused_starts_no_further_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A key revoked after the check before the run: the workhorse is refused."""
    make_case(
        "ask",
        config={"repeats": 2},
        plan={
            "turns": [{"ask": "Which database?", "options": ["SQLite", "Postgres"]}],
            "roles": {"workhorse": [{"status": 401}]},
        },
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"workhorse": "scripted/workhorse"}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--concurrency", "1")
    assert result.code == 130, result.err
    trial = load_trial(single_run_dir(out), "ask")
    assert trial["reason"].startswith("answering model scripted/workhorse failed: "), trial
    assert (
        "(1 not started), as a provider refused a key in trial ask/scripted/default/1 "
        "(answering model scripted/workhorse failed: authentication failed (401)) and every"
    ) in result.err, result.err
