"""A judge's provider failing in the middle of a run, against a loopback server impersonating
Anthropic that takes the key before the run (its models list) and then fails the judge's call:
the trial's reason says what failed, where the key came from (masked), and how long it tried."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, load_trial, single_run_dir
from tests.integration.test_role_key_check import judged_suite

KEY = "sk-ant-midrun-" + "m" * 32


class Judge:
    answer = "401"  # or "silent": the connection taken, no answer ever
    stop = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"data": [], "has_more": False, "first_id": None, "last_id": None})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if Judge.answer == "silent":
            Judge.stop.wait(30)
            return
        error = {"type": "authentication_error", "message": "invalid x-api-key"}
        self._send(401, {"type": "error", "error": error})

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@pytest.fixture
def anthropic(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    Judge.stop = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("PROCTOR_ANTHROPIC_BASE_URL", url)
    try:
        yield url
    finally:
        Judge.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def judged(proctor: Run, tmp_path: Path, **judge: Any) -> tuple[dict[str, Any], str]:
    cases = judged_suite(tmp_path)
    config_file = cases / "judged" / "config.json"
    config = json.loads(config_file.read_text())
    config["evaluators"][0].update(judge)
    config_file.write_text(json.dumps(config))
    out = tmp_path / "out"
    result = proctor(
        "run", "--source", str(cases), "--out", str(out), "--config", str(tmp_path / "proctor.json")
    )
    assert result.code == 3, result.err
    run_dir = single_run_dir(out)
    every = "".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert KEY not in every + result.out + result.err
    return load_trial(run_dir, "judged"), result.out


def test_a_key_refused_mid_run_names_where_it_was_found(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    Judge.answer = "401"
    trial, _out = judged(proctor, tmp_path)
    assert trial["status"] == "eval-error"
    assert trial["evaluators"][0]["message"] == (
        "judge anthropic/claude-x failed: authentication failed (401): authentication_error: "
        "invalid x-api-key (the key sent: ANTHROPIC_API_KEY (in the environment: sk-…, "
        f"{len(KEY)} characters))"
    )


def test_a_judge_that_never_answers_is_given_up_at_its_timeout(
    proctor: Run, tmp_path: Path, anthropic: str
) -> None:
    """It held the trial four requests of 120 s each (and their waits)."""
    Judge.answer = "silent"
    started = time.monotonic()
    trial, _out = judged(proctor, tmp_path, timeoutSec=1)
    assert time.monotonic() - started < 30
    said = trial["evaluators"][0]["message"]
    assert re.fullmatch(
        # The request's own limit is the time left, to a tenth (0.9 s, or less, on a machine
        # that took over 50 ms to get there); the whole may take over 2 s on a loaded one.
        r"judge anthropic/claude-x failed: network error: no reply within (?:1|0\.\d) s; no "
        r"verdict within the judge's timeoutSec \(1 s\) \(gave up after 1 attempt in \d+\.\d s\)",
        said,
    ), said
