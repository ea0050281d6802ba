"""Which dialect serves a URL, and the answers to the small probe endpoints."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from proctor.scripted.server import anthropic, gemini, openai_chat, openai_responses
from proctor.scripted.server.dialect import Dialect, Route, now

GEMINI_PATH = re.compile(
    r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):"
    r"(?P<method>generateContent|streamGenerateContent|countTokens)$"
)
POST_PATHS = {
    "/v1/messages": anthropic.DIALECT,
    "/v1/responses": openai_responses.DIALECT,
    "/v1/chat/completions": openai_chat.DIALECT,
}
MODEL_IDS = ("scripted",)


@dataclass(frozen=True)
class Target:
    """A POST endpoint: its dialect, what the URL says, and whether it only counts tokens."""

    dialect: Dialect
    route: Route
    count_only: bool = False


def match(path: str) -> Target | None:
    """The endpoint for ``POST path`` (query string removed), or None."""
    if path in POST_PATHS:
        return Target(POST_PATHS[path], Route())
    if path == "/v1/messages/count_tokens":
        return Target(anthropic.DIALECT, Route(), count_only=True)
    found = GEMINI_PATH.match(path)
    if found is None:
        return None
    method = found["method"]
    route = Route(model=found["model"], stream=method == "streamGenerateContent")
    return Target(gemini.DIALECT, route, count_only=method == "countTokens")


def token_count(target: Target, tokens: int) -> dict[str, Any]:
    if target.dialect is gemini.DIALECT:
        return {"totalTokens": tokens}
    return {"input_tokens": tokens}


def probe(path: str) -> dict[str, Any] | None:
    """The JSON answer to ``GET path``, or None for an unknown path."""
    if path == "/":
        return {"status": "ok", "server": "proctor scripted model"}
    if path in ("/v1/models", "/models"):
        return {"object": "list", "data": [_model(m) for m in MODEL_IDS], "has_more": False}
    if path.startswith("/v1/models/"):
        return _model(path.rsplit("/", 1)[1])
    if path == "/v1beta/models":
        return {"models": [{"name": f"models/{m}", "displayName": m} for m in MODEL_IDS]}
    return None


def _model(model_id: str) -> dict[str, Any]:
    return {
        "id": model_id,
        "object": "model",
        "type": "model",
        "created": now(),
        "created_at": "2025-01-01T00:00:00Z",
        "display_name": model_id,
        "owned_by": "proctor",
    }
