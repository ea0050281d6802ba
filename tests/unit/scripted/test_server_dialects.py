"""Each dialect's parse (turns, tools, schema, cwd texts) and render (JSON and SSE frames)."""

from __future__ import annotations

import json
from typing import Any

from proctor.scripted.server import anthropic, gemini, openai_chat, openai_responses
from proctor.scripted.server.dialect import Route
from proctor.scripted.server.exchange import Reply, ToolCall, is_prompt_text
from proctor.scripted.server.player import position
from proctor.scripted.server.workspace import workspace_cwd

REPLY = Reply(("Hi.",), ToolCall("Bash", {"command": "ls"}), played={})
CUSTOM = Reply((), ToolCall("apply_patch", {"input": "*** Begin Patch"}, "custom"), played={})


def frames(data: bytes | list[bytes]) -> list[dict[str, Any]]:
    text = b"".join(data).decode() if isinstance(data, list) else data.decode()
    return [json.loads(line[6:]) for line in text.split("\n") if line.startswith("data: {")]


def test_anthropic_parse_claude_code_shapes() -> None:
    body = {
        "model": "claude-opus-4-8",
        "stream": True,
        "system": [{"type": "text", "text": "Primary working directory: /ws"}],
        "tools": [
            {"name": "Bash", "input_schema": {"properties": {"command": {}}}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "messages": [
            {"role": "system", "content": "injected"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<system-reminder>x</system-reminder>"},
                    {"type": "text", "text": "do it"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "ok"},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "x"},
                    {"type": "text", "text": "<system-reminder>changed</system-reminder>"},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": "rejected",
                        "is_error": True,
                    },
                    {"type": "text", "text": "[Request interrupted by user for tool use]"},
                    {"type": "text", "text": "try again"},
                ],
            },
        ],
        "output_config": {"effort": "high"},
    }
    request = anthropic.parse(body, Route(), 999)
    assert (request.model, request.stream, request.size, request.messages) == (
        "claude-opus-4-8",
        True,
        999,
        6,
    )
    assert sorted(request.tools) == ["Bash", "web_search"] and request.tools["Bash"].params == {
        "command"
    }
    assert request.schema is None
    assert position(request.turns) == (2, 0)
    assert workspace_cwd(request.texts) == "/ws"
    titled = anthropic.parse(
        {
            "messages": [],
            "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
        },
        Route(),
        1,
    )
    assert titled.schema == {"type": "object"} and not titled.tools


def test_anthropic_stream_frames_follow_the_messages_protocol() -> None:
    request = anthropic.parse({"model": "m", "messages": []}, Route(), 400)
    raw = list(anthropic.events(REPLY, request))
    assert all(f.startswith(b"event: ") and f.endswith(b"\n\n") for f in raw)
    events = frames(raw)
    assert [e["type"] for e in events] == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0]["message"]["usage"]["input_tokens"] == 100
    assert events[5]["content_block"]["input"] == {}
    assert json.loads(events[6]["delta"]["partial_json"]) == {"command": "ls"}
    assert events[8]["delta"]["stop_reason"] == "tool_use"
    assert events[8]["usage"]["cache_read_input_tokens"] == 0
    assert anthropic.error(429, "slow")["error"]["type"] == "rate_limit_error"


def test_responses_parse_codex_shapes() -> None:
    body = {
        "model": "gpt-5.5",
        "instructions": "You are Codex.",
        "stream": True,
        "tools": [
            {"type": "function", "name": "exec_command", "parameters": {"properties": {"cmd": {}}}},
            {"type": "custom", "name": "apply_patch"},
            {"type": "web_search"},
            {"type": "local_shell"},
        ],
        "input": [
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "rules"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "# AGENTS.md instructions for /ws"}],
            },
            {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context><cwd>/ws</cwd></environment_context>",
                    }
                ],
            },
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
            {"type": "reasoning", "summary": []},
            {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            {"type": "custom_tool_call", "name": "apply_patch", "input": "p", "call_id": "c2"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "ok"},
        ],
    }
    request = openai_responses.parse(body, Route(), 10)
    assert (
        request.tools["apply_patch"].kind == "custom"
        and request.tools["local_shell"].kind == "local_shell"
    )
    assert "web_search" not in request.tools
    assert position(request.turns) == (1, 2)
    assert workspace_cwd(request.texts) == "/ws"
    assert openai_responses.parse({"input": "hello"}, Route(), 5).turns[0].prompt


def test_responses_stream_events_are_numbered_and_complete() -> None:
    request = openai_responses.parse({"model": "m", "input": "x"}, Route(), 40)
    events = frames(list(openai_responses.events(CUSTOM, request)))
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert events[-1]["response"]["output"][0]["input"] == "*** Begin Patch"
    assert events[-1]["response"]["usage"]["input_tokens_details"] == {"cached_tokens": 0}
    shell = Reply(
        (), ToolCall("local_shell", {"command": ["bash", "-lc", "ls"]}, "local_shell"), played={}
    )
    item = openai_responses.render(shell, request)["output"][0]
    assert item["type"] == "local_shell_call" and item["action"]["command"] == ["bash", "-lc", "ls"]


def test_chat_parse_and_stream() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Working directory: /oc"},
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "a", "content": "ok"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {"name": "bash", "parameters": {"properties": {"command": {}}}},
            }
        ],
        "response_format": {"type": "json_object"},
    }
    request = openai_chat.parse(body, Route(), 10)
    assert position(request.turns) == (1, 1) and request.schema == {}
    assert workspace_cwd(request.texts) == "/oc" and request.system == "Working directory: /oc"
    raw = list(openai_chat.events(REPLY, request))
    assert raw[-1] == b"data: [DONE]\n\n"
    chunks = frames(raw)
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 2


def test_gemini_parse_and_stream() -> None:
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "This is the Gemini CLI. I'm currently working in the directory: /g"}
                ],
            },
            {"role": "model", "parts": [{"text": "Got it. Thanks for the context!"}]},
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "thinking", "thought": True},
                    {"functionCall": {"name": "ls", "args": {}}},
                ],
            },
            {"role": "user", "parts": [{"functionResponse": {"name": "ls", "response": {}}}]},
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "ls", "parameters": {"properties": {"dir_path": {}}}}
                ]
            },
            {"googleSearch": {}},
        ],
    }
    request = gemini.parse(body, Route(model="gemini-x", stream=True), 10)
    assert (request.model, request.stream) == ("gemini-x", True)
    assert position(request.turns) == (1, 1) and request.tools["ls"].params == {"dir_path"}
    assert workspace_cwd(request.texts) == "/g"
    chunks = frames(list(gemini.events(REPLY, request)))
    assert [c["candidates"][0]["content"]["parts"] for c in chunks] == [
        [{"text": "Hi."}],
        [{"functionCall": {"name": "Bash", "args": {"command": "ls"}}}],
    ]
    assert (
        "finishReason" not in chunks[0]["candidates"][0]
        and chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    )
    assert gemini.error(429, "q")["error"]["status"] == "RESOURCE_EXHAUSTED"


def test_gemini_sends_two_say_steps_as_one_text_with_a_blank_line() -> None:
    """Gemini CLI runs a turn's text parts together: two ``say`` steps as two parts showed as
    ``B3B3b`` in its transcript."""
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    request = gemini.parse(body, Route(model="gemini-x", stream=True), 10)
    reply = Reply(("B3", "B3b"), ToolCall("ls", {}), played={})
    chunks = frames(list(gemini.events(reply, request)))
    assert [c["candidates"][0]["content"]["parts"] for c in chunks] == [
        [{"text": "B3\n\nB3b"}],
        [{"functionCall": {"name": "ls", "args": {}}}],
    ]
    parts = gemini.render(reply, request)["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "B3\n\nB3b"}


def test_a_codex_subagents_notification_is_no_prompt() -> None:
    """Codex tells a parent thread that its subagent ended with a user message of its own:
    the conversation goes on in the same segment of the plan."""

    def user(text: str) -> dict[str, object]:
        return {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }

    note = '<subagent_notification>\n{"agent_path":"a","status":{"completed":"Done."}}\n</subagent_notification>'
    body = {
        "model": "m",
        "input": [
            user("fix it"),
            {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            user(note),
        ],
    }
    request = openai_responses.parse(body, Route(), 10)
    assert position(request.turns) == (1, 1)
    assert not is_prompt_text(note)
