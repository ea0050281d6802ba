"""The turn of each tool call (``eval.json``'s ``toolCalls[].turn``) is looked up in a map made
once for the turns as they are, not by a scan of every event for every call (10,000 calls took
35 s): the first turn holding a call's id is its turn, and a turn added later is looked in."""

from __future__ import annotations

from types import SimpleNamespace

from proctor.evals.context import TestContext
from proctor.evaluators.gates.matching import calls_of
from proctor.models.trajectory import Event, ToolCall, ToolResult


def _turn(index: int, ids: list[str]) -> SimpleNamespace:
    events: list[Event] = []
    for id_ in ids:
        events += [ToolCall(id=id_, name="Bash", kind="shell", input={}), ToolResult(id=id_)]
    return SimpleNamespace(index=index, events=events)


def test_each_call_is_of_the_first_turn_that_holds_it_and_a_later_turn_is_looked_in() -> None:
    t = TestContext.__new__(TestContext)
    t._turn_by_call = ((), {})
    first, second = _turn(1, ["a", "b"]), _turn(2, ["b", "c"])
    t._turns = [first]  # type: ignore[list-item]
    views = calls_of([*first.events, *second.events])
    assert [t._turn_of(v) for v in views] == [1, 1, 1, None]
    t._turns = [first, second]  # type: ignore[list-item]
    assert [t._turn_of(v) for v in views] == [1, 1, 1, 2]
