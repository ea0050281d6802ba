"""A/B analysis and run comparison as records: ``suite.json``'s ``ab`` and ``abGate``, and what
``proctor compare --json`` prints.

``treatment`` / ``baseline`` name the two sides throughout. In a run comparison the candidate
run plays the treatment and the baseline run the baseline.
"""

from __future__ import annotations

from typing import Literal

from proctor.models.base import CamelModel
from proctor.models.trial import CaseLabels

CaseVerdict = Literal["improved", "regressed", "unchanged", "flaky", "insufficient-data"]
"""Must match :data:`proctor.stats.ab.CaseVerdict` (a test checks)."""

PairFrom = Literal["gate", "named", "named-and-gate", "chosen", "named-and-chosen"]
"""Where the two conditions an A/B report compares came from: both the run's A/B gate's
(``gate.ab``), both named (``--treatment`` and ``--baseline``), one named and the other the
gate's, or chosen by proctor's rule (the pair most cases ran together; with one side named,
the other filled in by the same rule)."""

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
    "PairFrom",
    "RunComparison",
    "RunGroup",
    "RunOnly",
]


class MetricComparison(CamelModel):
    """One metric, treatment vs baseline (``proctor.stats.Comparison`` as a record).

    ``ciLow``/``ciHigh``/``confidence`` are None when no claim is made (too few samples).
    ``exactP`` is the exact two-sided p-value (of a rate McNemar's test of the discordant pairs
    when paired, Fisher's otherwise; of another measure the sign test of the pairs, or the
    rank-sum test unpaired), None without a CI, past 60 unpaired values and in records
    written before it: a change is claimed only when the CI excludes 0 and ``exactP`` is at
    most 1 − confidence, the test pointing the way the CI does; a CI that excludes 0 with a
    larger ``exactP``, or with a test pointing the other way, is kept, its verdict
    "insufficient-data" (its ``note`` says which).
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
    exact_p: float | None = None


class ABSide(CamelModel):
    """What one trial of a pair measured (see ``proctor.report.ab_measures``)."""

    condition: str
    status: str
    passed: bool
    elapsed_seconds: float | None
    tool_calls: int
    tokens: int
    first_relevant_seconds: float | None
    file_hit: float | None = None
    symbol_hit: float | None = None
    patch_in_area: float | None = None
    search_steps: float | None = None
    wrong_context: float | None = None
    abandoned: float | None = None
    """The outcome measures: 1/0 (or a count for searches), None where the case has no
    expected files or symbols (see ``proctor.report.ab.measures``)."""


class ABDelta(CamelModel):
    """Treatment minus baseline; None where either side lacks the measure."""

    success: int
    elapsed_seconds: float | None
    tool_calls: int
    tokens: int
    first_relevant_seconds: float | None


class ABPair(CamelModel):
    """A complete pair: both sides reached passed, failed or timeout."""

    case: str
    agent: str
    repeat: int
    labels: CaseLabels
    treatment: ABSide
    baseline: ABSide
    delta: ABDelta


class IncompletePair(CamelModel):
    """A case × agent × repeat that cannot be paired, and why; statuses are None when missing."""

    case: str
    agent: str
    repeat: int
    reason: str
    treatment_status: str | None
    baseline_status: str | None


class ABGroup(CamelModel):
    """Complete pairs of one slice: counts (the denominators) and one comparison per metric."""

    pairs: int
    treatment_passes: int
    baseline_passes: int
    comparisons: dict[str, MetricComparison]


class ABCase(CamelModel):
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


class HandMark(CamelModel):
    """A trial a person marked (``proctor annotate``), as the comparison counted it."""

    run: str
    """The run folder's name."""
    trial: str
    """``case/agent/condition/repeat``."""
    verdict: str
    note: str


class ABReport(CamelModel):
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
    annotations: list[HandMark] = []
    """The trials marked by hand, with the mark applied in every figure above."""
    pair_from: PairFrom | None = None
    """Where ``treatment`` and ``baseline`` came from (see :data:`PairFrom`); None in a
    ``suite.json`` written before proctor said it."""


class ABGateResult(CamelModel):
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


class RunOnly(CamelModel):
    """A case × agent × condition present in one run only."""

    case: str
    agent: str
    condition: str
    trials: int


class RunGroup(CamelModel):
    """One case × agent × condition in both runs: before = baseline run, after = candidate run.

    ``*Scored`` count passed + failed + timeout (the pass-rate denominators); ``*Errors`` count
    the other trials, which every statistic leaves out.
    """

    case: str
    agent: str
    condition: str
    candidate_condition: str | None = None
    """The candidate run's condition when it is not ``condition``: a case × agent that ran
    under one condition in each run, named differently in the two (a baseline run, then a run
    of the change as a condition of its own), is compared as one group."""
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


class RunComparison(CamelModel):
    """Everything ``compare_runs`` found: compared groups, one-sided groups, totals."""

    seed: int
    min_samples: int
    groups: list[RunGroup]
    only_in_baseline: list[RunOnly] = []
    only_in_candidate: list[RunOnly] = []
    summary: dict[str, int]
    """Groups per classification, every classification listed (0 included)."""
    overall: dict[str, MetricComparison]
    """Unpaired comparisons over every scored trial of the groups present in both runs."""
    annotations: list[HandMark] = []
    """The trials marked by hand in either run, with the mark applied in every figure above."""
