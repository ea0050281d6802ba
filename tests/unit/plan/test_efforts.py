"""Which ``codingagents`` profile an agent id takes its ``agentEffort`` from: the one every
other setting of the trial comes from (:func:`proctor.agents.base.profile_for`)."""

from __future__ import annotations

from proctor.agents.base import profile_for
from proctor.models.config import AgentProfile
from proctor.plan.efforts import agent_effort, profile_key


def test_acp_name_takes_the_profile_name_only_when_it_is_an_acp_one() -> None:
    """``acp:claude`` runs the ACP preset, not a Claude Code profile named ``claude``: that
    profile's effort is none of its (it recorded "high" and warned of it)."""
    cli = {"claude": AgentProfile(agent="claude-code", agent_effort="high")}
    assert profile_key("acp:claude", cli) is None
    assert agent_effort("acp:claude", cli, {}, "proctor.json") == (None, None)
    assert profile_for("acp:claude", cli).transport == "acp"  # (the preset, as said)
    acp = {"claude": AgentProfile(transport="acp", agent_effort="high")}
    assert profile_key("acp:claude", acp) == "claude"
    assert agent_effort("acp:claude", acp, {}, "proctor.json")[0] == "high"
    assert profile_key("claude", cli) == "claude"  # (its own id: its own profile)
