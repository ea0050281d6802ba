"""OpenAI Responses API (``POST /v1/responses``): what Codex speaks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from proctor.scripted.server.dialect import (
    Dialect,
    Route,
    dumps,
    new_id,
    now,
    openai_error,
    pieces,
    sse,
)
from proctor.scripted.server.exchange import (
    ModelRequest,
    Reply,
    ToolSpec,
    Turn,
    has_prompt,
    merge_turns,
    text_of,
    usage,
)
from proctor.scripted.server.shapes import (
    ANY,
    BOOLEAN,
    SCHEMA,
    STRING,
    Array,
    Either,
    Obj,
    Scalar,
    Tagged,
    listed,
    mapped,
    typed,
)

CALL_ITEMS = {"function_call", "custom_tool_call", "local_shell_call"}
OUTPUT_ITEMS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


TEXT_PARTS = {"input_text", "output_text", "text"}
"""Content parts that carry a ``text``."""


def _parts(content: Any) -> None:
    """A type test per field of the content parts of a message or a call's output (TypeError,
    or AttributeError for a part that is no object, when one is wrong; :data:`BODY` names
    it)."""
    if type(content) is list:
        for part in content:
            kind = part.get("type")
            if kind in TEXT_PARTS:
                typed(part.get("text"), str)
            else:
                typed(kind, str)


def _call(item: dict[str, Any], kind: str) -> None:
    """The type tests of a call item's fields: what the call names and carries."""
    typed(item.get("call_id"), str)
    typed(item.get("name"), str)
    if kind == "function_call":
        typed(item.get("arguments"), str)
    elif kind == "custom_tool_call":
        typed(item.get("input"), str)
    else:
        mapped(item.get("action"))


def _turn(item: dict[str, Any]) -> Turn | None:
    kind = item.get("type", "message")
    if kind in CALL_ITEMS:
        _call(item, kind)
        return Turn("assistant", calls=1)
    if kind == "tool_search_call":
        return Turn("assistant", searches=1)
    if kind in OUTPUT_ITEMS:
        typed(item.get("call_id"), str)
        _parts(typed(item.get("output"), str, list))
        return Turn("user")
    if kind == "tool_search_output":
        return Turn("user")
    if kind == "reasoning":
        return Turn("assistant")
    if kind == "message":
        role, content = item.get("role"), typed(item.get("content"), str, list)
        _parts(content)
        if role == "assistant":
            return Turn("assistant")
        if role == "user":
            return Turn("user", prompt=has_prompt(content))
        typed(role, str)
        return None
    typed(kind, str)
    return None


def _tool(tool: dict[str, Any]) -> ToolSpec | None:
    kind = tool.get("type")
    if kind == "local_shell":
        return ToolSpec("local_shell", kind="local_shell")
    if kind == "tool_search":
        return ToolSpec("tool_search", kind="tool_search")
    name = tool.get("name")
    if type(name) is not str or kind not in ("function", "custom"):
        typed(kind, str)
        typed(name, str)
        return None
    params = frozenset(mapped(mapped(tool.get("parameters")).get("properties")))
    return ToolSpec(name, kind="custom" if kind == "custom" else "function", params=params)


def _namespaced(tools: list[dict[str, Any]]) -> dict[str, ToolSpec]:
    """Tools inside ``{"type": "namespace", "name": N, "tools": [...]}`` entries, known to the
    plan as ``N__<tool>`` (how Codex offers an MCP server's tools)."""
    specs: dict[str, ToolSpec] = {}
    for entry in tools:
        if entry.get("type") != "namespace" or not isinstance(entry.get("name"), str):
            continue
        for tool in listed(entry.get("tools")):
            spec = _tool(tool)
            if spec is not None:
                full = f"{entry['name']}__{spec.name}"
                specs[full] = ToolSpec(spec.name, spec.kind, spec.params, entry["name"])
    return specs


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = mapped(mapped(body.get("text")).get("format"))
    kind = typed(fmt.get("type"), str)
    if kind == "json_schema":
        return mapped(fmt.get("schema"))
    return {} if kind == "json_object" else None


def parse(body: dict[str, Any], route: Route, size: int) -> ModelRequest:
    raw = body.get("input")
    items: list[dict[str, Any]] = (
        ([{"role": "user", "content": raw}] if raw else []) if type(raw) is str else listed(raw)
    )
    offered = listed(body.get("tools"))
    for item in items:
        if item.get("type") == "tool_search_output" and item.get("tools") is not None:
            offered = offered + listed(item["tools"])  # deferred tools a search brought
    tools = {spec.name: spec for spec in map(_tool, offered) if spec is not None}
    tools.update(_namespaced(offered))
    system = text_of(typed(body.get("instructions"), str, list))
    texts = [system] + [
        text_of(i.get("content"))
        for i in items
        if i.get("type", "message") == "message" and i.get("role") != "assistant"
    ]
    return ModelRequest(
        dialect="openai-responses",
        model=typed(body.get("model"), str) or "scripted",
        stream=bool(typed(body.get("stream"), bool)),
        tools=tools,
        turns=merge_turns(t for t in map(_turn, items) if t is not None),
        messages=len(items),
        size=size,
        system=system,
        texts=tuple(texts),
        schema=_schema(body),
        results=tuple(text_of(i.get("output")) for i in items if i.get("type") in OUTPUT_ITEMS),
    )


def _call_item(kind: str, id_prefix: str, call_id: str) -> dict[str, Any]:
    """The fields every tool call output item has; the caller adds the kind's own."""
    return {"type": kind, "id": new_id(id_prefix), "status": "completed", "call_id": call_id}


def _items(reply: Reply, request: ModelRequest) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {
            "id": new_id("msg_scripted_"),
            "type": "message",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        for text in reply.texts
    ]
    call = reply.call
    if call is None:
        return items
    call_id = new_id("call_scripted_")
    if call.kind == "tool_search":
        item = _call_item("tool_search_call", "tsc_", call_id)
        item.update(execution="client", arguments=call.arguments)
    elif call.kind == "custom":
        item = _call_item("custom_tool_call", "ctc_", call_id)
        item.update(name=call.name, input=call.raw_input)
    elif call.kind == "local_shell":
        item = _call_item("local_shell_call", "lsh_", call_id)
        item["action"] = {"type": "exec", "command": call.arguments["command"], "env": {}}
    else:
        item = _call_item("function_call", "fc_", call_id)
        item.update(name=call.name, arguments=dumps(call.arguments))
        spec = request.tools.get(call.name)
        if spec is not None and spec.namespace:
            item["name"], item["namespace"] = spec.name, spec.namespace
    return [*items, item]


def _response(
    reply: Reply, request: ModelRequest, output: list[dict[str, Any]], done: bool
) -> dict[str, Any]:
    tokens_in, tokens_out = usage(request, reply)
    return {
        "id": new_id("resp_scripted_"),
        "object": "response",
        "created_at": now(),
        "status": "completed" if done else "in_progress",
        "model": request.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "usage": {
            "input_tokens": tokens_in,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": tokens_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens_in + tokens_out,
        }
        if done
        else None,
    }


def render(reply: Reply, request: ModelRequest) -> dict[str, Any]:
    return _response(reply, request, _items(reply, request), done=True)


def _item_events(item: dict[str, Any], index: int) -> Iterator[tuple[str, dict[str, Any]]]:
    kind, ref = item["type"], {"item_id": item["id"], "output_index": index}
    if kind == "message":
        part = item["content"][0]
        yield (
            "response.output_item.added",
            {"item": {**item, "status": "in_progress", "content": []}},
        )
        yield (
            "response.content_part.added",
            {**ref, "content_index": 0, "part": {**part, "text": ""}},
        )
        for piece in pieces(part["text"]):
            yield (
                "response.output_text.delta",
                {**ref, "content_index": 0, "delta": piece, "logprobs": []},
            )
        yield (
            "response.output_text.done",
            {**ref, "content_index": 0, "text": part["text"], "logprobs": []},
        )
        yield "response.content_part.done", {**ref, "content_index": 0, "part": part}
    elif kind == "function_call":
        yield (
            "response.output_item.added",
            {"item": {**item, "status": "in_progress", "arguments": ""}},
        )
        for piece in pieces(item["arguments"]):
            yield "response.function_call_arguments.delta", {**ref, "delta": piece}
        yield (
            "response.function_call_arguments.done",
            {**ref, "name": item["name"], "arguments": item["arguments"]},
        )
    elif kind == "custom_tool_call":
        yield "response.output_item.added", {"item": {**item, "status": "in_progress", "input": ""}}
        for piece in pieces(item["input"]):
            yield "response.custom_tool_call_input.delta", {**ref, "delta": piece}
        yield "response.custom_tool_call_input.done", {**ref, "input": item["input"]}
    else:
        yield "response.output_item.added", {"item": item}
    yield "response.output_item.done", {"item": item}


def events(reply: Reply, request: ModelRequest) -> Iterator[bytes]:
    items = _items(reply, request)
    final = _response(reply, request, items, done=True)
    opening = {**final, "status": "in_progress", "output": [], "usage": None}
    frames: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": opening}),
        ("response.in_progress", {"response": opening}),
    ]
    for index, item in enumerate(items):
        for kind, data in _item_events(item, index):
            frames.append((kind, {**data, "output_index": index} if "item" in data else data))
    frames.append(("response.completed", {"response": final}))
    for seq, (kind, data) in enumerate(frames):
        yield sse({"type": kind, "sequence_number": seq, **data}, kind)


TOOL = Obj(
    "a tool object",
    type=STRING,
    name=STRING,
    parameters=SCHEMA,
    tools=Array(
        Obj("a tool object", type=STRING, name=STRING, parameters=SCHEMA), "a list of tools"
    ),
)
TOOLS = Array(TOOL, "a list of tools")
TEXT_PART = Obj(text=STRING)
PARTS = Array(
    Tagged("a content part object", "type", dict.fromkeys(TEXT_PARTS, TEXT_PART)),
    "a list of content parts",
)
TEXT = Either("a string or a list of content parts", {str: ANY, list: PARTS})
CALL = Obj(call_id=STRING, name=STRING)
MESSAGE = Obj(role=STRING, content=TEXT)
ITEM = Tagged(
    "an input item object",
    "type",
    {
        None: MESSAGE,  # an item without a type is a message
        "message": MESSAGE,
        "function_call": Obj(
            call_id=STRING, name=STRING, arguments=Scalar("the arguments as a string of JSON", str)
        ),
        "custom_tool_call": Obj(call_id=STRING, name=STRING, input=STRING),
        "local_shell_call": Obj(call_id=STRING, name=STRING, action=Obj("an action object")),
        **dict.fromkeys(OUTPUT_ITEMS, Obj(call_id=STRING, output=TEXT)),
        "tool_search_output": Obj(tools=TOOLS),
    },
)
BODY = Obj(
    model=STRING,
    stream=BOOLEAN,
    instructions=Either("a string or a list of input items", {str: ANY, list: ANY}),
    input=Either(
        "a string or a list of input items", {str: ANY, list: Array(ITEM, "a list of input items")}
    ),
    tools=TOOLS,
    text=Obj(format=Obj("a format object", type=STRING, schema=Obj("a JSON schema object"))),
)
"""The fields :func:`parse` reads, to name a wrong one in a 400."""

DIALECT = Dialect("openai-responses", parse, render, events, openai_error, BODY)
