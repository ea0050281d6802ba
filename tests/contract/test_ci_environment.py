"""The TUIs stay TUIs when proctor itself runs in CI.

CI services set ``CI=true`` (GitHub Actions also ``GITHUB_ACTIONS=true``); Gemini CLI takes either
as a reason to run headless even on a terminal and exits 42 without a prompt. The agent's own
commands must still see the CI variables, since test runners change behaviour on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import require_cli

PLAN = {"turns": [{"shell": 'echo "ci=$CI actions=$GITHUB_ACTIONS" > ci.txt'}, {"say": "Done."}]}
CHECK = {
    "evaluators": [
        {"use": "command", "run": "grep -qx 'ci=true actions=true' ci.txt", "gate": True}
    ]
}
TOP = {"codingagents": {"gemini-cli": {"permissionMode": "yolo"}}}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_interactive_trial_under_ci_variables(
    run_cli: Callable[..., dict[str, Any]], monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    require_cli(agent)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    out = run_cli(agent, PLAN, mode="interactive", config=CHECK, top=TOP)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["exitCode"] == 0, "the TUI did not quit on its own exit command"
