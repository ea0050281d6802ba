"""SIGTERM (a CI cancel, `timeout`, a process manager) stops any command as Ctrl-C does: exit
130, and the processes the command started are stopped with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path


def _with_marker(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if marker.encode() in fh.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _hook_plugin(root: Path, command: str) -> Path:
    plugin = root / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "slow"}')
    (plugin / "hooks").mkdir()
    hook = {"type": "command", "command": command}
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [hook]}]}})
    )
    return plugin


def test_sigterm_stops_hooks_test_and_its_hook_with_exit_130(tmp_path: Path) -> None:
    marker = f"300.{uuid.uuid4().int % 10**9:09d}"  # a sleep no other process runs
    plugin = _hook_plugin(tmp_path, f"sleep {marker}; true")
    cases = tmp_path / "cases.json"
    case = {"id": "a", "event": "PreToolUse", "tool": "Read", "input": {"file_path": "x"}}
    cases.write_text(json.dumps({"cases": [{**case, "expect": {"silent": True}}]}))
    argv = [sys.executable, "-m", "proctor", "hooks", "test", str(plugin), "--cases", str(cases)]
    command = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not _with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _with_marker(marker), "the hook never started"
        command.send_signal(signal.SIGTERM)
        _, err = command.communicate(timeout=60)
    finally:
        command.kill()
    assert command.returncode == 130, err.decode()
    assert b"interrupted" in err and b"Traceback" not in err
    deadline = time.monotonic() + 15
    while _with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _with_marker(marker) == [], "the hook outlived the command"


def test_a_stop_after_every_trial_ended_still_writes_the_aggregate(tmp_path: Path) -> None:
    """Ctrl-C after the last trial ended, while the orchestrator removes its scratch folder
    (here 60,000 files the agent left in it, which take a while): nothing is left to stop,
    so the run ends as interrupted with its aggregate written (exit 130), not looking killed,
    and the scratch folder is gone."""
    case = tmp_path / "cases" / "litter"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("Leave files behind.\n")
    (case / "config.json").write_text("{}")
    litter = 'mkdir -p "$HOME/../../litter" && cd "$HOME/../../litter" && seq 1 60000 | xargs touch'
    (case / "plan.json").write_text(json.dumps({"turns": [{"shell": litter}, {"say": "ok"}]}))
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(tmp_path / "cases")]
    command = subprocess.Popen(
        [*argv, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group, signalled as a terminal's Ctrl-C is
    )
    try:
        deadline = time.monotonic() + 90
        journal = None
        while time.monotonic() < deadline:
            journal = next(out.glob("run-*/journal.jsonl"), None)
            if journal is not None and '"trial-finished"' in journal.read_text():
                break
            time.sleep(0.02)
        assert journal is not None and '"trial-finished"' in journal.read_text()
        os.killpg(command.pid, signal.SIGINT)
        _, err = command.communicate(timeout=90)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode == 130, err.decode()
    run_dir = journal.parent
    assert (run_dir / "suite.json").is_file(), err.decode()
    assert json.loads((run_dir / "run.json").read_text()).get("finishedAt"), err.decode()
    assert json.loads((run_dir / "suite.json").read_text())["totals"]["n"] == 1
    scratch = [json.loads(line).get("scratch") for line in journal.read_text().splitlines()]
    assert all(not Path(folder).exists() for folder in scratch if folder)
