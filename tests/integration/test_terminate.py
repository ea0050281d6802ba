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
