"""An unknown agent id names the agent a person most likely meant: the CLIs by their short
names and near spellings first, in one sentence built in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.agents.base import known_agent_ids
from proctor.agents.spec import nearest_agents, unknown_agent

KNOWN = sorted(known_agent_ids({}))


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("claude", ["claude-code", "acp:claude"]),
        ("clude", ["claude-code", "acp:claude"]),
        ("codx", ["codex"]),
        ("cod", ["codex"]),
        ("gemini", ["gemini-cli", "acp:gemini"]),
        ("gem", ["gemini-cli", "acp:gemini"]),
        ("Claude-Code", ["claude-code"]),
        ("claud-code", ["claude-code"]),
        ("scriptd", ["scripted"]),
        ("acp:claud", ["acp:claude"]),
        ("cc", []),
    ],
)
def test_the_agent_a_person_meant_comes_first(typed: str, meant: list[str]) -> None:
    assert nearest_agents(typed, KNOWN) == meant


def test_the_sentence_names_the_cli_first_then_lists_every_id() -> None:
    assert unknown_agent("clude", KNOWN) == (
        "unknown agent 'clude' (did you mean 'claude-code' or 'acp:claude'? known: acp, "
        "acp:claude, acp:gemini, claude-code, codex, gemini-cli, scripted)"
    )
    assert unknown_agent("cc", KNOWN).startswith("unknown agent 'cc' (known: acp, ")


def test_a_profile_of_ones_own_is_suggested_by_its_spelling() -> None:
    known = sorted(known_agent_ids({}) | {"fast-claude"})
    assert nearest_agents("fast-claud", known) == ["fast-claude"]


@pytest.mark.parametrize(
    "argv",
    [
        ["audit", "--agent", "clude", "--home", "."],
        ["addon", "check-install", "--install", "true", "--agent", "clude"],
    ],
)
def test_audit_and_check_install_suggest_the_agent_meant(tmp_path: Path, argv: list[str]) -> None:
    """``audit --agent clude`` said 'unknown agent; expected one of …', and check-install
    'unknown agent (known: …)', suggesting nothing."""
    from click.testing import CliRunner

    from proctor.cli.main import cli

    result = CliRunner().invoke(cli, argv)
    said = str(result.exception) if result.exception else result.output
    assert "--agent clude: unknown agent 'clude' (did you mean 'claude-code'?" in said, said


def test_an_agent_audit_does_not_cover_is_said_so_not_unknown() -> None:
    """``audit --agent scripted`` said "unknown agent 'scripted'", an agent proctor knows."""
    from click.testing import CliRunner

    from proctor.cli.main import cli

    result = CliRunner().invoke(cli, ["audit", "--agent", "scripted", "--home", "."])
    assert str(result.exception) == (
        "--agent scripted: proctor audit covers claude-code, codex, gemini-cli, not scripted"
    )


@pytest.mark.parametrize(
    ("acp", "cli"), [("acp:claude", "claude-code"), ("acp:gemini", "gemini-cli")]
)
def test_a_configured_acp_agent_is_said_to_be_built_on_its_cli_not_unknown(
    acp: str, cli: str
) -> None:
    """``addon check-install --agent acp:claude`` said "unknown agent", an agent proctor knows,
    and suggested claude-code by spelling alone."""
    from proctor.agents.spec import covered_agent
    from proctor.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        covered_agent(acp, ("claude-code", "codex", "gemini-cli"), "proctor addon")
    assert str(raised.value) == (
        f"--agent {acp}: proctor addon covers claude-code, codex, gemini-cli, not {acp}, the "
        f"ACP agent built on {cli}: check {cli}"
    )
