"""Claude Code on a real provider that refuses its key (401): the CLI retries the request
with the same key until it is stopped, so proctor ends the trial at the first retry, as an
agent-error naming the refusal, not once the trial's whole timeoutSec is spent."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir
from tests.contract.conftest import require_cli

AGENT = "claude-code"
KEY = "sk-ant-api03-refused-contract-key-0004"
TIMEOUT_SEC = 60
"""Long enough that a trial that spent it is plainly not one ended at the refusal (within
pytest's own limit of 120 s for a test)."""


class Refusing(BaseHTTPRequestHandler):
    """Answers every request as Anthropic answers a key it does not know."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps(
            {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            }
        ).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def refusing_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A provider that refuses every key, the user's key set for it, and no login."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_a_refused_key_ends_the_trial_at_the_first_retry(
    proctor: Run, make_case: MakeCase, tmp_path: Path, refusing_provider: str
) -> None:
    require_cli(AGENT)
    make_case("a", config={"agents": [AGENT], "timeoutSec": TIMEOUT_SEC})
    result, out = run_cases(proctor, tmp_path, "--mode", "headless")
    assert result.code == 3, result.err  # an agent-error
    run_dir = single_run_dir(out)
    trial = load_trial(run_dir, "a", agent=AGENT)
    assert trial["status"] == "agent-error", trial["reason"]
    # Ended at the refusal, not by the trial's time limit (which it would reach retrying).
    assert trial["timings"]["agentMs"] < TIMEOUT_SEC * 1000 / 4, (trial["reason"], trial["timings"])
    reason = trial["reason"]
    assert reason.startswith("authentication failed: API Error: 401 authentication_failed")
    assert "the key in ANTHROPIC_API_KEY" in reason and "stopped at attempt 1" in reason
    assert "docs/agents.md#credentials" in reason
    # The session is collected as any trial's: the message sent is in its trajectory.
    trajectory = (run_dir / "trials/a/claude-code/default/1/trajectory.jsonl").read_text()
    assert "user_message" in trajectory
    written = "\n".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file())
    assert KEY not in written
