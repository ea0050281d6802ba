"""The ACP agent: its profile fields, ``acp:NAME`` ids, what ``prepare`` launches, version and
preflight, and how an answer picks a permission option."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from acp.schema import PermissionOption
from pydantic import ValidationError

from proctor.agents.acp import AcpAgent, acp_mcp_server, package_version
from proctor.agents.base import adapter_for, known_agent_ids, profile_for
from proctor.agents.install import PINNED
from proctor.agents.protocol import LaunchContext
from proctor.drive.acp_permissions import choose_option, question_for, response_for
from proctor.errors import AgentError
from proctor.models.config import AgentProfile, McpEntry, Provision, TopConfig


def test_a_profile_with_the_acp_transport_runs_the_acp_agent() -> None:
    profile = AgentProfile.model_validate({"transport": "acp", "command": ["gemini", "--acp"]})
    assert profile.agent == "acp" and profile.command == ["gemini", "--acp"]
    assert AgentProfile().transport is None and AgentProfile().agent is None


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"command": ["x"]}, '\'command\' needs "transport": "acp"'),
        ({"transport": "acp", "agent": "codex"}, "'agent' is 'codex'"),
        ({"transport": "acp", "command": []}, "at least 1 item"),
        ({"transport": "acp", "command": [" "]}, "must not be empty or blank"),
        ({"transport": "stdio"}, "Input should be 'acp'"),
    ],
)
def test_bad_acp_profiles_are_refused_with_the_field_named(data: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError) as caught:
        TopConfig.model_validate({"codingagents": {"mine": data}})
    assert says in str(caught.value)


def test_acp_ids_name_presets_and_acp_profiles() -> None:
    profiles = {
        "mine": AgentProfile(transport="acp", command=["my-agent"]),
        "claude-fast": AgentProfile(agent="claude-code"),
    }
    known = known_agent_ids(profiles)
    assert {"acp", "acp:claude", "acp:gemini", "acp:mine", "mine", "claude-fast"} <= known
    assert "acp:claude-fast" not in known and "acp:nope" not in known
    assert profile_for("acp:mine", profiles).command == ["my-agent"]
    assert profile_for("acp:gemini", profiles).command == ["gemini", "--acp"]
    assert profile_for("acp:claude", {}).command == ["claude-code-acp"]
    assert profile_for("codex", profiles) == AgentProfile()
    for agent_id in ("acp", "acp:claude", "acp:mine", "mine"):
        assert adapter_for(agent_id, profiles).name == "acp"
    assert adapter_for("claude-fast", profiles).name == "claude-code"


def test_the_claude_code_acp_adapter_is_pinned_for_install() -> None:
    assert PINNED["@zed-industries/claude-code-acp"] == "0.16.2"


def fake_npm_program(root: Path, package: str, version: str, name: str) -> Path:
    folder = root / "node_modules" / package
    (folder / "dist").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": package, "version": version}))
    entry = folder / "dist" / "index.js"
    entry.write_text("#!/bin/sh\n")
    entry.chmod(0o755)
    bins = root / "node_modules" / ".bin"
    bins.mkdir(parents=True, exist_ok=True)
    (bins / name).symlink_to(os.path.relpath(entry, bins))
    return bins / name


def context(tmp_path: Path, profile: AgentProfile, **extra: Any) -> LaunchContext:
    for name in ("ws", "home"):
        (tmp_path / name).mkdir(exist_ok=True)
    return LaunchContext(
        workspace=tmp_path / "ws",
        home=tmp_path / "home",
        scratch=tmp_path,
        env={"PATH": "/usr/bin", "HOME": str(tmp_path / "home")},
        profile=profile,
        plan=None,
        repeat=1,
        session_id="x",
        trial_dir=tmp_path / "trial",
        **extra,
    )


def test_prepare_finds_the_program_in_agents_and_points_every_provider_at_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = tmp_path / "agents"
    program = fake_npm_program(
        agents, "@zed-industries/claude-code-acp", "0.16.2", "claude-code-acp"
    )
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", str(agents))
    profile = profile_for("acp:claude", {}).model_copy(update={"args": ["--verbose"]})
    launch = AcpAgent().prepare(
        context(tmp_path, profile, model_base_url="http://127.0.0.1:9", agent_model="m-1")
    )
    assert launch.argv == [str(program), "--verbose"]
    assert launch.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert launch.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:9"
    assert launch.env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert launch.env["ANTHROPIC_MODEL"] == "m-1" and launch.env["HOME"] == str(tmp_path / "home")
    assert launch.state.log == tmp_path / "trial" / "acp.jsonl" == launch.transcript
    assert AcpAgent().version(profile) == "0.16.2"
    assert AcpAgent().preflight(profile) is None
    pinned = profile.model_copy(update={"version": "0.17.0"})
    assert "is version 0.16.2, but its profile pins 0.17.0" in str(AcpAgent().preflight(pinned))


def test_a_version_other_than_the_pin_says_what_to_install_or_where_to_point_the_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the CLIs' own adapters say it: the package at the pinned version to install, or, for
    a profile that names its binary (installing changes nothing), what to point it at."""
    agents = tmp_path / "agents"
    fake_npm_program(agents, "@zed-industries/claude-code-acp", "0.16.2", "claude-code-acp")
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", str(agents))
    old = fake_npm_program(
        tmp_path / "old", "@zed-industries/claude-code-acp", "0.15.0", "claude-code-acp"
    )
    adapter, profile = AcpAgent(), profile_for("acp:claude", {})
    assert str(adapter.preflight(profile.model_copy(update={"version": "0.17.0"}))).endswith(
        "pins 0.17.0; install @zed-industries/claude-code-acp@0.17.0 or change the pin"
    )
    own = profile.model_copy(update={"binary": str(old)})
    assert str(adapter.preflight(own.model_copy(update={"version": "0.16.2"}))).endswith(
        "pins 0.16.2; point the profile's binary at @zed-industries/claude-code-acp@0.16.2's "
        "`claude-code-acp` (or leave it out and run `proctor agents install`), or change the pin"
    )
    warned = str(adapter.version_warning(own))
    assert "is version 0.15.0, not 0.16.2" in warned and "./.agents" not in warned
    assert (
        "point the profile's binary at @zed-industries/claude-code-acp@0.16.2's "
        "`claude-code-acp` (or leave it out and run `proctor agents install`), or set "
        '"version": "0.15.0" in the profile' in warned
    )
    assert adapter.version_warning(profile) is None  # control: the pinned one in .agents


def test_on_a_real_provider_no_scripted_url_or_key_is_set(tmp_path: Path) -> None:
    profile = AgentProfile(transport="acp", command=["/bin/cat"])
    launch = AcpAgent().prepare(context(tmp_path, profile))
    assert launch.argv == ["/bin/cat"]
    assert not {"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} & set(launch.env)
    assert AcpAgent().version(profile) is None  # not an npm package: never run to ask


def test_preflight_names_a_missing_program_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    problem = AcpAgent().preflight(AgentProfile(transport="acp", command=["no-such-agent", "-x"]))
    assert problem is not None
    assert "the program 'no-such-agent' of the command ['no-such-agent', '-x'] was not found" in (
        problem
    )
    with pytest.raises(AgentError, match="was not found"):
        AcpAgent().prepare(context(tmp_path, AgentProfile(transport="acp", command=["nope"])))


def test_mcp_servers_go_to_the_session_and_other_addons_are_refused(tmp_path: Path) -> None:
    stdio = McpEntry(name="tiny", command="python", args=["s.py"], env={"K": "v"})
    http = McpEntry(name="web", url="http://127.0.0.1:1/mcp", headers={"A": "b"})
    assert acp_mcp_server(stdio) == {
        "name": "tiny",
        "command": "python",
        "args": ["s.py"],
        "env": [{"name": "K", "value": "v"}],
    }
    assert acp_mcp_server(http)["headers"] == [{"name": "A", "value": "b"}]
    profile = AgentProfile(transport="acp", command=["/bin/cat"])
    launch = AcpAgent().prepare(context(tmp_path, profile, provision=Provision(mcps=[stdio])))
    assert [s["name"] for s in launch.state.mcp_servers] == ["tiny"]
    skills = Provision.model_validate({"skills": [{"name": "s", "path": "skill"}]})
    with pytest.raises(AgentError, match="skills cannot be provisioned over ACP"):
        AcpAgent().prepare(context(tmp_path, profile, provision=skills))


def test_package_version_reads_the_package_a_bin_link_belongs_to(tmp_path: Path) -> None:
    program = fake_npm_program(tmp_path, "@google/gemini-cli", "0.61.0", "gemini")
    assert package_version(program) == "0.61.0"
    loose = tmp_path / "loose"
    loose.write_text("#!/bin/sh\n")
    assert package_version(loose) is None  # control: no package above it


OPTIONS = [
    PermissionOption(option_id="allow_always", name="Always Allow", kind="allow_always"),
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]


@pytest.mark.parametrize(
    ("answer", "chosen"),
    [
        ("Allow", "allow"),
        ("always allow", "allow_always"),
        ("allow_once", "allow"),
        ("Yes.", "allow"),
        ("approve", "allow"),
        ("always", "allow_always"),
        ("no", "reject"),
        ("Deny", "reject"),
        ("never", "reject"),  # no reject_always option: the one-off rejection
        ("maybe later", None),
    ],
)
def test_an_answer_picks_an_option(answer: str, chosen: str | None) -> None:
    option = choose_option(OPTIONS, answer)
    assert (option.option_id if option else None) == chosen


def test_question_text_and_replies() -> None:
    call = {
        "toolCallId": "t1",
        "title": "`rm -rf build`",
        "_meta": {"claudeCode": {"toolName": "Bash"}},
    }
    asked = question_for(call, OPTIONS)
    assert (asked.text, asked.options) == (
        "Bash: `rm -rf build`",
        ["Always Allow", "Allow", "Reject"],
    )
    assert (asked.id, asked.kind) == ("t1", "permission")  # as the transcript's answer event
    assert question_for({"toolCallId": "t2", "title": "Write /w/a"}, OPTIONS).text == "Write /w/a"
    picked = response_for(OPTIONS[1]).model_dump(by_alias=True, exclude_none=True)
    assert picked == {"outcome": {"optionId": "allow", "outcome": "selected"}}
    assert response_for(None).model_dump(by_alias=True) == {
        "outcome": {"outcome": "cancelled"},
        "_meta": None,
    }


def test_the_profile_of_a_configured_acp_agent_run_by_its_own_id_is_that_agent() -> None:
    """The profile "gemini" with "transport": "acp" holds acp:gemini's settings (its key, say);
    run as --agent gemini it starts Gemini CLI's ACP mode too, not the default Claude adapter."""
    profiles = {"gemini": AgentProfile(transport="acp", forward_env=["GEMINI_API_KEY"])}
    for agent_id in ("gemini", "acp:gemini"):
        profile = profile_for(agent_id, profiles)
        assert profile.command == ["gemini", "--acp"], agent_id
        assert profile.forward_env == ["GEMINI_API_KEY"]
    own = {"mine": AgentProfile(transport="acp")}  # control: no configured agent of that name
    assert profile_for("mine", own).command is None


def test_a_permission_answer_is_matched_case_folded() -> None:
    options = [
        PermissionOption(option_id="s", name="Straße", kind="allow_once"),
        PermissionOption(option_id="n", name="Nein", kind="reject_once"),
    ]
    chosen = choose_option(options, "STRASSE")
    assert chosen is not None and chosen.option_id == "s"
