"""Replies real providers give that are not plain answers: a model that refuses
log-probabilities (OpenAI's reasoning models: a 403 or a 400 naming ``logprobs``) is asked again
without them; a reply that reached its token limit before any text (a reasoning model spent it
thinking) is a provider failure that keeps what it cost, never an empty answer."""

from __future__ import annotations

import json
import re
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

JUDGE_TEXT = '{"score": 80, "confidenceLevel": 70, "rationale": "ok"}'


class Script:
    """Replies in order, (status, body); the last one repeats. ``seen`` holds request bodies."""

    replies: list[tuple[int, Any]] = []
    seen: list[dict[str, Any]] = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Script.seen.append(json.loads(body))
        status, reply = Script.replies[min(len(Script.seen), len(Script.replies)) - 1]
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    Script.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def chat(content: str, finish: str = "stop", out: int = 9) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "o4-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 500, "completion_tokens": out, "total_tokens": 500 + out},
    }


def openai_client(url: str) -> ModelClient:
    ref = ModelRef("openai", "o4-mini")
    return ModelClient("judge", ref, OpenAIProvider(ref, "sk-local", url + "/v1", "judge"))


REFUSALS = [
    (
        403,
        {
            "error": {
                "message": "You are not allowed to request logprobs from this model",
                "type": "invalid_request_error",
                "param": None,
                "code": None,
            }
        },
    ),
    (
        400,
        {
            "error": {
                "message": "Unsupported parameter: 'logprobs' is not supported with this model.",
                "type": "invalid_request_error",
                "param": "logprobs",
                "code": "unsupported_parameter",
            }
        },
    ),
]


@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_model_that_refuses_logprobs_is_asked_again_without(
    server: str, refusal: tuple[int, Any]
) -> None:
    Script.replies = [refusal, (200, chat(JUDGE_TEXT))]
    client = openai_client(server)
    reply = client.complete("s", "u", max_tokens=64, logprobs=True)
    assert reply.text == JUDGE_TEXT and reply.logprobs is None
    assert [body.get("logprobs") for body in Script.seen] == [True, None]
    # Later calls of the same model do not ask again.
    client.complete("s", "u", max_tokens=64, logprobs=True)
    assert len(Script.seen) == 3 and "logprobs" not in Script.seen[2]
    assert [c.ok for c in client.calls] == [True, True]


def test_a_403_about_something_else_is_still_an_authentication_failure(server: str) -> None:
    Script.replies = [(403, {"error": {"message": "Project does not have access to model"}})]
    client = openai_client(server)
    with pytest.raises(ProviderError) as info:
        client.complete("s", "u", max_tokens=64, logprobs=True)
    assert info.value.kind == "auth" and len(Script.seen) == 1


GEMINI_BAD_KEY = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [{"reason": "API_KEY_INVALID"}],
    }
}


@pytest.mark.parametrize("body", [GEMINI_BAD_KEY, [GEMINI_BAD_KEY]])
def test_gemini_s_400_for_a_bad_key_is_an_authentication_failure(server: str, body: Any) -> None:
    """Google's OpenAI-compatible endpoint refuses a key with a 400 (its error alone, or in a
    list): it was an "API error"."""
    Script.replies = [(400, body)]
    client = openai_client(server)
    with pytest.raises(ProviderError) as info:
        client.complete("s", "u", max_tokens=64, logprobs=True)
    assert info.value.kind == "auth" and info.value.status == 400
    assert str(info.value).startswith("authentication failed (400): ")
    assert len(Script.seen) == 1  # neither retried nor asked again without logprobs


def test_another_400_is_still_an_api_error(server: str) -> None:
    Script.replies = [(400, {"error": {"message": "Invalid value for 'messages'."}})]
    with pytest.raises(ProviderError) as info:
        openai_client(server).complete("s", "u", max_tokens=64)
    assert info.value.kind == "request"


def test_an_openai_reply_cut_at_its_limit_before_any_text_is_a_failure_with_its_cost(
    server: str,
) -> None:
    Script.replies = [(200, chat("", finish="length", out=64))]
    client = openai_client(server)
    with pytest.raises(ProviderError) as info:
        client.complete("s", "u", max_tokens=64)
    assert info.value.kind == "response" and info.value.token_limit == 64
    assert "token limit (64) before any text" in str(info.value)
    assert len(Script.seen) == 1  # not retried: the same request would spend the same
    [call] = client.calls
    assert (call.ok, call.input_tokens, call.output_tokens) == (False, 500, 64)


def test_a_reply_cut_at_its_limit_after_some_text_is_read(server: str) -> None:
    Script.replies = [(200, chat('{"score": 8', finish="length"))]
    assert openai_client(server).complete("s", "u", max_tokens=64).text == '{"score": 8'


def test_an_anthropic_reply_cut_at_its_limit_before_any_text_is_a_failure(server: str) -> None:
    Script.replies = [
        (
            200,
            {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [],
                "stop_reason": "max_tokens",
                "usage": {"input_tokens": 300, "output_tokens": 32},
            },
        )
    ]
    ref = ModelRef("anthropic", "claude-x")
    client = ModelClient("judge", ref, AnthropicProvider(ref, "sk-local", server, "judge"))
    with pytest.raises(ProviderError) as info:
        client.complete("s", "u", max_tokens=32)
    assert info.value.token_limit == 32
    assert (client.calls[0].input_tokens, client.calls[0].output_tokens) == (300, 32)


class Hang(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Script.seen.append({})
        time.sleep(3)  # longer than any deadline below

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def test_a_deadline_bounds_a_call_retries_and_waits_included() -> None:
    """A provider that never replies held an answering model's call (and the agent waiting on
    it) for four requests of 120 s each, whatever the trial's timeout; with the trial's
    deadline set, the call ends when the time does."""
    Script.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hang)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        client = openai_client(f"http://127.0.0.1:{httpd.server_address[1]}")
        client.deadline = time.monotonic() + 1.0
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            client.complete("s", "u", max_tokens=64)
        assert time.monotonic() - started < 2.0
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
    assert info.value.kind == "network"
    said = r"no reply before the trial's time ran out \(gave up after 1 attempt in 1\.\d s\)$"
    assert re.search(said, str(info.value)), str(info.value)
    [call] = client.calls
    assert not call.ok and call.error == str(info.value)


def test_a_call_made_after_the_deadline_is_not_sent(server: str) -> None:
    Script.replies = [(200, chat(JUDGE_TEXT))]
    client = openai_client(server)
    client.deadline = time.monotonic() - 1
    with pytest.raises(ProviderError, match="no reply before the trial's time ran out"):
        client.complete("s", "u", max_tokens=64)
    assert Script.seen == []
    client.deadline = None
    assert client.complete("s", "u", max_tokens=64).text == JUDGE_TEXT


def test_openai_cached_prompt_tokens_are_cache_reads(server: str) -> None:
    """The prompt tokens count the cached ones too: all were priced as fresh input."""
    reply = chat(JUDGE_TEXT)
    reply["usage"]["prompt_tokens_details"] = {"cached_tokens": 384}
    Script.replies = [(200, reply)]
    client = openai_client(server)
    done = client.complete("s", "u", max_tokens=64)
    assert (done.input_tokens, done.cache_read_tokens, done.output_tokens) == (116, 384, 9)
    [call] = client.calls
    assert (call.input_tokens, call.cache_read_tokens, call.cache_write_tokens) == (116, 384, 0)


def test_anthropic_cache_reads_and_writes_are_counted(server: str) -> None:
    """They are not in input_tokens: they went unpriced."""
    usage = {
        "input_tokens": 100,
        "output_tokens": 5,
        "cache_read_input_tokens": 2000,
        "cache_creation_input_tokens": 300,
    }
    Script.replies = [
        (
            200,
            {
                "id": "m",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "usage": usage,
            },
        )
    ]
    ref = ModelRef("anthropic", "claude-x")
    client = ModelClient("judge", ref, AnthropicProvider(ref, "sk-local", server, "judge"))
    client.complete("s", "u", max_tokens=32)
    [call] = client.calls
    assert (call.input_tokens, call.cache_read_tokens, call.cache_write_tokens) == (100, 2000, 300)

    from proctor.execute.evaluate import harness_usage
    from proctor.llm.roles import RoleSet

    roles = RoleSet()
    roles._clients["judge:anthropic/claude-x"] = client
    usage_by_model, _calls = harness_usage(roles)
    used = usage_by_model["judge:anthropic/claude-x"]
    assert (used.input_tokens, used.cache_read_tokens, used.cache_write_tokens) == (100, 2000, 300)


def test_a_local_reasoning_model_s_thinking_is_not_read_as_its_reply(server: str) -> None:
    """vLLM, Ollama or llama.cpp without a reasoning parser put the thinking in the text: its
    braces made the judge's verdict 'not valid JSON' and a classification never 'question'."""
    Script.replies = [(200, chat("<think>\nScore {maybe 70}?\n</think>\n\n" + JUDGE_TEXT))]
    assert openai_client(server).complete("s", "u", max_tokens=64).text == JUDGE_TEXT


def test_thinking_cut_at_the_token_limit_is_a_reply_without_text(server: str) -> None:
    Script.replies = [(200, chat("<think>\nLet me weigh {this", finish="length", out=64))]
    with pytest.raises(ProviderError) as info:
        openai_client(server).complete("s", "u", max_tokens=64)
    assert info.value.token_limit == 64
