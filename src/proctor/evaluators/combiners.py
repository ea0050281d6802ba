"""Combiners turn evaluator results into one verdict: ``(passed, score)``."""

from __future__ import annotations

from collections.abc import Callable

from proctor.models.trial import EvaluatorResult

Combiner = Callable[[list[EvaluatorResult], float], tuple[bool, float]]


def below_threshold(score: float, threshold: float) -> float:
    """The score of a trial that failed whatever its evaluators said (a failed gate, a
    timeout, an unanswered question): capped just below ``threshold``, never below 0."""
    return round(min(score, max(threshold - 1.0, 0.0)), 4)


def gated_mean(results: list[EvaluatorResult], threshold: float) -> tuple[bool, float]:
    """Every ``gate`` result must pass; the score is the weighted mean of all results.

    A failed gate fails the trial and caps its score just below ``threshold`` (at
    ``threshold - 1``, never below 0). With no evaluators the trial passes with 100: the agent
    finished and nothing was asked of it. Results with weight 0 only act as gates.
    """
    if not results:
        return True, 100.0
    total_weight = sum(r.weight for r in results)
    if total_weight > 0:
        score = sum(r.score * r.weight for r in results) / total_weight
    else:
        score = 100.0 if all(r.passed for r in results) else 0.0
    gates_ok = all(r.passed for r in results if r.gate)
    if not gates_ok:
        return False, below_threshold(score, threshold)
    return score >= threshold, round(score, 4)


def all_pass(results: list[EvaluatorResult], threshold: float) -> tuple[bool, float]:
    """Every result must pass; the score is the share of results that passed."""
    if not results:
        return True, 100.0
    passed = sum(r.passed for r in results)
    return passed == len(results), round(100.0 * passed / len(results), 4)


COMBINERS: dict[str, Combiner] = {"gated-mean": gated_mean, "all-pass": all_pass}
