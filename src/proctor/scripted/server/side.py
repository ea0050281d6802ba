"""Side requests: titles, routers and classifiers a CLI asks for beside the agent loop.

A request is a side request when it offers no tools, asks for structured output (a JSON
schema), or has a short system prompt (under 2,000 characters) that mentions a title. It is
answered at once and never consumes a plan step: JSON filling the schema when one is given,
else a short title when a title is asked for, else ``OK``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from proctor.scripted.server.exchange import ModelRequest, Reply

TITLE = "Scripted session"
TITLE_WORD = re.compile(r"\btitle\b", re.IGNORECASE)
SHORT_SYSTEM = 2000
PREFERRED = {"next_speaker": "user"}
"""Enum choices that keep a CLI's loop going as planned (Gemini's next-speaker check)."""


def is_side_request(request: ModelRequest) -> bool:
    return (
        request.schema is not None
        or not request.tools
        or (len(request.system) < SHORT_SYSTEM and bool(TITLE_WORD.search(request.system)))
    )


def fill(schema: Any, name: str = "") -> Any:
    """A value matching a JSON schema (or Gemini ``responseSchema``), filled sensibly."""
    if not isinstance(schema, dict):
        return "scripted"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        enum = schema["enum"]
        return PREFERRED[name] if PREFERRED.get(name) in enum else enum[0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return fill(schema[key][0], name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    kind = str(kind).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {key: fill(sub, key) for key, sub in props.items()}
    if kind == "array":
        return [fill(schema.get("items"), name) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", 1 if kind == "integer" else 0)
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return _string(name)


def _string(name: str) -> str:
    lowered = name.lower()
    if "title" in lowered:
        return TITLE
    if lowered in ("reasoning", "explanation", "analysis", "reason", "summary"):
        return "Scripted model: a fixed answer."
    return "scripted"


def answer(request: ModelRequest) -> str:
    if request.schema is not None:
        return json.dumps(fill(request.schema) if request.schema else {})
    if any(TITLE_WORD.search(text) for text in (request.system, *request.texts)):
        return TITLE
    return "OK"


class SideRole:
    """Answers side requests; returns None for the agent loop's requests."""

    def respond(self, request: ModelRequest) -> Reply | None:
        if not is_side_request(request):
            return None
        return Reply((answer(request),), played="side request")
