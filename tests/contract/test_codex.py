"""Codex CLI, headless (``codex exec --json``), on the scripted model server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.contract.conftest import check_golden, require_cli, tool_steps
from tests.contract.test_claude_code import BASIC, BASIC_CONFIG

AGENT = "codex"


def test_write_and_shell_commands(run_cli: Callable[..., dict[str, Any]]) -> None:
    version = require_cli(AGENT)
    out = run_cli(AGENT, BASIC, config=BASIC_CONFIG)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["agentVersion"] == version
    assert tool_steps(out["events"]) == [
        ("edit", False, False),
        ("shell", False, False),
        ("shell", True, False),
    ]
    assert trial["transcript"]["coverage"]["unparsedLines"] == 0
    assert trial["transcript"]["coverage"]["unknownRecordTypes"] == {}
    usage = next(iter(trial["usage"].values()))
    assert usage["responses"] == 4 and usage["inputTokens"] > 0
    check_golden(f"{AGENT}-headless-basic", version, out["events"])
