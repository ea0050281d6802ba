"""A headless turn whose CLI says the provider refused its key (and would go on retrying it)
ends there, as an agent that failed on the refusal: the CLI is asked to end first, so that it
writes what it holds, and the trial's time is not spent."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any, cast

from proctor.agents.claude_code.adapter import ClaudeCode
from proctor.agents.protocol import HeadlessReport, Launch
from proctor.drive.headless import HeadlessDriver, RefusalWatch

# Prints an event, then the refusal, then retries for a minute; asked to end (SIGTERM), it
# notes it in argv[1] and exits.
RETRIES = """
import json, signal, sys, time
def ended(*_):
    open(sys.argv[1], "w").write("asked to end")
    sys.exit(0)
signal.signal(signal.SIGTERM, ended)
print(json.dumps({"type": "init"}), flush=True)
print(json.dumps({"type": "retry", "status": 401}), flush=True)
time.sleep(60)
"""


class Refused:
    """An agent whose ``retry`` event with status 401 is a refused key."""

    def __init__(self, ended: Path) -> None:
        self.ended = ended

    def headless_argv(self, launch: Any, message: str, turn: int) -> list[str]:
        return [sys.executable, "-c", RETRIES, str(self.ended)]

    def refused_key(self, launch: Any, event: dict[str, Any]) -> str | None:
        if event.get("type") == "retry" and event.get("status") == 401:
            return "API Error: 401 invalid x-api-key"
        return None

    def provider_failing(self, stdout: list[dict[str, Any]]) -> str | None:
        return None

    def headless_report(self, launch: Any, stdout: list[dict[str, Any]], stderr: str) -> Any:
        return HeadlessReport()

    def transcript_files(self, launch: Any) -> list[Path]:
        return []


def test_a_refused_key_ends_the_turn_as_the_agent_s_failure(tmp_path: Path) -> None:
    ended = tmp_path / "ended"
    launch = Launch(argv=[], env=dict(os.environ), cwd=tmp_path, state=None, mode="headless")
    driver = HeadlessDriver(
        cast(Any, Refused(ended)),
        launch,
        time.monotonic() + 50,  # (reached only when nothing stops the turn)
        tmp_path / "out",
        tmp_path / "err",
    )
    outcome = driver.send("one")
    assert outcome.kind == "exited", outcome
    assert driver.log.failure is not None
    assert driver.log.failure.startswith("authentication failed: API Error: 401 invalid")
    assert ended.read_text() == "asked to end"  # not killed outright: it could write its files


def test_the_watch_reads_a_line_only_once_it_is_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_bytes(b'{"type": "earlier turn"}\n')
    at = out.stat().st_size
    launch = Launch(argv=[], env={}, cwd=tmp_path, state=None, mode="headless")
    watch = RefusalWatch(cast(Any, Refused(tmp_path / "x")), launch, out, at)
    with out.open("ab") as fh:
        fh.write(b'{"type": "retry", "sta')
    assert watch.check() is None
    with out.open("ab") as fh:
        fh.write(b'tus": 401}\n')
    assert watch.check() == "API Error: 401 invalid x-api-key"


def _retry(status: int) -> dict[str, Any]:
    return {
        "type": "system",
        "subtype": "api_retry",
        "attempt": 1,
        "error_status": status,
        "error": "authentication_failed",
    }


def test_claude_code_stops_at_a_401_only_on_a_key(tmp_path: Path) -> None:
    """On a key (either variable), Claude Code retries a 401 with the same key until it is
    stopped; on a login it renews the token and gives up by itself; a 429 is worth waiting."""
    adapter = ClaudeCode()

    def said(env: dict[str, str], status: int = 401) -> str | None:
        launch = Launch(argv=[], env=env, cwd=tmp_path, state=None, mode="headless")
        return adapter.refused_key(cast(Any, launch), _retry(status))

    assert said({"ANTHROPIC_API_KEY": "sk-ant-x"}) == (
        "API Error: 401 authentication_failed (the key in ANTHROPIC_API_KEY, which Claude Code "
        "retries until it is stopped; stopped at attempt 1)"
    )
    assert "the key in ANTHROPIC_AUTH_TOKEN" in (said({"ANTHROPIC_AUTH_TOKEN": "tok"}) or "")
    assert said({"CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat"}) is None
    assert said({}) is None  # a login file
    assert said({"ANTHROPIC_API_KEY": "sk-ant-x"}, status=429) is None
