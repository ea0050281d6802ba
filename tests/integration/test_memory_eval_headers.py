"""``proctor memory-eval --mcp URL --header 'NAME: VALUE'``: a server that needs a credential
in a header is evaluated with it, refused without it in one sentence, and the header's value
(a secret) is in no output and no file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from proctor.util import masking
from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
SERVER = str(EXAMPLES / "memory_server.py")
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = str(EXAMPLES / "reference.adapter.toml")
TOKEN = "ZZhdr-Tok3n-8f2d61c0a9"

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(masking, "_SECRETS", set())


@pytest.fixture
def guarded_server(tmp_path: Path) -> Iterator[str]:
    """The example server over HTTP, answering 401 to a request without
    ``Authorization: Bearer TOKEN``; its URL once it listens (read back from its log)."""
    log_file = tmp_path / "server" / "http-server.log"
    log_file.parent.mkdir()
    log = log_file.open("w")
    env = {**os.environ, "MEMORY_SERVER_TOKEN": TOKEN}
    proc = subprocess.Popen(
        [sys.executable, SERVER, "--http", "0"], stdout=log, stderr=log, cwd=tmp_path, env=env
    )
    try:
        deadline, listening = time.monotonic() + 30, None
        while listening is None and time.monotonic() < deadline:
            assert proc.poll() is None, log_file.read_text()
            listening = re.search(r"running on (http://127\.0\.0\.1:\d+)", log_file.read_text())
            time.sleep(0.1)
        assert listening, log_file.read_text()
        yield f"{listening.group(1)}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def evaluate(proctor: Run, url: str, *headers: str) -> CliResult:
    given = [word for header in headers for word in ("--header", header)]
    return proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--json", "--timeout", "10",
        "--mcp", url, *given,
    )  # fmt: skip


def files_holding(root: Path, text: str) -> list[Path]:
    return [
        path
        for path in root.rglob("*")
        if path.is_file() and not path.is_symlink() and text.encode() in path.read_bytes()
    ]


def test_the_header_is_sent_and_shown_nowhere(
    proctor: Run, guarded_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_TOKEN", TOKEN)
    result = evaluate(proctor, guarded_server, "Authorization: Bearer ${MEM_TOKEN}")
    assert result.code == 0, result.err
    assert result.json()["passed"] is True
    assert TOKEN not in result.out + result.err
    assert files_holding(tmp_path, TOKEN) == []
    # Typed on the command line, the value is sent and masked as well.
    typed = evaluate(proctor, guarded_server, f"Authorization: Bearer {TOKEN}")
    assert typed.code == 0, typed.err
    assert TOKEN not in typed.out + typed.err
    assert files_holding(tmp_path, TOKEN) == []


def test_without_the_header_the_refusal_is_one_sentence(proctor: Run, guarded_server: str) -> None:
    result = evaluate(proctor, guarded_server)
    assert result.code == 3, result.err
    assert result.json()["error"] == (
        f"the memory server at {guarded_server} refused the session (401 Unauthorized): it "
        "asks for a credential; send one with --header (e.g. --header 'Authorization: Bearer "
        "${TOKEN}')"
    )
    assert "Traceback" not in result.err


def test_a_wrong_credential_names_the_headers_not_their_values(
    proctor: Run, guarded_server: str
) -> None:
    wrong = "ZZwrong-9d8c7b6a5"
    result = evaluate(proctor, guarded_server, f"Authorization: Bearer {wrong}", "X-Team: t42x")
    assert result.code == 3, result.err
    assert result.json()["error"] == (
        f"the memory server at {guarded_server} refused the session (401 Unauthorized) with "
        "the headers given (Authorization, X-Team): is the credential right, and the header "
        "the one it reads?"
    )
    assert wrong not in result.out + result.err and "t42x" not in result.out + result.err


class _Echoes(BaseHTTPRequestHandler):
    """An MCP endpoint whose tools answer with an error quoting the request's
    ``Authorization`` header, and its token alone (a server that says back what it was sent)."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in message:  # a notification
            self._send(202, b"")
            return
        if message["method"] == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "echoes", "version": "1"},
            }
        else:
            given = self.headers.get("Authorization", "")
            said = f"bad credential {given} (alone: {given.split()[-1]})"
            result = {"content": [{"type": "text", "text": said}], "isError": True}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        self._send(200, body)

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(405, b"")

    do_DELETE = do_GET

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echoing() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echoes)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_a_server_quoting_the_header_has_it_masked(proctor: Run, echoing: str) -> None:
    result = evaluate(proctor, echoing, f"Authorization: Bearer {TOKEN}")
    assert result.code == 3, result.err
    assert result.json()["error"] == (
        "tool 'remember' returned an error (seeding note atlas-port-old): bad credential *** "
        "(alone: ***)"
    )
    assert TOKEN not in result.out + result.err
