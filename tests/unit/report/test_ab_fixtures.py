"""The A/B analysis agrees with the hand-worked pairs of tests/fixtures/ab/0*.json.

Each fixture fixes by hand, in its ``expected`` block, a subset of ``analyse_ab(...).to_dict()``
(plus ``ab_gate`` results). Helpers here are shared with the control and compare tests.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proctor.models.trial import TrialRecord
from proctor.report.ab.analysis import ab_gate, analyse_ab

FIXTURE_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "ab"
TOLERANCE = 1e-6


@dataclass(frozen=True)
class ABFixture:
    name: str
    treatment: str
    baseline: str
    records: list[TrialRecord]
    expected: dict[str, Any]


def load(name: str) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads((FIXTURE_DIR / name).read_text(encoding="utf-8"))
    return raw


def records_of(trials: list[dict[str, Any]]) -> list[TrialRecord]:
    return [TrialRecord.model_validate(t) for t in trials]


def load_ab_fixtures() -> list[ABFixture]:
    fixtures = []
    for path in sorted(FIXTURE_DIR.glob("0*.json")):
        raw = load(path.name)
        fixtures.append(
            ABFixture(
                name=path.stem,
                treatment=raw["treatment"],
                baseline=raw["baseline"],
                records=records_of(raw["trials"]),
                expected=raw["expected"],
            )
        )
    return fixtures


AB_FIXTURES = load_ab_fixtures()


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` differs from ``expected``: every expected key must match, extra keys in
    ``actual`` are ignored, lists must have the same length, numbers match within TOLERANCE."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected a mapping, got {actual!r}"]
        found = []
        for key, value in expected.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing")
            else:
                found += mismatches(value, actual[key], f"{path}.{key}")
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {len(expected)} items, got {actual!r}"]
        return [
            m
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for m in mismatches(e, a, f"{path}[{i}]")
        ]
    numeric = (int, float)
    if isinstance(expected, numeric) and not isinstance(expected, bool):
        if isinstance(actual, bool) or not isinstance(actual, numeric):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        ok = math.isclose(expected, actual, rel_tol=0, abs_tol=TOLERANCE)
        return [] if ok else [f"{path}: expected {expected!r}, got {actual!r}"]
    return (
        []
        if expected == actual and type(expected) is type(actual)
        else [f"{path}: expected {expected!r}, got {actual!r}"]
    )


Analyse = Callable[[ABFixture], dict[str, Any]]


def ab_actual(
    fx: ABFixture,
    *,
    treatment: str | None = None,
    baseline: str | None = None,
    records: list[TrialRecord] | None = None,
    min_samples: int = 3,
) -> dict[str, Any]:
    """What the real implementation gives for the parts a fixture's ``expected`` names."""
    t, b = treatment or fx.treatment, baseline or fx.baseline
    recs = fx.records if records is None else records
    report = analyse_ab(recs, t, b, min_samples=min_samples).to_dict()
    report["gate"] = [
        ab_gate(recs, t, b, g["maxPassRateDrop"]).to_dict() for g in fx.expected["gate"]
    ]
    return report


@pytest.mark.parametrize("fx", AB_FIXTURES, ids=lambda fx: fx.name)
def test_analysis_agrees_with_hand_worked_fixture(fx: ABFixture) -> None:
    assert mismatches(fx.expected, ab_actual(fx)) == []


def test_there_are_at_least_six_fixtures_covering_the_required_situations() -> None:
    names = {fx.name for fx in AB_FIXTURES}
    for part in (
        "better",
        "worse",
        "equal_stable",
        "equal_flaky",
        "missing_side",
        "error_side",
        "few_samples",
    ):
        assert any(part in n for n in names), part
    assert len(names) >= 6


def test_dimension_slices_are_exactly_the_labelled_values() -> None:
    fx = next(f for f in AB_FIXTURES if f.name == "08_dimensions")
    actual = ab_actual(fx)["byDimension"]
    for dimension, slices in fx.expected["byDimension"].items():
        assert set(actual[dimension]) == set(slices), dimension


def test_notes_withhold_claims_below_three_samples() -> None:
    fx = next(f for f in AB_FIXTURES if f.name == "07_few_samples")
    report = analyse_ab(fx.records, fx.treatment, fx.baseline)
    case = report.cases[0]
    assert "fewer than 3 samples, no claim" in case.note
    for comparison in report.overall.comparisons.values():
        assert "fewer than 3" in comparison.note and "no claim" in comparison.note


def test_gate_without_complete_pair_fails_with_a_reason() -> None:
    fx = next(f for f in AB_FIXTURES if f.name == "05_incomplete_missing_side")
    only_unpaired = [r for r in fx.records if r.repeat in (3, 4)]
    result = ab_gate(only_unpaired, fx.treatment, fx.baseline, 0.1)
    assert not result.passed and result.pairs == 0 and result.incomplete == 2
    assert result.delta is None and result.ci_low is None and result.ci_high is None
    assert "no complete" in result.message and "2 incomplete pairs" in result.message
