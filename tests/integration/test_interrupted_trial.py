"""Ctrl-C during a trial: the trial is recorded as interrupted without keeping its workspace
(``--resume`` runs it again in a fresh one), so a large workspace cannot hold up the stop; what
the agent showed and wrote until then (its terminal, its transcript) is kept."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from starlette.testclient import TestClient

from proctor.view import ViewSettings, build_app
from tests.conftest import write_case
from tests.integration.test_resume import proctor_argv


def test_an_interrupted_trial_keeps_no_workspace(tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    started = tmp_path / "shell-started"  # written once a.txt is in the workspace
    shell = f"test -f a.txt && touch {shlex.quote(str(started))}; sleep 30"
    plan = {"turns": [{"write": {"path": "a.txt", "content": "a\n"}}, {"shell": shell}]}
    write_case(cases, "long", plan=plan)
    out = tmp_path / "out"
    run = subprocess.Popen(
        proctor_argv("run", "--source", str(cases), "--out", str(out), "--keep-workspace"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not started.exists() and run.poll() is None:
        time.sleep(0.05)
    if not started.exists():  # (a.txt written: the stop comes mid-trial)
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError(f"the shell step never started: {run.communicate()[1]}")
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    # Its line says the stop cut it short, as `proctor eval`'s does, not an infra-error.
    assert "[1/1] interrupted long/scripted/default/1: the run was stopped" in err, err
    (trial,) = out.glob("run-*/trials/long/scripted/default/1")
    record = json.loads((trial / "trial.json").read_text())
    assert record["reason"].startswith("interrupted:"), record["reason"]
    assert record.get("workspace") is None and not (trial / "workspace").exists()
    # suite.json counts it apart from the errors it is recorded among.
    suite = json.loads((trial.parents[4] / "suite.json").read_text())
    assert (suite["groups"][0]["cutShort"], suite["totals"]["cutShort"]) == (1, 1)
    assert suite["totals"]["statusCounts"] == {"infra-error": 1}


def _shown_by_agent(out: Path, text: str) -> bool:
    """Whether the running trial's agent has written ``text`` into its native transcript."""
    for journal in out.glob("run-*/journal.jsonl"):
        for line in journal.read_text().splitlines():
            scratch = json.loads(line).get("scratch") if line.strip() else None
            if scratch and any(
                text in p.read_text(errors="replace")
                for p in Path(scratch).glob("*/home/.claude/projects/*/*.jsonl")
            ):
                return True
    return False


def test_an_interrupted_terminal_trial_keeps_what_the_agent_showed(tmp_path: Path) -> None:
    """Ctrl-C mid-turn (twice, as an impatient user does) leaves the trial's terminal
    (screen.log, terminal.raw), its transcript and trajectory, whole, and report and the viewer
    read them."""
    cases = tmp_path / "cases"
    config = {"agents": ["scripted"], "timeoutSec": 60, "mode": "interactive"}
    plan = {
        "turns": [
            {"write": {"path": "a.txt", "content": "a\n"}},
            {"say": "working on it"},
            {"sleep": 20},
        ]
    }
    write_case(cases, "long", config=config, plan=plan)
    out = tmp_path / "out"
    run = subprocess.Popen(
        proctor_argv("run", "--source", str(cases), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not _shown_by_agent(out, "working on it"):
        time.sleep(0.05)
    time.sleep(0.3)  # on its screen too
    os.killpg(run.pid, signal.SIGINT)
    time.sleep(0.1)
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    (trial,) = out.glob("run-*/trials/long/scripted/default/1")
    record = json.loads((trial / "trial.json").read_text())
    assert record["reason"].startswith("interrupted:"), record["reason"]
    assert "working on it" in (trial / "screen.log").read_text()
    assert b"working on it" in (trial / "terminal.raw").read_bytes()
    assert record["transcript"]["raw"] == "raw-transcript.jsonl"
    assert record["transcript"]["trajectory"] == "trajectory.jsonl"
    events = [json.loads(line) for line in (trial / "trajectory.jsonl").read_text().splitlines()]
    assert any(e.get("text") == "working on it" for e in events), events
    assert record["transcript"]["events"] == len(events)
    assert record["timings"]["turnsTotal"] == 1
    # The tokens the kept transcript holds, and their cost (the scripted model's: $0), are
    # recorded: the record had none (`"usage": {}`, no cost) though the transcript had them.
    tokens = record["usage"]["scripted"]
    assert tokens["inputTokens"] > 0 and tokens["outputTokens"] > 0, record["usage"]
    assert record["cost"]["totalUsd"] == 0 and record["cost"]["byModel"], record["cost"]
    assert record["toolCalls"] >= 1 and record["sessionId"], record
    assert not list(trial.glob(".*.tmp"))  # no file cut in half
    assert not (trial / "workspace.diff").exists() and not (trial / "workspace").exists()

    report = subprocess.run(
        proctor_argv("report", str(trial.parents[4])), capture_output=True, text=True
    )
    assert report.returncode == 130, report.stderr
    assert "interrupted: the run was stopped before this trial ended" in report.stdout
    with TestClient(build_app(ViewSettings(results=out))) as client:
        page = client.get(f"/runs/{trial.parents[4].name}/trials/long/scripted/default/1")
    assert page.status_code == 200
    terminal = page.text[page.text.index("Terminal") :]
    assert "working on it" in terminal


KEEP_TERMINAL = """
import sys
from pathlib import Path
from types import SimpleNamespace
from proctor.drive.driver import SessionLog
from proctor.execute.collect import keep_terminal
from proctor.paths import TrialPaths
log = SessionLog(screen="screen\\n", terminal=b"x" * int(sys.argv[2]))
keep_terminal(SimpleNamespace(paths=TrialPaths(Path(sys.argv[1]))), log)
"""


def test_a_worker_killed_while_it_keeps_the_terminal_leaves_no_half_file(tmp_path: Path) -> None:
    """The kill of a worker that did not stop in time (SIGKILL) mid-write leaves
    ``terminal.raw`` whole or absent, never cut."""
    size = 64 * 1024 * 1024
    child = subprocess.Popen([sys.executable, "-c", KEEP_TERMINAL, str(tmp_path), str(size)])
    raw = tmp_path / "terminal.raw"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        if raw.exists() or list(tmp_path.glob(".terminal.raw.*.tmp")):
            break
        time.sleep(0.001)
    child.kill()
    child.wait()
    assert not raw.exists() or raw.stat().st_size == size
