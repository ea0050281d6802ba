"""A search of the agent's own tool list (Claude Code's ``ToolSearch``, Codex CLI's
``tool_search``) is no tool call of the agent's work: the trial's ``toolCalls`` and its
``maxToolCalls`` budget leave it out, as ``process.steps.toolCalls`` does; the trajectory
keeps it."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from proctor.execute.collect import Collected
from proctor.execute.trial import Phases, build_record, within_budget
from proctor.execute.verdict import Verdict
from proctor.metrics.process import compute_process_metrics
from proctor.models.pricing import CostInfo
from proctor.models.trajectory import Trajectory
from proctor.models.trial import Timings, TranscriptInfo
from proctor.transcripts.claude import parse_claude_lines
from proctor.transcripts.codex import parse_codex_lines
from tests.unit.evals.test_gates import Planted
from tests.unit.execute.test_executor import spec
from tests.unit.metrics.test_harness_calls import FOUND, SEARCH, SHELL


def _claude(kind: str, content: list[dict[str, Any]], uuid: int) -> str:
    message = {"id": f"m{uuid}", "model": "claude-x", "content": content}
    return json.dumps(
        {"type": kind, "uuid": str(uuid), "sessionId": "s", "cwd": "/w", "message": message}
        | {"timestamp": f"2026-01-01T00:00:{uuid:02d}Z"}
    )


def claude_session(*calls: tuple[str, dict[str, Any]]) -> Trajectory:
    """A Claude Code session of these calls, each answered."""
    lines = []
    for n, (name, tool_input) in enumerate(calls):
        use = {"type": "tool_use", "id": f"t{n}", "name": name, "input": tool_input}
        lines.append(_claude("assistant", [use], 2 * n))
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}
        lines.append(_claude("user", [result], 2 * n + 1))
    return parse_claude_lines(lines)


SEARCHED = claude_session(
    ("ToolSearch", {"query": "select:mcp__tiny__add"}),
    ("Read", {"file_path": "/w/a.py"}),
    ("ToolSearch", {"query": "edit"}),
    ("Edit", {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"}),
)
"""Two searches of the tool list and two calls of the agent's work."""

PASSED = Verdict("passed", True, 100.0, "all held")


def test_the_trajectory_keeps_the_searches_its_count_of_calls_does_not() -> None:
    assert [c.name for c in SEARCHED.tool_calls()] == ["ToolSearch", "Read", "ToolSearch", "Edit"]
    assert [c.name for c in SEARCHED.agent_calls()] == ["Read", "Edit"]
    steps = compute_process_metrics(SEARCHED.events).steps
    assert steps.tool_calls == len(SEARCHED.agent_calls())
    codex = parse_codex_lines([SEARCH, FOUND, *SHELL])
    assert [c.name for c in codex.agent_calls()] == ["exec_command"]


def test_a_budget_of_the_real_calls_is_not_exhausted_by_searches(tmp_path: Path) -> None:
    budget = spec(tmp_path).model_copy(update={"max_tool_calls": 2})
    assert within_budget(PASSED, budget, SEARCHED) is PASSED
    tight = budget.model_copy(update={"max_tool_calls": 1})
    over = within_budget(PASSED, tight, SEARCHED)
    assert (over.status, over.reason) == ("failed", "over budget: 2 tool calls > maxToolCalls 1")


def test_the_records_tool_calls_leave_the_searches_out(tmp_path: Path) -> None:
    collected = Collected(SEARCHED, TranscriptInfo(), None, CostInfo(), None, [])
    ctx = SimpleNamespace(spec=spec(tmp_path))
    record = build_record(ctx, Phases(collected=collected), PASSED, Timings())  # type: ignore[arg-type]
    assert record.tool_calls == 2
    assert record.to_dict()["toolCalls"] == 2


def test_the_max_tool_calls_and_used_no_tools_gates_leave_the_searches_out() -> None:
    only_search = claude_session(("ToolSearch", {"query": "edit"}))
    gates = Planted(SEARCHED.events)
    assert gates.max_tool_calls(2).passed and not gates.max_tool_calls(1).passed
    assert gates.max_tool_calls(1).assertion.message == "2 tool calls > 1"
    assert Planted(only_search.events).used_no_tools().passed
    assert not gates.used_no_tools().passed
    # A gate naming the tool still sees its calls.
    assert gates.called_tool("ToolSearch", count=2).passed
