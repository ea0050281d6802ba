"""A search of the agent's own tool list (Codex CLI's ``tool_search``, Claude Code's
``ToolSearch``) is harness bookkeeping: its call stays in the trajectory, but it is no step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proctor.metrics.process import compute_process_metrics
from proctor.metrics.trace import plain_steps
from proctor.transcripts.claude import parse_claude_lines
from proctor.transcripts.codex import parse_codex_lines, parse_codex_rollout_plain

# As Codex CLI 0.171.0 writes them (tests/fixtures/transcripts/codex/threads/spawn/).
SEARCH = (
    '{"timestamp":"2026-12-02T18:46:40.795Z","ordinal":14,"type":"response_item","payload":'
    '{"type":"tool_search_call","id":"tsc_a66b0d02c7764926ae7f7e83","call_id":'
    '"call_scripted_d8d34ee3235941e5b340f09f","status":"completed","execution":"client",'
    '"arguments":{"query":"multi agent v1 spawn agent","limit":8},'
    '"internal_chat_message_metadata_passthrough":{"turn_id":"01a23814-8c8a-7e52-b473-'
    'f20588fdda68"}},"metadata":{"history_sequence":6,"sampled_through_sequence":5,'
    '"client_authored":false,"model_search_state":"unused"}}'
)
FOUND = (
    '{"timestamp":"2026-12-02T18:46:40.796Z","type":"response_item","payload":'
    '{"type":"tool_search_output","call_id":"call_scripted_d8d34ee3235941e5b340f09f",'
    '"status":"completed","execution":"client","tools":[{"type":"namespace","name":'
    '"multi_agent_v1","tools":[{"type":"function","name":"spawn_agent"}]}]}}'
)


def _codex(payload: dict[str, Any], ts: str) -> str:
    return json.dumps({"timestamp": ts, "type": "response_item", "payload": payload})


SHELL = [
    _codex(
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "c1",
            "arguments": json.dumps({"cmd": "ls"}),
        },
        "2026-12-02T18:46:41.000Z",
    ),
    _codex(
        {"type": "function_call_output", "call_id": "c1", "output": "Exit code: 0\nOutput:\na\n"},
        "2026-12-02T18:46:41.500Z",
    ),
]


def test_a_codex_tool_search_is_in_the_trajectory_but_no_step() -> None:
    events = parse_codex_lines([SEARCH, FOUND, *SHELL]).events
    names = [e.name for e in events if e.type == "tool_call"]
    assert names == ["tool_search", "exec_command"]
    steps = compute_process_metrics(events).steps
    assert (steps.tool_calls, steps.by_kind) == (1, {"search": 1})


def test_a_codex_tool_search_is_no_step_of_a_history_replay(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("\n".join([SEARCH, FOUND, *SHELL]) + "\n")
    steps = plain_steps(parse_codex_rollout_plain(rollout).events)
    assert [s.kind for s in steps] == ["search"]


def test_a_claude_code_tool_search_is_no_step() -> None:
    def line(kind: str, content: list[dict[str, Any]], uuid: str) -> str:
        message = {"id": f"m{uuid}", "model": "claude-x", "content": content}
        return json.dumps(
            {"type": kind, "uuid": uuid, "sessionId": "s", "cwd": "/w", "message": message}
            | {"timestamp": f"2026-01-01T00:00:0{uuid}Z"}
        )

    lines = [
        line("assistant", [{"type": "tool_use", "id": "t1", "name": "ToolSearch",
                            "input": {"query": "select:mcp__tiny__add"}}], "1"),
        line("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "found"}], "2"),
        line("assistant", [{"type": "tool_use", "id": "t2", "name": "Read",
                            "input": {"file_path": "/w/a.py"}}], "3"),
        line("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "x"}], "4"),
    ]  # fmt: skip
    events = parse_claude_lines(lines).events
    assert [e.name for e in events if e.type == "tool_call"] == ["ToolSearch", "Read"]
    steps = compute_process_metrics(events).steps
    assert (steps.tool_calls, steps.by_kind) == (1, {"read": 1})


def test_an_mcp_tool_named_tool_search_is_a_step() -> None:
    lines = [
        _codex(
            {
                "type": "function_call",
                "name": "tool_search",
                "namespace": "mcp__docs",
                "call_id": "m1",
                "arguments": "{}",
            },
            "2026-12-02T18:46:41.000Z",
        )
    ]
    steps = compute_process_metrics(parse_codex_lines(lines).events).steps
    assert (steps.tool_calls, steps.by_kind) == (1, {"mcp": 1})
