from proctor.evaluators.combiners import all_pass, gated_mean
from proctor.models.trial import EvaluatorResult


def r(passed: bool, score: float, gate: bool = False, weight: float = 1.0) -> EvaluatorResult:
    return EvaluatorResult(use="x", passed=passed, score=score, gate=gate, weight=weight)


def test_weighted_mean_passes_at_threshold() -> None:
    assert gated_mean([r(True, 100, weight=2), r(False, 0)], 60) == (True, 66.6667)


def test_weighted_mean_below_threshold_fails() -> None:
    assert gated_mean([r(True, 100), r(False, 0, weight=2)], 60) == (False, 33.3333)


def test_control_failed_gate_fails_and_caps_the_score() -> None:
    passed, score = gated_mean([r(False, 90, gate=True), r(True, 100, weight=10)], 60)
    assert not passed and score == 59


def test_no_evaluators_passes() -> None:
    assert gated_mean([], 60) == (True, 100.0)


def test_all_pass() -> None:
    assert all_pass([r(True, 0), r(False, 100)], 60) == (False, 50.0)


def test_the_largest_weight_validation_takes_keeps_the_mean_a_number() -> None:
    """The weight's cap (``MAX_WEIGHT``) leaves the weighted mean finite, however many
    evaluators carry it."""
    from proctor.evaluators.base import MAX_WEIGHT

    results = [r(True, 100, weight=MAX_WEIGHT)] * 1000 + [r(False, 0, weight=MAX_WEIGHT)] * 1000
    assert gated_mean(results, 60) == (False, 50.0)
