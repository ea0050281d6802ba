"""Providers against a tiny local HTTP server: a 200 reply of the wrong shape is a
``ProviderError`` with a call record, never an AttributeError, TypeError or IndexError."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from proctor.llm.client import ModelClient, ProviderError
from proctor.llm.providers.anthropic import AnthropicProvider
from proctor.llm.providers.openai import OpenAIProvider
from proctor.llm.refs import ModelRef

# Calls cut off by their deadline leave connections behind: collected after each test.
pytestmark = pytest.mark.usefixtures("abandoned_calls_collected")

HTML = ("text/html", "<html><body>Welcome to the captive portal</body></html>")


class Canned:
    """What the server answers every POST with: (content type, body)."""

    reply: tuple[str, str] = HTML
    status = 200


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        content_type, body = Canned.reply
        data = body.encode()
        self.send_response(Canned.status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the default writes every request to stderr."""


@pytest.fixture
def server() -> Iterator[str]:
    Canned.status = 200
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def openai_client(url: str) -> ModelClient:
    ref = ModelRef("openai", "gpt-x")
    return ModelClient("judge", ref, OpenAIProvider(ref, "sk-local", url + "/v1", "judge"))


def anthropic_client(url: str) -> ModelClient:
    ref = ModelRef("anthropic", "claude-x")
    return ModelClient("judge", ref, AnthropicProvider(ref, "sk-local", url, "judge"))


def as_json(body: Any) -> tuple[str, str]:
    return ("application/json", json.dumps(body))


@pytest.mark.parametrize(
    "reply",
    [
        HTML,
        as_json({}),
        as_json({"choices": []}),
        as_json({"choices": [{"index": 0}]}),
        as_json({"choices": [{"message": None}]}),
        as_json({"choices": "many"}),
        as_json([1, 2]),
        ("application/json", "null"),
    ],
)
def test_openai_malformed_200_is_a_provider_error(server: str, reply: tuple[str, str]) -> None:
    Canned.reply = reply
    client = openai_client(server)
    with pytest.raises(ProviderError) as caught:
        client.complete("system", "user", logprobs=True)
    assert caught.value.kind in ("response", "request") and not caught.value.retryable
    assert [(c.ok, c.attempts) for c in client.calls] == [(False, 1)]


@pytest.mark.parametrize(
    "reply",
    [
        HTML,
        as_json({}),
        as_json({"content": "plain"}),
        as_json({"content": [{"type": "text", "text": 5}]}),
        as_json([1, 2]),
    ],
)
def test_anthropic_malformed_200_is_a_provider_error(server: str, reply: tuple[str, str]) -> None:
    Canned.reply = reply
    client = anthropic_client(server)
    with pytest.raises(ProviderError) as caught:
        client.complete("system", "user")
    assert caught.value.kind in ("response", "request") and not caught.value.retryable
    assert [(c.ok, c.attempts) for c in client.calls] == [(False, 1)]


@pytest.mark.parametrize("make", [openai_client, anthropic_client])
def test_a_body_declared_json_that_is_not_is_said_as_such(server: str, make: Any) -> None:
    """A proxy's HTML page sent as ``application/json`` made the SDK raise the parser's own
    error, said as ``API error (None): Expecting value: line 1 column 1 (char 0)``."""
    Canned.reply = ("application/json", HTML[1])
    client = make(server)
    with pytest.raises(ProviderError) as caught:
        client.complete("system", "user")
    said = str(caught.value)
    assert caught.value.kind == "response" and not caught.value.retryable
    assert said.startswith("unexpected reply: the body is not JSON")
    assert "captive portal" in said and "None" not in said


@pytest.mark.parametrize(
    ("make", "path", "advice"),
    [
        (openai_client, "/v1/chat/completions", "usually ends in /v1"),
        (anthropic_client, "/v1/messages", "the SDK adds /v1/messages"),
    ],
)
def test_a_404_of_no_such_address_says_to_check_the_base_url(
    server: str, make: Any, path: str, advice: str
) -> None:
    """A base URL leading to no API (an OpenAI-compatible server's given without ``/v1``) was
    said as ``API error (404): 404 page not found`` alone."""
    Canned.reply, Canned.status = ("text/plain", "404 page not found"), 404
    with pytest.raises(ProviderError) as caught:
        make(server).complete("system", "user")
    said = str(caught.value)
    assert said.startswith("API error (404): 404 page not found (")
    assert f"{server}{path} was not found: check the base URL in PROCTOR_" in said
    assert advice in said and "?" not in said


@pytest.mark.parametrize("make", [openai_client, anthropic_client])
def test_a_404_naming_the_model_is_the_provider_s_own_word(server: str, make: Any) -> None:
    model = make(server).ref.model
    error = {"error": {"type": "not_found_error", "message": f"model: {model} does not exist"}}
    Canned.reply, Canned.status = as_json(error), 404
    with pytest.raises(ProviderError) as caught:
        make(server).complete("system", "user")
    assert str(caught.value) == f"API error (404): not_found_error: model: {model} does not exist"


def test_openai_well_formed_reply_with_odd_extras_is_read(server: str) -> None:
    Canned.reply = as_json(
        {
            "choices": [
                {
                    "message": {"role": "assistant", "content": "hello"},
                    "logprobs": {"content": [{"token": "hello", "logprob": -0.5}]},
                }
            ],
            "usage": {"prompt_tokens": "lots", "completion_tokens": 3},
        }
    )
    reply = openai_client(server).complete("system", "user", logprobs=True)
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("hello", 0, 3)
    assert reply.logprobs == [-0.5]


def test_anthropic_well_formed_reply_is_read(server: str) -> None:
    Canned.reply = as_json(
        {
            "content": [{"type": "text", "text": "hi "}, {"type": "text", "text": "there"}],
            "usage": {"input_tokens": 7, "output_tokens": 2},
        }
    )
    reply = anthropic_client(server).complete("system", "user")
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("hi there", 7, 2)


ANTHROPIC_REPLY = {
    "content": [{"type": "text", "text": "late"}],
    "usage": {"input_tokens": 1, "output_tokens": 1},
}


@pytest.fixture
def trickler() -> Iterator[str]:
    """A server whose first connection sends its headers a line every 0.25 s (for 8 s); the
    connections after it are answered at once."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve(conn: socket.socket, first: bool) -> None:
        with conn:
            conn.settimeout(10)
            try:
                conn.recv(65536)
                if not first:
                    body = json.dumps(ANTHROPIC_REPLY).encode()
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                        + body
                    )
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                for _ in range(32):
                    if stop.wait(0.25):
                        return
                    conn.sendall(b"X-Slow: yes\r\n")
            except OSError:
                return

    def accept() -> None:
        first = True
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn, first), daemon=True).start()
            first = False

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("make", [openai_client, anthropic_client])
def test_a_reply_trickled_past_the_timeout_is_cut_off_there(trickler: str, make: Any) -> None:
    """The SDK's timeout bounds each read, not the whole: a server that sends a header line
    every 0.25 s would hold the call for as long as it kept sending (8 s here)."""
    client = make(trickler)
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        client.provider.complete("system", "user", max_tokens=8, logprobs=False, timeout=1.0)
    assert time.monotonic() - started < 2.5
    assert caught.value.kind == "network" and caught.value.retryable
    assert str(caught.value) == "network error: no reply within 1 s"


def test_a_call_cut_off_is_retried_on_a_new_connection(trickler: str) -> None:
    client = anthropic_client(trickler)
    client.sleep = lambda seconds: None
    cut = client.provider.complete
    client.provider.complete = lambda *a, **k: cut(*a, **{**k, "timeout": 1.0})  # type: ignore[method-assign]
    started = time.monotonic()
    reply = client.complete("system", "user")
    assert time.monotonic() - started < 2.5
    assert (reply.text, reply.attempts) == ("late", 2)


def test_the_trial_s_deadline_bounds_a_trickled_reply(trickler: str) -> None:
    client = anthropic_client(trickler)
    client.deadline = time.monotonic() + 1.0
    started = time.monotonic()
    with pytest.raises(ProviderError, match="no reply within 1 s; no reply before the trial"):
        client.complete("system", "user")
    assert time.monotonic() - started < 2.5
    assert [(c.ok, c.attempts) for c in client.calls] == [(False, 1)]


@pytest.mark.parametrize(("status", "said"), [(429, "rate limited"), (529, "provider overloaded")])
def test_a_call_that_stays_rate_limited_says_how_many_attempts_it_made(
    server: str, status: int, said: str
) -> None:
    """It said ``rate limited (429): …`` alone, as if the first answer had been taken."""
    Canned.reply, Canned.status = as_json({"error": {"type": "x", "message": "slow down"}}), status
    client = anthropic_client(server)
    waits: list[float] = []
    client.sleep = waits.append
    with pytest.raises(ProviderError) as caught:
        client.complete("system", "user")
    assert str(caught.value).startswith(f"{said} ({status}): x: slow down (gave up after 4 ")
    assert str(caught.value).endswith(" s)") and len(waits) == 3
    assert client.calls[0].error == str(caught.value) and client.calls[0].attempts == 4


def test_control_a_refusal_is_not_retried_and_says_no_attempts(server: str) -> None:
    Canned.reply, Canned.status = as_json({"error": {"type": "x", "message": "bad"}}), 400
    with pytest.raises(ProviderError) as caught:
        anthropic_client(server).complete("system", "user")
    assert str(caught.value) == "API error (400): x: bad"


def test_a_refused_key_names_where_it_was_found_masked(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge refused mid-run (a key revoked since the check before the run) said
    ``authentication failed (401): …`` without naming the variable whose key was sent."""
    from proctor.llm.roles import build_roles
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set())
    key = "sk-ant-revoked-" + "k" * 30
    ref = ModelRef("anthropic", "claude-x")
    env = {"ANTHROPIC_API_KEY": key, "PROCTOR_ANTHROPIC_BASE_URL": server}
    roles = build_roles({"judge": ref}, {"judge": ref}, env, {})
    error = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    Canned.reply, Canned.status = as_json(error), 401
    with pytest.raises(ProviderError) as caught:
        roles.client("judge").complete("system", "user")
    assert str(caught.value) == (
        "authentication failed (401): authentication_error: bad key (the key sent: "
        f"ANTHROPIC_API_KEY (in the environment: sk-…, {len(key)} characters))"
    )
    assert key[4:] not in str(caught.value)
