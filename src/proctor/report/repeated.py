"""Repeated-run view: how much one case × agent × condition varies over its repeats.

Statistics use the scored trials (passed, failed, timeout); trials in an error status or
skipped are counted in ``errors`` and left out, since their time and tokens describe a crash,
not the agent's work. A trial a person left out (``annotate --verdict excluded``) counts in
neither: it is no error of the run.

    for row in repeated_runs(records, goal_shape="fix", min_samples=3):
        row.elapsed_seconds.median, row.first_relevant_stability
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from proctor.models.suite import RepeatedRow, RepeatedSpread
from proctor.models.trial import TrialRecord
from proctor.report.ab.measures import (
    ELAPSED_MEANS,
    elapsed_seconds,
    excluded_by_hand,
    first_relevant_file,
    is_scored,
    succeeded,
    tool_calls,
    total_tokens,
)
from proctor.stats import summarize
from proctor.util.text import (
    code_span,
    markdown_cell,
    markdown_name,
    percent_text,
    spread_text,
    table_cell,
)

__all__ = ["render_repeated_markdown", "repeated_runs"]


def spread_of(values: Sequence[float]) -> RepeatedSpread:
    s = summarize(values)
    return RepeatedSpread(n=s.n, median=s.median, mean=s.mean, min=s.min, max=s.max)


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
        errors=sum(1 for t in trials if not is_scored(t) and not excluded_by_hand(t)),
        passes=sum(map(succeeded, scored)),
        elapsed_seconds=spread_of(elapsed),
        tool_calls=spread_of([float(tool_calls(t)) for t in scored]),
        tokens=spread_of([float(total_tokens(t)) for t in scored]),
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


def _md(text: str) -> str:
    """A name in a table cell a web page shows as written (a ``<`` that would start a tag as
    ``\\<``, an emphasis mark escaped: see :func:`markdown_name`)."""
    return markdown_cell(markdown_name(text))


def render_repeated_markdown(rows: Sequence[RepeatedRow]) -> str:
    """The repeated-run view as a table: median (min–max) per measure, per row."""

    def cell(s: RepeatedSpread, *, seconds: bool = False) -> str:
        if s.median is None or s.min is None or s.max is None:
            return "n/a"
        return spread_text(s.median, s.min, s.max, seconds=seconds)

    lines = [
        "## Repeated runs",
        "",
        f"Elapsed s is {ELAPSED_MEANS}.",
        "",
        "| case | agent | condition | goal shape | samples | passed | elapsed s | tool calls "
        "| tokens | first relevant file (stability) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        stability = (
            "n/a"
            if r.first_relevant_stability is None
            else f"{table_cell(code_span(r.first_relevant_file or ''))} "
            f"({percent_text(r.first_relevant_stability)}%)"
        )
        lines.append(
            f"| {_md(r.case)} | {_md(r.agent)} | {_md(r.condition)} "
            f"| {_md(r.goal_shape or '-')} | {r.samples} "
            f"| {r.passes}/{r.samples} | {cell(r.elapsed_seconds, seconds=True)} "
            f"| {cell(r.tool_calls)} | {cell(r.tokens)} | {stability} |"
        )
    if not rows:
        lines.append("| (no case has enough samples) | | | | | | | | | |")
    return "\n".join(lines) + "\n"
