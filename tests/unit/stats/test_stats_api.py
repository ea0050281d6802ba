"""The package re-exports its public names so callers can import from `proctor.stats`."""

from __future__ import annotations

import dataclasses
import typing

import pytest

import proctor.stats as stats

EXPECTED = {
    "Summary",
    "summarize",
    "median",
    "mean",
    "strict_median",
    "pass_rate",
    "pass_at_k",
    "pass_hat_k",
    "pass_at_k_table",
    "pass_hat_k_table",
    "stability",
    "Interval",
    "bootstrap_ci",
    "bootstrap_pass_rate_ci",
    "paired_bootstrap_delta_ci",
    "unpaired_bootstrap_delta_ci",
    "Comparison",
    "compare_samples",
    "classify_case",
    "statistic_named",
}


def test_all_lists_the_required_names_and_they_resolve() -> None:
    assert set(stats.__all__) >= EXPECTED
    assert len(stats.__all__) == len(set(stats.__all__))
    for name in stats.__all__:
        value = getattr(stats, name)
        if typing.get_origin(value) is not None:  # type aliases: Verdict, Statistic, ...
            assert typing.get_args(value), name
            continue
        assert callable(value) and value.__module__.startswith("proctor.stats."), name


def test_result_types_are_frozen_dataclasses() -> None:
    interval = stats.Interval(0.0, 1.0, 0.95)
    with pytest.raises(dataclasses.FrozenInstanceError):
        interval.low = 0.5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.summarize([]).n = 1  # type: ignore[misc]
    comparison = stats.compare_samples("m", [], [], higher_is_better=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        comparison.verdict = "improved"  # type: ignore[misc]


def test_field_names_match_the_contract() -> None:
    def names(cls: type) -> list[str]:
        return [field.name for field in dataclasses.fields(cls)]

    assert names(stats.Summary) == ["n", "min", "max", "mean", "median", "stddev"]
    assert names(stats.Interval) == ["low", "high", "confidence"]
    assert names(stats.Comparison) == [
        "metric",
        "n_treatment",
        "n_baseline",
        "treatment",
        "baseline",
        "delta",
        "ci",
        "verdict",
        "note",
        "exact_p",
    ]
