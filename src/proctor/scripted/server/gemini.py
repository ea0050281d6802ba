"""Gemini API (``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from proctor.scripted.server.dialect import Dialect, Route, new_id, sse
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
    BOOLEAN,
    SCHEMA,
    STRING,
    Array,
    Obj,
    listed,
    mapped,
    typed,
)

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def _part_list(content: dict[str, Any]) -> list[dict[str, Any]]:
    """A content's parts, each a JSON object with its fields type-tested (TypeError when one
    is not; :data:`BODY` names it)."""
    parts = listed(content.get("parts"))
    for part in parts:
        if type(part) is not dict:
            raise TypeError(f"a part is not an object: {part!r}")
        typed(part.get("text"), str)
        typed(part.get("thought"), bool)
        call = mapped(part.get("functionCall"))
        if call:
            typed(call.get("name"), str)
            mapped(call.get("args"))
        response = mapped(part.get("functionResponse"))
        if response:
            typed(response.get("name"), str)
            mapped(response.get("response"))
    return parts


def _turn(content: dict[str, Any]) -> Turn:
    parts, role = _part_list(content), content.get("role")
    if role == "model":
        return Turn("assistant", calls=sum(1 for p in parts if "functionCall" in p))
    typed(role, str)
    texts = [p for p in parts if isinstance(p.get("text"), str) and not p.get("thought")]
    return Turn("user", prompt=has_prompt(texts))


def _tools(body: dict[str, Any]) -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for group in listed(body.get("tools")):
        for decl in listed(group.get("functionDeclarations")):
            name = decl["name"]
            if type(name) is not str:
                raise TypeError(f"a function name is not a string: {name!r}")
            schema = mapped(decl.get("parametersJsonSchema")) or mapped(decl.get("parameters"))
            tools[name] = ToolSpec(name, params=frozenset(mapped(schema.get("properties"))))
    return tools


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    config = mapped(body.get("generationConfig"))
    schema = typed(config.get("responseJsonSchema"), dict) or typed(
        config.get("responseSchema"), dict
    )
    if isinstance(schema, dict):
        return schema
    return {} if typed(config.get("responseMimeType"), str) == "application/json" else None


def parse(body: dict[str, Any], route: Route, size: int) -> ModelRequest:
    contents: list[dict[str, Any]] = listed(body.get("contents"))
    instruction = mapped(body.get("systemInstruction"))
    typed(instruction.get("role"), str)
    system = text_of(_part_list(instruction))
    texts = [system] + [text_of(c.get("parts")) for c in contents if c.get("role") != "model"]
    return ModelRequest(
        dialect="gemini",
        model=route.model or "scripted",
        stream=bool(route.stream),
        tools=_tools(body),
        turns=merge_turns(_turn(c) for c in contents),
        messages=len(contents),
        size=size,
        system=system,
        texts=tuple(texts),
        schema=_schema(body),
        results=tuple(
            _response_text(part["functionResponse"])
            for c in contents
            for part in listed(c.get("parts"))
            if isinstance(part.get("functionResponse"), dict)
        ),
    )


def _response_text(response: dict[str, Any]) -> str:
    """A function response's text: its ``output`` when that is text, else its JSON."""
    body = response.get("response")
    if isinstance(body, dict) and isinstance(body.get("output"), str):
        return str(body["output"])
    return json.dumps(body, ensure_ascii=False)


def _chunk(
    request: ModelRequest, reply: Reply, parts: list[dict[str, Any]], final: bool
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    tokens_in, tokens_out = usage(request, reply)
    if final:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": tokens_in,
            "candidatesTokenCount": tokens_out,
            "totalTokenCount": tokens_in + tokens_out,
            "cachedContentTokenCount": 0,
            "thoughtsTokenCount": 0,
        },
        "modelVersion": request.model,
        "responseId": new_id("scripted"),
    }


def _parts(reply: Reply) -> list[dict[str, Any]]:
    """The reply's texts as one part, separated by a blank line as in Chat Completions: Gemini
    CLI runs a model turn's text parts together (two ``say`` steps showed as ``B3B3b``)."""
    texts = "\n\n".join(reply.texts)
    parts: list[dict[str, Any]] = [{"text": texts}] if reply.texts else []
    if reply.call is not None:
        parts.append({"functionCall": {"name": reply.call.name, "args": reply.call.arguments}})
    return parts


def render(reply: Reply, request: ModelRequest) -> dict[str, Any]:
    return _chunk(request, reply, _parts(reply), final=True)


def events(reply: Reply, request: ModelRequest) -> Iterator[bytes]:
    parts = _parts(reply) or [{"text": ""}]
    for index, part in enumerate(parts):
        yield sse(_chunk(request, reply, [part], final=index == len(parts) - 1))


def error(status: int, message: str) -> dict[str, Any]:
    name = STATUS_NAMES.get(status, "UNKNOWN")
    return {"error": {"code": status, "message": message, "status": name}}


PART = Obj(
    "a part object",
    text=STRING,
    thought=BOOLEAN,
    functionCall=Obj("a function call object", name=STRING, args=Obj("an object of arguments")),
    functionResponse=Obj(
        "a function response object", name=STRING, response=Obj("an object of the response")
    ),
)
CONTENT = Obj("a content object", role=STRING, parts=Array(PART, "a list of parts"))
DECLARATION = Obj(
    "a function declaration object",
    required=("name",),
    name=STRING,
    parametersJsonSchema=SCHEMA,
    parameters=SCHEMA,
)
BODY = Obj(
    contents=Array(CONTENT, "a list of contents"),
    systemInstruction=CONTENT,
    tools=Array(
        Obj("a tool object", functionDeclarations=Array(DECLARATION, "a list of declarations")),
        "a list of tools",
    ),
    generationConfig=Obj(
        responseJsonSchema=Obj("a JSON schema object"),
        responseSchema=Obj("a JSON schema object"),
        responseMimeType=STRING,
    ),
)
"""The fields :func:`parse` reads, to name a wrong one in a 400."""

DIALECT = Dialect("gemini", parse, render, events, error, BODY)
