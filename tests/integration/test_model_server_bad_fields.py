"""A request body with a field of the wrong type: the 400 names the field path and what it
should be, in each dialect's error shape (real HTTP requests to a real server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from proctor.scripted.server import ScriptedModelServer
from tests.integration.test_model_server_http import post

PLAN = {"turns": [{"say": "hello"}]}
ANTHROPIC, RESPONSES, CHAT = "/v1/messages", "/v1/responses", "/v1/chat/completions"
GEMINI = "/v1beta/models/g:generateContent"

CASES: list[tuple[str, dict[str, Any], str]] = [
    (ANTHROPIC, {"messages": 5}, "messages: expected a list of messages, got 5"),
    (
        ANTHROPIC,
        {"messages": [{"role": "user", "content": 5}]},
        "messages[0].content: expected a string or a list of content blocks, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [{"role": "user", "content": ["hi"]}]},
        'messages[0].content[0]: expected a content block object, got "hi"',
    ),
    (
        ANTHROPIC,
        {"messages": [], "tools": [{"name": "t", "input_schema": {"properties": 3}}]},
        "tools[0].input_schema.properties: expected an object of properties, got 3",
    ),
    (RESPONSES, {"input": [1]}, "input[0]: expected an input item object, got 1"),
    (
        RESPONSES,
        {"input": {"role": "user"}},
        'input: expected a string or a list of input items, got {"role": "user"}',
    ),
    (RESPONSES, {"input": [{"type": ["message"]}]}, 'input[0].type: expected a string, got ["m'),
    (
        CHAT,
        {"messages": [{"role": "assistant", "tool_calls": 2}]},
        "messages[0].tool_calls: expected a list of tool calls, got 2",
    ),
    (
        CHAT,
        {"messages": [], "response_format": "json"},
        'response_format: expected an object, got "',
    ),
    (
        GEMINI,
        {"contents": {"parts": []}},
        'contents: expected a list of contents, got {"parts": []}',
    ),
    (GEMINI, {"contents": [{"parts": 3}]}, "contents[0].parts: expected a list of parts, got 3"),
    (
        GEMINI,
        {"contents": [], "tools": [{"functionDeclarations": [{"description": "d"}]}]},
        "tools[0].functionDeclarations[0].name: expected a string, but it is missing",
    ),
]


def _message(path: str, data: bytes) -> str:
    """The error message, after checking the envelope is the dialect's own."""
    error = json.loads(data)["error"]
    if path == GEMINI:
        assert error["code"] == 400 and error["status"] == "INVALID_ARGUMENT"
    else:
        assert error["type"] == "invalid_request_error"
    return str(error["message"])


def test_a_field_of_the_wrong_type_is_named_in_the_400(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with ScriptedModelServer(PLAN, log_path=log) as server:
        answers = [(path, *post(server.base_url + path, body)) for path, body, _ in CASES]
        good = {"messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "Bash"}]}
        status, data = post(server.base_url + ANTHROPIC, good)
    for (path, code, data_), (_, body, expected) in zip(answers, CASES, strict=True):
        assert code == 400, body
        message = _message(path, data_)
        assert message.startswith(f"malformed request body: {expected}"), (body, message)
        assert "object has no attribute" not in message and "not iterable" not in message
    # Refused bodies consume no plan step: the next good request gets the first reply.
    assert status == 200 and json.loads(data)["content"][0]["text"] == "hello"
    # One connection a request, each logged after its answer: the log's order may differ.
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert (
        "malformed request: messages[0].content: expected a string or a list of content blocks, "
        "got 5"
    ) in [record.get("error") for record in logged]


def test_a_body_that_is_not_an_object_keeps_its_reason() -> None:
    """Not JSON, or not an object: the reason stays as before (no field to name)."""
    with ScriptedModelServer(PLAN) as server:
        status, data = post(server.base_url + CHAT, [1, 2])  # type: ignore[arg-type]
    assert status == 400
    assert _message(CHAT, data) == "malformed request body: the body is not a JSON object"
