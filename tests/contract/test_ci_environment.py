"""The TUIs stay TUIs when proctor itself runs in CI.

CI services set ``CI=true`` (GitHub Actions also ``GITHUB_ACTIONS=true``); Gemini CLI takes either
as a reason to run headless even on a terminal and exits 42 without a prompt. The agent's own
commands must still see the CI variables, since test runners change behaviour on them.

Many users (and some CI images) also set ``NO_COLOR``: Gemini CLI then draws its input box
between rules instead of coloured half-blocks, and proctor must still find the box.
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


NO_COLOR_PLAN = {"turns": [{"shell": 'echo "no_color=$NO_COLOR" > nc.txt'}, {"say": "Done."}]}
NO_COLOR_CHECK = {
    "evaluators": [{"use": "command", "run": "grep -qx 'no_color=1' nc.txt", "gate": True}]
}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_interactive_trial_under_no_color(
    run_cli: Callable[..., dict[str, Any]], monkeypatch: pytest.MonkeyPatch, agent: str
) -> None:
    """The TUI drawn without colours is driven as with them, and the agent's commands still
    see the user's NO_COLOR."""
    require_cli(agent)
    monkeypatch.setenv("NO_COLOR", "1")
    out = run_cli(agent, NO_COLOR_PLAN, mode="interactive", config=NO_COLOR_CHECK, top=TOP)
    trial = out["trial"]
    assert trial["status"] == "passed", trial["reason"]
    assert trial["exitCode"] == 0, "the TUI did not quit on its own exit command"
