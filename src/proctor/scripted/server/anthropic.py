"""Anthropic Messages API (``POST /v1/messages``): what Claude Code speaks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from proctor.scripted.server.dialect import Dialect, Route, dumps, new_id, pieces, sse
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
    Tagged,
    listed,
    mapped,
    typed,
)

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _kind(block: Any) -> Any:
    """A block's ``type``, with the types of a text block's fields tested (TypeError, or
    AttributeError for a block that is no object, when one is wrong; :data:`BODY` names it)."""
    kind = block.get("type")
    if kind == "text":
        typed(block.get("text"), str)
    else:
        typed(kind, str)
    return kind


def _check(blocks: list[Any]) -> None:
    """A type test per field of the blocks a conversation carries, as :data:`BLOCK` has them."""
    for block in blocks:
        kind = _kind(block)
        if kind == "tool_use":
            typed(block.get("id"), str)
            typed(block.get("name"), str)
            mapped(block.get("input"))
        elif kind == "tool_result":
            typed(block.get("tool_use_id"), str)
            typed(block.get("is_error"), bool)
            content = block.get("content")
            if type(content) is not str:
                for inner in listed(content):
                    _kind(inner)


def _turn(message: dict[str, Any]) -> Turn | None:
    role, content = message.get("role"), message.get("content")
    if type(content) is str:
        blocks: list[Any] = [{"type": "text", "text": content}]
    else:
        blocks = listed(content)
        _check(blocks)
    if role == "assistant":
        return Turn("assistant", calls=sum(1 for b in blocks if b.get("type") == "tool_use"))
    if role != "user":
        typed(role, str)
        return None
    texts = [b for b in blocks if b.get("type") == "text"]
    return Turn("user", prompt=has_prompt(texts))


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = typed(mapped(body.get("output_config")).get("format"), dict) or typed(
        body.get("output_format"), dict
    )
    if fmt and typed(fmt.get("type"), str) == "json_schema":
        return mapped(fmt.get("schema"))
    return None


def _tools(body: dict[str, Any]) -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for tool in listed(body.get("tools")):
        name = tool.get("name")
        if type(name) is str:
            params = mapped(mapped(tool.get("input_schema")).get("properties"))
            tools[name] = ToolSpec(name, params=frozenset(params))
        else:
            typed(name, str)
    return tools


def parse(body: dict[str, Any], route: Route, size: int) -> ModelRequest:
    messages: list[dict[str, Any]] = listed(body.get("messages"))
    tools = _tools(body)
    system_value = typed(body.get("system"), str, list)
    if type(system_value) is list:
        _check(system_value)
    system = text_of(system_value)
    texts = [system] + [text_of(m.get("content")) for m in messages if m.get("role") != "assistant"]
    return ModelRequest(
        dialect="anthropic",
        model=typed(body.get("model"), str) or "scripted",
        stream=bool(typed(body.get("stream"), bool)),
        tools=tools,
        turns=merge_turns(t for t in map(_turn, messages) if t is not None),
        messages=len(messages),
        size=size,
        system=system,
        texts=tuple(texts),
        schema=_schema(body),
        results=tuple(
            text_of(block.get("content"))
            for m in messages
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            for block in m["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ),
    )


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": t} for t in reply.texts]
    if reply.call is not None:
        blocks.append(
            {
                "type": "tool_use",
                "id": new_id("toolu_scripted_"),
                "name": reply.call.name,
                "input": reply.call.arguments,
            }
        )
    return blocks


def _usage(request: ModelRequest, reply: Reply, output: int | None = None) -> dict[str, Any]:
    tokens_in, tokens_out = usage(request, reply)
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out if output is None else output,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "service_tier": "standard",
    }


def _message(reply: Reply, request: ModelRequest, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": new_id("msg_scripted_"),
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": "end_turn" if reply.ends_turn else "tool_use",
        "stop_sequence": None,
        "usage": _usage(request, reply),
    }


def render(reply: Reply, request: ModelRequest) -> dict[str, Any]:
    return _message(reply, request, _blocks(reply))


def _block_events(index: int, block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if block["type"] == "text":
        opening: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
    else:
        opening = {**block, "input": {}}
        json_text = dumps(block["input"])
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(json_text)]
    yield {"type": "content_block_start", "index": index, "content_block": opening}
    for delta in deltas:
        yield {"type": "content_block_delta", "index": index, "delta": delta}
    yield {"type": "content_block_stop", "index": index}


def events(reply: Reply, request: ModelRequest) -> Iterator[bytes]:
    start = _message(reply, request, [])
    start.update(stop_reason=None, usage=_usage(request, reply, output=1))
    frames: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(_blocks(reply)):
        frames.extend(_block_events(index, block))
    delta = {"stop_reason": "end_turn" if reply.ends_turn else "tool_use", "stop_sequence": None}
    frames.append({"type": "message_delta", "delta": delta, "usage": _usage(request, reply)})
    frames.append({"type": "message_stop"})
    for frame in frames:
        yield sse(frame, frame["type"])


def error(status: int, message: str) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


FORMAT = Obj("an output format object", type=STRING, schema=Obj("a JSON schema object"))
TEXT_BLOCK = Obj(text=STRING)
BLOCK = Tagged(
    "a content block object",
    "type",
    {
        "text": TEXT_BLOCK,
        "tool_use": Obj(id=STRING, name=STRING, input=Obj("an object of the tool's input")),
        "tool_result": Obj(
            tool_use_id=STRING,
            is_error=BOOLEAN,
            content=Either(
                "a string or a list of content blocks",
                {
                    str: ANY,
                    list: Array(
                        Tagged("a content block object", "type", {"text": TEXT_BLOCK}),
                        "a list of content blocks",
                    ),
                },
            ),
        ),
    },
)
BLOCKS = Array(BLOCK, "a list of content blocks")
BODY = Obj(
    model=STRING,
    stream=BOOLEAN,
    system=Either("a string or a list of text blocks", {str: ANY, list: BLOCKS}),
    messages=Array(
        Obj(
            "a message object",
            role=STRING,
            content=Either(
                "a string or a list of content blocks",
                {str: ANY, list: BLOCKS},
            ),
        ),
        "a list of messages",
    ),
    tools=Array(Obj("a tool object", name=STRING, input_schema=SCHEMA), "a list of tools"),
    output_config=Obj(format=FORMAT),
    output_format=FORMAT,
)
"""The fields :func:`parse` reads, to name a wrong one in a 400."""

DIALECT = Dialect("anthropic", parse, render, events, error, BODY)
