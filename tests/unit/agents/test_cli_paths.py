"""Paths the real-CLI adapters hand to a shell or to ``exec``: quoted hook commands, absolute
binaries."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from proctor.agents.claude_code import stop_hook_command
from proctor.agents.cli_base import find_binary
from proctor.models.config import AgentProfile


def test_stop_hook_appends_to_a_path_with_a_space_and_a_quote(tmp_path: Path) -> None:
    folder = tmp_path / "it's scratch"
    folder.mkdir()
    stop_log = folder / "stop log.jsonl"
    for turn in ('{"turn": 1}', '{"turn": 2}'):
        subprocess.run(
            ["sh", "-c", stop_hook_command(stop_log)],
            input=turn,
            text=True,
            cwd=tmp_path,
            check=True,
            timeout=10,
        )
    assert stop_log.read_text() == '{"turn": 1}\n{"turn": 2}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["it's scratch"]
    assert sorted(p.name for p in folder.iterdir()) == ["stop log.jsonl"]


def test_relative_binary_is_made_absolute_against_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\necho 1.2.3\n")
    binary.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    found = find_binary("claude", AgentProfile(binary="bin/claude"))
    assert found == binary
    assert found is not None and found.is_absolute()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    out = subprocess.run([str(found)], cwd=workspace, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1.2.3"


def test_relative_agents_dir_gives_an_absolute_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shim = tmp_path / "agents" / "node_modules" / ".bin" / "claude"
    shim.parent.mkdir(parents=True)
    shim.write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", "agents")
    assert find_binary("claude", AgentProfile()) == shim
