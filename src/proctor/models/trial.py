"""``trial.json``: everything known about one trial (case × agent × condition × repeat)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from proctor.models.base import RecordModel
from proctor.models.trajectory import ModelUsage, ParseCoverage

TrialStatus = Literal[
    "passed", "failed", "timeout", "agent-error", "infra-error", "eval-error", "skipped"
]

#: Statuses that count in pass rates (a timeout is a failure).
SCORED_STATUSES: frozenset[str] = frozenset({"passed", "failed", "timeout"})
#: Statuses excluded from pass rates and score statistics, reported separately.
ERROR_STATUSES: frozenset[str] = frozenset({"agent-error", "infra-error", "eval-error"})
ALL_STATUSES: tuple[str, ...] = (
    "passed",
    "failed",
    "timeout",
    "agent-error",
    "infra-error",
    "eval-error",
    "skipped",
)


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class EvaluatorResult(_Camel):
    use: str
    passed: bool
    score: float = Field(ge=0, le=100)
    gate: bool = False
    weight: float = 1.0
    error: bool = False
    metrics: dict[str, float] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)
    message: str = ""


class ErrorInfo(_Camel):
    type: str
    message: str
    traceback: str | None = None


class Timings(_Camel):
    """Wall-clock milliseconds per phase of a trial."""

    prepare_ms: float = 0.0
    agent_ms: float = 0.0
    collect_ms: float = 0.0
    evaluate_ms: float = 0.0
    total_ms: float = 0.0
    harness_ms: float = 0.0
    """Time the harness spent outside the agent (total minus agent)."""
    agent_pure_ms: float = 0.0
    """The agent's own execution time: agent phase minus the harness's reaction time."""
    harness_react_ms: float = 0.0
    """Time the harness spent deciding answers while the agent waited (model calls included)."""
    turns_total: int = 0
    question_turns: int = 0
    """Turns that only answered a question the agent ended its previous turn with."""
    interruptions: int = 0
    """Questions and prompts the agent raised mid-turn (pickers, permission prompts, ask)."""
    started_at: str | None = None
    finished_at: str | None = None


class TranscriptInfo(_Camel):
    format: str | None = None
    source: str | None = None
    """Where the agent wrote its native transcript (inside the scratch home)."""
    raw: str | None = None
    """Trial-relative path of the byte-for-byte copy."""
    trajectory: str | None = None
    events: int = 0
    coverage: ParseCoverage = Field(default_factory=ParseCoverage)


class CaseLabels(_Camel):
    """What a case is about, for slicing reports (from task files or a case's config.json)."""

    repository: str | None = None
    category: str | None = None
    framework: str | None = None
    language: str | None = None
    bucket: str | None = None
    goal_shape: str | None = None


class CostInfo(_Camel):
    """Dollars, only from the configuration's ``pricing`` map; additive only as a total."""

    total_usd: float | None = None
    """None when any model used is unpriced."""
    by_model: dict[str, float | None] = Field(default_factory=dict)
    unpriced: list[str] = Field(default_factory=list)
    source: str = "agent"


class TrialRecord(RecordModel):
    case: str
    agent: str
    condition: str = "default"
    repeat: int
    status: TrialStatus
    passed: bool | None = None
    score: float | None = None
    reason: str = ""
    evaluators: list[EvaluatorResult] = Field(default_factory=list)
    combiner: str = "gated-mean"
    pass_threshold: float = 60.0
    timings: Timings = Field(default_factory=Timings)
    usage: dict[str, ModelUsage] = Field(default_factory=dict)
    transcript: TranscriptInfo = Field(default_factory=TranscriptInfo)
    exit_code: int | None = None
    cost: CostInfo = Field(default_factory=CostInfo)
    harness_usage: dict[str, ModelUsage] = Field(default_factory=dict)
    """Tokens of proctor's own model roles, keyed ``role:provider/model``."""
    harness_calls: list[dict[str, Any]] = Field(default_factory=list)
    """One entry per harness model call: role, model, tokens, latency, attempts, error."""
    usage_check: dict[str, Any] | None = None
    """The CLI's own token totals next to the transcript's, and their differences."""
    reported_cost_usd: float | None = None
    """The cost the agent CLI reported itself (e.g. Claude Code's ``total_cost_usd``)."""
    questions: int = 0
    tool_calls: int = 0
    error: ErrorInfo | None = None
    workspace: str | None = None
    """Trial-relative path of the kept workspace, when it was kept."""
    agent_version: str | None = None
    secrets_masked: list[str] = Field(default_factory=list)
    """Trial files in which a provider key was found and masked."""
    agent_model: str | None = None
    agent_effort: str | None = None
    tags: list[str] = Field(default_factory=list)
    labels: CaseLabels = Field(default_factory=CaseLabels)
    process: dict[str, Any] | None = None
    """Process metrics (``proctor.metrics.ProcessMetrics.to_dict()``), when a trajectory exists."""
    rules: list[dict[str, Any]] = Field(default_factory=list)
    """Task rules (``RuleResult.to_dict()``): unverified, long-orientation, rework, loops."""


class QuestionRecord(_Camel):
    """One line of ``questions.jsonl``."""

    question: str
    options: list[str] = Field(default_factory=list)
    answer: str | None = None
    policy: Literal["rule", "model", "abort"]
    rule: str | None = None
    screen: str = ""
    latency_ms: float = 0.0
    where: Literal["mid-turn", "turn-end"] = "mid-turn"
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reason: str = ""
