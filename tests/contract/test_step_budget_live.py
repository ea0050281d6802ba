"""The step budget on the real CLIs: none of them limits tool calls by itself, so proctor watches
the native transcript while the agent works and ends the session at the first call over
``maxToolCalls``, headless and in the terminal UI. The calls after it never run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import require_cli

SLOW = {
    "turns": [
        {"shell": "sleep 1 && echo one > one.txt"},
        {"shell": "sleep 1 && echo two > two.txt"},
        {"shell": "sleep 1 && echo three > three.txt"},
        {"shell": "sleep 1 && echo four > four.txt"},
        {"shell": "sleep 1 && echo five > five.txt"},
        {"say": "Done."},
    ]
}
CHECK = {"evaluators": [{"use": "file-exists", "must": ["one.txt"]}]}
ALLOW = "```rules\n.* => Allow once\n```\n"  # Gemini CLI's terminal UI confirms each tool


@pytest.mark.parametrize("mode", ["headless", "interactive"])
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_proctor_ends_the_session_at_the_first_call_over_budget(
    agent: str, mode: str, run_cli: Callable[..., dict[str, Any]]
) -> None:
    require_cli(agent)
    out = run_cli(agent, SLOW, mode=mode, qna=ALLOW, config={**CHECK, "maxToolCalls": 2})
    trial = out["trial"]
    assert trial["status"] == "failed", trial["reason"]
    assert trial["reason"] == (
        "over budget: proctor stopped the agent: 3 tool calls > maxToolCalls 2"
    )
    calls = [e for e in out["events"] if e["type"] == "tool_call"]
    assert len(calls) == 3
    diff = (out["dir"] / "workspace.diff").read_text()
    assert "one.txt" in diff and "five.txt" not in diff and "four.txt" not in diff


@pytest.mark.parametrize("agent", ["codex", "gemini-cli"])
def test_a_session_within_its_budget_runs_to_the_end(
    agent: str, run_cli: Callable[..., dict[str, Any]]
) -> None:
    # Control: the same plan under a budget it fits runs every call and passes.
    require_cli(agent)
    out = run_cli(agent, SLOW, qna=ALLOW, config={**CHECK, "maxToolCalls": 5})
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert "five.txt" in (out["dir"] / "workspace.diff").read_text()
