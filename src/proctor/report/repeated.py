"""Repeated-run view: how much one case × agent × condition varies over its repeats.

Statistics use the scored trials (passed, failed, timeout); trials in an error status or
skipped are counted in ``errors`` and left out, since their time and tokens describe a crash,
not the agent's work.

    for row in repeated_runs(records, goal_shape="fix", min_samples=3):
        row.elapsed_seconds.median, row.first_relevant_stability
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from proctor.models.trial import TrialRecord
from proctor.report.ab_measures import (
    elapsed_seconds,
    first_relevant_file,
    is_scored,
    succeeded,
    tool_calls,
    total_tokens,
)
from proctor.stats import summarize

__all__ = ["RepeatedRow", "Spread", "repeated_runs"]


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with camelCase keys."""
        return self.model_dump(mode="json", by_alias=True)


class Spread(_Camel):
    """Centre and range of one measure; every value None when ``n`` is 0."""

    n: int
    median: float | None
    mean: float | None
    min: float | None
    max: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        s = summarize(values)
        return cls(n=s.n, median=s.median, mean=s.mean, min=s.min, max=s.max)


class RepeatedRow(_Camel):
    """One case × agent × condition over its repeats.

    ``firstRelevantFile`` is the most common first relevant file (ties: the smallest path),
    ``firstRelevantFound`` how many samples named one, and ``firstRelevantStability`` the share
    of *all* samples whose file equals the most common one (a sample that found none counts
    against it); None when no sample found one. See ``ab_measures.first_relevant_file``.
    """

    case: str
    agent: str
    condition: str
    goal_shape: str | None
    samples: int
    errors: int
    passes: int
    elapsed_seconds: Spread
    tool_calls: Spread
    tokens: Spread
    first_relevant_file: str | None
    first_relevant_found: int
    first_relevant_stability: float | None


def _row(key: tuple[str, str, str], trials: Sequence[TrialRecord]) -> RepeatedRow:
    scored = [t for t in trials if is_scored(t)]
    files = [first_relevant_file(t) for t in scored]
    counts = Counter(f for f in files if f is not None)
    mode = min(counts, key=lambda f: (-counts[f], f)) if counts else None
    elapsed = [e for e in map(elapsed_seconds, scored) if e is not None]
    return RepeatedRow(
        case=key[0],
        agent=key[1],
        condition=key[2],
        goal_shape=trials[0].labels.goal_shape,
        samples=len(scored),
        errors=len(trials) - len(scored),
        passes=sum(map(succeeded, scored)),
        elapsed_seconds=Spread.of(elapsed),
        tool_calls=Spread.of([float(tool_calls(t)) for t in scored]),
        tokens=Spread.of([float(total_tokens(t)) for t in scored]),
        first_relevant_file=mode,
        first_relevant_found=sum(counts.values()),
        first_relevant_stability=counts[mode] / len(scored) if mode is not None else None,
    )


def repeated_runs(
    records: Sequence[TrialRecord], *, goal_shape: str | None = None, min_samples: int = 1
) -> list[RepeatedRow]:
    """One row per case × agent × condition, sorted by those three.

    ``goal_shape`` keeps only trials whose ``labels.goal_shape`` equals it (None keeps all);
    ``min_samples`` drops rows with fewer scored trials, so the default 1 hides groups where
    every trial errored and 0 shows them. Empty input, or a filter nothing matches, gives [].
    Raises ValueError if min_samples < 0.
    """
    if min_samples < 0:
        raise ValueError(f"min_samples must be >= 0, got {min_samples}")
    groups: dict[tuple[str, str, str], list[TrialRecord]] = defaultdict(list)
    for record in records:
        if goal_shape is None or record.labels.goal_shape == goal_shape:
            groups[(record.case, record.agent, record.condition)].append(record)
    rows = [_row(key, groups[key]) for key in sorted(groups)]
    return [row for row in rows if row.samples >= min_samples]


def render_repeated_markdown(rows: Sequence[RepeatedRow]) -> str:
    """The repeated-run view as a table: median (min–max) per measure, per row."""

    def cell(s: Spread, digits: int) -> str:
        if s.median is None or s.min is None or s.max is None:
            return "n/a"
        return f"{s.median:.{digits}f} ({s.min:.{digits}f}–{s.max:.{digits}f})"

    lines = [
        "## Repeated runs",
        "",
        "| case | agent | condition | goal shape | samples | passed | elapsed s | tool calls "
        "| tokens | first relevant file (stability) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        stability = (
            "n/a"
            if r.first_relevant_stability is None
            else f"`{r.first_relevant_file}` ({100 * r.first_relevant_stability:.0f}%)"
        )
        lines.append(
            f"| {r.case} | {r.agent} | {r.condition} | {r.goal_shape or '-'} | {r.samples} "
            f"| {r.passes}/{r.samples} | {cell(r.elapsed_seconds, 2)} | {cell(r.tool_calls, 0)} "
            f"| {cell(r.tokens, 0)} | {stability} |"
        )
    if not rows:
        lines.append("| (no case has enough samples) | | | | | | | | | |")
    return "\n".join(lines) + "\n"
