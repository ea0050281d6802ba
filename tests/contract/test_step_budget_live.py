"""The step budget on the real CLIs: none of them limits tool calls by itself, so proctor watches
the native transcript while the agent works and ends the session at the first call over
``maxToolCalls``, headless and in the terminal UI. The calls after it never run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import require_cli

SLOW = {
    # Each call takes 3 s: the time proctor has, from the over-budget call's line in the
    # transcript, to stop the agent before the next call's line. A CLI may write a call's line
    # only as its result comes, and on a loaded machine (a CI run beside other work) 1 s was
    # once too little: the fourth call was written before the stop.
    "turns": [
        {"shell": "sleep 3 && echo one > one.txt"},
        {"shell": "sleep 3 && echo two > two.txt"},
        {"shell": "sleep 3 && echo three > three.txt"},
        {"shell": "sleep 3 && echo four > four.txt"},
        {"shell": "sleep 3 && echo five > five.txt"},
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


FOUR = {
    "turns": [
        {"shell": "echo one > one.txt"},
        {"shell": "echo two > two.txt"},
        {"shell": "echo three > three.txt"},
        {"shell": "echo four > four.txt"},
        {"say": "Done."},
    ]
}


@pytest.mark.parametrize("mode", ["headless", "interactive"])
def test_gemini_cli_stopping_at_its_own_turn_limit_is_over_budget(
    mode: str, run_cli: Callable[..., dict[str, Any]]
) -> None:
    """Gemini CLI enforces maxTurns itself (maxSessionTurns): headless it exits 53
    (FatalTurnLimitedError), in its terminal UI it says so and stops the turn. Either way the
    trial is over budget (it was an agent error, or passed), and no follow-up is sent into the
    stopped session (one was, and the trial waited for its whole timeout)."""
    require_cli("gemini-cli")
    config = {**CHECK, "maxTurns": 2, "followUps": ["next", "more"], "timeoutSec": 60}
    out = run_cli("gemini-cli", FOUR, mode=mode, qna=ALLOW, config=config)
    trial = out["trial"]
    assert trial["status"] == "failed", trial["reason"]
    assert "the agent stopped at its turn limit (maxTurns 2)" in trial["reason"]
    assert trial["timings"]["totalMs"] < 45_000  # no follow-up waited out the timeout
    said = [e["text"] for e in out["events"] if e["type"] == "user_message"]
    assert "more" not in said


LATER = {
    "turns": [
        {"shell": "sleep 1 && echo one > one.txt"},
        {"say": "One done."},
        {"endTurn": True},
        {"shell": "sleep 1 && echo two > two.txt"},
        {"shell": "sleep 1 && echo three > three.txt"},
        {"shell": "sleep 1 && echo four > four.txt"},
        {"say": "Done."},
    ]
}


@pytest.mark.parametrize("agent", ["codex", "gemini-cli"])
def test_a_stop_in_a_later_turn_leaves_no_usage_check_of_incomplete_totals(
    agent: str, run_cli: Callable[..., dict[str, Any]]
) -> None:
    """The budget runs out in the second turn: the CLI reported the first turn's tokens, never
    the stopped one's, so its totals are short of the transcript's. No usage check is made of
    them (it reported a mismatch of negative differences)."""
    require_cli(agent)
    config = {**CHECK, "maxToolCalls": 2, "followUps": ["Go on."]}
    out = run_cli(agent, LATER, qna=ALLOW, config=config)
    trial = out["trial"]
    assert trial["status"] == "failed" and "proctor stopped the agent" in trial["reason"]
    assert trial.get("usageCheck") is None, trial.get("usageCheck")
