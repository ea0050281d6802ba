"""The scripted model server driven by the official OpenAI SDK: Responses (Codex) and Chat."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from proctor.scripted.server import ScriptedModelServer

PLAN = {
    "turns": [
        {"say": "Writing."},
        {"write": {"path": "src/hello.txt", "content": "hello\n"}},
        {"edit": {"path": "src/hello.txt", "old": "hello\n", "new": "bye\n"}},
        {"edit": {"path": "calc.py", "old": "a - b", "new": "a + b"}},
        {"read": "calc.py"},
        {"search": "def add", "path": "src"},
        {"say": "All done."},
        {"endTurn": True},
        {"shell": "pytest -q"},
    ]
}
DEVELOPER = {
    "type": "message",
    "role": "developer",
    "content": [{"type": "input_text", "text": "Be Codex."}],
}
ENVIRONMENT = {
    "type": "message",
    "role": "user",
    "content": [
        {
            "type": "input_text",
            "text": "<environment_context>\n  <cwd>/ws/codex</cwd>\n  <shell>bash</shell>\n</environment_context>",
        }
    ],
}


def _function(name: str, *params: str) -> dict[str, Any]:
    props = {p: {"type": "string"} for p in params}
    return {"type": "function", "name": name, "parameters": {"type": "object", "properties": props}}


CODEX_TOOLS = [
    _function("exec_command", "cmd", "workdir", "yield_time_ms"),
    _function("write_stdin", "session_id", "chars"),
    {
        "type": "custom",
        "name": "apply_patch",
        "description": "patch",
        "format": {"type": "grammar"},
    },
]


@pytest.fixture
def openai_client() -> Iterator[Any]:
    clients: list[openai.OpenAI] = []

    def make(server: ScriptedModelServer, api_key: str = "dummy") -> openai.OpenAI:
        client = openai.OpenAI(base_url=server.base_url + "/v1", api_key=api_key, max_retries=0)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


class CodexLike:
    """Codex's loop over the Responses API: history items in, output items appended."""

    def __init__(self, client: openai.OpenAI, tools: list[dict[str, Any]], mode: str):
        self.client, self.tools, self.mode = client, tools, mode
        self.items: list[dict[str, Any]] = [DEVELOPER, ENVIRONMENT]
        self.calls: list[tuple[str, Any]] = []

    def _output(self) -> list[Any]:
        kwargs: dict[str, Any] = {"model": "gpt-5.5", "input": self.items, "tools": self.tools}
        if self.mode == "json":
            return list(self.client.responses.create(**kwargs).output)
        if self.mode == "helper":
            with self.client.responses.stream(**kwargs) as stream:
                return list(stream.get_final_response().output)
        done: list[Any] = []
        types: list[str] = []
        # (Closed when read: a stream left open holds its connection until a collection.)
        with self.client.responses.create(stream=True, **kwargs) as events:
            for event in events:
                types.append(event.type)
                if event.type == "response.output_item.done":
                    done.append(event.item)
                if event.type == "response.completed":
                    usage = event.response.usage
                    assert usage.input_tokens > 0 and usage.output_tokens > 0
                    assert usage.input_tokens_details.cached_tokens == 0
                    assert usage.output_tokens_details.reasoning_tokens == 0
                    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
        assert types[:2] == ["response.created", "response.in_progress"]
        assert types[-1] == "response.completed"
        return done

    def prompt(self, text: str) -> list[str]:
        self.items.append(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        )
        for _ in range(12):
            output = self._output()
            texts: list[str] = []
            call = None
            for item in output:
                self.items.append(item.model_dump(exclude_none=True))
                if item.type == "message":
                    texts.extend(part.text for part in item.content)
                elif item.type == "function_call":
                    call = ("function_call_output", item.call_id)
                    self.calls.append((item.name, json.loads(item.arguments)))
                elif item.type == "custom_tool_call":
                    call = ("custom_tool_call_output", item.call_id)
                    self.calls.append((item.name, item.input))
            if call is None:
                return texts
            self.items.append({"type": call[0], "call_id": call[1], "output": "Exit code: 0"})
        raise AssertionError("the turn did not end")


EDIT_SCRIPT = (
    "python3 - <<'PROCTOR_EOF'\nimport pathlib, sys\np = pathlib.Path('calc.py')\n"
    "s = p.read_text()\nold, new = 'a - b', 'a + b'\nif old not in s:\n"
    "    sys.exit(f'old string not found in {p}')\np.write_text(s.replace(old, new, 1))\n"
    "PROCTOR_EOF"
)


@pytest.mark.parametrize("mode", ["stream", "json", "helper"])
def test_codex_loop_maps_actions_to_codex_tools(openai_client: Any, mode: str) -> None:
    with ScriptedModelServer(PLAN) as server:
        codex = CodexLike(openai_client(server), CODEX_TOOLS, mode)
        assert codex.prompt("Fix calc.py") == ["All done."]
        assert codex.prompt("Run the tests") == ["Done."]
    assert codex.calls == [
        ("apply_patch", "*** Begin Patch\n*** Add File: src/hello.txt\n+hello\n*** End Patch"),
        (
            "apply_patch",
            "*** Begin Patch\n*** Update File: src/hello.txt\n@@\n-hello\n+bye\n*** End Patch",
        ),
        ("exec_command", {"cmd": EDIT_SCRIPT}),
        ("exec_command", {"cmd": "cat calc.py"}),
        ("exec_command", {"cmd": "grep -rnE -- 'def add' src"}),
        ("exec_command", {"cmd": "pytest -q"}),
    ]


def test_codex_without_apply_patch_writes_through_the_shell(openai_client: Any) -> None:
    plan = {
        "turns": [
            {"write": {"path": "a b.txt", "content": "x\n"}},
            {"write": {"path": "n", "content": "y"}},
        ]
    }
    with ScriptedModelServer(plan) as server:
        codex = CodexLike(openai_client(server), CODEX_TOOLS[:2], "stream")
        codex.prompt("go")
    assert codex.calls == [
        ("exec_command", {"cmd": "cat > 'a b.txt' <<'PROCTOR_EOF'\nx\nPROCTOR_EOF"}),
        ("exec_command", {"cmd": "printf %s y > n"}),
    ]


def test_codex_title_request_is_a_side_request(openai_client: Any) -> None:
    with ScriptedModelServer(PLAN) as server:
        client = openai_client(server)
        title = client.responses.create(
            model="gpt-5.5",
            instructions="Generate a concise, single-line task title for the user's request.",
            input="Fix calc.py",
        )
        assert title.output_text == "Scripted session"
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "ok": {"type": "boolean"}},
        }
        structured = client.responses.create(
            model="gpt-5.5",
            input="Fix calc.py",
            tools=CODEX_TOOLS,
            text={"format": {"type": "json_schema", "name": "out", "schema": schema}},
        )
        assert json.loads(structured.output_text) == {"name": "scripted", "ok": False}
        codex = CodexLike(client, CODEX_TOOLS, "stream")
        codex.prompt("Fix calc.py")
    assert codex.calls[0][0] == "apply_patch"


def test_responses_error_injection(openai_client: Any) -> None:
    with ScriptedModelServer(PLAN, errors={0: {"status": 500, "message": "boom"}}) as server:
        client = openai_client(server)
        with pytest.raises(openai.InternalServerError, match="boom"):
            client.responses.create(model="m", input="go", tools=CODEX_TOOLS)
        assert (
            client.responses.create(model="m", input="go", tools=CODEX_TOOLS).output[0].type
            == "message"
        )


OPENCODE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {"type": "object", "properties": {p: {} for p in params}},
        },
    }
    for name, params in [
        ("bash", ["command", "description"]),
        ("write", ["filePath", "content"]),
        ("edit", ["filePath", "oldString", "newString", "replaceAll"]),
        ("read", ["filePath"]),
        ("grep", ["pattern", "path"]),
    ]
]


def _chat_turn(
    client: openai.OpenAI, messages: list[dict[str, Any]], stream: bool
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"model": "fake-model", "messages": messages, "tools": OPENCODE_TOOLS}
    if not stream:
        message = client.chat.completions.create(**kwargs).choices[0].message
        calls = [c.model_dump() for c in message.tool_calls or []]
        return {"role": "assistant", "content": message.content, "tool_calls": calls}
    content, calls, finish = "", [], None
    with client.chat.completions.create(
        stream=True, stream_options={"include_usage": True}, **kwargs
    ) as chunks:
        for chunk in chunks:
            if not chunk.choices:
                assert chunk.usage is not None and chunk.usage.total_tokens > 0
                continue
            delta = chunk.choices[0].delta
            content += delta.content or ""
            for tc in delta.tool_calls or []:
                if tc.id:
                    calls.append(
                        {
                            "id": tc.id,
                            "type": "function",
                            "function": {"name": tc.function.name, "arguments": ""},
                        }
                    )
                calls[tc.index]["function"]["arguments"] += tc.function.arguments or ""
            finish = chunk.choices[0].finish_reason or finish
    assert finish == ("tool_calls" if calls else "stop")
    return {"role": "assistant", "content": content or None, "tool_calls": calls}


@pytest.mark.parametrize("stream", [True, False])
def test_chat_completions_loop(openai_client: Any, stream: bool) -> None:
    with ScriptedModelServer(PLAN) as server:
        client = openai_client(server)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are opencode. Working directory: /ws/oc"},
            {"role": "user", "content": "Fix calc.py"},
        ]
        calls = []
        for _ in range(10):
            message = _chat_turn(client, messages, stream)
            messages.append({k: v for k, v in message.items() if v})
            if not message["tool_calls"]:
                break
            call = message["tool_calls"][0]
            calls.append((call["function"]["name"], json.loads(call["function"]["arguments"])))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": "ok"})
    assert message["content"] == "All done."
    assert calls == [
        ("write", {"filePath": "/ws/oc/src/hello.txt", "content": "hello\n"}),
        (
            "edit",
            {
                "filePath": "/ws/oc/src/hello.txt",
                "oldString": "hello\n",
                "newString": "bye\n",
                "replaceAll": False,
            },
        ),
        (
            "edit",
            {
                "filePath": "/ws/oc/calc.py",
                "oldString": "a - b",
                "newString": "a + b",
                "replaceAll": False,
            },
        ),
        ("read", {"filePath": "/ws/oc/calc.py"}),
        ("grep", {"pattern": "def add", "path": "/ws/oc/src"}),
    ]


def test_chat_title_request_and_key_never_logged(openai_client: Any, tmp_path: Any) -> None:
    secret = "sk-proj-PLANTED-abcdef0123456789"
    log = tmp_path / "log.jsonl"
    with ScriptedModelServer(PLAN, log_path=log) as server:
        client = openai_client(server, api_key=secret)
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "Generate a title for: fix calc"}]
        )
    assert reply.choices[0].message.content == "Scripted session"
    assert secret not in log.read_text()
    assert json.loads(log.read_text())["played"] == "side request"


TOOL_SEARCH = {"type": "tool_search", "execution": "client", "parameters": {"type": "object"}}
TINY_NAMESPACE = {
    "type": "namespace",
    "name": "mcp__tiny",
    "tools": [_function("add", "a", "b")],
}
MCP_PLAN = {"turns": [{"tool": "mcp__tiny__add", "input": {"a": 2, "b": 3}}, {"say": "5"}]}


def _respond(server: ScriptedModelServer, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One non-streaming Responses request with Codex's tools plus tool_search; its output."""
    body = {"model": "gpt-5.5", "input": items, "tools": [*CODEX_TOOLS, TOOL_SEARCH]}
    request = urllib.request.Request(
        server.base_url + "/v1/responses",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer dummy"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        output: list[dict[str, Any]] = json.load(response)["output"]
    return output


def _prompt(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_a_deferred_mcp_tool_is_searched_for_then_called() -> None:
    with ScriptedModelServer(MCP_PLAN) as server:
        items = [DEVELOPER, ENVIRONMENT, _prompt("add them")]
        (search,) = _respond(server, items)
        assert search["type"] == "tool_search_call" and search["execution"] == "client"
        assert search["arguments"] == {"query": "tiny add", "limit": 8}
        found = {
            "type": "tool_search_output",
            "call_id": search["call_id"],
            "execution": "client",
            "status": "completed",
            "tools": [TINY_NAMESPACE],
        }
        items += [search, found]
        (call,) = _respond(server, items)
        assert (call["type"], call["namespace"], call["name"]) == (
            "function_call",
            "mcp__tiny",
            "add",
        )
        assert json.loads(call["arguments"]) == {"a": 2, "b": 3}
        items += [call, {"type": "function_call_output", "call_id": call["call_id"], "output": "5"}]
        (message,) = _respond(server, items)
        assert message["content"][0]["text"] == "5"


def test_control_a_search_that_finds_nothing_is_not_repeated() -> None:
    with ScriptedModelServer(MCP_PLAN) as server:
        items = [DEVELOPER, ENVIRONMENT, _prompt("add them")]
        (search,) = _respond(server, items)
        empty = {"type": "tool_search_output", "call_id": search["call_id"], "tools": []}
        (call,) = _respond(server, [*items, search, empty])
        assert (call["type"], call["name"]) == ("function_call", "mcp__tiny__add")


def test_offered_tools_are_never_searched_for() -> None:
    plan = {"turns": [{"shell": "ls"}]}
    with ScriptedModelServer(plan) as server:
        (call,) = _respond(server, [DEVELOPER, ENVIRONMENT, _prompt("list")])
        assert (call["type"], call["name"]) == ("function_call", "exec_command")
