"""Providers against a tiny local HTTP server: a 200 reply of the wrong shape is a
``ProviderError`` with a call record, never an AttributeError, TypeError or IndexError."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from proctor.llm.client import ModelClient, ProviderError
from proctor.llm.providers.anthropic import AnthropicProvider
from proctor.llm.providers.openai import OpenAIProvider
from proctor.llm.refs import ModelRef

HTML = ("text/html", "<html><body>Welcome to the captive portal</body></html>")


class Canned:
    """What the server answers every POST with: (content type, body)."""

    reply: tuple[str, str] = HTML


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        content_type, body = Canned.reply
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the default writes every request to stderr."""


@pytest.fixture
def server() -> Iterator[str]:
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
