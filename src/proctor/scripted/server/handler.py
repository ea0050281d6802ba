"""The HTTP layer: a threaded server whose handler routes, logs and streams with flushing."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

from proctor.models.logs import RequestRecord
from proctor.scripted.server import routes
from proctor.scripted.server.body import BodyError, read_body
from proctor.scripted.server.dialect import new_id
from proctor.scripted.server.exchange import ModelRequest, Reply
from proctor.scripted.server.harness import ROLE_HEADER, HarnessScript
from proctor.scripted.server.log import describe
from proctor.scripted.server.shapes import explain

MALFORMED = (KeyError, TypeError, ValueError, AttributeError, RecursionError)
"""What a body the dialect cannot read raises (RecursionError: JSON nested too deep)."""
LISTEN_BACKLOG = 256
"""Connections the kernel queues before accepting; the default 5 resets parallel clients."""


class Backend(Protocol):
    """What the handler needs from :class:`ScriptedModelServer`."""

    harness: HarnessScript

    def recorded(self, record: RequestRecord) -> None: ...

    def next_index(self) -> int: ...

    def injected_error(self, index: int) -> dict[str, Any] | None: ...

    def answer(self, request: ModelRequest) -> Reply: ...

    def pause(self, seconds: float) -> None: ...


class ModelHTTPServer(ThreadingHTTPServer):
    """One thread per connection; open connections are closed on :meth:`close_connections`."""

    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], backend: Backend) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.backend = backend
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._busy = 0
        self._idle = threading.Condition()
        super().__init__(address, Handler)

    @contextmanager
    def busy(self) -> Iterator[None]:
        """Marks a request in flight, so :meth:`wait_idle` lets it finish (and log)."""
        with self._idle:
            self._busy += 1
        try:
            yield
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> None:
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, timeout)

    def track(self, conn: socket.socket, alive: bool) -> None:
        with self._lock:
            (self._connections.add if alive else self._connections.discard)(conn)

    def close_connections(self) -> None:
        with self._lock:
            conns = list(self._connections)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Dropped connections are normal for streaming clients: stay quiet."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ModelHTTPServer

    def setup(self) -> None:
        super().setup()
        # Small writes (headers, then each event) must not wait for the peer's delayed ACK.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: the request log (``log_path``) records requests instead."""

    def do_HEAD(self) -> None:
        self._serve(self._head)

    def do_GET(self) -> None:
        self._serve(self._get)

    def do_POST(self) -> None:
        self._serve(self._post)

    def _no_such_method(self) -> None:
        self._serve(self._other)

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _no_such_method

    def _serve(self, handle: Callable[[RequestRecord], None]) -> None:
        """Run ``handle`` as one logged, in-flight request; a bug answers 500, not silence."""
        started = time.monotonic()
        record = RequestRecord(method=self.command, path=urlsplit(self.path).path)
        with self.server.busy():
            try:
                handle(record)
            except (BrokenPipeError, ConnectionResetError):
                record.error = "client disconnected"
                self.close_connection = True
            except Exception as exc:
                record.error = f"internal error: {type(exc).__name__}: {exc}"
                if record.status:
                    self.close_connection = True
                else:
                    self._json(record, 500, _error("api_error", "scripted model server bug"))
            finally:
                record.duration_ms = (time.monotonic() - started) * 1000
                self.server.backend.recorded(record)

    def _harness(self, record: RequestRecord, role: str, dialect: Any, request: Any) -> None:
        """A call from one of proctor's own roles: the role's next scripted reply."""
        scripted = self.server.backend.harness.next(role)
        record.played = f"role {role} #{scripted.index + 1}"
        if scripted.status is not None:
            record.error = f"scripted error {scripted.status}"
            body = scripted.body or dialect.error(scripted.status, scripted.message)
            self._json(record, scripted.status, body)
            return
        reply = Reply((scripted.text,), played=record.played, logprobs=scripted.logprobs)
        if request.stream:
            self._stream(record, dialect.events(reply, request))
        else:
            self._json(record, 200, dialect.render(reply, request))

    def _head(self, record: RequestRecord) -> None:
        record.status = 200 if record.path == "/" else 404
        if record.status == 404:
            record.error = f"no endpoint for HEAD {record.path}"
        self.send_response(record.status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _get(self, record: RequestRecord) -> None:
        answer = routes.probe(record.path)
        if answer is None:
            record.error = f"no endpoint for GET {record.path}"
            self._json(record, 404, _error("not_found_error", record.error))
        else:
            self._json(record, 200, answer)

    def _other(self, record: RequestRecord) -> None:
        """A method no route takes: a JSON 404 as for an unknown path (not the standard
        library's HTML 501), then close: a body it may carry is never read."""
        message = record.error = f"no endpoint for {self.command} {record.path}"
        self._json(record, 404, _error("not_found_error", message), close=True)

    def _post(self, record: RequestRecord) -> None:
        backend = self.server.backend
        target = routes.match(record.path)
        try:
            raw = read_body(self.rfile, self.headers)
        except BodyError as exc:
            self._reject_body(record, target, exc)
            return
        record.request_bytes = len(raw)
        if target is None:
            message = record.error = f"no endpoint for POST {record.path}"
            self._json(record, 404, _error("not_found_error", message))
            return
        dialect = target.dialect
        body: Any = None
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("the body is not a JSON object")
            request = dialect.parse(body, target.route, len(raw))
        except MALFORMED as exc:
            # Only a failed parse pays for the walk that names the wrong field.
            why = explain(dialect.shape, body) if isinstance(body, dict) else None
            record.error = f"malformed request: {why or type(exc).__name__}"
            self._json(record, 400, dialect.error(400, f"malformed request body: {why or exc}"))
            return
        describe(record, request)
        if target.count_only:
            self._json(record, 200, routes.token_count(target, request.size // 4))
            return
        role = self.headers.get(ROLE_HEADER)
        if role:
            self._harness(record, role, dialect, request)
            return
        record.index = backend.next_index()
        injected = backend.injected_error(record.index)
        if injected is not None:
            status = int(injected["status"])
            record.played, record.error = "error", f"injected error {status}"
            body = injected.get("body") or dialect.error(status, str(injected.get("message")))
            self._json(record, status, body)
            return
        reply = backend.answer(request)
        record.played = reply.played
        backend.pause(reply.delay)
        if request.stream:
            self._stream(record, dialect.events(reply, request))
        else:
            self._json(record, 200, dialect.render(reply, request))

    def _reject_body(
        self, record: RequestRecord, target: routes.Target | None, exc: BodyError
    ) -> None:
        """Answer an unreadable body and close: unread bytes must not parse as a request."""
        record.error = str(exc)
        message = str(exc)
        if target is not None:
            payload = target.dialect.error(exc.status, message)
        else:
            kind = "request_too_large" if exc.status == 413 else "invalid_request_error"
            payload = _error(kind, message)
        self._json(record, exc.status, payload, close=True)

    def _headers(self, status: int, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("request-id", new_id("req_scripted_"))

    def _json(
        self, record: RequestRecord, status: int, payload: dict[str, Any], close: bool = False
    ) -> None:
        """Send ``payload``; ``close`` ends the connection after it (``Connection: close``)."""
        data = json.dumps(payload, ensure_ascii=False).encode()
        self._headers(status, "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        record.status, record.response_bytes = status, len(data)

    def _stream(self, record: RequestRecord, frames: Iterable[bytes]) -> None:
        """Server-sent events, one HTTP chunk per event, each written out at once."""
        self._headers(200, "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        record.status = 200
        for frame in frames:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            self.wfile.flush()
            record.response_bytes += len(frame)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}
