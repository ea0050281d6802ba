"""``proctor history --json``: the user's own recorded sessions as measurements.

One :class:`SessionSummary` per session read, :class:`GroupSummary` rows per project, day,
week, month or agent, and the whole :class:`HistoryReport`. The context figures use the files
a session edited as a *proxy* gold (a real task's expected files are unknown): they say how
directly the agent reached what it ended up changing, not whether that was the right place.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from proctor.models.base import CamelModel, RecordModel
from proctor.models.process import Orientation, StepCounts
from proctor.models.spread import Spread
from proctor.models.trajectory import ModelUsage

GroupBy = Literal["project", "day", "week", "month", "agent"]


class SessionSummary(CamelModel):
    """What one recorded session did, measured like a trial."""

    agent: str
    path: str
    session_id: str | None = None
    project: str | None = None
    """The folder the session ran in (Gemini CLI: its project hash when the folder is unknown)."""
    started_at: str | None = None
    ended_at: str | None = None
    duration_seconds: float | None = None
    is_task: bool = False
    """The session changed code (an edit or write of a file that is not documentation, neither
    rejected nor failed)."""
    verified: bool | None = None
    """A passing check ran after the last edit that changed code; None when not a task."""
    steps: StepCounts = Field(default_factory=StepCounts)
    orientation: Orientation = Field(default_factory=Orientation)
    checks: int = 0
    failed_checks: int = 0
    loops: int = 0
    rules_fired: list[str] = []
    """Task rules broken: ``unverified``, ``long-orientation``, ``rework``, ``loops``."""
    edited_files: list[str] = []
    """The proxy gold of the context figures."""
    redundancy_proxy: float | None = None
    auc_cov_proxy: float | None = None
    usage: dict[str, ModelUsage] = {}
    cost_by_model: dict[str, float | None] = {}
    """Each model's dollars (None when it has no price), its long prompts' responses at the
    model's long-context rates."""
    cost_usd: float | None = None
    """Dollars over the priced models (None when no model used is priced)."""
    unpriced_models: list[str] = []
    unknown_records: int = 0
    """Lines the parser did not recognise (counted, never fatal)."""
    response_ids: list[int] | None = Field(default=None, exclude=True)
    """The digest of each response counted in ``usage`` (Claude Code), held while a history
    counts a response copied into several sessions once; never written out."""
    response_rows: bytes | None = Field(default=None, exclude=True)
    """Those responses' rows as JSON (sidechain, model, tokens), read only when another
    session holds one of them too."""
    responses: list[tuple[int, bool, str, int, int, int, int, int]] | None = Field(
        default=None, exclude=True
    )
    """The rows read (digest first), for the sessions that share a response."""


class GroupSummary(CamelModel):
    """The summary of some sessions (all of them, or one project, day, week, month or agent)."""

    key: str
    sessions: int = 0
    tasks: int = 0
    non_tasks: int = 0
    verified: int = 0
    share_verified: float | None = None
    duration_seconds: Spread = Field(default_factory=Spread)
    steps: Spread = Field(default_factory=Spread)
    orientation_reads: Spread = Field(default_factory=Spread)
    loops: int = 0
    """Loops summed over tasks."""
    tasks_with_loops: int = 0
    rule_counts: dict[str, int] = {}
    """Tasks on which each rule fired."""
    auc_cov_proxy: Spread = Field(default_factory=Spread)
    redundancy_proxy: Spread = Field(default_factory=Spread)
    usage: dict[str, ModelUsage] = {}
    cost_by_model: dict[str, float | None] = {}
    cost_usd: float | None = None
    """Dollars over the priced models; the unpriced ones are listed in ``unpricedModels``."""
    unpriced_models: list[str] = []
    unknown_records: int = 0
    """Lines the parsers did not recognise, summed over every session (counted, never fatal)."""


class Unavailable(CamelModel):
    """A history that was asked for but could not be read, and why."""

    agent: str | None = None
    path: str
    reason: str


class HistoryReport(RecordModel):
    """``proctor history --json``."""

    by: GroupBy | None = None
    total: GroupSummary
    groups: list[GroupSummary] = []
    sessions: list[SessionSummary] = []
    unavailable: list[Unavailable] = []
    proxy_note: str = (
        "aucCovProxy uses the files each session edited as a proxy gold; redundancyProxy (the "
        "share of reads that only re-read) needs no gold"
    )


class ChangeMark(RecordModel):
    """One line of the change journal (``proctor mark``)."""

    text: str
    project: str | None = None
    """The folder the change applies to; None: every project."""
    at: str
    """When the change took effect (ISO 8601; ``proctor mark`` writes it in UTC, and a time
    written by hand without an offset is read as UTC)."""


class SideFigures(CamelModel):
    """Tasks on one side of a change: medians with percentile-bootstrap intervals, the share
    verified with Wilson's score interval; no interval with fewer than three tasks."""

    tasks: int = 0
    timed_tasks: int = 0
    """The tasks with a duration (both ends dated), which the median time is taken over."""
    median_seconds: float | None = None
    median_seconds_ci: tuple[float, float] | None = None
    median_steps: float | None = None
    median_steps_ci: tuple[float, float] | None = None
    share_verified: float | None = None
    share_verified_ci: tuple[float, float] | None = None
    first_start: str | None = None
    """When the earliest of these tasks started."""
    last_start: str | None = None
    """When the latest of these tasks started."""
    sessions: list[str] = []
    """The tasks' session files, in the order they started."""


class ChangeDelta(CamelModel):
    """After minus before, with 95% intervals: medians by an unpaired percentile bootstrap,
    the share verified by Newcombe's hybrid score interval."""

    median_seconds: float | None = None
    median_seconds_ci: tuple[float, float] | None = None
    median_steps: float | None = None
    median_steps_ci: tuple[float, float] | None = None
    share_verified: float | None = None
    share_verified_ci: tuple[float, float] | None = None


class ChangeComparison(CamelModel):
    """Up to ten tasks before a change against up to ten after it, in the same project: an
    uncontrolled comparison (anything else that changed in between counts too)."""

    change: ChangeMark
    before: SideFigures
    after: SideFigures
    comparable: bool
    """At least three tasks on each side."""
    delta: ChangeDelta | None = None
    """After minus before; None unless comparable."""
    note: str
    warnings: list[str] = []
    """What else the comparison mixes in: another change among its tasks, a task still
    running at the change, a window that left tasks out."""
