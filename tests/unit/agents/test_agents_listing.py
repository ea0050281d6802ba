"""``proctor agents``: the profiles of ``proctor.json`` are listed beside the built-in
adapters, and ``--check`` exits 2 when an agent listed cannot run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents import cli_base
from proctor.agents.base import adapter_for
from proctor.agents.credentials import KINDS
from proctor.models.config import AgentProfile
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
    # No key, and no login in an empty home: the user's own are not seen.
    monkeypatch.setenv("HOME", str(empty))
    for kind in KINDS.values():
        for name in (*kind.keys, kind.folder_variable or "GEMINI_CLI_HOME"):
            monkeypatch.delenv(name, raising=False)
    return tmp_path


KEY = "sk-ant-test-0123456789abcdef"


def _claude(folder: Path, version: str = "2.1.197") -> Path:
    binary = folder / "claude"
    binary.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    binary.chmod(0o755)
    return binary


def test_the_profiles_of_proctor_json_are_listed(
    proctor: Run, nothing_installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = _claude(nothing_installed)
    profiles = {
        "my-agent": {"transport": "acp", "command": [str(nothing_installed / "gone"), "--acp"]},
        "claude-fast": {"agent": "claude-code", "binary": str(binary), "args": ["--x"]},
    }
    (nothing_installed / "proctor.json").write_text(json.dumps({"codingagents": profiles}))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
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
        "versionProblem": None,
        "pinned": "2.1.197",
        "versionWarning": None,
        "problem": None,
        "credentials": {
            "needed": True,
            "keys": ["ANTHROPIC_API_KEY"],
            "logins": [],
            "problem": None,
            "warning": None,
        },
    }
    assert KEY not in listed.out
    assert rows["my-agent"]["agent"] == "acp" and rows["my-agent"]["binary"] is None
    # proctor lends an ACP agent nothing: the line warns, and nothing fails
    assert rows["my-agent"]["credentials"]["keys"] == []
    assert "forwardEnv" in rows["my-agent"]["credentials"]["warning"]
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
    meant = proctor("agents", "--agent", "clude")
    assert meant.err.startswith(
        "proctor: error: --agent clude: unknown agent 'clude' (did you mean 'claude-code' or "
        "'acp:claude'? known: "
    )
    top.write_text(json.dumps({"codingagents": {"x": {"agent": "claude"}}}))
    profile = proctor("agents", "--config", str(top))
    assert "unknown agent 'claude' (did you mean 'claude-code'? known: acp, " in profile.err


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
    proctor: Run, nothing_installed: Path, monkeypatch: pytest.MonkeyPatch
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
    assert row["versionWarning"] is None  # the problem says it
    # not pinned by the profile: the run goes ahead with a warning, and so does the check,
    # which lists it as run and validate say it
    top.write_text(json.dumps({"codingagents": {"claude-code": {"binary": str(binary)}}}))
    checked = proctor(*args, "--check", "--model", "scripted")
    assert checked.code == 0
    said = adapter_for("claude-code", {}).version_warning(AgentProfile(binary=str(binary)))
    assert said is not None and said.startswith(f"{binary} is version 9.9.9, not 2.1.197, ")
    assert f"version 9.9.9  (warning: {said})" in checked.out
    assert "(pinned 2.1.197)" not in checked.out  # the warning says it
    (row,) = proctor(*args, "--json", "--model", "scripted").json()
    assert (row["pinned"], row["versionWarning"], row["problem"]) == ("2.1.197", said, None)
    # found on PATH, not named by the profile: installing the pinned CLI is the fix
    monkeypatch.setenv("PATH", str(nothing_installed))
    top.write_text(json.dumps({"codingagents": {}}))
    (row,) = proctor(*args, "--json", "--model", "scripted").json()
    assert row["binary"] == str(binary)
    assert "`proctor agents install` puts 2.1.197 in ./.agents, or set" in row["versionWarning"]


def test_check_asks_for_the_key_or_login_a_real_provider_needs(
    proctor: Run, nothing_installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As run and validate check it: on a real provider an agent without a key or a login to
    lend it cannot run; on the scripted model it needs none. Only names are said, never a key."""
    binary = _claude(nothing_installed)
    top = nothing_installed / "p.json"
    profiles = {
        "claude-code": {"binary": str(binary)},
        "cc-scripted": {"agent": "claude-code", "binary": str(binary), "backend": "scripted"},
    }
    top.write_text(json.dumps({"codingagents": profiles}))
    args = ("agents", "--config", str(top), "--agent", "claude-code")
    checked = proctor(*args, "--check")
    assert checked.code == 2
    assert checked.err.startswith(
        "proctor: error: agent 'claude-code' cannot authenticate: no ANTHROPIC_API_KEY or "
    )
    assert "credentials: none  (cannot authenticate: no ANTHROPIC_API_KEY" in checked.out
    (row,) = proctor(*args, "--json").json()
    assert row["problem"].startswith("cannot authenticate: no ANTHROPIC_API_KEY")
    assert row["credentials"]["needed"] and row["credentials"]["keys"] == []
    assert row["credentials"]["problem"] == checked.err.removeprefix("proctor: error: ").strip()
    # the scripted model needs no key: --model scripted, or a profile's backend
    scripted = proctor(*args, "--check", "--model", "scripted")
    assert scripted.code == 0, scripted.err
    assert scripted.out.rstrip().endswith("credentials: not needed (scripted model)")
    assert proctor("agents", "--config", str(top), "--agent", "cc-scripted", "--check").code == 0
    # a login is enough, named by its path
    login = nothing_installed / "empty" / ".claude" / ".credentials.json"
    login.parent.mkdir()
    login.write_text(json.dumps({"claudeAiOauth": {"accessToken": KEY}}))
    logged_in = proctor(*args, "--check")
    assert logged_in.code == 0, logged_in.err
    assert logged_in.out.rstrip().endswith(f"credentials: login {login}")
    login.unlink()
    # a key is named, its value never said; one with a line break in it is refused
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    keyed = proctor(*args, "--check")
    assert keyed.code == 0 and keyed.out.rstrip().endswith("credentials: ANTHROPIC_API_KEY=***")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY + "\n")
    unclean = proctor(*args, "--check", "--json")
    assert unclean.code == 2 and KEY not in unclean.out + unclean.err
    assert unclean.json()[0]["problem"].startswith("would be lent ANTHROPIC_API_KEY")


def test_check_names_the_profile_that_lends_nothing(
    proctor: Run, nothing_installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    binary = _claude(nothing_installed)
    top = nothing_installed / "p.json"
    profile = {"agent": "claude-code", "binary": str(binary), "credentials": "none"}
    top.write_text(json.dumps({"codingagents": {"cc2": profile}}))
    checked = proctor("agents", "--config", str(top), "--agent", "cc2", "--check", "--json")
    assert checked.code == 2
    assert checked.err.startswith(
        "proctor: error: agent 'cc2' cannot authenticate: its profile sets \"credentials\": "
    )
    assert checked.json()[0]["credentials"]["keys"] == []
    profile["forwardEnv"] = ["ANTHROPIC_API_KEY"]
    top.write_text(json.dumps({"codingagents": {"cc2": profile}}))
    forwarded = proctor("agents", "--config", str(top), "--agent", "cc2", "--check", "--json")
    assert forwarded.code == 0, forwarded.err
    assert forwarded.json()[0]["credentials"]["keys"] == ["ANTHROPIC_API_KEY"]
