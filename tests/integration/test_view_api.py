"""The viewer's JSON API (``/api/…``) as a script calls it: every error is ``{"error": …}`` as
JSON with a fitting status, whatever the path, method, host or body; never Starlette's plain
text, never a traceback."""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest
from starlette.testclient import TestClient

from proctor.view.synthetic import write_run
from tests.conftest import viewer, write_case


def _ask(
    base: str, method: str, path: str, body: bytes | None = None, **headers: str
) -> tuple[int, dict[str, str], bytes]:
    """One request with the path sent exactly as written."""
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        answer = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, answer
    finally:
        conn.close()


def _error(answer: tuple[int, dict[str, str], bytes], status: int, method: str = "GET") -> str:
    code, headers, body = answer
    assert code == status, (code, body[:200])
    assert headers["content-type"] == "application/json", headers
    if method == "HEAD":
        return ""
    error = json.loads(body)["error"]
    assert isinstance(error, str) and error
    return error


def test_a_path_or_method_the_api_lacks_is_a_json_error(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)
    with viewer(results) as base:
        for method, path in (
            ("GET", "/api"),
            ("GET", "/api/nothing"),
            ("HEAD", "/api/nothing"),
            ("GET", "/api/runs/run-a"),
            ("GET", "/api/batches/..%2f..%2fetc%2fpasswd"),
            ("GET", "/api/batches/../../etc/passwd"),
            ("GET", "/api/batches/a/b"),
        ):
            error = _error(_ask(base, method, path), 404, method)
            assert "passwd" not in error or error.startswith("no API endpoint"), error
        assert _error(_ask(base, "GET", "/api/batches/nope"), 404) == "no such batch"
        for method, path, allowed in (
            ("OPTIONS", "/api/runs", "GET, HEAD"),
            ("POST", "/api/runs", "GET, HEAD"),
            ("DELETE", "/api/runs", "GET, HEAD"),
            ("OPTIONS", "/api/batches", "POST"),
            ("GET", "/api/batches", "POST"),
            ("HEAD", "/api/batches", "POST"),
            ("PUT", "/api/batches/abc", "GET, HEAD"),
        ):
            answer = _ask(base, method, path)
            error = _error(answer, 405, method)
            assert answer[1]["allow"] == allowed
            if method != "HEAD":
                assert error == f"{method} is not allowed on {path} (allowed: {allowed})"
        head = _ask(base, "HEAD", "/api/runs")
        assert head[0] == 200 and head[1]["content-type"] == "application/json"
        assert _error(_ask(base, "GET", "/api/runs", Host="localhost:1"), 421) == "unknown host"
        # Pages keep their own answers: a page there is not is the viewer's "Not here" page,
        # a method a page lacks and an unknown host plain text.
        status, headers, body = _ask(base, "GET", "/nothing")
        assert status == 404 and headers["content-type"].startswith("text/html")
        assert b"<h1>Not here</h1>" in body
        status, headers, body = _ask(base, "POST", "/nothing")
        assert status == 404 and headers["content-type"].startswith("text/plain")
        status, headers, body = _ask(base, "GET", "/", Host="localhost:1")
        assert (status, body) == (421, b"unknown host")
        assert headers["content-type"].startswith("text/plain")


_NOT_AN_OBJECT = "expected a JSON object with 'suite' (a string) and 'cases' (a list)"
_BAD_BODIES = [
    (b"not json", "the request body is not JSON"),
    (b"\xff\xfe\x00", "the request body is not JSON"),
    (b"[" * 100_000, "the request body is not JSON"),
    (b"", _NOT_AN_OBJECT),
    (b"[1, 2]", _NOT_AN_OBJECT),
    (b'{"suite": 3}', _NOT_AN_OBJECT),
    (b'{"suite": "suite", "cases": null}', _NOT_AN_OBJECT),
    (b'{"suite": "suite", "cases": "fix"}', _NOT_AN_OBJECT),
    (b'{"suite": "suite", "cases": [1]}', "'cases' must list case names"),
    (b'{"suite": "../suite"}', "no case suite named '../suite' in the project"),
    (b'{"suite": "suite", "cases": ["../fix"]}', "suite suite has no case '../fix'"),
]


def test_a_bad_batch_body_is_a_json_400_and_starts_nothing(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    write_case(tmp_path / "project" / "suite", "fix")
    with viewer(results, "--source", str(tmp_path / "project")) as base:
        page = _ask(base, "GET", "/playground")[2].decode()
        token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        for body, message in _BAD_BODIES:
            answer = _ask(
                base, "POST", "/api/batches", body, Origin=base, **{"X-Proctor-Token": token}
            )
            assert _error(answer, 400) == message, body[:40]
        assert "none yet" in _ask(base, "GET", "/playground")[2].decode()  # no batch started
        status, _, body = _ask(base, "GET", "/api/runs")
        assert (status, json.loads(body)) == (200, [])  # a folder with no run yet


def test_an_unexpected_failure_is_a_json_500_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.view import ViewSettings, build_app
    from proctor.view.routes import live

    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)

    def broken(*_: object) -> list[object]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(live, "summaries", broken)
    app = build_app(ViewSettings(results=results))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/runs")
        page = client.get("/fragments/runs")
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "error": "the viewer failed to answer this request (its standard error says why)"
    }
    assert page.status_code == 500 and "secret internals" not in page.text
    assert answer.headers["x-content-type-options"] == "nosniff"  # the headers stay


def test_a_batch_asked_of_a_viewer_without_a_project_says_so(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    with viewer(results) as base:
        page = _ask(base, "GET", "/playground")[2].decode()
        token = re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        body = b'{"suite": "suite", "cases": []}'
        answer = _ask(base, "POST", "/api/batches", body, Origin=base, **{"X-Proctor-Token": token})
        error = "the viewer was started without --source: it has no case suite to run"
        assert _error(answer, 400) == error


def _token(base: str) -> str:
    page = _ask(base, "GET", "/playground")[2].decode()
    return re.search(r'name="proctor-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]


def _answer(conn: http.client.HTTPConnection) -> tuple[int, dict[str, str], bytes]:
    response = conn.getresponse()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


_TOO_LARGE = (
    "the request body is larger than 1 MiB (1048576 bytes), the most a batch request may be"
)


def test_a_batch_body_over_1_mib_is_a_json_413_read_no_further(tmp_path: Path) -> None:
    """Refused before the body is read when its Content-Length is over the limit, and as soon
    as a body sent in chunks passes it: in both cases the rest is never sent here, so a server
    that read on would not answer."""
    results = tmp_path / "results"
    results.mkdir()
    with viewer(results) as base:
        token = _token(base)
        url = urlparse(base)
        headers = {"Origin": base, "X-Proctor-Token": token}
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        try:  # 10 GiB announced, one byte sent
            conn.putrequest("POST", "/api/batches")
            for name, value in {**headers, "Content-Length": str(10 * 2**30)}.items():
                conn.putheader(name, value)
            conn.endheaders(b"{")
            assert _error(_answer(conn), 413) == _TOO_LARGE
        finally:
            conn.close()
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        try:  # chunked, no length said: 1 MiB and one byte sent, the body never ended
            conn.putrequest("POST", "/api/batches")
            for name, value in {**headers, "Transfer-Encoding": "chunked"}.items():
                conn.putheader(name, value)
            conn.endheaders()
            chunk = b" " * (2**20 + 1)
            conn.send(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
            assert _error(_answer(conn), 413) == _TOO_LARGE
        finally:
            conn.close()
        # 1 MiB exactly is read (and answered as any batch asked of a viewer without --source).
        start = b'{"suite": "suite", "cases": ["'
        body = start + b"a" * (2**20 - len(start) - 3) + b'"]}'
        assert len(body) == 2**20
        answer = _ask(base, "POST", "/api/batches", body, **headers)
        assert _error(answer, 400).startswith("the viewer was started without --source")
        assert _ask(base, "GET", "/api/runs")[0] == 200  # the viewer answers on


def test_an_api_path_with_a_trailing_slash_is_a_json_404_naming_the_endpoint(
    tmp_path: Path,
) -> None:
    """Not the redirect a page gets: a script that does not follow it would get no JSON."""
    results = tmp_path / "results"
    write_run(results, "run-a", trials=1, cases=1)
    with viewer(results) as base:
        for method, path, bare in (
            ("GET", "/api/runs/", "/api/runs"),
            ("HEAD", "/api/runs/", "/api/runs"),
            ("GET", "/api/batches/", "/api/batches"),
            ("POST", "/api/batches/", "/api/batches"),
            ("GET", "/api/batches/abc/", "/api/batches/abc"),
            ("DELETE", "/api/runs//", "/api/runs"),
        ):
            error = _error(_ask(base, method, path), 404, method)
            if method != "HEAD":
                assert error == (
                    f"no API endpoint {path} (the endpoint is {bare}, without the trailing slash)"
                )
        for path in ("/api/", "/api//", "/api/nothing/", "/api/runs/run-a/"):
            assert _error(_ask(base, "GET", path), 404) == f"no API endpoint {path}"
        status, headers, _ = _ask(base, "GET", "/runs/run-a/")  # a page is still redirected
        assert status == 307 and headers["location"].endswith("/runs/run-a")
