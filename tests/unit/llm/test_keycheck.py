"""The check of proctor's role keys before any trial, against loopback servers impersonating
the providers: a refused key stops, a taken one passes, an unreachable server is only said."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.llm.keycheck import check_role_keys
from proctor.models.plan import RoleModels
from tests.conftest import closed_port

# Calls cut off by their deadline leave connections behind: collected after each test.
pytestmark = pytest.mark.usefixtures("abandoned_calls_collected")

KEY = "sk-ant-keycheck-" + "x" * 32


class Answers:
    """Status of each GET (the models list) and POST (a completion), and the requests seen."""

    get = 200
    post = 200
    refusal: Any = None
    """The body of a refusal, when not Anthropic's."""
    seen: list[tuple[str, str]] = []
    models: list[str] | None = None
    """The models the server has (None: any asked for), answered 404 as its provider does."""
    lookup = True
    """Whether it has the models lookup (``GET /v1/models/ID``); without, any 404 says
    nothing of the model, or (``"echo"``) quotes the path, as a web framework's page does."""


class Handler(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: Any) -> None:
        Answers.seen.append((self.command, self.path))
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        listed = [{"id": m, "type": "model", "object": "model"} for m in Answers.models or []]
        ok: Any = {"data": listed, "has_more": False, "first_id": None, "last_id": None}
        ok["object"] = "list"
        _, _, model = self.path.partition("/models/")
        if Answers.get == 200 and model:
            if Answers.lookup is not True:
                echo = f"Cannot GET {self.path}" if Answers.lookup == "echo" else "not found"
                return self._answer(404, {"error": echo})
            if Answers.models is not None and model not in Answers.models:
                return self._answer(404, no_model(model, self.headers))
            ok = {"id": model, "type": "model", "object": "model", "display_name": model}
        self._answer(Answers.get, ok if Answers.get == 200 else error(Answers.get))

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if Answers.models is not None and asked["model"] not in Answers.models:
            return self._answer(404, no_model(asked["model"], self.headers))
        reply = {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": "OK"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        self._answer(Answers.post, reply if Answers.post == 200 else error(Answers.post))

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def no_model(model: str, headers: Any) -> Any:
    """A 404 for a model the provider does not have, as Anthropic or OpenAI words it."""
    if not (headers.get("User-Agent") or "").startswith("Anthropic/"):
        said = f"The model `{model}` does not exist or you do not have access to it."
        return {"error": {"message": said, "type": "invalid_request_error", "param": None}}
    return {"type": "error", "error": {"type": "not_found_error", "message": f"model: {model}"}}


def error(status: int) -> Any:
    if Answers.refusal is not None:
        return Answers.refusal
    kind = "authentication_error" if status == 401 else "permission_error"
    return {"type": "error", "error": {"type": kind, "message": "invalid x-api-key"}}


@pytest.fixture
def server() -> Iterator[str]:
    Answers.get, Answers.post, Answers.refusal, Answers.seen = 200, 200, None, []
    Answers.models, Answers.lookup = None, True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def judge_on(url: str, provider: str = "anthropic") -> RoleModels:
    return RoleModels(refs={"judge": f"{provider}/claude-x"}, urls={provider: url})


def check(models: list[RoleModels], env: dict[str, str], dotenv: dict[str, str]) -> list[str]:
    warnings: list[str] = []
    check_role_keys(models, env, dotenv, warnings.append, timeout=2.0)
    return warnings


def test_a_refused_key_is_a_config_error_naming_role_provider_and_variable(server: str) -> None:
    Answers.get = 401
    with pytest.raises(ConfigError) as caught:
        check([judge_on(server)], {"ANTHROPIC_API_KEY": KEY}, {})
    said = str(caught.value)
    assert "the judge role (anthropic/claude-x)" in said
    assert f"anthropic at {server} refused the key" in said
    assert "ANTHROPIC_API_KEY (in the environment: sk-…, 48 characters)" in said
    assert KEY not in said and KEY[:10] not in said
    assert Answers.seen == [("GET", "/v1/models?limit=1")]


def test_a_key_from_dotenv_is_named_there(server: str) -> None:
    Answers.get = 401
    with pytest.raises(ConfigError, match=r"PROCTOR_ANTHROPIC_KEY \(in \./\.env"):
        check([judge_on(server)], {}, {"PROCTOR_ANTHROPIC_KEY": KEY})


def test_openai_refused_key_stops_too(server: str) -> None:
    Answers.get = 401
    models = RoleModels(refs={"workhorse": "openai/gpt-x"}, urls={"openai": server + "/v1"})
    with pytest.raises(ConfigError, match="the workhorse role .openai/gpt-x.: openai at"):
        check([models], {"OPENAI_API_KEY": KEY}, {})


GEMINI_BAD_KEY = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [{"reason": "API_KEY_INVALID"}],
    }
}


def test_gemini_s_400_for_a_bad_key_stops_like_a_401(server: str) -> None:
    """Google's OpenAI-compatible endpoint refuses a key with a 400, not a 401 or 403."""
    Answers.get, Answers.refusal = 400, GEMINI_BAD_KEY
    models = RoleModels(refs={"judge": "openai/gemini-x"}, urls={"openai": server + "/v1"})
    with pytest.raises(ConfigError) as caught:
        check([models], {"OPENAI_API_KEY": KEY}, {})
    said = str(caught.value)
    assert "the judge role (openai/gemini-x): openai at" in said
    assert "refused the key in OPENAI_API_KEY" in said and "authentication failed (400)" in said
    assert Answers.seen == [("GET", "/v1/models")]


def test_another_400_on_the_models_list_lets_the_run_go_on(server: str) -> None:
    Answers.get = 400
    Answers.refusal = {
        "error": {"code": 400, "message": "Bad request", "status": "INVALID_ARGUMENT"}
    }
    models = RoleModels(refs={"judge": "openai/gemini-x"}, urls={"openai": server + "/v1"})
    assert check([models], {"OPENAI_API_KEY": KEY}, {}) == []


def test_a_taken_key_passes_with_one_request_per_provider_and_model(server: str) -> None:
    models = [
        RoleModels(
            refs={"judge": "anthropic/claude-x", "fast": "anthropic/claude-y"},
            extra=["anthropic/claude-z"],
            urls={"anthropic": server},
        ),
        judge_on(server),
    ]
    assert check(models, {"ANTHROPIC_API_KEY": KEY}, {}) == []
    assert Answers.seen == [
        ("GET", "/v1/models?limit=1"),
        ("GET", "/v1/models/claude-x"),
        ("GET", "/v1/models/claude-y"),
        ("GET", "/v1/models/claude-z"),
    ]


def test_a_403_on_the_models_list_is_confirmed_by_a_completion(server: str) -> None:
    Answers.get = 403  # a key restricted to completions
    assert check([judge_on(server)], {"ANTHROPIC_API_KEY": KEY}, {}) == []
    Answers.get, Answers.post = 403, 403
    with pytest.raises(ConfigError, match="refused the key"):
        check([judge_on(server)], {"ANTHROPIC_API_KEY": KEY}, {})


def test_other_answers_let_the_run_go_on_silently(server: str) -> None:
    Answers.get = 404  # a gateway without a models list
    assert check([judge_on(server)], {"ANTHROPIC_API_KEY": KEY}, {}) == []


def test_a_server_that_is_down_is_warned_once_and_let_pass() -> None:
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}"
        warnings = check([judge_on(url), judge_on(url)], {"ANTHROPIC_API_KEY": KEY}, {})
    assert len(warnings) == 1 and "could not be checked" in warnings[0]
    assert "the run goes on" in warnings[0] and KEY not in warnings[0]


def test_a_base_url_s_password_is_never_said(server: str) -> None:
    """A gateway's base URL with a login in it (``http://me:pw@host``) was printed whole in the
    warning of a provider that could not be reached, and in a refused key's sentence."""
    with closed_port() as port:
        down = f"http://me:Pa55wordXYZ123@127.0.0.1:{port}"
        warnings = check([judge_on(down)], {"ANTHROPIC_API_KEY": KEY}, {})
    assert len(warnings) == 1 and "at http://me:***@127.0.0.1:" in warnings[0]
    assert "Pa55word" not in warnings[0]
    Answers.get = 401
    with pytest.raises(ConfigError) as caught:
        check(
            [judge_on(server.replace("//", "//me:Pa55wordXYZ123@"))], {"ANTHROPIC_API_KEY": KEY}, {}
        )
    assert "Pa55word" not in str(caught.value) and "//me:***@127.0.0.1" in str(caught.value)


def test_the_scripted_model_is_not_checked() -> None:
    models = RoleModels(refs={"judge": "scripted/judge"}, urls={"scripted": "http://127.0.0.1:9"})
    assert check([models], {}, {}) == []


def test_a_server_that_trickles_its_answer_is_given_the_timeout_in_all() -> None:
    """The client's timeout bounds each read, not the whole: a server that sends a header
    line every second would have held the check for as long as it kept sending."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(16):  # 8 s of it, then the connection closes
                if stop.wait(0.5):
                    return
                try:
                    conn.sendall(b"X-Slow: yes\r\n")
                except OSError:
                    return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    started = time.monotonic()
    try:
        warnings = check([judge_on(url)], {"ANTHROPIC_API_KEY": KEY}, {})  # timeout 2 s
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < 5
    assert len(warnings) == 1 and "could not be checked" in warnings[0], warnings
    assert "no answer within 2 s" in warnings[0]


def test_a_key_refused_to_several_roles_is_one_request_and_one_sentence(server: str) -> None:
    Answers.get = 401
    roles = RoleModels(
        refs={"judge": "anthropic/claude-x", "fast": "anthropic/claude-y"},
        urls={"anthropic": server},
    )
    with pytest.raises(ConfigError) as caught:
        check([roles], {"ANTHROPIC_API_KEY": KEY}, {})
    said = str(caught.value)
    assert "the judge role (anthropic/claude-x) and the fast role (anthropic/claude-y)" in said
    assert said.count("refused the key") == 1 and "another model for each role" in said
    assert Answers.seen == [("GET", "/v1/models?limit=1")]


@pytest.fixture
def tricklers() -> Iterator[str]:
    """A server that sends every connection its headers a line every 0.5 s (for 8 s)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                for _ in range(16):
                    if stop.wait(0.5):
                        return
                    conn.sendall(b"X-Slow: yes\r\n")
            except OSError:
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=trickle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


def test_providers_are_checked_at_once_and_said_in_the_roles_order(tricklers: str) -> None:
    """Two providers that do not answer cost the timeout once, not twice; the one that fails
    at once (nothing listens) is still said after them, in the order of the roles."""
    with closed_port() as port:
        down = f"http://127.0.0.1:{port}"
        models = [
            judge_on(tricklers),
            RoleModels(refs={"workhorse": "openai/gpt-x"}, urls={"openai": tricklers + "/v1"}),
            judge_on(down),
        ]
        started = time.monotonic()
        warnings = check(models, {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY}, {})  # 2 s
    assert time.monotonic() - started < 3.5
    assert len(warnings) == 3, warnings
    assert f"anthropic at {tricklers} could not" in warnings[0]
    assert f"openai at {tricklers}/v1 could not" in warnings[1]
    assert f"anthropic at {down} could not" in warnings[2]
    assert "no answer within 2 s" in warnings[0] and "no answer within 2 s" in warnings[1]


def missing_judge(url: str, provider: str = "anthropic", model: str = "claude-nope") -> RoleModels:
    return RoleModels(
        refs={"judge": f"{provider}/{model}", "fast": f"{provider}/claude-x"},
        urls={provider: url},
        given={"judge": "proctor.json: field 'models.judge'", "fast": "--fast-model"},
    )


def test_a_model_the_provider_does_not_have_is_a_config_error_naming_where(server: str) -> None:
    """A judge whose model does not exist was let pass: every trial ran its agent, then ended
    ``eval-error`` on the judge's ``API error (404): not_found_error: model: …``."""
    Answers.models = ["claude-x", "claude-nope-4-5", "claude-other"]
    with pytest.raises(ConfigError) as caught:
        check([missing_judge(server)], {"ANTHROPIC_API_KEY": KEY}, {})
    said = str(caught.value)
    assert said.startswith(
        "proctor.json: field 'models.judge': the judge role (anthropic/claude-nope): "
        f"anthropic at {server} has no model 'claude-nope' "
        "(API error (404): not_found_error: model: claude-nope); "
        "did you mean 'claude-nope-4-5'"
    ), said
    assert "name a model it has there (checked before any trial)" in said
    # The lookup's 404 confirmed by a completion of one token, then the list for the advice.
    assert Answers.seen == [
        ("GET", "/v1/models?limit=1"),
        ("GET", "/v1/models/claude-nope"),
        ("POST", "/v1/messages"),
        ("GET", "/v1/models?limit=1000"),
        ("GET", "/v1/models/claude-x"),
    ]


def test_openai_s_missing_model_is_refused_too(server: str) -> None:
    Answers.models = ["gpt-x"]
    models = RoleModels(
        refs={"workhorse": "openai/gpt-nope"},
        urls={"openai": server + "/v1"},
        given={"workhorse": "cases/a/config.json: field 'models.workhorse'"},
    )
    with pytest.raises(ConfigError) as caught:
        check([models], {"OPENAI_API_KEY": KEY}, {})
    said = str(caught.value)
    assert said.startswith(
        "cases/a/config.json: field 'models.workhorse': the workhorse role (openai/gpt-nope): "
        f"openai at {server}/v1 has no model 'gpt-nope' (API error (404): invalid_request_error:"
    ), said


def test_an_llm_judge_s_own_model_is_named_by_its_field(server: str) -> None:
    Answers.models = []
    where = "cases/a/config.json: field 'evaluators[0].model'"
    models = RoleModels(
        extra=["anthropic/claude-gone"],
        urls={"anthropic": server},
        given={"anthropic/claude-gone": where},
    )
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(where)}: an llm-judge's model \(anthropic/claude-gone\): anthropic at",
    ):
        check([models], {"ANTHROPIC_API_KEY": KEY}, {})


def test_a_model_found_by_the_completion_alone_passes(server: str) -> None:
    """A gateway without the lookup whose 404 page quotes the path (and so the model): the
    completion of one token finds the model, and the run goes on."""
    Answers.lookup = "echo"
    assert check([judge_on(server)], {"ANTHROPIC_API_KEY": KEY}, {}) == []
    assert ("POST", "/v1/messages") in Answers.seen


def test_a_gateway_without_the_lookup_finds_the_model_by_a_completion(server: str) -> None:
    Answers.lookup = False
    warnings: list[str] = []
    env = {"ANTHROPIC_API_KEY": KEY}
    answered = check_role_keys([judge_on(server)], env, {}, warnings.append, timeout=2.0)
    assert warnings == [] and len(answered) == 1
    assert "took the key in ANTHROPIC_API_KEY" in answered[0] and "; has claude-x" in answered[0]
    assert Answers.seen[-1] == ("POST", "/v1/messages")


def test_a_completion_s_404_naming_no_model_says_the_address(server: str) -> None:
    """A base URL leading to no API (an OpenAI-compatible server's without its /v1): the
    models list and the lookup are answered 404 (let pass), and so is every judge call."""
    Answers.get, Answers.post = 404, 404
    Answers.refusal = {"detail": "Not Found"}
    models = RoleModels(refs={"judge": "openai/qwen3"}, urls={"openai": server})
    with pytest.raises(ConfigError) as caught:
        check([models], {"OPENAI_API_KEY": KEY}, {})
    said = str(caught.value)
    assert f"openai at {server} answered a completion of 'qwen3' with API error (404)" in said
    assert "/chat/completions was not found: check the base URL" in said, said


def test_a_refused_key_and_a_missing_model_are_said_together(server: str) -> None:
    Answers.models = ["claude-x"]
    with pytest.raises(ConfigError) as caught:
        check(
            [missing_judge(server), missing_judge(server, "openai", "gpt-nope")],
            {"ANTHROPIC_API_KEY": KEY, "OPENAI_API_KEY": KEY},
            {},
        )
    said = str(caught.value)
    assert "has no model 'claude-nope'" in said and "has no model 'gpt-nope'" in said
    assert said.count("checked before any trial") == 1
