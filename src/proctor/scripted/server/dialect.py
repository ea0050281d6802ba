"""What every API dialect module provides, plus the small helpers they share."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from proctor.scripted.server.exchange import ModelRequest, Reply
from proctor.scripted.server.shapes import Shape

DELTA_SIZE = 64
"""Longest text sent in one streamed delta, so clients see more than one delta per block."""


@dataclass(frozen=True)
class Route:
    """What the URL says about a request (Gemini puts the model and streaming in the path)."""

    model: str | None = None
    stream: bool | None = None


@dataclass(frozen=True)
class Dialect:
    """One wire format: parse a body, render a reply as JSON or as SSE frames, shape an error."""

    name: str
    parse: Callable[[dict[str, Any], Route, int], ModelRequest]
    render: Callable[[Reply, ModelRequest], dict[str, Any]]
    events: Callable[[Reply, ModelRequest], Iterator[bytes]]
    error: Callable[[int, str], dict[str, Any]]
    shape: Shape | None = None
    """What the body's fields should be, walked only when :attr:`parse` fails, to name the
    wrong field in the 400."""


def new_id(prefix: str) -> str:
    """A fresh identifier (random, so requests share no state)."""
    return f"{prefix}{uuid.uuid4().hex[:24]}"


def now() -> int:
    return int(time.time())


def sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event frame."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def pieces(text: str, size: int = DELTA_SIZE) -> list[str]:
    """``text`` cut into deltas of at most ``size`` characters (one empty piece for "")."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def openai_error(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error shape (Responses and Chat Completions)."""
    if status == 429:
        kind = "rate_limit_exceeded"
    else:
        kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "code": kind, "param": None}}
