"""Where a test that ran out of time was: the line of its eval file, and the turn it was
sending, also when that turn's own timeout ended it a moment before the test's did."""

from __future__ import annotations

import traceback

from proctor.drive.driver import TurnOutcome
from proctor.evals.context import TestContext
from proctor.evals.conversation import _where
from proctor.evals.turns import TurnState

FRAMES = [
    traceback.FrameSummary("/p/lib.py", 3, "f"),
    traceback.FrameSummary("/p/evals/x.eval.py", 10, "test"),
    traceback.FrameSummary("/p/lib.py", 7, "g"),
]


def test_the_line_and_the_turn_being_sent() -> None:
    t = TestContext(None)
    assert _where(FRAMES, t) == "/p/evals/x.eval.py:10"
    t._sending = 2
    assert _where(FRAMES, t) == "/p/evals/x.eval.py:10, in turn 2"
    assert _where(FRAMES[:1], t) is None


def test_a_turn_that_timed_out_as_the_test_did_is_named() -> None:
    t = TestContext(None)
    t._turns.append(TurnState(1, "", TurnOutcome("turn-end"), [], None))
    t._turns.append(TurnState(2, "", TurnOutcome("timeout"), [], None))
    assert _where(FRAMES, t) == "/p/evals/x.eval.py:10, in turn 2"
