"""``proctor memory-eval --mcp URL`` where something answers over HTTP that is not an MCP
endpoint (a wrong path, another web server): one sentence with the URL, what came back and
where an MCP endpoint usually is, rather than the SDK's bare "Not Found"."""

from __future__ import annotations

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
