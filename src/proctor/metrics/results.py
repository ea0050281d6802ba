"""Result models of process metrics; ``to_dict()`` gives camelCase keys, ready for JSON."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from proctor.metrics.trace import CheckOutcome
from proctor.models.trajectory import ModelUsage

ContextBasis = Literal["expected", "edited-proxy", "none"]


class MetricsModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True
    )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with camelCase keys."""
        return self.model_dump(mode="json", by_alias=True)


class StepCounts(MetricsModel):
    tool_calls: int = 0
    by_kind: dict[str, int] = Field(default_factory=dict)
    """Tool calls per normalised kind; a call without a kind counts as ``other``."""
    reads: int = 0
    searches: int = 0
    edits: int = 0
    """Calls of kind ``edit`` or ``write``, whatever their outcome."""
    checks: int = 0


class CheckRun(MetricsModel):
    step: int
    """Index of the tool call, counting tool calls from 0."""
    command: str
    """The command with whitespace collapsed."""
    outcome: CheckOutcome


class Orientation(MetricsModel):
    """What happened before the first edit; all None when the trial made no edit."""

    reads_before_first_edit: int | None = None
    steps_before_first_edit: int | None = None
    seconds_to_first_edit: float | None = None


class LoopInstance(MetricsModel):
    kind: Literal["command", "edit"]
    key: str
    """The normalised command, or the edited files joined by ``, ``."""
    count: int
    steps: list[int] = Field(default_factory=list)


class ContextMetrics(MetricsModel):
    basis: ContextBasis = "none"
    expected_files: list[str] = Field(default_factory=list)
    files_read: list[str] = Field(default_factory=list)
    recall: float | None = None
    precision: float | None = None
    f1: float | None = None
    auc_cov: float | None = None
    redundancy: float | None = None
    first_relevant_step: int | None = None
    first_relevant_seconds: float | None = None
    correct_file_hit: bool | None = None
    correct_symbol_hit: bool | None = None
    irrelevant_file_opens: int | None = None
    wrong_context_events: int | None = None


class Effort(MetricsModel):
    elapsed_seconds: float | None = None
    tool_calls: int = 0
    tokens: dict[str, ModelUsage] = Field(default_factory=dict)
    cost: float | None = None


class ProcessMetrics(MetricsModel):
    """Every process metric of one trial."""

    is_task: bool = False
    """The trial changed code: at least one edit or write call."""
    steps: StepCounts = Field(default_factory=StepCounts)
    checks: list[CheckRun] = Field(default_factory=list)
    orientation: Orientation = Field(default_factory=Orientation)
    verified: bool | None = None
    rework: int = 0
    loops: int = 0
    loop_details: list[LoopInstance] = Field(default_factory=list)
    context: ContextMetrics = Field(default_factory=ContextMetrics)
    effort: Effort = Field(default_factory=Effort)
