"""`--retry-errors N`: a transient agent error runs again and every attempt is kept; a failure,
a timeout or an authentication error never runs again."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

# First call: overloaded (transient); every later call: not logged in (not transient).
FLAKY_CLAUDE = """#!/bin/sh
case "$1" in --version) echo '2.1.197 (Claude Code)'; exit 0;; esac
echo x >> "$COUNTER"
if [ "$(wc -l < "$COUNTER")" -eq 1 ]; then
  echo 'API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}' >&2
else
  echo "Not logged in · Please run /login" >&2
fi
exit 1
"""


@pytest.fixture
def flaky(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir()
    binary.write_text(FLAKY_CLAUDE)
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("COUNTER", str(tmp_path / "calls"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000")
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "mode": "headless"}
    config.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    return config


def test_a_transient_error_runs_again_and_every_attempt_is_kept(
    proctor: Run, make_case: MakeCase, tmp_path: Path, flaky: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(flaky), "--retry-errors", "3")
    assert result.code == 3
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "a", agent="claude-code")
    assert trial["reason"].startswith("authentication failed")  # the last attempt
    assert [(a["status"], a["reason"][:19], a["folder"]) for a in trial["attempts"]] == [
        ("agent-error", "provider overloaded", "attempts/1")
    ]  # the auth error was not retried: two calls in all
    assert (tmp_path / "calls").read_text().count("x") == 2
    first = run_dir / "trials/a/claude-code/default/1/attempts/1"
    assert "529" in (first / "agent-stderr.log").read_text()
    assert json.loads((first / "trial.json").read_text())["reason"].startswith("provider")
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["totals"]["retried"] == 1 and suite["totals"]["n"] == 1
    assert "- Retries: 1 trial ran again after a transient error" in result.out


def test_a_retried_attempt_has_its_journal_line(
    proctor: Run, make_case: MakeCase, tmp_path: Path, flaky: Path
) -> None:
    """The attempt that ran again is in the journal (``trial-retried``: its number, status,
    reason and folder), between its ``trial-started`` and the next attempt's."""
    make_case("a", config={"agents": ["claude-code"]})
    _, out = run_cases(proctor, tmp_path, "--config", str(flaky), "--retry-errors", "3")
    run_dir = single_run_dir(out)
    lines = [json.loads(line) for line in (run_dir / "journal.jsonl").read_text().splitlines()]
    trial = [e for e in lines if e["event"].startswith("trial-")]
    assert [e["event"] for e in trial] == [
        "trial-started",
        "trial-retried",
        "trial-started",
        "trial-finished",
    ]
    retried = trial[1]
    key = (retried["case"], retried["agent"], retried["condition"], retried["repeat"])
    assert key == ("a", "claude-code", "default", 1)
    assert (retried["attempt"], retried["status"], retried["folder"]) == (
        1,
        "agent-error",
        "attempts/1",
    )
    first = run_dir / "trials/a/claude-code/default/1" / retried["folder"] / "trial.json"
    reason = json.loads(first.read_text())["reason"]
    assert retried["reason"] == reason and reason.startswith("provider overloaded")
    assert trial[0]["time"] <= retried["time"] <= trial[2]["time"]


def test_a_retried_attempt_is_said_in_the_progress_lines(
    proctor: Run, make_case: MakeCase, tmp_path: Path, flaky: Path
) -> None:
    """While the run goes, a line says the trial runs again, which attempt of how many, and
    why (``retrying … (attempt 2 of 4): agent-error: provider overloaded …``), before the
    trial's final line."""
    make_case("a", config={"agents": ["claude-code"]})
    result, _ = run_cases(proctor, tmp_path, "--config", str(flaky), "--retry-errors", "3")
    said = result.err.splitlines()
    retrying = [i for i, line in enumerate(said) if line.startswith("retrying ")]
    assert len(retrying) == 1, said
    assert said[retrying[0]].startswith(
        "retrying a/claude-code/default/1 (attempt 2 of 4): agent-error: provider overloaded"
    ), said
    final = next(i for i, line in enumerate(said) if line.startswith("[1/1] "))
    assert retrying[0] < final and "authentication failed" in said[final], said


def test_control_without_retries_the_first_error_stands(
    proctor: Run, make_case: MakeCase, tmp_path: Path, flaky: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"]})
    result, out = run_cases(proctor, tmp_path, "--config", str(flaky))
    trial = load_trial(single_run_dir(out), "a", agent="claude-code")
    assert trial["reason"].startswith("provider overloaded") and trial["attempts"] == []
    assert "Retries" not in result.out


def test_failures_and_timeouts_never_run_again(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "fails",
        config={"evaluators": [{"use": "file-exists", "must": ["missing.txt"]}]},
        plan={"turns": [{"say": "hi"}]},
    )
    make_case("slow", config={"timeoutSec": 1}, plan={"turns": [{"shell": "sleep 5"}]})
    _, out = run_cases(proctor, tmp_path, "--retry-errors", "2")
    run_dir = single_run_dir(out)
    assert load_trial(run_dir, "fails")["status"] == "failed"
    assert load_trial(run_dir, "slow")["status"] == "timeout"
    assert load_trial(run_dir, "fails")["attempts"] == load_trial(run_dir, "slow")["attempts"] == []
    assert not list(run_dir.rglob("attempts"))


def test_a_resume_given_retry_errors_0_retries_nothing(
    proctor: Run, make_case: MakeCase, tmp_path: Path, flaky: Path
) -> None:
    """`--resume RUN --retry-errors 0` stands for the run's own `--retry-errors 3`: the trial
    it runs ends at its first transient error. Left out, the run's own would have run it
    again (the option given as 0 was once read as left out)."""
    make_case("a", config={"agents": ["claude-code"]})
    _, out = run_cases(proctor, tmp_path, "--config", str(flaky), "--retry-errors", "3")
    run_dir = single_run_dir(out)
    trial = run_dir / "trials/a/claude-code/default/1"
    for entry in trial.iterdir():  # never started, as far as a resume can tell
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    (tmp_path / "calls").unlink()
    resumed = proctor("run", "--resume", str(run_dir), "--retry-errors", "0")
    assert "0 kept, 1 run now" in resumed.err, resumed.err
    record = load_trial(run_dir, "a", agent="claude-code")
    assert record["reason"].startswith("provider overloaded") and record["attempts"] == []
    assert (tmp_path / "calls").read_text().count("x") == 1
