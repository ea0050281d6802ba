"""Result models of A/B analysis and run comparison; ``to_dict()`` gives camelCase, JSON-ready.

``treatment`` / ``baseline`` name the two sides throughout. In a run comparison the candidate
run plays the treatment and the baseline run the baseline.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from proctor.models.trial import CaseLabels
from proctor.stats import CaseVerdict, Comparison

__all__ = [
    "ABCase",
    "ABDelta",
    "ABGateResult",
    "ABGroup",
    "ABPair",
    "ABReport",
    "ABSide",
    "IncompletePair",
    "MetricComparison",
    "RunComparison",
    "RunGroup",
    "RunOnly",
]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with camelCase keys."""
        return self.model_dump(mode="json", by_alias=True)


class MetricComparison(_Camel):
    """One metric, treatment vs baseline (``proctor.stats.Comparison`` as a record).

    ``ciLow``/``ciHigh``/``confidence`` are None when no claim is made (too few samples).
    """

    metric: str
    n_treatment: int
    n_baseline: int
    treatment: float | None
    baseline: float | None
    delta: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float | None = None
    verdict: str
    note: str

    @classmethod
    def from_comparison(cls, c: Comparison) -> MetricComparison:
        return cls(
            metric=c.metric,
            n_treatment=c.n_treatment,
            n_baseline=c.n_baseline,
            treatment=c.treatment,
            baseline=c.baseline,
            delta=c.delta,
            ci_low=c.ci.low if c.ci else None,
            ci_high=c.ci.high if c.ci else None,
            confidence=c.ci.confidence if c.ci else None,
            verdict=c.verdict,
            note=c.note,
        )


class ABSide(_Camel):
    """What one trial of a pair measured (see ``proctor.report.ab_measures``)."""

    condition: str
    status: str
    passed: bool
    elapsed_seconds: float | None
    tool_calls: int
    tokens: int
    first_relevant_seconds: float | None


class ABDelta(_Camel):
    """Treatment minus baseline; None where either side lacks the measure."""

    success: int
    elapsed_seconds: float | None
    tool_calls: int
    tokens: int
    first_relevant_seconds: float | None


class ABPair(_Camel):
    """A complete pair: both sides reached passed, failed or timeout."""

    case: str
    agent: str
    repeat: int
    labels: CaseLabels
    treatment: ABSide
    baseline: ABSide
    delta: ABDelta


class IncompletePair(_Camel):
    """A case × agent × repeat that cannot be paired, and why; statuses are None when missing."""

    case: str
    agent: str
    repeat: int
    reason: str
    treatment_status: str | None
    baseline_status: str | None


class ABGroup(_Camel):
    """Complete pairs of one slice: counts (the denominators) and one comparison per metric."""

    pairs: int
    treatment_passes: int
    baseline_passes: int
    comparisons: dict[str, MetricComparison]


class ABCase(_Camel):
    """One case × agent: its complete pairs as an :class:`ABGroup`, plus a classification."""

    case: str
    agent: str
    labels: CaseLabels
    pairs: int
    incomplete: int
    treatment_passes: int
    baseline_passes: int
    classification: CaseVerdict
    note: str
    comparisons: dict[str, MetricComparison]


class ABReport(_Camel):
    """Everything ``analyse_ab`` found; ``byDimension`` maps a label field to value to group."""

    treatment: str
    baseline: str
    seed: int
    min_samples: int
    pairs: list[ABPair]
    incomplete: list[IncompletePair]
    cases: list[ABCase]
    by_dimension: dict[str, dict[str, ABGroup]]
    overall: ABGroup


class ABGateResult(_Camel):
    """Outcome of ``ab_gate``; delta and CI are None when there was no complete pair."""

    treatment: str
    baseline: str
    max_pass_rate_drop: float
    passed: bool
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    incomplete: int
    message: str


class RunOnly(_Camel):
    """A case × agent × condition present in one run only."""

    case: str
    agent: str
    condition: str
    trials: int


class RunGroup(_Camel):
    """One case × agent × condition in both runs: before = baseline run, after = candidate run.

    ``*Scored`` count passed + failed + timeout (the pass-rate denominators); ``*Errors`` count
    the other trials, which every statistic leaves out.
    """

    case: str
    agent: str
    condition: str
    labels: CaseLabels
    before_scored: int
    before_passes: int
    before_errors: int
    after_scored: int
    after_passes: int
    after_errors: int
    classification: CaseVerdict
    note: str
    comparisons: dict[str, MetricComparison]


class RunComparison(_Camel):
    """Everything ``compare_runs`` found: compared groups, one-sided groups, totals."""

    seed: int
    min_samples: int
    groups: list[RunGroup]
    only_in_baseline: list[RunOnly] = Field(default_factory=list)
    only_in_candidate: list[RunOnly] = Field(default_factory=list)
    summary: dict[str, int]
    """Groups per classification, every classification listed (0 included)."""
    overall: dict[str, MetricComparison]
    """Unpaired comparisons over every scored trial of the groups present in both runs."""
