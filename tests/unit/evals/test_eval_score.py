"""An eval's trial score: the mean of its assertions' scores, and a failed trial's capped just
below the case's pass threshold, so that a ``minScore`` gate never passes on it."""

from __future__ import annotations

from proctor.drive.driver import TurnOutcome
from proctor.evals.conversation import to_result
from proctor.evaluators.gates.assertions import Assertion
from proctor.execute.verdict import Verdict, talked_verdict


def verdict(assertions: list[Assertion], threshold: float = 60.0) -> Verdict:
    return talked_verdict(
        TurnOutcome("turn-end"),
        0,
        None,
        [to_result(a) for a in assertions],
        skipped=None,
        error=None,
        turns_done=1,
        timeout_sec=30,
        threshold=threshold,
    )


def test_a_failed_gate_caps_the_score_below_the_pass_threshold() -> None:
    nine_of_ten = [Assertion(f"a{i}", True) for i in range(9)] + [Assertion("b", False)]
    v = verdict(nine_of_ten)
    assert (v.status, v.passed, v.score) == ("failed", False, 59.0)  # the mean is 90
    assert verdict(nine_of_ten, threshold=80).score == 79.0
    assert verdict(nine_of_ten, threshold=95).score == 90.0  # under the cap: as it is


def test_a_passed_trial_keeps_the_mean_of_its_assertions_soft_ones_included() -> None:
    v = verdict([Assertion("hard", True), Assertion("soft", False, soft=True)])
    assert (v.status, v.passed, v.score) == ("passed", True, 50.0)
