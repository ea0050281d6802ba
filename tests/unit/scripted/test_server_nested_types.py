"""A wrong JSON type deep in a conversation (a text block's ``text``, a call's input or
arguments, a result's content, a Gemini part's ``functionCall.args``) is a 400 naming its path,
in each dialect's error shape, as a wrong top-level field is; before, the server answered as
if the field were absent. The request bodies the real CLIs sent (``bodies/``: recorded from
the pinned CLIs against the scripted server, long texts cut) still parse as before."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.server import ScriptedModelServer, anthropic, gemini, openai_responses
from proctor.scripted.server.dialect import Route
from proctor.scripted.server.player import position
from tests.unit.scripted.test_server_wrong_types import ANTHROPIC, CHAT, GEMINI, RESPONSES, post

BODIES = Path(__file__).parent / "bodies"
CLAUDE, CODEX, GEMINI_CLI = "claude-code-2.1.197", "codex-0.171.0", "gemini-cli-0.61.0"


def recorded(name: str) -> dict[str, Any]:
    return json.loads((BODIES / f"{name}.json").read_text())  # type: ignore[no-any-return]


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def said(*blocks: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks)}


def use(**fields: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}, **fields}


def result(**fields: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": "t1", "content": "ok", **fields}


def gemini_part(**fields: Any) -> dict[str, Any]:
    return {"contents": [{"role": "model", "parts": [fields]}]}


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        ANTHROPIC,
        {"messages": [user({"type": "text", "text": 5})]},
        "messages[0].content[0].text: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [user({"type": 5, "text": "hi"})]},
        "messages[0].content[0].type: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [user({"type": "text", "text": "go"}), said(use(input=["ls"]))]},
        'messages[1].content[0].input: expected an object of the tool\'s input, got ["ls"]',
    ),
    (
        ANTHROPIC,
        {"messages": [said(use(name=5))]},
        "messages[0].content[0].name: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [said(use()), user(result(content=5))]},
        "messages[1].content[0].content: expected a string or a list of content blocks, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [user(result(content={"text": "x"}))]},
        'messages[0].content[0].content: expected a string or a list of content blocks, got {"',
    ),
    (
        ANTHROPIC,
        {"messages": [user(result(content=[{"type": "text", "text": 5}]))]},
        "messages[0].content[0].content[0].text: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [user(result(content=[7]))]},
        "messages[0].content[0].content[0]: expected a content block object, got 7",
    ),
    (
        ANTHROPIC,
        {"messages": [user(result(is_error="yes"))]},
        'messages[0].content[0].is_error: expected true or false, got "yes"',
    ),
    (
        ANTHROPIC,
        {"messages": [user(result(tool_use_id=1))]},
        "messages[0].content[0].tool_use_id: expected a string, got 1",
    ),
    (
        ANTHROPIC,
        {"messages": [], "system": [{"type": "text", "text": 5}]},
        "system[0].text: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [], "system": ["be brief"]},
        'system[0]: expected a content block object, got "be brief"',
    ),
    (
        RESPONSES,
        {"input": [{"type": "message", "role": "user", "content": [{"type": "input_text"}]}]},
        "",  # no text is an absent field: served
    ),
    (
        RESPONSES,
        {"input": [{"role": "user", "content": [{"type": "input_text", "text": 5}]}]},
        "input[0].content[0].text: expected a string, got 5",
    ),
    (
        RESPONSES,
        {"input": [{"role": "user", "content": [5]}]},
        "input[0].content[0]: expected a content part object, got 5",
    ),
    (
        RESPONSES,
        {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}]},
        "input[0].arguments: expected the arguments as a string of JSON, got {}",
    ),
    (
        RESPONSES,
        {"input": [{"type": "function_call", "call_id": 1, "name": "f", "arguments": "{}"}]},
        "input[0].call_id: expected a string, got 1",
    ),
    (
        RESPONSES,
        {"input": [{"type": "custom_tool_call", "call_id": "c", "name": "p", "input": 5}]},
        "input[0].input: expected a string, got 5",
    ),
    (
        RESPONSES,
        {"input": [{"type": "local_shell_call", "call_id": "c", "action": "ls"}]},
        'input[0].action: expected an action object, got "ls"',
    ),
    (
        RESPONSES,
        {
            "input": [
                {
                    "type": "function_call_output",
                    "call_id": "c",
                    "output": [{"type": "input_text", "text": ["x"]}],
                }
            ]
        },
        'input[0].output[0].text: expected a string, got ["x"]',
    ),
    (
        CHAT,
        {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
        "messages[0].content[0].text: expected a string, got 5",
    ),
    (
        CHAT,
        {"messages": [{"role": "user", "content": ["hi"]}]},
        'messages[0].content[0]: expected a content part object, got "hi"',
    ),
    (
        CHAT,
        {
            "messages": [
                {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}
            ]
        },
        "messages[0].tool_calls[0].function.arguments: expected the arguments as a string of "
        "JSON, got {}",
    ),
    (
        CHAT,
        {"messages": [{"role": "assistant", "tool_calls": [5]}]},
        "messages[0].tool_calls[0]: expected a tool call object, got 5",
    ),
    (
        CHAT,
        {"messages": [{"role": "assistant", "tool_calls": [{"function": "f"}]}]},
        'messages[0].tool_calls[0].function: expected a function object, got "f"',
    ),
    (
        CHAT,
        {"messages": [{"role": "tool", "tool_call_id": 3, "content": "ok"}]},
        "messages[0].tool_call_id: expected a string, got 3",
    ),
    (GEMINI, gemini_part(text=5), "contents[0].parts[0].text: expected a string, got 5"),
    (
        GEMINI,
        gemini_part(functionCall={"name": "ls", "args": "{}"}),
        'contents[0].parts[0].functionCall.args: expected an object of arguments, got "{}"',
    ),
    (
        GEMINI,
        gemini_part(functionCall=5),
        "contents[0].parts[0].functionCall: expected a function call object, got 5",
    ),
    (
        GEMINI,
        gemini_part(functionCall={"name": 5, "args": {}}),
        "contents[0].parts[0].functionCall.name: expected a string, got 5",
    ),
    (
        GEMINI,
        gemini_part(functionResponse={"name": "ls", "response": "ok"}),
        'contents[0].parts[0].functionResponse.response: expected an object of the response, got "',
    ),
    (
        GEMINI,
        gemini_part(text="hm", thought="yes"),
        'contents[0].parts[0].thought: expected true or false, got "yes"',
    ),
    (
        GEMINI,
        {"contents": [], "systemInstruction": {"parts": [{"text": 5}]}},
        "systemInstruction.parts[0].text: expected a string, got 5",
    ),
    (
        ANTHROPIC,
        {"messages": [], "output_config": {"format": {"type": 5, "schema": {}}}},
        "output_config.format.type: expected a string, got 5",
    ),
    (
        CHAT,
        {"messages": [], "response_format": {"type": ["json_object"]}},
        'response_format.type: expected a string, got ["json_object"]',
    ),
    (
        RESPONSES,
        {"input": "hi", "text": {"format": {"type": 1}}},
        "text.format.type: expected a string, got 1",
    ),
    (
        GEMINI,
        {"contents": [], "generationConfig": {"responseJsonSchema": "{}"}},
        'generationConfig.responseJsonSchema: expected a JSON schema object, got "{}"',
    ),
    (
        GEMINI,
        {"contents": [], "generationConfig": {"responseMimeType": True}},
        "generationConfig.responseMimeType: expected a string, got true",
    ),
]
"""A structured output's format whose ``type`` (or Gemini's schema or MIME type) is of the
wrong type was read as no format: a plain-text answer to a request for JSON."""


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer({"turns": [{"say": "hello"}]}) as served:
        yield served


@pytest.mark.parametrize(("path", "body", "expected"), CASES)
def test_a_wrong_type_deep_in_the_conversation_is_refused_by_its_path(
    server: ScriptedModelServer, path: str, body: dict[str, Any], expected: str
) -> None:
    status, answer = post(server.base_url + path, body)
    if not expected:
        assert status == 200, answer
        return
    assert status == 400, answer
    message = answer["error"]["message"]
    assert message.startswith(f"malformed request body: {expected}"), message


def _set(body: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(body)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


REAL: list[tuple[str, str, tuple[Any, ...], Any, str]] = [
    (
        CLAUDE,
        ANTHROPIC,
        ("messages", 2, "content", 1, "input"),
        ["notes.txt"],
        "messages[2].content[1].input: expected an object of the tool's input, got [",
    ),
    (
        CLAUDE,
        ANTHROPIC,
        ("messages", 5, "content", 0, "content"),
        0,
        "messages[5].content[0].content: expected a string or a list of content blocks, got 0",
    ),
    (
        CODEX,
        RESPONSES,
        ("input", 3, "content", 0, "text"),
        None,
        "",
    ),
    (
        CODEX,
        RESPONSES,
        ("input", 5, "input"),
        {"patch": "x"},
        'input[5].input: expected a string, got {"patch": "x"}',
    ),
    (
        GEMINI_CLI,
        GEMINI,
        ("contents", 1, "parts", 1, "functionCall", "args"),
        "notes.txt",
        'contents[1].parts[1].functionCall.args: expected an object of arguments, got "notes.txt"',
    ),
]


@pytest.mark.parametrize(("name", "path", "where", "value", "expected"), REAL)
def test_a_recorded_body_with_one_field_of_the_wrong_type_is_refused_by_its_path(
    server: ScriptedModelServer,
    name: str,
    path: str,
    where: tuple[Any, ...],
    value: Any,
    expected: str,
) -> None:
    body = {**_set(recorded(name), where, value), "stream": False}  # one JSON answer
    status, answer = post(server.base_url + path, body)
    if not expected:  # null is an absent field
        assert status == 200, answer
        return
    assert status == 400, answer
    assert answer["error"]["message"].startswith(f"malformed request body: {expected}")


Parse = Callable[[dict[str, Any], Route, int], Any]


@pytest.mark.parametrize(
    ("name", "parse", "tools", "results"),
    [
        (CLAUDE, anthropic.parse, 24, "File created successfully at: "),
        (CODEX, openai_responses.parse, 9, "Exit code: 0\nWall time: "),
        (GEMINI_CLI, gemini.parse, 15, "Successfully created and wrote"),
    ],
)
def test_the_bodies_the_real_clis_sent_still_parse(
    name: str, parse: Parse, tools: int, results: str
) -> None:
    """Each CLI's sixth request of a scripted trial (text, a write, a shell command, a read
    that fails, a failing command, a search): the conversation is read as before."""
    request = parse(recorded(name), Route(model="m", stream=True), 1)
    assert position(request.turns) == (1, 5)
    assert len(request.tools) == tools and len(request.results) == 5
    assert request.results[0].startswith(results)
