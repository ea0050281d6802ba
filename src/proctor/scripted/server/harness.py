"""Scripted replies for proctor's own model roles (judge, workhorse, fast).

A request carrying ``X-Proctor-Role: <role>`` is not the agent's: it gets the next reply the
plan's ``roles`` lists for that role (the last one repeats), or a sensible default when the plan
scripts none: the judge passes with moderate confidence, the workhorse aborts, the classifier
says ``statement``. Unlike agent steps these replies are counted per role in the server, so a
role's n-th call gets the n-th reply.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    "judge": {
        "json": {"score": 75, "confidenceLevel": 60, "rationale": "Scripted default verdict."}
    },
    "workhorse": {"json": {"action": "abort", "reason": "no scripted answer"}},
    "fast": {"text": "statement"},
}
ROLE_HEADER = "X-Proctor-Role"


@dataclass(frozen=True)
class HarnessReply:
    text: str = ""
    logprobs: tuple[float, ...] | None = None
    status: int | None = None
    message: str = ""
    body: dict[str, Any] | None = None
    index: int = 0


class HarnessScript:
    def __init__(self, roles: Mapping[str, list[dict[str, Any]]] | None) -> None:
        self.roles = {k: list(v) for k, v in (roles or {}).items()}
        self.calls: dict[str, int] = {}
        self.lock = threading.Lock()

    def next(self, role: str) -> HarnessReply:
        with self.lock:
            n = self.calls.get(role, 0)
            self.calls[role] = n + 1
        replies = self.roles.get(role) or [DEFAULTS.get(role, {"text": "OK"})]
        entry = replies[min(n, len(replies) - 1)]
        probs = entry.get("logprobs")
        logprobs = tuple(float(v) for v in probs) if isinstance(probs, list) else None
        if "status" in entry:
            return HarnessReply(
                status=int(entry["status"]),
                message=str(entry.get("message", "")),
                body=entry.get("body"),
                index=n,
            )
        text = entry["text"] if "text" in entry else json.dumps(entry.get("json"))
        return HarnessReply(text=text, logprobs=logprobs, index=n)
