"""``suite.json``: a run's aggregate (per-group statistics, the gate, the exit code, the A/B
analysis and the repeated-run view)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from proctor.models.ab import ABGateResult, ABReport
from proctor.models.base import CamelModel, RecordModel
from proctor.models.config import Gate
from proctor.models.run import SkippedCaseRecord
from proctor.models.spread import Spread as Spread  # re-exported: the suite records use it
from proctor.models.trajectory import ModelUsage


class ScoreStats(CamelModel):
    n: int = 0
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    median: float | None = None
    stddev: float | None = None


class TimeRollup(CamelModel):
    """Milliseconds summed over the trials of a group, per phase."""

    total_ms: float = 0.0
    prepare_ms: float = 0.0
    agent_ms: float = 0.0
    collect_ms: float = 0.0
    evaluate_ms: float = 0.0
    harness_ms: float = 0.0
    median_trial_ms: float | None = None


class SourceUsage(CamelModel):
    """Tokens and dollars of one model for one source: the agent, or one of proctor's roles
    (``fast``, ``workhorse``, ``judge``, …)."""

    source: str
    model: str
    tokens: ModelUsage = Field(default_factory=ModelUsage)
    cost_usd: float | None = None
    """None when the model has no price (or the run collected no cost)."""


class SourceTimes(CamelModel):
    """Where the time went, summed over trials: the agent's, the harness's reactions while the
    agent waited, and the harness's model calls per model; and the conversation's turns."""

    agent_ms: float = 0.0
    agent_pure_ms: float = 0.0
    harness_react_ms: float = 0.0
    harness_model_ms: dict[str, float] = {}
    turns: int = 0
    question_turns: int = 0
    interruptions: int = 0


class GateCheck(CamelModel):
    name: str
    threshold: float
    actual: float | None
    passed: bool
    message: str = ""


class CI(CamelModel):
    """A seeded percentile-bootstrap confidence interval."""

    low: float
    high: float
    confidence: float


class OutcomeRate(CamelModel):
    """How often one outcome held, over the scored trials where it applies."""

    k: int = 0
    n: int = 0
    """Scored trials where the outcome applies (their case names what it needs)."""
    rate: float | None = None
    ci: CI | None = None


class OutcomeRates(CamelModel):
    """The outcome rates a fair comparison needs (see ``proctor.report.ab.measures``)."""

    file_hit: OutcomeRate = Field(default_factory=OutcomeRate)
    symbol_hit: OutcomeRate = Field(default_factory=OutcomeRate)
    patch_in_area: OutcomeRate = Field(default_factory=OutcomeRate)
    wrong_context: OutcomeRate = Field(default_factory=OutcomeRate)
    abandoned: OutcomeRate = Field(default_factory=OutcomeRate)
    search_steps: Spread = Field(default_factory=Spread)


class EffortStats(CamelModel):
    elapsed_seconds: Spread = Field(default_factory=Spread)
    tool_calls: Spread = Field(default_factory=Spread)
    tokens: Spread = Field(default_factory=Spread)
    cost: Spread = Field(default_factory=Spread)


class GroupStats(CamelModel):
    case: str
    agent: str
    condition: str
    n: int
    status_counts: dict[str, int]
    cut_short: int = 0
    """Of the trials in ``status_counts``' error statuses, those a stop cut short (their
    reason ``interrupted: …``), which ``--resume`` runs again: the person who stopped the run
    broke nothing."""
    scored: int
    """Trials that count in the pass rate (passed + failed + timeout): its denominator."""
    passes: int
    pass_rate: float | None
    mean_score: float | None
    stddev: float | None
    scores: ScoreStats
    stability: str
    gate_passed: bool
    not_gated: bool = False
    """Every trial was skipped (an eval's ``t.skip``, trials not evaluated) and none left out
    by hand: no gate applies (``gate_passed`` is then false, and fails nothing)."""
    gate_checks: list[GateCheck] = []
    gate_failed_in_errors: int = 0
    """Trials of the group in an error status in which a gate evaluator judged and failed:
    each fails the run's gate (exit 1) whatever the group's scored trials show; 0 when every
    trial of the run ended in infra-error (exit 2). A group with no scored trial and none
    such has no verdict: its trials' errors are exit 3."""
    time: TimeRollup = Field(default_factory=TimeRollup)
    usage: dict[str, ModelUsage] = {}
    pass_at_k: dict[str, float] = {}
    """Unbiased pass@k for every k <= scored: the chance at least one of k runs passes."""
    pass_hat_k: dict[str, float] = {}
    """pass^k for every k <= scored: the chance that k independent runs all pass."""
    pass_rate_ci: CI | None = None
    mean_score_ci: CI | None = None
    effort: EffortStats = Field(default_factory=EffortStats)
    tasks: int = 0
    """Trials that changed code (the denominator of the rule counts)."""
    rule_counts: dict[str, int] = {}
    labels: dict[str, str] = {}
    cost_usd: float | None = None
    """Dollars over the group's priced models (see ``unpricedModels``)."""
    unpriced_models: list[str] = []
    metrics: dict[str, Spread] = {}
    """Every named metric the evaluators reported (``external`` programs' values), over the
    group's trials: name → median and range."""
    by_source: list[SourceUsage] = []
    """Tokens and dollars per source × model; only the dollar total adds across models."""
    outcomes: OutcomeRates = Field(default_factory=OutcomeRates)
    source_times: SourceTimes = Field(default_factory=SourceTimes)


class SuiteTotals(CamelModel):
    n: int = 0
    status_counts: dict[str, int] = {}
    cut_short: int = 0
    """Trials a stop cut short, as each group's ``cutShort``."""
    scored: int = 0
    passes: int = 0
    pass_rate: float | None = None
    scores: ScoreStats = Field(default_factory=ScoreStats)
    time: TimeRollup = Field(default_factory=TimeRollup)
    usage: dict[str, ModelUsage] = {}
    groups: int = 0
    groups_passed: int = 0
    pass_at_k: dict[str, float] = {}
    """Mean over groups of each group's pass@k, for k up to the smallest group's scored n."""
    pass_hat_k: dict[str, float] = {}
    pass_rate_ci: CI | None = None
    effort: EffortStats = Field(default_factory=EffortStats)
    tasks: int = 0
    rule_counts: dict[str, int] = {}
    wall_ms: float | None = None
    """Wall-clock time of the whole run, when known: of a resumed run, the sum of the stretches
    that ran it (see ``journal.jsonl``)."""
    wall_lower_bound: bool = False
    """``wall_ms`` is a lower bound: a stretch that ran the run has no end in its journal (its
    orchestrator was killed, or is still running) and counts only to the last line it wrote."""
    wall_session: bool = False
    """The run is a session a person drove, recorded with ``proctor record``: ``wall_ms`` is
    the session's span, from its transcript's first to its last time (None when it gives no
    times), not the time the recording took."""
    cost_usd: float | None = None
    unpriced_models: list[str] = []
    metrics: dict[str, Spread] = {}
    """Every named metric the evaluators reported, over every trial of the run."""
    by_source: list[SourceUsage] = []
    source_times: SourceTimes = Field(default_factory=SourceTimes)
    outcomes: OutcomeRates = Field(default_factory=OutcomeRates)
    retried: int = 0
    """Trials that needed a retry (``--retry-errors``): an earlier attempt ended in a transient
    error."""


class RepeatedSpread(CamelModel):
    """Centre and range of one measure over a group's repeats; every value None when ``n`` is
    0."""

    n: int
    median: float | None
    mean: float | None
    min: float | None
    max: float | None


class RepeatedRow(CamelModel):
    """One case × agent × condition over its repeats.

    ``firstRelevantFile`` is the most common first relevant file (ties: the smallest path),
    ``firstRelevantFound`` how many samples named one, and ``firstRelevantStability`` the share
    of *all* samples whose file equals the most common one (a sample that found none counts
    against it); None when no sample found one.
    """

    case: str
    agent: str
    condition: str
    goal_shape: str | None
    samples: int
    errors: int
    passes: int
    elapsed_seconds: RepeatedSpread
    tool_calls: RepeatedSpread
    tokens: RepeatedSpread
    first_relevant_file: str | None
    first_relevant_found: int
    first_relevant_stability: float | None


class FindingChange(CamelModel):
    """A finding of the results directory's ledger that the run proposed (``new``), reopened
    or resolved, or a dismissed one whose check it passed (``passed``: the finding stays
    dismissed, and its next failure reopens it; see docs/findings.md)."""

    event: Literal["new", "reopened", "resolved", "passed"]
    id: str
    """The finding's id, as ``proctor findings`` and ``proctor findings dismiss`` name it."""
    case: str
    agent: str
    condition: str
    check: str
    """The evaluator's label (else its ``use``), or ``rule:<name>`` for a task rule."""

    @property
    def said(self) -> str:
        """The event as the reports word it: a dismissed finding's pass is ``passed while
        dismissed``."""
        return "passed while dismissed" if self.event == "passed" else self.event


class PooledRun(CamelModel):
    """One of the runs a report read as one sample set, in the order read."""

    folder: str
    """The run folder's name (a run given as ``.`` named too)."""
    path: str
    """The run folder as given on the command line."""
    run_id: str | None
    """The run's id, as its ``run.json`` records it; None without one."""
    source: str | None
    """The suite it ran (``run.json``'s ``source``); None when not recorded."""
    trials: int
    """The trials read from it (stand-ins for unreadable or missing records included)."""
    planned: int | None
    """The trials it planned (``run.json``'s ``trialsPlanned``); None when not recorded."""
    stopped_short: bool
    """It stopped before it finished, or is still running (fewer trials than it planned)."""
    wall_ms: float | None
    """Its wall-clock time (from its journal, else its ``suite.json``); None when neither
    records any."""
    wall_lower_bound: bool = False
    """``wall_ms`` is a lower bound (see :attr:`SuiteTotals.wall_lower_bound`)."""


class PooledRuns(CamelModel):
    """The runs a report read as one sample set, and what they do not share."""

    runs: list[PooledRun]
    notes: list[str] = []
    """What the runs do not share (their gates, their suites), one sentence each, as the
    notes on stderr say it."""


class GateFrom(CamelModel):
    """Where the gate of a report comes from when it is not the run's own: a configuration
    given with ``proctor report --config FILE`` whose gate is another (or of a run whose own
    gate is not known)."""

    config: str
    """The configuration file the gate was taken from, as given."""
    run_gate: Gate | None
    """The run's own gate (of runs read as one sample set, the first run's: the gate the
    report would apply without ``--config``); None when the run's ``resolved.json``, which
    holds it, does not read."""
    no_gate: bool = Field(default=False, exclude_if=lambda value: not value)
    """True when ``config`` holds no gate: the report's gate is then proctor's default gate
    (``minPassRate 1.0``); absent otherwise."""


class SuiteRecord(RecordModel):
    run_id: str
    exit_code: int
    exit_reason: str
    gate: Gate
    groups: list[GroupStats]
    totals: SuiteTotals
    skipped_cases: list[SkippedCaseRecord] = []
    interrupted: bool = False
    ab: ABReport | None = None
    """A/B analysis of the run's two main conditions (see docs/ab.md), when it has several."""
    ab_gate: ABGateResult | None = None
    """The A/B gate's result, when the gate has an ``ab`` entry."""
    repeated: list[RepeatedRow] = []
    """Repeated-run view: per case × agent × condition spreads and first-file stability."""
    findings: list[FindingChange] | None = None
    """What the run did to the findings ledger of its results directory: each finding it
    proposed, reopened or resolved (none: an empty list). None when the ledger does not hold
    the run, or the report pools several runs. ``proctor run`` writes its reports, updates the
    ledger, then writes the reports that show this again; ``proctor report`` reads it from the
    ledger."""
    pooled_runs: PooledRuns | None = Field(default=None, exclude_if=lambda value: value is None)
    """The runs read as one sample set (``proctor report RUN_A RUN_B …``, ``proctor run
    --manifest``), when the report pools several; absent from the report of one run."""
    gate_from: GateFrom | None = Field(default=None, exclude_if=lambda value: value is None)
    """Where ``gate`` comes from when it is not the run's own (``proctor report --config
    FILE`` giving another gate, or a gate where the run's own is not known); absent when it is
    the run's own."""
