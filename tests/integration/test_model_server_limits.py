"""The scripted model server under abuse: many parallel clients, malformed or huge bodies,
schemas that ask for huge answers, and a request log that cannot be written."""

from __future__ import annotations

import gzip
import http.client
import io
import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.plan import PlanError
from proctor.scripted.server import ScriptedModelServer, body, side

PLAN = {"turns": [{"say": "hello"}]}
CHAT = "/v1/chat/completions"
PARALLEL = 128


def _get_root(port: int, start: threading.Barrier) -> int:
    """One request on a fresh connection, sent once every worker is ready."""
    start.wait(timeout=30)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_many_parallel_connections_are_all_answered() -> None:
    with ScriptedModelServer(PLAN) as server:
        for _ in range(3):
            start = threading.Barrier(PARALLEL)
            with ThreadPoolExecutor(PARALLEL) as pool:
                futures = [pool.submit(_get_root, server.port, start) for _ in range(PARALLEL)]
                statuses = [future.result() for future in futures]
            assert statuses == [200] * PARALLEL


class _Replay(io.BytesIO):
    """Bytes received, read by :class:`http.client.HTTPResponse` as if from a socket."""

    def makefile(self, mode: str) -> _Replay:
        return self

    def close(self) -> None:
        """Kept open, so what follows the first response can still be read."""


def _exchange(server: ScriptedModelServer, raw: bytes) -> tuple[bytes, bytes]:
    """Send ``raw`` on one connection and read until the server closes it: the first
    response's status, Connection header and body, and any bytes after that response."""
    received = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw)
        while chunk := sock.recv(65536):
            received += chunk
    replay = _Replay(received)
    response = http.client.HTTPResponse(replay)  # type: ignore[arg-type]
    response.begin()
    data = response.read()
    head = f"{response.status} {response.getheader('Connection')}".encode()
    return head + b"\n" + data, replay.read()


def _post_head(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: x", "Content-Type: application/json"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _status_and_body(answer: bytes) -> tuple[str, dict[str, Any]]:
    head, data = answer.split(b"\n", 1)
    return head.decode(), json.loads(data)


@pytest.mark.parametrize(
    ("length", "status"),
    [("-1", 400), ("1e11", 400), ("abc", 400), ("100000000000", 413), ("9" * 400, 413)],
)
def test_bad_content_length_answers_at_once_and_closes(length: str, status: int) -> None:
    leftover = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    with ScriptedModelServer(PLAN) as server:
        answer, rest = _exchange(server, _post_head(CHAT, {"Content-Length": length}) + leftover)
    head, data = _status_and_body(answer)
    assert head == f"{status} close"
    assert data["error"]["type"] == "invalid_request_error" and data["error"]["message"]
    assert rest == b"", "the bytes after a rejected body must not be parsed as a request"


def test_too_large_bodies_get_413_in_the_dialect_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(body, "MAX_BODY", 1000)
    big = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]})
    chunked = f"{len(big):x}\r\n{big[:100]}".encode()
    packed = gzip.compress(big.encode())
    with ScriptedModelServer(PLAN) as server:
        sized, _ = _exchange(server, _post_head("/v1/messages", {"Content-Length": "1001"}))
        streamed, _ = _exchange(
            server, _post_head("/v1/messages", {"Transfer-Encoding": "chunked"}) + chunked
        )
        bomb, _ = _exchange(
            server,
            _post_head(
                "/v1beta/models/g:generateContent",
                {"Content-Length": str(len(packed)), "Content-Encoding": "gzip"},
            )
            + packed,
        )
    for answer in (sized, streamed):
        head, data = _status_and_body(answer)
        assert head == "413 close" and data["error"]["type"] == "request_too_large"
    head, data = _status_and_body(bomb)
    assert head == "413 close" and data["error"]["code"] == 413


def test_bad_chunks_and_deep_json_are_400s() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with ScriptedModelServer(PLAN) as server:
        bad_chunk, rest = _exchange(
            server, _post_head(CHAT, {"Transfer-Encoding": "chunked"}) + b"-5\r\nhello\r\n"
        )
        headers = {"Content-Length": str(len(deep)), "Connection": "close"}
        nested, _ = _exchange(server, _post_head(CHAT, headers) + deep)
    head, data = _status_and_body(bad_chunk)
    assert head == "400 close" and "chunk size" in data["error"]["message"] and rest == b""
    head, data = _status_and_body(nested)
    assert head.startswith("400") and "malformed request body" in data["error"]["message"]


def _structured(server: ScriptedModelServer, schema_json: str) -> tuple[int, int, Any]:
    """Ask Chat Completions for ``schema_json``; status, response size and the filled value."""
    payload = (
        '{"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": '
        f'{{"type": "json_schema", "json_schema": {{"name": "x", "schema": {schema_json}}}}}}}'
    )
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", CHAT, body=payload, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    content = json.loads(data)["choices"][0]["message"]["content"] if response.status == 200 else ""
    return response.status, len(data), json.loads(content) if content else None


def test_response_schemas_cannot_ask_for_huge_or_broken_answers() -> None:
    nested = '{"type": "array", "minItems": 1000000000, "items": ' * 20 + "{}" + "}" * 20
    with ScriptedModelServer(PLAN) as server:
        status, size, value = _structured(
            server, '{"type": "array", "items": {"type": "string"}, "minItems": 10000000}'
        )
        assert status == 200 and value == ["scripted"] * side.MAX_ITEMS
        status, size, value = _structured(server, nested)
        assert status == 200 and size < 100_000
        status, _, value = _structured(
            server,
            '{"type": "object", "properties": {"n": {"type": "integer", "minimum": Infinity},'
            ' "x": {"type": "number", "minimum": NaN}, "s": {"minLength": 1e300}}}',
        )
        assert status == 200 and value == {"n": 1, "x": 0.0, "s": "scripted".ljust(256, "x")}


def test_a_log_that_cannot_be_written_does_not_break_keep_alive(tmp_path: Path) -> None:
    log_path = tmp_path / "missing" / "requests.jsonl"
    with ScriptedModelServer(PLAN, log_path=log_path) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        try:
            sockets = set()
            for _ in range(3):
                connection.request("GET", "/")
                response = connection.getresponse()
                assert response.status == 200 and response.read()
                sockets.add(id(connection.sock))
        finally:
            connection.close()
    assert len(sockets) == 1, "the kept-alive connection was dropped"
    assert server.log.failure is not None and "FileNotFoundError" in server.log.failure
    assert not log_path.parent.exists()


@pytest.mark.parametrize("logprob", [1.0, 1000, float("inf")])
def test_positive_or_infinite_logprobs_are_refused_by_the_server(logprob: float) -> None:
    plan = {"roles": {"judge": [{"text": "PASS", "logprobs": [logprob]}]}, **PLAN}
    with pytest.raises(
        PlanError, match=r"field 'roles\.judge\[0\]\.logprobs\[0\]': expected a finite number"
    ):
        ScriptedModelServer(plan)
