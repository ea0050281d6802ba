"""Side requests: titles, routers and classifiers a CLI asks for beside the agent loop.

A request is a side request when it offers no tools, asks for structured output (a JSON
schema), or has a short system prompt (under 2,000 characters) that mentions a title. It is
answered at once and never consumes a plan step: JSON filling the schema when one is given,
else a short title when a title is asked for, else ``OK``.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from proctor.scripted.server.exchange import ModelRequest, Reply

TITLE = "Scripted session"
TITLE_WORD = re.compile(r"\btitle\b", re.IGNORECASE)
SHORT_SYSTEM = 2000
PREFERRED = {"next_speaker": "user"}
"""Enum choices that keep a CLI's loop going as planned (Gemini's next-speaker check)."""
MAX_ITEMS = 16
"""Most items an array gets, whatever its ``minItems``."""
MAX_LENGTH = 256
"""Longest string a ``minLength`` gets; a larger minimum is cut to this."""
MAX_DEPTH = 32
"""Deepest nesting filled; deeper values are null."""
MAX_VALUES = 1000
"""Most values in one answer; once spent, the rest are null. Nested ``minItems`` multiply, so
this bound (not the per-array one) is what keeps any schema's answer small."""


def is_side_request(request: ModelRequest) -> bool:
    return (
        request.schema is not None
        or not request.tools
        or (len(request.system) < SHORT_SYSTEM and bool(TITLE_WORD.search(request.system)))
    )


def fill(schema: Any, name: str = "") -> Any:
    """A value matching a JSON schema (or Gemini ``responseSchema``), filled sensibly.

    Sizes are capped by :data:`MAX_ITEMS`, :data:`MAX_LENGTH`, :data:`MAX_DEPTH` and
    :data:`MAX_VALUES`, and a bound that is not a finite number is ignored, so any schema gets
    a small answer quickly.
    """
    return _Filler().fill(schema, name, 0)


class _Filler:
    """One answer's fill, counting the values it has made against :data:`MAX_VALUES`."""

    def __init__(self) -> None:
        self.left = MAX_VALUES

    def fill(self, schema: Any, name: str, depth: int) -> Any:
        if depth > MAX_DEPTH or self.left <= 0:
            return None
        self.left -= 1
        if not isinstance(schema, dict):
            return "scripted"
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            enum = schema["enum"]
            return PREFERRED[name] if PREFERRED.get(name) in enum else enum[0]
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                return self.fill(schema[key][0], name, depth + 1)
        kind = schema.get("type", "object" if "properties" in schema else "string")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        return self.typed(schema, str(kind).lower(), name, depth)

    def typed(self, schema: dict[str, Any], kind: str, name: str, depth: int) -> Any:
        if kind == "object":
            props = schema.get("properties")
            props = props if isinstance(props, dict) else {}
            return {key: self.fill(sub, str(key), depth + 1) for key, sub in props.items()}
        if kind == "array":
            count = _count(schema.get("minItems"), MAX_ITEMS)
            return [self.fill(schema.get("items"), name, depth + 1) for _ in range(count)]
        if kind in ("integer", "number"):
            return _number(schema.get("minimum"), integer=kind == "integer")
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        return _string(name).ljust(_count(schema.get("minLength"), MAX_LENGTH), "x")


def _finite(value: Any) -> float | None:
    """``value`` as a finite float, or None when it is not a number or not finite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _count(value: Any, limit: int) -> int:
    """A schema's ``minItems``/``minLength`` clamped to ``0..limit`` (0 when not a number)."""
    number = _finite(value)
    return 0 if number is None else max(0, min(limit, math.ceil(number)))


def _number(minimum: Any, integer: bool) -> int | float:
    """The schema's ``minimum`` when it is a finite number, else 1 (integers) or 0.0."""
    if integer and isinstance(minimum, int) and not isinstance(minimum, bool):
        return minimum
    low = _finite(minimum)
    if integer:
        return 1 if low is None else math.ceil(low)
    return 0.0 if low is None else low


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
