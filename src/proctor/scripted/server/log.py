"""The request log: one JSON line per request, safe to share (no headers, keys or bodies)."""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor.scripted.server.exchange import ModelRequest

log = logging.getLogger("proctor")


@dataclass
class RequestRecord:
    """What is logged about one request; fields stay None when they do not apply."""

    method: str
    path: str
    index: int | None = None
    dialect: str | None = None
    model: str | None = None
    stream: bool | None = None
    tools: list[str] = field(default_factory=list)
    messages: int | None = None
    request_bytes: int = 0
    response_bytes: int = 0
    played: dict[str, Any] | str | None = None
    status: int = 0
    error: str | None = None
    duration_ms: float = 0.0

    def describe(self, request: ModelRequest) -> None:
        self.dialect, self.model, self.stream = request.dialect, request.model, request.stream
        self.tools, self.messages = sorted(request.tools), request.messages

    def to_json(self) -> dict[str, Any]:
        return {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "method": self.method,
            "path": self.path,
            "index": self.index,
            "dialect": self.dialect,
            "model": self.model,
            "stream": self.stream,
            "tools": self.tools,
            "messages": self.messages,
            "requestBytes": self.request_bytes,
            "responseBytes": self.response_bytes,
            "played": self.played,
            "status": self.status,
            "error": self.error,
            "durationMs": round(self.duration_ms, 1),
        }


class RequestLog:
    """Appends records to a JSONL file (or nowhere); safe to call from many threads.

    A write that fails (disk full, folder removed) is skipped with one warning: the log is a
    record of the requests and must never break answering them.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.failure: str | None = None
        self._lock = threading.Lock()

    def write(self, record: RequestRecord) -> None:
        if self.path is None:
            return
        line = json.dumps(record.to_json(), ensure_ascii=False) + "\n"
        with self._lock:
            try:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
            except OSError as exc:
                if self.failure is None:
                    log.warning("scripted model: cannot write request log %s: %s", self.path, exc)
                self.failure = f"{type(exc).__name__}: {exc}"
