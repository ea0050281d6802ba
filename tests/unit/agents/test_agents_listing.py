"""``proctor agents``: the profiles of ``proctor.json`` are listed beside the built-in
adapters, and ``--check`` exits 2 when an agent listed cannot run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents import cli_base
from tests.conftest import Run


@pytest.fixture
def nothing_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No CLI anywhere proctor looks: an empty PATH, no `.agents` folder of any kind."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(cli_base, "SOURCE_CHECKOUT", empty)
    monkeypatch.delenv("PROCTOR_AGENTS_DIR", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _claude(folder: Path, version: str = "2.1.197") -> Path:
    binary = folder / "claude"
    binary.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    binary.chmod(0o755)
    return binary


def test_the_profiles_of_proctor_json_are_listed(proctor: Run, nothing_installed: Path) -> None:
    binary = _claude(nothing_installed)
    profiles = {
        "my-agent": {"transport": "acp", "command": [str(nothing_installed / "gone"), "--acp"]},
        "claude-fast": {"agent": "claude-code", "binary": str(binary), "args": ["--x"]},
    }
    (nothing_installed / "proctor.json").write_text(json.dumps({"codingagents": profiles}))
    listed = proctor("agents", "--json")  # ./proctor.json, as run and validate read it
    assert listed.code == 0, listed.err
    rows = {row["id"]: row for row in json.loads(listed.out)}
    assert set(rows) == {"acp", "claude-code", "codex", "gemini-cli", "scripted", *profiles}
    assert rows["claude-fast"] == {
        "id": "claude-fast",
        "agent": "claude-code",
        "builtIn": False,
        "binary": str(binary),
        "version": "2.1.197",
        "pinned": "2.1.197",
        "problem": None,
    }
    assert rows["my-agent"]["agent"] == "acp" and rows["my-agent"]["binary"] is None
    assert rows["my-agent"]["pinned"] is None  # its own command, not the package proctor pins
    assert rows["my-agent"]["problem"] == (
        f"the program '{nothing_installed / 'gone'}' of the command "
        f"['{nothing_installed / 'gone'}', '--acp'] names no file; fix the profile's 'command'"
    )
    text = proctor("agents").out.splitlines()
    assert any(line.startswith("claude-fast ") and str(binary) in line for line in text)
    assert any(line.startswith("my-agent ") and "not found: the program" in line for line in text)


def test_a_profile_of_its_own_is_named_in_its_problem(
    proctor: Run, nothing_installed: Path
) -> None:
    top = nothing_installed / "p.json"
    profiles = {"cc2": {"agent": "claude-code", "binary": str(nothing_installed / "nope")}}
    top.write_text(json.dumps({"codingagents": profiles}))
    listed = proctor("agents", "--config", str(top), "--agent", "cc2", "--check")
    assert listed.code == 2
    line = listed.out.splitlines()
    assert len(line) == 1 and line[0].startswith("cc2 ")
    assert (
        f"not found: codingagents.cc2.binary '{nothing_installed / 'nope'}' names no file"
        in (line[0])
    )
    assert listed.err.startswith(
        "proctor: error: agent 'cc2': the 'claude' CLI was not found: codingagents.cc2.binary"
    )
    assert "claude-code" not in listed.err


def test_a_config_that_does_not_read_is_one_sentence(proctor: Run, tmp_path: Path) -> None:
    top = tmp_path / "p.json"
    top.write_text(json.dumps({"codingagents": {"x": {"agent": "nope"}}}))
    listed = proctor("agents", "--config", str(top))
    assert listed.code == 2 and listed.out == ""
    assert listed.err == (
        f"proctor: error: {top}: field 'codingagents.x.agent': unknown agent 'nope' "
        "(known: acp, claude-code, codex, gemini-cli, scripted)\n"
    )
    top.write_text("{")
    listed = proctor("agents", "--config", str(top))
    assert listed.code == 2 and len(listed.err.splitlines()) == 1
    unknown = proctor("agents", "--agent", "ghost")
    assert unknown.code == 2
    assert unknown.err.startswith("proctor: error: --agent ghost: unknown agent 'ghost' (known: ")


def test_check_exits_2_naming_each_agent_that_cannot_run(
    proctor: Run, nothing_installed: Path
) -> None:
    listed = proctor("agents")
    assert listed.code == 0, listed.err  # the listing alone is informational
    assert "not found: run `proctor agents install`" in listed.out
    checked = proctor("agents", "--check")
    assert checked.code == 2
    assert checked.out == listed.out
    errors = checked.err.splitlines()
    assert errors[-1] == "proctor: error: 4 agents cannot run, each named above"
    assert [e.split("'")[1] for e in errors[:-1]] == ["acp", "claude-code", "codex", "gemini-cli"]
    assert "run `proctor agents install`" in errors[1]
    # only the agents named: the built-in scripted agent always runs
    assert proctor("agents", "--check", "--agent", "scripted").code == 0
    one = proctor("agents", "--check", "--agent", "codex", "--json")
    assert one.code == 2 and [row["id"] for row in json.loads(one.out)] == ["codex"]
    assert one.err.startswith("proctor: error: agent 'codex': the 'codex' CLI was not found")
    assert len(one.err.splitlines()) == 1


def test_check_refuses_a_cli_at_another_version_than_its_profile_pins(
    proctor: Run, nothing_installed: Path
) -> None:
    binary = _claude(nothing_installed, "9.9.9")
    top = nothing_installed / "p.json"
    profile = {"binary": str(binary), "version": "2.1.197"}
    top.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    args = ("agents", "--config", str(top), "--agent", "claude-code")
    listed = proctor(*args, "--json")
    assert listed.code == 0
    (row,) = json.loads(listed.out)
    assert row["binary"] == str(binary) and row["version"] == "9.9.9"
    assert row["problem"].startswith(f"{binary} is version 9.9.9, but its profile pins 2.1.197")
    checked = proctor(*args, "--check")
    assert checked.code == 2
    assert checked.err.startswith(f"proctor: error: agent 'claude-code': {binary} is version 9.9.9")
    # not pinned by the profile: the run goes ahead with a warning, and so does the check
    top.write_text(json.dumps({"codingagents": {"claude-code": {"binary": str(binary)}}}))
    assert proctor(*args, "--check").code == 0
