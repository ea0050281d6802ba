"""Controls: deliberately broken A/B analyses disagree with the hand-worked fixtures.

Each broken variant must give, on at least one fixture, a value other than the one fixed by
hand; otherwise the fixtures could not tell it from the real implementation.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest

from proctor.models.trial import TrialRecord
from proctor.report.ab import pairs as ab_pairs
from proctor.report.ab import sides as ab_compare
from proctor.report.ab.measures import INCOMPLETE_STATUSES
from tests.unit.report.test_ab_fixtures import (
    AB_FIXTURES,
    ABFixture,
    Analyse,
    ab_actual,
    mismatches,
)


def with_status(records: list[TrialRecord], old: set[str], new: str) -> list[TrialRecord]:
    return [r.model_copy(update={"status": new}) if r.status in old else r for r in records]


@contextmanager
def mean_instead_of_median() -> Iterator[None]:
    broken = tuple((n, m, h, "mean") for n, m, h, _ in ab_compare.METRICS)
    with mock.patch.object(ab_compare, "METRICS", broken):
        yield


def patched(target: object, name: str, replacement: Callable[..., Any]) -> Analyse:
    def broken(fx: ABFixture) -> dict[str, Any]:
        with mock.patch.object(target, name, replacement):
            return ab_actual(fx)

    return broken


def swapped(fx: ABFixture) -> dict[str, Any]:
    return ab_actual(fx, treatment=fx.baseline, baseline=fx.treatment)


def errors_dropped_silently(fx: ABFixture) -> dict[str, Any]:
    """Pairs with an error side vanish: neither paired nor reported."""
    bad = {(r.case, r.agent, r.repeat) for r in fx.records if r.status in INCOMPLETE_STATUSES}
    kept = [r for r in fx.records if (r.case, r.agent, r.repeat) not in bad]
    return ab_actual(fx, records=kept)


def errors_as_failures(fx: ABFixture) -> dict[str, Any]:
    return ab_actual(fx, records=with_status(fx.records, set(INCOMPLETE_STATUSES), "failed"))


def timeouts_as_errors(fx: ABFixture) -> dict[str, Any]:
    return ab_actual(fx, records=with_status(fx.records, {"timeout"}, "agent-error"))


def off_by_one_repeat(fx: ABFixture) -> dict[str, Any]:
    """Treatment repeat r paired with baseline repeat r - 1."""
    shifted = [
        r.model_copy(update={"repeat": r.repeat + 1}) if r.condition == fx.baseline else r
        for r in fx.records
    ]
    return ab_actual(fx, records=shifted)


def paired_by_position(fx: ABFixture) -> dict[str, Any]:
    """The k-th treatment trial of a case paired with its k-th baseline trial, repeats ignored."""
    by_side: dict[tuple[str, str, str], list[TrialRecord]] = defaultdict(list)
    for r in sorted(fx.records, key=lambda r: r.repeat):
        by_side[(r.case, r.agent, r.condition)].append(r)
    renumbered = [
        r.model_copy(update={"repeat": i + 1})
        for side in by_side.values()
        for i, r in enumerate(side)
    ]
    return ab_actual(fx, records=renumbered)


def median_replaced_by_mean(fx: ABFixture) -> dict[str, Any]:
    with mean_instead_of_median():
        return ab_actual(fx)


def claims_without_min_samples(fx: ABFixture) -> dict[str, Any]:
    return ab_actual(fx, min_samples=1)


def rate_claimed_on_its_interval_alone(fx: ABFixture) -> dict[str, Any]:
    """A rate's verdict from its score interval, its exact test ignored (every p read as 0)."""
    import proctor.stats.ab as stats_ab

    real = stats_ab._exact_test

    def ignored(*args: Any) -> tuple[float, str, int]:
        _, said, direction = real(*args)
        return 0.0, said, direction

    with mock.patch.object(stats_ab, "_exact_test", ignored):
        actual = ab_actual(fx)
    return actual


def gate_on_point_estimate(fx: ABFixture) -> dict[str, Any]:
    actual = ab_actual(fx)
    for gate in actual["gate"]:
        if gate["delta"] is not None:
            gate["passed"] = gate["delta"] >= -gate["maxPassRateDrop"]
    return actual


def gate_strict_at_threshold(fx: ABFixture) -> dict[str, Any]:
    actual = ab_actual(fx)
    for gate in actual["gate"]:
        if gate["ciLow"] is not None:
            gate["passed"] = gate["ciLow"] > -gate["maxPassRateDrop"]
    return actual


CONTROLS: dict[str, Analyse] = {
    "swapped-sides": swapped,
    "error-side-dropped-silently": errors_dropped_silently,
    "error-side-counted-as-failure": errors_as_failures,
    "timeout-counted-as-error": timeouts_as_errors,
    "off-by-one-repeat-pairing": off_by_one_repeat,
    "pairing-by-position": paired_by_position,
    "median-replaced-by-mean": median_replaced_by_mean,
    "claims-below-three-samples": claims_without_min_samples,
    "elapsed-from-agent-ms-first": patched(
        ab_pairs, "elapsed_seconds", lambda r: r.timings.agent_ms / 1000
    ),
    "tool-calls-from-record-first": patched(ab_pairs, "tool_calls", lambda r: r.tool_calls),
    "tokens-without-cache": patched(
        ab_pairs,
        "total_tokens",
        lambda r: sum(u.input_tokens + u.output_tokens for u in r.usage.values()),
    ),
    "tokens-of-first-model-only": patched(
        ab_pairs,
        "total_tokens",
        lambda r: next(
            (
                u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens
                for u in r.usage.values()
            ),
            0,
        ),
    ),
    "rate-claimed-on-its-interval-alone": rate_claimed_on_its_interval_alone,
    "gate-on-point-estimate": gate_on_point_estimate,
    "gate-fails-at-exact-threshold": gate_strict_at_threshold,
}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_broken_variant_disagrees_with_a_fixture(name: str) -> None:
    broken = CONTROLS[name]
    assert any(mismatches(fx.expected, broken(fx)) for fx in AB_FIXTURES), name


@pytest.mark.parametrize(
    ("name", "fixture", "path"),
    [
        ("swapped-sides", "01_treatment_better", "overall"),
        ("error-side-dropped-silently", "06_error_side", "incomplete"),
        ("error-side-counted-as-failure", "06_error_side", "cases"),
        ("off-by-one-repeat-pairing", "05_incomplete_missing_side", "pairs"),
        ("median-replaced-by-mean", "01_treatment_better", "cases"),
        ("claims-below-three-samples", "07_few_samples", "cases"),
        ("rate-claimed-on-its-interval-alone", "02_treatment_worse", "cases"),
        ("gate-on-point-estimate", "04_equal_flaky", "gate"),
        ("gate-fails-at-exact-threshold", "02_treatment_worse", "gate"),
    ],
)
def test_the_fixture_written_for_a_bug_catches_it(name: str, fixture: str, path: str) -> None:
    fx = next(f for f in AB_FIXTURES if f.name == fixture)
    assert mismatches(fx.expected[path], CONTROLS[name](fx)[path])
