"""A search of the agent's own tool list (Claude Code's ``ToolSearch``, Codex CLI's
``tool_search``) is no step of the agent's work: ``trajectory-check`` and the gates that match
tool calls (``calledTool``, ``notCalledTool``, ``toolOrder``, ``noFailedActions``) leave it out
unless they name that tool itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.models.trajectory import Event, make_event
from tests.unit.evals.test_gates import Planted
from tests.unit.evaluators.helpers import context, evaluate


def _session(*calls: tuple[str, str], failed: tuple[str, ...] = ()) -> list[Event]:
    """These (name, kind) calls, each answered (in error when its name is in ``failed``)."""
    events: list[Event] = []
    for n, (name, kind) in enumerate(calls):
        tool_input = {"query": "select:mcp__tiny__add"} if "earch" in name else {"command": "ls"}
        events.append(make_event("tool_call", id=str(n), name=name, kind=kind, input=tool_input))
        events.append(make_event("tool_result", id=str(n), output="ok", is_error=name in failed))
    return events


CLAUDE = _session(("ToolSearch", "other"), ("Bash", "shell"))
"""One search of the tool list, then one call of the agent's work."""
CODEX = _session(("tool_search", "other"), ("exec_command", "shell"))


def _check(events: list[Event], tmp_path: Path, **params: Any) -> Any:
    return evaluate({"use": "trajectory-check", **params}, context(tmp_path, events))


@pytest.mark.parametrize("events", [CLAUDE, CODEX], ids=["claude", "codex"])
def test_a_wildcard_with_max_counts_only_the_agents_calls(
    events: list[Event], tmp_path: Path
) -> None:
    r = _check(events, tmp_path, toolPattern=".*", max=1)
    assert r.passed and r.metrics["matched_calls"] == 1
    assert "1 search(es) of the agent's own tool list left out" in r.message


def test_the_kind_other_does_not_match_a_search(tmp_path: Path) -> None:
    r = _check(CLAUDE, tmp_path, toolPattern="other")
    assert not r.passed and r.metrics["matched_calls"] == 0
    mcp = _session(("ToolSearch", "other"), ("Skill", "other"))
    assert _check(mcp, tmp_path, toolPattern="other", max=1).metrics["matched_calls"] == 1


@pytest.mark.parametrize(
    ("pattern", "count"),
    [
        ("ToolSearch", 1),
        ("Bash|ToolSearch", 2),
        ("(?i)toolsearch", 1),
        ("Tool\\Search", 0),  # \S is a class: the name is not written
        ("tool_search", 0),  # Codex's tool: no call of it here
        ("Tool.*", 0),  # a wildcard does not name it
        (".*Search", 0),
    ],
)
def test_a_pattern_naming_the_search_tool_counts_its_calls(
    pattern: str, count: int, tmp_path: Path
) -> None:
    r = _check(CLAUDE, tmp_path, toolPattern=pattern, min=0)
    assert r.metrics["matched_calls"] == count
    assert ("left out" in r.message) == (pattern in ("Tool\\Search", "Tool.*", ".*Search"))


def test_a_pattern_naming_the_search_tool_still_applies_the_input_pattern(
    tmp_path: Path,
) -> None:
    r = _check(CODEX, tmp_path, toolPattern="tool\\_search", inputPattern="tiny__add")
    assert r.passed and r.metrics["matched_calls"] == 1
    assert not _check(CODEX, tmp_path, toolPattern="tool_search", inputPattern="nope").passed


def test_a_search_of_an_mcp_server_of_that_name_is_a_call_like_any_other(tmp_path: Path) -> None:
    events = _session(("ToolSearch", "mcp"), ("Bash", "shell"))
    assert _check(events, tmp_path, toolPattern=".*", max=1).metrics["matched_calls"] == 2


def test_gates_match_a_search_by_its_own_name_only() -> None:
    gates = Planted(_session(("ToolSearch", "other"), ("Read", "read"), ("Bash", "shell")))
    assert not gates.called_tool("other").passed
    assert gates.not_called_tool("other").passed
    assert gates.called_tool("ToolSearch", count=1).passed
    assert not gates.not_called_tool("ToolSearch").passed
    # Another call of kind other still matches it.
    assert Planted(_session(("Skill", "other"))).called_tool("other").passed


def test_tool_order_is_not_satisfied_by_a_search() -> None:
    gates = Planted(_session(("Read", "read"), ("ToolSearch", "other"), ("Bash", "shell")))
    assert not gates.tool_order(["read", "other", "shell"]).passed
    assert gates.tool_order(["read", "shell"]).passed
    # Naming it orders it.
    assert gates.tool_order(["read", "ToolSearch", "shell"]).passed
    assert not gates.tool_order(["ToolSearch", "read"]).passed


def test_a_failed_search_is_no_failed_action() -> None:
    gates = Planted(_session(("tool_search", "other"), ("Bash", "shell"), failed=("tool_search",)))
    assert gates.no_failed_actions().passed
    bad = Planted(_session(("tool_search", "other"), ("Bash", "shell"), failed=("Bash",)))
    assert not bad.no_failed_actions().passed


def test_the_expect_checks_leave_the_search_out(tmp_path: Path) -> None:
    events = _session(("Read", "read"), ("ToolSearch", "other"), ("Bash", "shell"))
    checks = [{"notCalledTool": "other"}, {"toolOrder": ["read", "shell"]}]
    r = evaluate({"use": "expect", "checks": checks}, context(tmp_path, events))
    assert r.passed, r.message
    named = [{"calledTool": "ToolSearch", "count": 1}]
    assert evaluate({"use": "expect", "checks": named}, context(tmp_path, events)).passed
