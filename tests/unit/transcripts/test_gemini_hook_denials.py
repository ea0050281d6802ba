"""Gemini CLI 0.61 chats recorded on real runs against the scripted model: a call a
``BeforeTool`` hook refused (exit code 2 or ``decision: "deny"``: ``Tool execution blocked:
REASON``) or at which it stopped the agent (``continue: false``: ``Agent execution stopped by
hook: REASON``) did not run; it is a denial, not an error, in the main chat and in a
subagent's. A subagent's call to a tool it is not offered has no ``toolCalls`` entry in its
chat, only the response sent back: it is still a call of the trajectory, with its result."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.metrics.trace import build_steps
from proctor.models.trajectory import ToolResult, Trajectory
from proctor.transcripts.gemini import parse_gemini_chat, parse_gemini_lines
from proctor.util.native_paths import gemini_subagent_chats

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts"
HOOKS_CHAT = next((FIXTURES / "gemini-hooks/tmp/workspace/chats").glob("session-*.jsonl"))
STOP_CHAT = next((FIXTURES / "gemini-hook-stop").glob("session-*.jsonl"))
SUBAGENT = "31ec9bf3-6ce4-4b2f-a80f-9f50f0dc8543"


def _hooks_chat() -> Trajectory:
    """The main chat read with its subagent's, as ``proctor parse`` and a trial read it."""
    return parse_gemini_chat(HOOKS_CHAT, subagents=gemini_subagent_chats(HOOKS_CHAT))


def _outcomes(trajectory: Trajectory) -> list[tuple[str, bool, bool | None, bool | None, str]]:
    """(name, sidechain, isError, denied, output's start) of every call, in order."""
    names = {e.id: (e.name, bool(e.sidechain)) for e in trajectory.events if e.type == "tool_call"}
    return [
        (*names[e.id], e.is_error, e.denied, (e.output or "")[:40])
        for e in trajectory.events
        if isinstance(e, ToolResult)
    ]


def test_a_call_a_hook_blocked_is_a_denial_in_the_main_chat_and_a_subagents() -> None:
    outcomes = _outcomes(_hooks_chat())
    blocked = "Tool execution blocked: secret files are"
    assert ("read_file", False, False, True, blocked) in outcomes
    assert ("read_file", True, False, True, blocked) in outcomes


def test_a_hook_that_stops_the_agent_at_a_call_is_a_denial() -> None:
    outcomes = _outcomes(parse_gemini_chat(STOP_CHAT))
    stopped = "Agent execution stopped by hook: the gua"
    assert outcomes == [("run_shell_command", False, False, True, stopped)]


def test_control_a_tools_own_error_mentioning_a_block_stays_an_error() -> None:
    """Only Gemini CLI's own answer, which begins the output, is a hook's refusal."""
    call = {
        "id": "c1",
        "name": "run_shell_command",
        "args": {"command": "make"},
        "status": "error",
        "result": [
            {"functionResponse": {"response": {"error": "make: Tool execution blocked: x"}}}
        ],
    }
    header = '{"sessionId": "s", "projectHash": "h", "kind": "main"}'
    record = {"id": "g", "type": "gemini", "content": "", "toolCalls": [call]}
    t = parse_gemini_lines([header, json.dumps(record)])
    assert [(e.is_error, e.denied) for e in t.events if isinstance(e, ToolResult)] == [
        (True, False)
    ]


def test_a_subagents_call_to_a_tool_it_is_not_offered_is_in_the_trajectory() -> None:
    t = _hooks_chat()
    unauthorized = "Unauthorized tool call: '{}' is not available to this agent."
    sidechain = [o for o in _outcomes(t) if o[1]]
    assert sidechain == [
        ("read_file", True, False, True, "Tool execution blocked: secret files are"),
        ("run_shell_command", True, True, False, unauthorized.format("run_shell_command")[:40]),
        ("invoke_agent", True, True, False, unauthorized.format("invoke_agent")[:40]),
    ]
    calls = {c.id: c for c in t.tool_calls()}
    shell = calls[f"{SUBAGENT}#1-0"]
    assert (shell.kind, shell.sidechain) == ("shell", True)
    # A refused call to invoke_agent started no subagent: only the main agent's one ran.
    assert [e.name for e in t.events if e.type == "subagent"] == ["generalist"]
    # Each call once: the subagent's recorded call is not read again from its response.
    assert len(calls) == len(t.tool_calls()) == 6
    steps = [(s.call.name, s.outcome) for s in build_steps(t.events) if s.call.sidechain]
    assert steps == [
        ("read_file", "unknown"),
        ("run_shell_command", "fail"),
        ("invoke_agent", "fail"),
    ]


def test_control_a_main_chats_function_responses_add_no_call() -> None:
    """In the main chat every call has its entry; a response without one (the history a
    resumed session writes again) is not read as a call."""
    header = '{"sessionId": "s", "projectHash": "h", "kind": "main"}'
    response = (
        '{"id": "u", "type": "user", "content": [{"functionResponse": '
        '{"id": "x#0-0", "name": "run_shell_command", "response": {"error": "no"}}}]}'
    )
    assert parse_gemini_lines([header, response]).tool_calls() == []
    subagent = header.replace('"main"', '"subagent"')
    assert [c.id for c in parse_gemini_lines([subagent, response]).tool_calls()] == ["x#0-0"]


def test_a_subagents_unrecorded_call_comes_with_the_response_that_made_it() -> None:
    """The call before that response's usage (then its result), not after it: one call per
    response, as the subagent made them."""
    sidechain = [e for e in _hooks_chat().events if e.sidechain]
    order = [(e.type, getattr(e, "id", None)) for e in sidechain if e.type != "user_message"]
    assert order[:9] == [
        ("tool_call", f"{SUBAGENT}#0-0"),
        ("usage", None),
        ("tool_result", f"{SUBAGENT}#0-0"),
        ("tool_call", f"{SUBAGENT}#1-0"),
        ("usage", None),
        ("tool_result", f"{SUBAGENT}#1-0"),
        ("tool_call", f"{SUBAGENT}#2-0"),
        ("usage", None),
        ("tool_result", f"{SUBAGENT}#2-0"),
    ]
    shell = next(e for e in sidechain if getattr(e, "id", None) == f"{SUBAGENT}#1-0")
    assert shell.ts == "2026-12-06T14:09:53.263Z"  # the response's time
    steps = build_steps(_hooks_chat().events)
    assert [s.call.name for s in steps if s.call.sidechain] == [
        "read_file",
        "run_shell_command",
        "invoke_agent",
    ]


def test_a_subagents_unrecorded_call_has_the_arguments_the_main_chat_lists() -> None:
    """The main chat's invoke_agent result lists each of the subagent's calls with its
    arguments, by the same call id; read alone, the subagent's chat has none of them."""
    calls = {c.id: c for c in _hooks_chat().tool_calls()}
    assert calls[f"{SUBAGENT}#1-0"].input == {"command": "echo hi > a.txt"}
    assert calls[f"{SUBAGENT}#2-0"].input == {"agent_name": "generalist", "prompt": "Look around."}
    alone = parse_gemini_chat(next(p for p in gemini_subagent_chats(HOOKS_CHAT)))
    assert {c.id: c.input for c in alone.tool_calls()}[f"{SUBAGENT}#1-0"] == {}


def test_control_arguments_listed_under_another_tools_name_are_not_taken(tmp_path: Path) -> None:
    listed = {"id": "x#0-0", "type": "tool_call", "content": "read_file", "args": '{"a": 1}'}
    display = {"isSubagentProgress": True, "recentActivity": [listed]}
    start = {"id": "c", "name": "invoke_agent", "status": "success", "resultDisplay": display}
    main, sub = tmp_path / "main.jsonl", tmp_path / "sub.jsonl"
    main.write_text(
        '{"sessionId": "m", "projectHash": "h", "kind": "main"}\n'
        + json.dumps({"id": "g", "type": "gemini", "content": "", "toolCalls": [start]})
    )
    response = {"id": "x#0-0", "name": "run_shell_command", "response": {"error": "no"}}
    sub.write_text(
        '{"sessionId": "x", "projectHash": "h", "kind": "subagent"}\n'
        '{"id": "g", "type": "gemini", "content": ""}\n'
        + json.dumps({"id": "u", "type": "user", "content": [{"functionResponse": response}]})
    )
    t = parse_gemini_chat(main, subagents=[sub])
    assert [(c.id, c.input) for c in t.tool_calls() if c.sidechain] == [("x#0-0", {})]
    main.write_text(main.read_text().replace('"read_file"', '"run_shell_command"'))
    t = parse_gemini_chat(main, subagents=[sub])
    assert [(c.id, c.input) for c in t.tool_calls() if c.sidechain] == [("x#0-0", {"a": 1})]
