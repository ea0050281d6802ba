"""A profile's ``binary`` that is no program (a missing file, a folder, a file without execute
permission), or a CLI that prints no version: one sentence naming the field and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents.base import adapter_for
from proctor.agents.cli_base import cli_version, find_binary
from proctor.models.config import AgentProfile
from tests.conftest import Run, write_case


def _preflight(agent: str, profile: AgentProfile) -> str | None:
    return adapter_for(agent, {agent: profile}).preflight(profile)


def test_a_folder_is_no_binary(tmp_path: Path) -> None:
    profile = AgentProfile(binary=str(tmp_path))
    assert find_binary("claude", profile) is None
    problem = _preflight("claude-code", profile)
    assert problem is not None
    assert f"codingagents.claude-code.binary '{tmp_path}' is a folder, not a program" in problem


def test_a_file_without_execute_permission_is_no_binary(tmp_path: Path) -> None:
    binary = tmp_path / "claude"
    binary.write_text("#!/bin/sh\necho 2.1.197\n")
    binary.chmod(0o644)
    profile = AgentProfile(binary=str(binary))
    assert find_binary("claude", profile) is None
    problem = _preflight("claude-code", profile)
    assert problem is not None
    assert f"is not executable (`chmod +x {binary}`" in problem


def test_a_missing_file_is_named_as_such(tmp_path: Path) -> None:
    problem = _preflight("codex", AgentProfile(binary=str(tmp_path / "gone")))
    assert problem is not None
    assert f"codingagents.codex.binary '{tmp_path / 'gone'}' names no file" in problem


def test_a_pinned_profile_binary_at_another_version_is_fixed_in_the_profile(
    tmp_path: Path,
) -> None:
    binary = tmp_path / "codex"
    binary.write_text("#!/bin/sh\necho 'codex-cli 9.9.9'\n")
    binary.chmod(0o755)
    problem = _preflight("codex", AgentProfile(binary=str(binary), version="0.171.0"))
    assert problem is not None
    assert "is version 9.9.9, but its profile pins 0.171.0" in problem
    assert (
        "point codingagents.codex.binary at @openai/codex@0.171.0's `codex` (or leave it out "
        "and run `proctor agents install`), or change the pin"
    ) in problem
    # a pin proctor does not install: installing would not help
    problem = _preflight("codex", AgentProfile(binary=str(binary), version="0.170.0"))
    assert problem is not None and problem.endswith(
        "point codingagents.codex.binary at @openai/codex@0.170.0's `codex`, or change the pin"
    )


def test_a_version_without_a_number_shows_its_first_line_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "wrapper"
    binary.write_text(
        "#!/bin/sh\necho 'usage: wrapper [options]'\necho 'x' ; echo " + "y" * 90 + "\n"
    )
    binary.chmod(0o755)
    assert cli_version(str(binary)) == "'usage: wrapper [options]'"


def test_agents_lists_what_is_wrong_with_a_profile_binary(proctor: Run, tmp_path: Path) -> None:
    top = tmp_path / "p.json"
    top.write_text(json.dumps({"codingagents": {"codex": {"binary": str(tmp_path)}}}))
    listed = proctor("agents", "--config", str(top))
    assert listed.code == 0, listed.err
    line = next(x for x in listed.out.splitlines() if x.startswith("codex"))
    # not `proctor agents install`: only the profile's binary is looked at
    assert f"not found: codingagents.codex.binary '{tmp_path}' is a folder, not a program" in line


def test_a_cli_at_another_version_than_pinned_is_warned_of_before_the_run(
    proctor: Run, tmp_path: Path
) -> None:
    binary = tmp_path / "claude"
    binary.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    binary.chmod(0o755)
    write_case(tmp_path / "cases", "x", config={"agents": ["claude-code"]})
    top = tmp_path / "cc.json"
    top.write_text(json.dumps({"codingagents": {"claude-code": {"binary": str(binary)}}}))
    args = ("--source", str(tmp_path / "cases"), "--config", str(top), "--model", "scripted")
    validated = proctor("validate", *args)
    assert validated.code == 0, validated.err
    assert (
        f"proctor: warning: codingagents.claude-code: {binary} is version 9.9.9, not 2.1.197, "
        "the version proctor pins"
    ) in validated.err
    assert 'set "version": "9.9.9" in the profile' in validated.err
    # only the profile's binary is looked at: installing the pinned CLI would change nothing
    assert (
        "point the profile's binary at @anthropic-ai/claude-code@2.1.197's `claude` (or leave "
        "it out and run `proctor agents install`)" in validated.err
    )
    assert "puts 2.1.197 in ./.agents" not in validated.err
    # pinned in the profile: the user means it, nothing is said
    top.write_text(
        json.dumps({"codingagents": {"claude-code": {"binary": str(binary), "version": "9.9.9"}}})
    )
    assert "warning" not in proctor("validate", *args).err


def test_agents_json_lists_each_adapter(proctor: Run, tmp_path: Path) -> None:
    binary = tmp_path / "claude"
    binary.write_text("#!/bin/sh\necho '2.1.197 (Claude Code)'\n")
    binary.chmod(0o755)
    top = tmp_path / "p.json"
    profiles = {"claude-code": {"binary": str(binary)}, "codex": {"binary": str(tmp_path)}}
    top.write_text(json.dumps({"codingagents": profiles}))
    # on the scripted model: the user's own keys and logins play no part
    listed = proctor("agents", "--config", str(top), "--json", "--model", "scripted")
    assert listed.code == 0, listed.err
    rows = {row["id"]: row for row in json.loads(listed.out)}
    assert set(rows) >= {"claude-code", "codex", "gemini-cli", "scripted"}
    assert rows["claude-code"].pop("credentials")["needed"] is False
    assert rows["claude-code"] == {
        "id": "claude-code",
        "agent": "claude-code",
        "builtIn": False,
        "binary": str(binary),
        "version": "2.1.197",
        "versionProblem": None,
        "pinned": "2.1.197",
        "versionWarning": None,
        "problem": None,
    }
    assert rows["codex"]["binary"] is None and rows["codex"]["version"] is None
    assert rows["codex"]["problem"] == (
        f"codingagents.codex.binary '{tmp_path}' is a folder, not a program"
    )
    assert rows["scripted"]["builtIn"] is True and rows["scripted"]["problem"] is None


def test_an_acp_command_naming_a_folder_is_no_program(proctor: Run, tmp_path: Path) -> None:
    profile = AgentProfile.model_validate({"transport": "acp", "command": [str(tmp_path)]})
    problem = _preflight("acp", profile)
    assert problem == (
        f"agent 'acp': the program '{tmp_path}' of the command ['{tmp_path}'] is a folder, "
        "not a program; fix the profile's 'command'"
    )
    top = tmp_path / "p.json"
    top.write_text(json.dumps({"codingagents": {"acp": profile.model_dump(exclude_none=True)}}))
    listed = proctor("agents", "--config", str(top))
    line = next(x for x in listed.out.splitlines() if x.startswith("acp"))
    assert f"not found: the program '{tmp_path}' of the command" in line


def test_the_acp_listing_shows_the_program_its_command_names(proctor: Run, tmp_path: Path) -> None:
    program = tmp_path / "my-acp-agent"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    top = tmp_path / "p.json"
    acp = {"transport": "acp", "command": [str(program), "--acp"]}
    top.write_text(json.dumps({"codingagents": {"acp": acp}}))
    listed = proctor("agents", "--config", str(top))
    line = next(x for x in listed.out.splitlines() if x.startswith("acp"))
    assert line.startswith(f"acp          {program}  version -"), line


def test_the_version_is_asked_for_without_the_user_s_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--version`` runs with the deny-listed environment a trial starts from: a wrapper
    whose version line quotes its environment (a crash's dump) shows no key."""
    monkeypatch.setenv("MY_SERVICE_TOKEN", "svc-planted-version-1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted-version-2")
    monkeypatch.setenv("PLAIN_SETTING", "kept")
    binary = tmp_path / "wrapper"
    binary.write_text(
        '#!/bin/sh\necho "v=$PLAIN_SETTING:${MY_SERVICE_TOKEN:-none}:${ANTHROPIC_API_KEY:-none}"\n'
    )
    binary.chmod(0o755)
    assert cli_version(str(binary)) == "'v=kept:none:none'"


def test_a_scripted_profile_pinning_another_version_stops_the_run(
    proctor: Run, tmp_path: Path
) -> None:
    """The scripted agent comes with proctor: a pin it does not match is said, as a CLI's is,
    not ignored (its trials would run at a version the profile says it does not expect)."""
    write_case(tmp_path / "cases", "x", config={"agents": ["mine"]})
    top = tmp_path / "p.json"
    profiles = {"mine": {"agent": "scripted", "version": "9.9"}, "scripted": {"version": "0.1.0"}}
    top.write_text(json.dumps({"codingagents": profiles}))
    args = ("--source", str(tmp_path / "cases"), "--config", str(top))
    validated = proctor("validate", *args)
    assert validated.code == 2
    assert (
        "agent 'mine': the scripted agent is version 0.1.0, but its profile pins 9.9; it comes "
        'with proctor, so no other version can be installed: set "version": "0.1.0" or leave '
        "version out"
    ) in validated.err
    listed = proctor("agents", "--config", str(top), "--json", "--agent", "mine", "--check")
    assert listed.code == 2
    rows = {row["id"]: row for row in json.loads(listed.out)}
    assert "but its profile pins 9.9" in rows["mine"]["problem"]
    assert _preflight("scripted", AgentProfile(version="0.1.0")) is None  # control: its own
