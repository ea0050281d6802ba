"""``t.no_failed_actions()`` spans the conversation: its failure names the turn of each failed
call, as ``t.succeeded()`` names the turns that did not complete."""

from __future__ import annotations

from typing import Any, cast

from proctor.drive.driver import TurnOutcome
from proctor.evals.context import TestContext
from proctor.evals.turns import TurnState
from proctor.models.trajectory import Event, ToolCall, ToolResult


def _call(i: int, name: str, failed: bool) -> list[Event]:
    return [
        ToolCall(id=str(i), name=name, kind="shell", input={}),
        ToolResult(id=str(i), output="x", is_error=failed),
    ]


def test_a_failed_action_is_named_with_its_turn() -> None:
    t = TestContext(cast(Any, None))
    first, second = _call(1, "Bash", False), _call(2, "Bash", True) + _call(3, "Edit", True)
    for index, events in ((1, first), (2, second)):
        t._turns.append(TurnState(index, "", TurnOutcome("turn-end"), events, None))
    # each turn parses the transcript anew: the conversation's events are other objects
    t._events_all = [e.model_copy() for e in first + second]
    handle = t.no_failed_actions()
    assert not handle.passed
    assert handle.assertion.message == "failed calls: 'Bash' (turn 2), 'Edit' (turn 2)"
    assert t.turns[1].no_failed_actions().assertion.message == "failed calls: 'Bash', 'Edit'"
