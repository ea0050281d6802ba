"""What the HTML pages of a run show, as plain data: the matrix cells and the figures' points.

Both the self-contained HTML report (from the records) and the viewer (from its index) build
these, so both render the same templates. Each point of a figure carries the address of the
trial behind it.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.models.suite import GroupStats, SuiteRecord
from proctor.models.trial import SCORED_STATUSES, TrialRecord
from proctor.report.cut_short import is_cut_short


@dataclass(frozen=True)
class TrialPoint:
    """One trial as the run page needs it."""

    key: str
    case: str
    agent: str
    condition: str
    repeat: int
    status: str
    score: float | None
    reason: str
    cost_usd: float | None
    tokens: int
    tool_calls: int
    total_ms: float
    agent_ms: float
    harness_ms: float
    url: str
    warnings: tuple[str, ...] = ()
    """What the trial noticed that decides nothing, shown beside its reason."""


@dataclass(frozen=True)
class Cell:
    """One case × agent × condition of the matrix."""

    case: str
    agent: str
    condition: str
    n: int
    scored: int
    passes: int
    errors: int
    pass_rate: float | None
    stability: str
    mean_score: float | None
    median_ms: float | None
    steps: float | None
    tokens: float | None
    gate_passed: bool | None
    """The gate as the exit code counts it; None when the group has no verdict."""
    outcome: str
    """``pass``, ``fail``, ``mixed`` or ``none``: the colour of the cell."""
    cut_short: int = 0
    """Of its ``errors``, the trials a stop cut short (interrupted), said apart."""


def point_of(record: TrialRecord, url: str) -> TrialPoint:
    return TrialPoint(
        key=f"{record.case}/{record.agent}/{record.condition}/{record.repeat}",
        case=record.case,
        agent=record.agent,
        condition=record.condition,
        repeat=record.repeat,
        status=record.status,
        score=record.score,
        reason=record.reason,
        cost_usd=record.cost.total_usd,
        tokens=sum(u.total_tokens for u in record.usage.values()),
        tool_calls=record.tool_calls,
        total_ms=record.timings.total_ms,
        agent_ms=record.timings.agent_ms,
        harness_ms=record.timings.harness_ms,
        url=url,
        warnings=tuple(record.warnings),
    )


def _outcome(passes: int, scored: int) -> str:
    if scored == 0:
        return "none"
    if passes == scored:
        return "pass"
    return "fail" if passes == 0 else "mixed"


def _median(values: Iterable[float]) -> float | None:
    values = list(values)
    return statistics.median(values) if values else None


def matrix(points: Sequence[TrialPoint], suite: SuiteRecord | None) -> list[Cell]:
    """Cells from the trials; stability and the gate come from the aggregate when there is
    one (a run still in progress has none yet)."""
    groups: dict[tuple[str, str, str], list[TrialPoint]] = defaultdict(list)
    for p in points:
        groups[(p.case, p.agent, p.condition)].append(p)
    stats: dict[tuple[str, str, str], GroupStats] = {
        (g.case, g.agent, g.condition): g for g in (suite.groups if suite else [])
    }
    cells = []
    for key in sorted(groups):
        members = groups[key]
        scored = [p for p in members if p.status in SCORED_STATUSES]
        passes = sum(p.status == "passed" for p in scored)
        scores = [p.score for p in scored if p.score is not None]
        group = stats.get(key)
        cells.append(
            Cell(
                case=key[0],
                agent=key[1],
                condition=key[2],
                n=len(members),
                scored=len(scored),
                passes=passes,
                errors=len(members) - len(scored) - sum(p.status == "skipped" for p in members),
                pass_rate=passes / len(scored) if scored else None,
                stability=group.stability if group else _stability(passes, len(scored)),
                mean_score=statistics.fmean(scores) if scores else None,
                # Over the scored trials, as the Markdown report's effort figures: a trial
                # in an error status did little or nothing, and would drag them down. A time
                # of 0 was never measured: unknown, not instant.
                median_ms=_median(p.total_ms for p in scored if p.total_ms > 0),
                steps=_median(p.tool_calls for p in scored),
                tokens=_median(p.tokens for p in scored),
                gate_passed=_gate_verdict(group),
                outcome=_outcome(passes, len(scored)),
                cut_short=sum(map(is_cut_short, members)),
            )
        )
    return cells


def _gate_verdict(group: GroupStats | None) -> bool | None:
    """The group's gate as the exit code counts it; None for no verdict: no aggregate yet, every
    trial skipped (not gated), or no trial scored and no gate evaluator failed in an error
    trial (its errors are exit 3, no failed gate; ``gate_passed`` is false all the same)."""
    if group is None or group.not_gated:
        return None
    if group.gate_failed_in_errors:
        return False
    return group.gate_passed if group.scored else None


def _stability(passes: int, scored: int) -> str:
    if scored == 0:
        return "no-data"
    if passes == scored:
        return "stable-pass"
    return "stable-fail" if passes == 0 else "flaky"


GroupUrl = Callable[[str, str, str], str]
"""The address of a group's trials (case, agent, condition)."""


def figures(
    points: Sequence[TrialPoint], suite: SuiteRecord | None, group_url: GroupUrl
) -> dict[str, Any]:
    """The data of the run page's plots (read by ``charts.js``); every point and bar carries
    the address of the trials behind it."""
    keys = sorted({(p.case, p.agent, p.condition) for p in points})
    groups = [" · ".join(k) for k in keys]
    position = {g: i for i, g in enumerate(groups)}
    # The time of a group's samples: a skipped or excluded trial is none, as the statistics
    # and "Cost against success" count.
    per_group: dict[str, list[TrialPoint]] = defaultdict(list)
    for p in points:
        if p.status != "skipped":
            per_group[f"{p.case} · {p.agent} · {p.condition}"].append(p)
    tokens: dict[str, int] = {}
    for g in suite.groups if suite else []:
        for model, usage in g.usage.items():
            tokens[model] = tokens.get(model, 0) + usage.total_tokens
    data: dict[str, Any] = {
        "groups": groups,
        "groupUrls": [group_url(*k) for k in keys],
        "scores": [
            {
                "x": position[f"{p.case} · {p.agent} · {p.condition}"],
                "y": p.score,
                "trial": p.key,
                "url": p.url,
            }
            for p in points
            if p.score is not None
        ],
        "costSuccess": [
            {
                "x": p.cost_usd if p.cost_usd is not None else 0.0,
                "y": 1 if p.status == "passed" else 0,
                "tokens": p.tokens,
                "status": p.status,
                "trial": p.key,
                "url": p.url,
            }
            for p in points
            # Skipped or excluded: no sample, as the statistics count; nor is a trial a stop cut
            # short (interrupted), which neither passed nor failed: the caption says so.
            if p.status != "skipped" and not is_cut_short(p)
        ],
        "cutShort": sum(map(is_cut_short, points)),
        "phases": {
            "agent": [sum(p.agent_ms for p in per_group[g]) / 1000 for g in groups],
            "harness": [sum(p.harness_ms for p in per_group[g]) / 1000 for g in groups],
        },
        "tokens": tokens,
        "ranges": [
            {
                "group": f"{r.case} · {r.agent} · {r.condition}",
                "url": group_url(r.case, r.agent, r.condition),
                "min": r.elapsed_seconds.min,
                "max": r.elapsed_seconds.max,
                "median": r.elapsed_seconds.median,
            }
            for r in (suite.repeated if suite else [])
            if r.elapsed_seconds.n
        ],
    }
    data["noData"] = _no_data(
        data, aggregated=suite is not None, skipped=any(p.status == "skipped" for p in points)
    )
    return data


def _no_data(data: dict[str, Any], *, aggregated: bool, skipped: bool) -> dict[str, str]:
    """Why a figure has nothing to draw, by the id of its canvas; the page says so in place of
    empty axes. A figure with something to draw is not named."""
    phases = data["phases"]
    every_skipped = (
        "every trial was skipped (not run, not evaluated, or excluded by a person), and a "
        "skipped trial is no sample"
    )
    later = "" if aggregated else " yet (it is read from the run's statistics, once it is over)"
    why = {
        "fig-scores": (
            not data["scores"],
            "no trial has a score (none was evaluated: a run with --no-evaluate, or every "
            "trial skipped or in an error)",
        ),
        "fig-cost": (
            not data["costSuccess"],
            "every trial that was not skipped was cut short by a stop (interrupted): it neither "
            "passed nor failed, and is left out"
            if data["cutShort"]
            else every_skipped,
        ),
        "fig-phases": (
            not any(phases["agent"]) and not any(phases["harness"]),
            every_skipped
            if not data["costSuccess"]
            else "no trial has a measured agent or harness time"
            + (" (a skipped trial, no sample, is left out)" if skipped else ""),
        ),
        "fig-tokens": (not any(data["tokens"].values()), f"no model's tokens were recorded{later}"),
        "fig-ranges": (
            not data["ranges"],
            f"no group has a scored trial with a measured elapsed time{later}",
        ),
    }
    if not data["groups"]:
        return dict.fromkeys(why, "no trial has run yet")
    return {figure: reason for figure, (empty, reason) in why.items() if empty}
