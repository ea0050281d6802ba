"""The scripted model server's HTTP surface: probes, unknown paths, bodies, roles."""

from __future__ import annotations

import gzip
import http.client
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from proctor.scripted.server import ModelRequest, Reply, ScriptedModelServer, default_roles

PLAN = {"turns": [{"say": "hello"}]}


def post(
    url: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, exc.read()


def test_probes_count_tokens_and_unknown_paths() -> None:
    with ScriptedModelServer(PLAN) as server:
        base = server.base_url
        head = urllib.request.Request(base + "/", method="HEAD")
        with urllib.request.urlopen(head) as response:
            assert response.status == 200
        with urllib.request.urlopen(base + "/") as response:
            assert json.loads(response.read())["status"] == "ok"
        with urllib.request.urlopen(base + "/v1/models") as response:
            assert json.loads(response.read())["data"][0]["id"] == "scripted"
        status, data = post(
            base + "/v1/messages/count_tokens",
            {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]},
        )
        assert status == 200 and json.loads(data)["input_tokens"] >= 100
        status, data = post(base + "/v1beta/models/g:countTokens", {"contents": []})
        assert status == 200 and "totalTokens" in json.loads(data)
        status, data = post(base + "/v2/nothing", {})
        assert status == 404 and "no endpoint" in json.loads(data)["error"]["message"]
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(base + "/nothing")
        info.value.close()
        assert info.value.code == 404
        request = urllib.request.Request(
            base + "/v1/responses", data=b"{not json", headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request)
        assert info.value.code == 400 and "error" in json.loads(info.value.read())
        info.value.close()


def _raw_post(
    server: ScriptedModelServer, body: Any, headers: dict[str, str]
) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        chunked = "Transfer-Encoding" in headers
        connection.request(
            "POST", "/v1/chat/completions", body=body, headers=headers, encode_chunked=chunked
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_gzip_and_chunked_request_bodies() -> None:
    body = json.dumps(
        {
            "model": "m",
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"type": "function", "function": {"name": "bash"}}],
        }
    ).encode()
    with ScriptedModelServer({"turns": [{"say": "hello"}]}) as server:
        status, data = _raw_post(
            server,
            gzip.compress(body),
            {"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )
        assert status == 200 and data["choices"][0]["message"]["content"] == "hello"
        status, data = _raw_post(
            server, iter([body[:10], body[10:]]), {"Transfer-Encoding": "chunked"}
        )
        assert status == 200 and data["choices"][0]["message"]["content"] == "hello"
        status, data = _raw_post(server, body, {"Content-Encoding": "br"})
        assert status == 400 and "Content-Encoding" in data["error"]["message"]


class JudgeRole:
    """A role added by one class: it answers requests whose system prompt asks for a verdict."""

    def respond(self, request: ModelRequest) -> Reply | None:
        return Reply(("PASS",), played="judge") if "verdict" in request.system else None


class BrokenRole:
    def respond(self, request: ModelRequest) -> Reply | None:
        raise RuntimeError("bug")


def test_roles_are_pluggable_and_a_failing_role_answers_500(tmp_path: Any) -> None:
    steps = [{"say": "agent"}]
    plan = {"turns": steps}
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "Bash"}],
    }
    with ScriptedModelServer(plan, roles=[JudgeRole(), *default_roles(steps)]) as server:
        _, judged = post(server.base_url + "/v1/messages", {**body, "system": "Give a verdict."})
        _, played = post(server.base_url + "/v1/messages", body)
    assert json.loads(judged)["content"][0]["text"] == "PASS"
    assert json.loads(played)["content"][0]["text"] == "agent"
    log = tmp_path / "log.jsonl"
    with ScriptedModelServer(plan, roles=[BrokenRole()], log_path=log) as server:
        status, data = post(server.base_url + "/v1/messages", body)
    assert status == 500 and json.loads(data)["error"]["type"] == "api_error"
    assert json.loads(log.read_text())["error"] == "internal error: RuntimeError: bug"


def test_a_method_no_route_takes_is_a_json_404_that_closes_and_is_logged(tmp_path: Any) -> None:
    log = tmp_path / "requests.jsonl"
    with ScriptedModelServer(PLAN, log_path=log) as server:
        for method in ("PUT", "DELETE", "PATCH", "OPTIONS"):
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            try:
                connection.request(method, "/v1/messages", body=b'{"x": 1}')
                response = connection.getresponse()
                assert response.status == 404
                assert response.getheader("Content-Type") == "application/json"
                assert response.getheader("Connection") == "close"
                error = json.loads(response.read())["error"]
                assert error["message"] == f"no endpoint for {method} /v1/messages"
            finally:
                connection.close()
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    # Each request is logged after its answer went out, so a client that sends the next one at
    # once may see that one logged first: the log holds each method once, in any order.
    assert sorted((r["method"], r["status"]) for r in logged) == [
        ("DELETE", 404), ("OPTIONS", 404), ("PATCH", 404), ("PUT", 404)
    ]  # fmt: skip


def test_a_condition_own_roles_answer_on_its_server() -> None:
    """``proctor model serve --condition b`` answered a role from the top-level ``roles`` only,
    never from condition b's own."""
    plan = {
        "roles": {"judge": [{"text": "top"}]},
        "conditions": {
            "a": {"turns": [{"say": "a"}]},
            "b": {"turns": [{"say": "b"}], "roles": {"judge": [{"text": "own"}]}},
        },
    }
    body = {"model": "m", "messages": [{"role": "user", "content": "judge"}]}
    answers = {}
    for condition in ("a", "b"):
        with ScriptedModelServer(plan, condition=condition) as server:
            status, raw = post(
                server.base_url + "/v1/chat/completions", body, {"X-Proctor-Role": "judge"}
            )
            assert status == 200
            answers[condition] = json.loads(raw)["choices"][0]["message"]["content"]
    assert answers == {"a": "top", "b": "own"}


def test_an_on_request_that_fails_is_said_once_and_never_breaks_answering(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[int] = []

    def broken(record: Any) -> None:
        seen.append(record.status)
        raise RuntimeError("watcher bug")

    with ScriptedModelServer(PLAN, on_request=broken) as server:
        for _ in range(2):
            with urllib.request.urlopen(server.base_url + "/", timeout=10) as response:
                assert response.status == 200
    assert seen == [200, 200]
    said = [r.getMessage() for r in caplog.records if "on_request" in r.getMessage()]
    assert said == ["scripted model: on_request failed: RuntimeError: watcher bug"]
