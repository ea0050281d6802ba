"""OpenAI Chat Completions API (``POST /v1/chat/completions``): opencode and most local tools."""

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


def _parts(content: list[Any]) -> None:
    """A type test per field of a message's content parts (TypeError, or AttributeError for a
    part that is no object, when one is wrong; :data:`BODY` names it)."""
    for part in content:
        kind = part.get("type")
        if kind == "text":
            typed(part.get("text"), str)
        else:
            typed(kind, str)


def _call_count(message: dict[str, Any]) -> int:
    """How many tool calls an assistant message makes, each call's fields type-tested."""
    calls = listed(message.get("tool_calls"))
    for call in calls:
        typed(call.get("id"), str)
        typed(call.get("type"), str)
        function = mapped(call.get("function"))
        typed(function.get("name"), str)
        typed(function.get("arguments"), str)
    return len(calls)


def _turn(message: dict[str, Any]) -> Turn | None:
    role, content = message.get("role"), typed(message.get("content"), str, list)
    if type(content) is list:
        _parts(content)
    calls = _call_count(message)
    typed(message.get("tool_call_id"), str)
    if role == "assistant":
        return Turn("assistant", calls=calls)
    if role == "tool":
        return Turn("user")
    if role == "user":
        return Turn("user", prompt=has_prompt(content))
    typed(role, str)
    return None


def _tool(tool: dict[str, Any]) -> ToolSpec | None:
    spec = mapped(tool.get("function")) or mapped(tool.get("custom"))
    name = spec.get("name")
    if type(name) is not str:
        typed(name, str)
        return None
    params = frozenset(mapped(mapped(spec.get("parameters")).get("properties")))
    return ToolSpec(name, params=params or (frozenset({"input"}) if "custom" in tool else params))


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = mapped(body.get("response_format"))
    kind = typed(fmt.get("type"), str)
    if kind == "json_schema":
        return mapped(mapped(fmt.get("json_schema")).get("schema"))
    return {} if kind == "json_object" else None


def parse(body: dict[str, Any], route: Route, size: int) -> ModelRequest:
    messages: list[dict[str, Any]] = listed(body.get("messages"))
    tools = {spec.name: spec for spec in map(_tool, listed(body.get("tools"))) if spec is not None}
    system = "\n".join(
        text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    texts = [text_of(m.get("content")) for m in messages if m.get("role") != "assistant"]
    return ModelRequest(
        dialect="openai-chat",
        model=typed(body.get("model"), str) or "scripted",
        stream=bool(typed(body.get("stream"), bool)),
        tools=tools,
        turns=merge_turns(t for t in map(_turn, messages) if t is not None),
        messages=len(messages),
        size=size,
        system=system,
        texts=tuple(texts),
        schema=_schema(body),
        results=tuple(text_of(m.get("content")) for m in messages if m.get("role") == "tool"),
    )


def _usage(request: ModelRequest, reply: Reply) -> dict[str, Any]:
    tokens_in, tokens_out = usage(request, reply)
    return {
        "prompt_tokens": tokens_in,
        "completion_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _calls(reply: Reply) -> list[dict[str, Any]]:
    if reply.call is None:
        return []
    function = {"name": reply.call.name, "arguments": dumps(reply.call.arguments)}
    return [{"id": new_id("call_scripted_"), "type": "function", "function": function}]


def _envelope(request: ModelRequest, kind: str) -> dict[str, Any]:
    chat_id = new_id("chatcmpl-scripted")
    return {"id": chat_id, "object": kind, "created": now(), "model": request.model}


def _logprobs(reply: Reply) -> dict[str, Any] | None:
    """OpenAI's per-token log-probabilities, one entry per scripted value (tokens are
    placeholders: the values are what a judge's perplexity is computed from)."""
    if reply.logprobs is None:
        return None
    content: list[dict[str, Any]] = [
        {"token": f"t{i}", "logprob": value, "bytes": None, "top_logprobs": []}
        for i, value in enumerate(reply.logprobs)
    ]
    return {"content": content, "refusal": None}


def render(reply: Reply, request: ModelRequest) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(reply.texts) or None}
    if reply.call is not None:
        message["tool_calls"] = _calls(reply)
    choice = {
        "index": 0,
        "message": message,
        "finish_reason": "stop" if reply.ends_turn else "tool_calls",
        "logprobs": _logprobs(reply),
    }
    envelope = _envelope(request, "chat.completion")
    return {**envelope, "choices": [choice], "usage": _usage(request, reply)}


def events(reply: Reply, request: ModelRequest) -> Iterator[bytes]:
    head = _envelope(request, "chat.completion.chunk")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return sse({**head, "choices": [choice]})

    yield chunk({"role": "assistant", "content": ""})
    for piece in pieces("\n\n".join(reply.texts)) if reply.texts else []:
        yield chunk({"content": piece})
    for index, call in enumerate(_calls(reply)):
        opening = {**call, "index": index, "function": {**call["function"], "arguments": ""}}
        yield chunk({"tool_calls": [opening]})
        for piece in pieces(call["function"]["arguments"]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, "stop" if reply.ends_turn else "tool_calls")
    yield sse({**head, "choices": [], "usage": _usage(request, reply)})
    yield sse("[DONE]")


PARTS = Array(
    Tagged("a content part object", "type", {"text": Obj(text=STRING)}), "a list of content parts"
)
CALL = Obj(
    "a tool call object",
    id=STRING,
    type=STRING,
    function=Obj(
        "a function object",
        name=STRING,
        arguments=Scalar("the arguments as a string of JSON", str),
    ),
)
BODY = Obj(
    model=STRING,
    stream=BOOLEAN,
    messages=Array(
        Obj(
            "a message object",
            role=STRING,
            content=Either("a string or a list of content parts", {str: ANY, list: PARTS}),
            tool_calls=Array(CALL, "a list of tool calls"),
            tool_call_id=STRING,
        ),
        "a list of messages",
    ),
    tools=Array(
        Obj(
            "a tool object",
            function=Obj("a function object", name=STRING, parameters=SCHEMA),
            custom=Obj("a custom tool object", name=STRING, parameters=SCHEMA),
        ),
        "a list of tools",
    ),
    response_format=Obj(
        "an object",
        type=STRING,
        json_schema=Obj("an object", schema=Obj("a JSON schema object")),
    ),
)
"""The fields :func:`parse` reads, to name a wrong one in a 400."""

DIALECT = Dialect("openai-chat", parse, render, events, openai_error, BODY)
