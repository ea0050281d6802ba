"""The request log: one :class:`~proctor.models.logs.RequestRecord` line per request, safe to
share (no headers, keys or bodies)."""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

from proctor.models.logs import RequestRecord
from proctor.scripted.server.exchange import ModelRequest

log = logging.getLogger("proctor")


def describe(record: RequestRecord, request: ModelRequest) -> None:
    """Note what a request asked for on its log line."""
    record.dialect, record.model, record.stream = request.dialect, request.model, request.stream
    record.tools, record.messages = sorted(request.tools), request.messages


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
        record.time = datetime.now(UTC).isoformat(timespec="milliseconds")
        record.duration_ms = round(record.duration_ms, 1)
        line = json.dumps(record.model_dump(mode="json", by_alias=True), ensure_ascii=False) + "\n"
        with self._lock:
            try:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
            except OSError as exc:
                if self.failure is None:
                    log.warning("scripted model: cannot write request log %s: %s", self.path, exc)
                self.failure = f"{type(exc).__name__}: {exc}"
