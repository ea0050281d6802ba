"""A field of the wrong type that Python would take as empty or skip (``"messages": 0``,
``"tools": {}``, a tool named 5) gets a 400 naming the field, in the dialect's own error shape,
as the providers refuse it; before, the server answered as if the field were absent. Chat
Completions (proctor's own roles, opencode) is held to the same."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from proctor.scripted.server import ScriptedModelServer

ANTHROPIC, RESPONSES, CHAT = "/v1/messages", "/v1/responses", "/v1/chat/completions"
GEMINI = "/v1beta/models/g:generateContent"
HI_MESSAGES = {"messages": [{"role": "user", "content": "hi"}]}
HI_INPUT = {"input": "hi"}
HI_CONTENTS = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}

CASES: list[tuple[str, dict[str, Any], str]] = [
    (ANTHROPIC, {"messages": 0}, "messages: expected a list of messages, got 0"),
    (ANTHROPIC, {"messages": False}, "messages: expected a list of messages, got false"),
    (ANTHROPIC, {"messages": ""}, 'messages: expected a list of messages, got ""'),
    (ANTHROPIC, {"messages": {}}, "messages: expected a list of messages, got {}"),
    (
        ANTHROPIC,
        {"messages": [{"role": "user", "content": 0}]},
        "messages[0].content: expected a string or a list of content blocks, got 0",
    ),
    (
        ANTHROPIC,
        {"messages": [{"role": "user", "content": {}}]},
        "messages[0].content: expected a string or a list of content blocks, got {}",
    ),
    (
        ANTHROPIC,
        {"messages": [{"role": 5, "content": "hi"}]},
        "messages[0].role: expected a string, got 5",
    ),
    (ANTHROPIC, {**HI_MESSAGES, "tools": {}}, "tools: expected a list of tools, got {}"),
    (ANTHROPIC, {**HI_MESSAGES, "tools": 0}, "tools: expected a list of tools, got 0"),
    (ANTHROPIC, {**HI_MESSAGES, "tools": "ab"}, 'tools: expected a list of tools, got "ab"'),
    (ANTHROPIC, {**HI_MESSAGES, "tools": [5]}, "tools[0]: expected a tool object, got 5"),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "tools": [{"name": 5}]},
        "tools[0].name: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "tools": [{"name": "t", "input_schema": 0}]},
        "tools[0].input_schema: expected a JSON schema object, got 0",
    ),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "tools": [{"name": "t", "input_schema": {"properties": "ab"}}]},
        'tools[0].input_schema.properties: expected an object of properties, got "ab"',
    ),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "system": 5},
        "system: expected a string or a list of text blocks, got 5",
    ),
    (ANTHROPIC, {**HI_MESSAGES, "stream": "no"}, 'stream: expected true or false, got "no"'),
    (ANTHROPIC, {**HI_MESSAGES, "model": 5}, "model: expected a string, got 5"),
    (ANTHROPIC, {**HI_MESSAGES, "output_config": 0}, "output_config: expected an object, got 0"),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "output_config": {"format": 5}},
        "output_config.format: expected an output format object, got 5",
    ),
    (
        ANTHROPIC,
        {**HI_MESSAGES, "output_config": {"format": {"type": "json_schema", "schema": "x"}}},
        'output_config.format.schema: expected a JSON schema object, got "x"',
    ),
    (RESPONSES, {"input": 0}, "input: expected a string or a list of input items, got 0"),
    (RESPONSES, {"input": False}, "input: expected a string or a list of input items, got false"),
    (RESPONSES, {"input": {}}, "input: expected a string or a list of input items, got {}"),
    (
        RESPONSES,
        {"input": [{"role": "user", "content": 5}]},
        "input[0].content: expected a string or a list of content parts, got 5",
    ),
    (RESPONSES, {"input": [{"role": 5, "content": "hi"}]}, "input[0].role: expected a string"),
    (
        RESPONSES,
        {"input": [{"type": "function_call_output", "call_id": "c", "output": 5}]},
        "input[0].output: expected a string or a list of content parts, got 5",
    ),
    (
        RESPONSES,
        {"input": [{"type": "tool_search_output", "tools": 0}]},
        "input[0].tools: expected a list of tools, got 0",
    ),
    (RESPONSES, {**HI_INPUT, "tools": {}}, "tools: expected a list of tools, got {}"),
    (RESPONSES, {**HI_INPUT, "tools": 0}, "tools: expected a list of tools, got 0"),
    (
        RESPONSES,
        {**HI_INPUT, "tools": [{"type": 5, "name": "t"}]},
        "tools[0].type: expected a string, got 5",
    ),
    (
        RESPONSES,
        {**HI_INPUT, "tools": [{"type": "function", "name": 5}]},
        "tools[0].name: expected a string, got 5",
    ),
    (
        RESPONSES,
        {**HI_INPUT, "tools": [{"type": "function", "name": "t", "parameters": 0}]},
        "tools[0].parameters: expected a JSON schema object, got 0",
    ),
    (
        RESPONSES,
        {
            **HI_INPUT,
            "tools": [{"type": "function", "name": "t", "parameters": {"properties": "ab"}}],
        },
        'tools[0].parameters.properties: expected an object of properties, got "ab"',
    ),
    (
        RESPONSES,
        {**HI_INPUT, "tools": [{"type": "namespace", "name": "n", "tools": {}}]},
        "tools[0].tools: expected a list of tools, got {}",
    ),
    (
        RESPONSES,
        {**HI_INPUT, "instructions": 5},
        "instructions: expected a string or a list of input items, got 5",
    ),
    (RESPONSES, {**HI_INPUT, "stream": "no"}, 'stream: expected true or false, got "no"'),
    (RESPONSES, {**HI_INPUT, "model": 5}, "model: expected a string, got 5"),
    (RESPONSES, {**HI_INPUT, "text": 0}, "text: expected an object, got 0"),
    (RESPONSES, {**HI_INPUT, "text": {"format": 0}}, "text.format: expected a format object"),
    (CHAT, {"messages": 0}, "messages: expected a list of messages, got 0"),
    (CHAT, {"messages": {}}, "messages: expected a list of messages, got {}"),
    (
        CHAT,
        {"messages": [{"role": "user", "content": 5}]},
        "messages[0].content: expected a string or a list of content parts, got 5",
    ),
    (CHAT, {"messages": [{"role": 5}]}, "messages[0].role: expected a string, got 5"),
    (
        CHAT,
        {"messages": [{"role": "assistant", "tool_calls": {}}]},
        "messages[0].tool_calls: expected a list of tool calls, got {}",
    ),
    (CHAT, {"messages": [], "tools": {}}, "tools: expected a list of tools, got {}"),
    (
        CHAT,
        {"messages": [], "tools": [{"type": "function", "function": 0}]},
        "tools[0].function: expected a function object, got 0",
    ),
    (
        CHAT,
        {"messages": [], "tools": [{"type": "function", "function": {"name": 5}}]},
        "tools[0].function.name: expected a string, got 5",
    ),
    (
        CHAT,
        {"messages": [], "tools": [{"function": {"name": "t", "parameters": 0}}]},
        "tools[0].function.parameters: expected a JSON schema object, got 0",
    ),
    (CHAT, {"messages": [], "stream": "no"}, 'stream: expected true or false, got "no"'),
    (CHAT, {"messages": [], "model": 5}, "model: expected a string, got 5"),
    (CHAT, {"messages": [], "response_format": 0}, "response_format: expected an object, got 0"),
    (
        CHAT,
        {"messages": [], "response_format": {"type": "json_schema", "json_schema": 0}},
        "response_format.json_schema: expected an object, got 0",
    ),
    (GEMINI, {"contents": 0}, "contents: expected a list of contents, got 0"),
    (GEMINI, {"contents": False}, "contents: expected a list of contents, got false"),
    (GEMINI, {"contents": ""}, 'contents: expected a list of contents, got ""'),
    (GEMINI, {"contents": {}}, "contents: expected a list of contents, got {}"),
    (
        GEMINI,
        {"contents": [{"role": "user", "parts": "ab"}]},
        'contents[0].parts: expected a list of parts, got "ab"',
    ),
    (
        GEMINI,
        {"contents": [{"role": "user", "parts": 0}]},
        "contents[0].parts: expected a list of parts, got 0",
    ),
    (
        GEMINI,
        {"contents": [{"role": "user", "parts": [5]}]},
        "contents[0].parts[0]: expected a part object, got 5",
    ),
    (
        GEMINI,
        {"contents": [{"role": 5, "parts": [{"text": "hi"}]}]},
        "contents[0].role: expected a string, got 5",
    ),
    (GEMINI, {**HI_CONTENTS, "tools": {}}, "tools: expected a list of tools, got {}"),
    (GEMINI, {**HI_CONTENTS, "tools": 0}, "tools: expected a list of tools, got 0"),
    (
        GEMINI,
        {**HI_CONTENTS, "tools": [{"functionDeclarations": {}}]},
        "tools[0].functionDeclarations: expected a list of declarations, got {}",
    ),
    (
        GEMINI,
        {**HI_CONTENTS, "tools": [{"functionDeclarations": [{"name": 5}]}]},
        "tools[0].functionDeclarations[0].name: expected a string, got 5",
    ),
    (
        GEMINI,
        {**HI_CONTENTS, "tools": [{"functionDeclarations": [{"name": "t", "parameters": 0}]}]},
        "tools[0].functionDeclarations[0].parameters: expected a JSON schema object, got 0",
    ),
    (
        GEMINI,
        {**HI_CONTENTS, "systemInstruction": 0},
        "systemInstruction: expected a content object, got 0",
    ),
    (
        GEMINI,
        {**HI_CONTENTS, "systemInstruction": {"parts": "ab"}},
        'systemInstruction.parts: expected a list of parts, got "ab"',
    ),
    (GEMINI, {**HI_CONTENTS, "generationConfig": 0}, "generationConfig: expected an object, got 0"),
]


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer({"turns": [{"say": "hello"}]}) as served:
        yield served


@pytest.mark.parametrize(("path", "body", "expected"), CASES)
def test_a_wrong_type_taken_as_empty_is_refused_by_name(
    server: ScriptedModelServer, path: str, body: dict[str, Any], expected: str
) -> None:
    status, answer = post(server.base_url + path, body)
    assert status == 400, answer
    error = answer["error"]
    if path == GEMINI:
        assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    elif path == ANTHROPIC:
        assert answer["type"] == "error" and error["type"] == "invalid_request_error"
    else:
        assert error["type"] == "invalid_request_error" and error["code"] == error["type"]
    assert error["message"].startswith(f"malformed request body: {expected}"), error["message"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (ANTHROPIC, {"messages": [], "tools": [], "system": "", "stream": False, "model": "m"}),
        (ANTHROPIC, {"messages": None, "tools": None, "system": None, "output_config": None}),
        (RESPONSES, {"input": "", "tools": [], "instructions": "", "text": {"format": None}}),
        (GEMINI, {"contents": [], "tools": [], "systemInstruction": {"parts": []}}),
        (CHAT, {"messages": [{"role": "assistant", "content": None, "tool_calls": None}]}),
    ],
)
def test_empty_and_null_fields_are_still_served(
    server: ScriptedModelServer, path: str, body: dict[str, Any]
) -> None:
    """Empty values of the right type, and null, are absent fields as before."""
    status, answer = post(server.base_url + path, body)
    assert status == 200, answer
