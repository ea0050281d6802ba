"""``proctor memory-eval --mcp URL`` where something answers over HTTP that is not an MCP
endpoint (a wrong path, another web server): one sentence with the URL, what came back and
where an MCP endpoint usually is, rather than the SDK's bare "Not Found"."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.conftest import CliResult
from tests.integration.test_memory_eval import (  # noqa: F401 (fixtures)
    ADAPTER,
    DATASET,
    http_server,
    scratch_in_tmp,
)

Run = Callable[..., CliResult]
HINT = "is the URL its streamable HTTP endpoint (often http://HOST:PORT/mcp)?"


def evaluate(proctor: Run, url: str) -> CliResult:
    return proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--json", "--timeout", "10",
        "--mcp", url,
    )  # fmt: skip


def test_a_wrong_path_on_an_mcp_server(proctor: Run, http_server: str) -> None:  # noqa: F811
    url = http_server.replace("/mcp", "/mcpx").replace("http://", "http://me:pa55@")
    result = evaluate(proctor, url)
    assert result.code == 3, result.err
    shown = url.replace("pa55", "***")
    assert result.json()["error"] == (
        f"the memory server at {shown} answered but started no MCP session (Not Found); {HINT}"
    )
    assert "pa55" not in result.out + result.err


class _NotMcp(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # a web server that serves no MCP
        self.send_error(405)

    do_GET = do_DELETE = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotMcp)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_web_server_that_is_not_mcp(proctor: Run, web_server: str) -> None:
    result = evaluate(proctor, web_server)
    assert result.code == 3, result.err
    error = result.json()["error"]
    assert error.startswith(f"the memory server at {web_server} answered but started no MCP ")
    assert error.endswith(HINT) and "Traceback" not in result.err


class _GoesAway(BaseHTTPRequestHandler):
    """An MCP endpoint that answers ``initialize``, then closes the connection of every later
    message unanswered (a server gone, a proxy that drops it)."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if message.get("method") != "initialize":
            self.close_connection = True
            with contextlib.suppress(OSError):  # the client may have closed it first
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "goes-away", "version": "1"},
        }
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def going_away() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GoesAway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://me:pa55@127.0.0.1:{server.server_address[1]}/mcp?api_key=sk-away123"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_closed_connection_is_said_so_not_an_exit(proctor: Run, going_away: str) -> None:
    """A server at a URL is no process: its connection closed, with the URL (masked) and what
    the HTTP client said, not "exited"."""
    result = evaluate(proctor, going_away)
    assert result.code == 3, result.err
    shown = going_away.replace("pa55", "***").replace("sk-away123", "***")
    assert result.json()["error"] == (
        f"the connection to the memory server at {shown} closed during tool 'remember' "
        "(seeding note atlas-port-old); the HTTP client: Server disconnected without sending "
        "a response"
    )
    assert "pa55" not in result.out + result.err and "sk-away123" not in result.out
    assert "Traceback" not in result.err
