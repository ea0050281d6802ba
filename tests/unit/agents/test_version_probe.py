"""A CLI whose ``--version`` fails, prints nothing or hangs: ``proctor agents`` and the run's
checks say why it has no version, and a hang is stopped after a short bound, not 30 s."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from proctor.agents import cli_base
from proctor.agents.base import adapter_for
from proctor.agents.cli_base import VERSION_TIMEOUT_SEC, version_probe
from proctor.models.config import AgentProfile
from tests.conftest import Run


def _program(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_each_failure_of_version_is_said(tmp_path: Path) -> None:
    crash = _program(tmp_path, "crash", "echo 'Error: cannot find module x' >&2; exit 3")
    assert version_probe(str(crash)).problem == (
        "`--version` exited 3, printing only on stderr: Error: cannot find module x"
    )
    killed = _program(tmp_path, "killed", "kill -SEGV $$")
    assert (
        version_probe(str(killed)).problem == "`--version` was killed by SIGSEGV, printing nothing"
    )
    silent = _program(tmp_path, "silent", "exit 0")
    assert version_probe(str(silent)).problem == "`--version` exited 0, printing nothing"
    fine = _program(tmp_path, "fine", "echo 'codex-cli 0.171.0'; exit 1")
    assert version_probe(str(fine)).version == "0.171.0"
    assert version_probe(str(fine)).problem is None


def test_a_version_probe_reads_no_input(tmp_path: Path) -> None:
    """A wrapper that reads its input before answering is given none, rather than waiting on
    the terminal proctor runs in."""
    reader = _program(tmp_path, "reader", "read line; echo '1.2.3'")
    assert version_probe(str(reader)).version == "1.2.3"


def test_a_hanging_version_is_stopped_soon(tmp_path: Path) -> None:
    # The pinned CLIs answer in well under 2 s (Gemini CLI's ~1.7 s the slowest, more on a
    # loaded machine): 20 s at most, where a hang used to cost 30 s per binary.
    assert VERSION_TIMEOUT_SEC <= 20


def test_agents_and_the_run_say_why_there_is_no_version(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_base, "VERSION_TIMEOUT_SEC", 0.5)
    hang = _program(tmp_path, "hang", "sleep 30")
    crash = _program(tmp_path, "crash", "exit 7")
    top = tmp_path / "p.json"
    profiles = {
        "codex": {"binary": str(hang)},
        "claude-code": {"binary": str(crash), "version": "2.1.197"},
    }
    top.write_text(json.dumps({"codingagents": profiles}))
    started = time.monotonic()
    listed = proctor("agents", "--config", str(top), "--model", "scripted")
    assert time.monotonic() - started < 10
    line = next(x for x in listed.out.splitlines() if x.startswith("codex"))
    why = "(`--version` did not answer within 0.5 s and was stopped)"
    # said once: in the warning of a CLI not at the version proctor pins
    assert line.count(why) == 1, line
    assert f"version -  (warning: {hang} is version unknown {why}, not 0.171.0" in line, line
    listed = proctor("agents", "--config", str(top), "--model", "scripted", "--json")
    rows = {row["id"]: row for row in json.loads(listed.out)}
    assert rows["claude-code"]["versionProblem"] == "`--version` exited 7, printing nothing"
    assert rows["claude-code"]["problem"] == (
        f"{crash} is version unknown (`--version` exited 7, printing nothing), but its profile "
        "pins 2.1.197; point codingagents.claude-code.binary at @anthropic-ai/claude-code@"
        "2.1.197's `claude` (or leave it out and run `proctor agents install`), or change the pin"
    )
    warning = adapter_for("codex", {}).version_warning(AgentProfile(binary=str(hang)))
    assert warning is not None and warning.startswith(
        f"{hang} is version unknown (`--version` did not answer within"
    )
