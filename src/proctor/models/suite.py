"""``suite.json`` and ``run.json``: the run manifest and its aggregate."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from proctor.models.base import RecordModel
from proctor.models.config import Gate
from proctor.models.trajectory import ModelUsage


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class ScoreStats(_Camel):
    n: int = 0
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    median: float | None = None
    stddev: float | None = None


class TimeRollup(_Camel):
    """Milliseconds summed over the trials of a group, per phase."""

    total_ms: float = 0.0
    prepare_ms: float = 0.0
    agent_ms: float = 0.0
    collect_ms: float = 0.0
    evaluate_ms: float = 0.0
    harness_ms: float = 0.0
    median_trial_ms: float | None = None


class GateCheck(_Camel):
    name: str
    threshold: float
    actual: float | None
    passed: bool
    message: str = ""


class CI(_Camel):
    """A seeded percentile-bootstrap confidence interval."""

    low: float
    high: float
    confidence: float


class Spread(_Camel):
    """Median and range of one per-trial quantity over a group (``n`` trials had a value)."""

    n: int = 0
    median: float | None = None
    min: float | None = None
    max: float | None = None


class EffortStats(_Camel):
    elapsed_seconds: Spread = Field(default_factory=Spread)
    tool_calls: Spread = Field(default_factory=Spread)
    tokens: Spread = Field(default_factory=Spread)
    cost: Spread = Field(default_factory=Spread)


class GroupStats(_Camel):
    case: str
    agent: str
    condition: str
    n: int
    status_counts: dict[str, int]
    scored: int
    """Trials that count in the pass rate (passed + failed + timeout): its denominator."""
    passes: int
    pass_rate: float | None
    mean_score: float | None
    stddev: float | None
    scores: ScoreStats
    stability: str
    gate_passed: bool
    gate_checks: list[GateCheck] = Field(default_factory=list)
    time: TimeRollup = Field(default_factory=TimeRollup)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    """Unbiased pass@k for every k <= scored: the chance at least one of k runs passes."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """pass^k for every k <= scored: the chance that k independent runs all pass."""
    pass_rate_ci: CI | None = None
    mean_score_ci: CI | None = None
    effort: EffortStats = Field(default_factory=EffortStats)
    tasks: int = 0
    """Trials that changed code (the denominator of the rule counts)."""
    rule_counts: dict[str, int] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    cost_usd: float | None = None
    """Dollars over the group's priced models (see ``unpricedModels``)."""
    unpriced_models: list[str] = Field(default_factory=list)


class SuiteTotals(_Camel):
    n: int = 0
    status_counts: dict[str, int] = Field(default_factory=dict)
    scored: int = 0
    passes: int = 0
    pass_rate: float | None = None
    scores: ScoreStats = Field(default_factory=ScoreStats)
    time: TimeRollup = Field(default_factory=TimeRollup)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    groups: int = 0
    groups_passed: int = 0
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    """Mean over groups of each group's pass@k, for k up to the smallest group's scored n."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    pass_rate_ci: CI | None = None
    effort: EffortStats = Field(default_factory=EffortStats)
    tasks: int = 0
    rule_counts: dict[str, int] = Field(default_factory=dict)
    wall_ms: float | None = None
    """Wall-clock time of the whole run (from run.json), when known."""
    cost_usd: float | None = None
    unpriced_models: list[str] = Field(default_factory=list)


class SuiteRecord(RecordModel):
    run_id: str
    exit_code: int
    exit_reason: str
    gate: Gate
    groups: list[GroupStats]
    totals: SuiteTotals
    skipped_cases: list[dict[str, str]] = Field(default_factory=list)
    interrupted: bool = False
    ab: dict[str, Any] | None = None
    """A/B analysis of the run's two main conditions (see docs/ab.md), when it has several."""
    ab_gate: dict[str, Any] | None = None
    """The A/B gate's result, when the gate has an ``ab`` entry."""
    repeated: list[dict[str, Any]] = Field(default_factory=list)
    """Repeated-run view: per case × agent × condition spreads and first-file stability."""


class RunManifest(RecordModel):
    run_id: str
    proctor_version: str
    started_at: str
    finished_at: str | None = None
    argv: list[str] = Field(default_factory=list)
    host: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None
    trials_planned: int = 0
    trials_finished: int = 0
    interrupted: bool = False
