"""Before and after a change: the comparison of the tasks on each side of a change
(``proctor history --changes``) of the change journal (see :mod:`proctor.history.journal`,
``proctor mark``)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.errors import ConfigError
from proctor.history.journal import parse_time, shown_time
from proctor.history.projects import project_key, same_project
from proctor.history.record import SessionRecord
from proctor.models.history import ChangeComparison, ChangeDelta, ChangeMark, SideFigures
from proctor.util.text import (
    count_text,
    duration_text,
    fixed,
    markdown_cell,
    without_noise,
)

if TYPE_CHECKING:
    from proctor.stats.bootstrap import Statistic

SIDE = 10
"""Tasks taken on each side of a change, the nearest ones."""
MIN_SIDE = 3
"""Fewer tasks than this on either side: the figures are shown, the comparison is not made."""
UNCONTROLLED = (
    "uncontrolled comparison: anything else that changed between these sessions counts too; "
    "for a controlled one, run an A/B (proctor run with two conditions, see docs/ab.md)"
)


def _ci(values: Sequence[float], statistic: Statistic) -> tuple[float, float] | None:
    from proctor.stats.bootstrap import bootstrap_ci

    interval = bootstrap_ci(values, statistic) if len(values) >= MIN_SIDE else None
    return None if interval is None else (interval.low, interval.high)


def side_figures(tasks: Sequence[SessionRecord]) -> SideFigures:
    """The figures of one side's tasks (in the order they started). Intervals need at least
    :data:`MIN_SIDE` values: fewer give the figure alone, as an A/B does (docs/ab.md)."""
    # The statistics imported here: a replay without --changes never needs them.
    from proctor.stats.descriptive import strict_median
    from proctor.stats.rates import wilson_interval

    seconds = [t.duration_seconds for t in tasks if t.duration_seconds is not None]
    steps = [float(t.steps.tool_calls) for t in tasks]
    verified = sum(1 for t in tasks if t.verified)
    return SideFigures(
        tasks=len(tasks),
        timed_tasks=len(seconds),
        median_seconds=without_noise(strict_median(seconds)) if seconds else None,
        median_seconds_ci=_ci(seconds, strict_median),
        median_steps=strict_median(steps) if steps else None,
        median_steps_ci=_ci(steps, strict_median),
        share_verified=verified / len(tasks) if tasks else None,
        share_verified_ci=wilson_interval(verified, len(tasks)) if len(tasks) >= MIN_SIDE else None,
        first_start=tasks[0].started_at if tasks else None,
        last_start=tasks[-1].started_at if tasks else None,
        sessions=[t.path for t in tasks],
    )


def change_delta(before: Sequence[SessionRecord], after: Sequence[SessionRecord]) -> ChangeDelta:
    """After minus before: the medians' difference with an unpaired bootstrap interval, the
    share verified's with Newcombe's score interval (see :class:`ChangeDelta`)."""
    from proctor.stats.bootstrap import unpaired_bootstrap_delta_ci
    from proctor.stats.descriptive import strict_median
    from proctor.stats.rates import wilson_delta_interval

    def medians(values: Callable[[SessionRecord], float | None]) -> tuple[float, ...] | None:
        ours = [v for v in map(values, after) if v is not None]
        theirs = [v for v in map(values, before) if v is not None]
        if len(ours) < MIN_SIDE or len(theirs) < MIN_SIDE:
            return None
        ci = unpaired_bootstrap_delta_ci(ours, theirs, statistic=strict_median)
        # Each median as shown, then their difference: two medians shown alike differ by 0.
        point = without_noise(
            without_noise(strict_median(ours)) - without_noise(strict_median(theirs))
        )
        return (point,) if ci is None else (point, ci.low, ci.high)

    seconds = medians(lambda t: t.duration_seconds)
    steps = medians(lambda t: float(t.steps.tool_calls))
    verified_after = sum(1 for t in after if t.verified)
    verified_before = sum(1 for t in before if t.verified)
    # The exact difference, rounded once (as each side's share is): 0.6 - 0.65 is -0.05, not
    # the -0.050000000000000044 that subtracting the two rounded shares gives.
    share = (verified_after * len(before) - verified_before * len(after)) / (
        len(after) * len(before)
    )
    return ChangeDelta(
        median_seconds=seconds[0] if seconds else None,
        median_seconds_ci=(seconds[1], seconds[2]) if seconds and len(seconds) == 3 else None,
        median_steps=steps[0] if steps else None,
        median_steps_ci=(steps[1], steps[2]) if steps and len(steps) == 3 else None,
        share_verified=share,
        share_verified_ci=wilson_delta_interval(
            (verified_after, len(after)), (verified_before, len(before))
        ),
    )


def compare_change(
    mark: ChangeMark, sessions: Sequence[SessionRecord], marks: Sequence[ChangeMark] = ()
) -> ChangeComparison:
    """The nearest :data:`SIDE` tasks before and after ``mark`` in its project (every
    project when the mark names none), by each task's start. ``marks``: the journal's other
    changes, named in a warning when one of them falls among these tasks."""
    return compare_changes([mark], sessions, marks)[0]


def compare_changes(
    marks: Sequence[ChangeMark],
    sessions: Sequence[SessionRecord],
    journal: Sequence[ChangeMark] | None = None,
    limited_by: str = "",
) -> list[ChangeComparison]:
    """:func:`compare_change` of each of ``marks``, in their order, against the changes of
    ``journal`` (``marks`` when not given). Each time is read once, and each project's tasks
    are found once, however many changes it has. ``limited_by``: the options that left
    ``sessions`` out of a history (``--since 2026-11-01``), named when a change finds no task."""
    journal = marks if journal is None else journal
    times: dict[int, datetime] = {}
    for m in (*journal, *marks):
        if id(m) not in times:
            times[id(m)] = parse_time(m.at, "change time")
    timed = sorted(((times[id(m)], m) for m in journal), key=lambda pair: pair[0])

    def alike(one: ChangeMark, other: ChangeMark) -> bool:
        """The same change: its text, project and time (however the time is written)."""
        return (one.text, one.project) == (other.text, other.project) and times[id(one)] == (
            times[id(other)]
        )

    moments = [when for when, _ in timed]
    tasks_of: dict[str | None, tuple[list[datetime], list[SessionRecord], int]] = {}
    figures: dict[tuple[str | None, int], _Figures] = {}
    scope = _Scope()
    out = []
    for mark in marks:
        at = times[id(mark)]
        if mark.project not in tasks_of:
            tasks_of[mark.project] = _tasks(sessions, mark.project)
        starts, tasks, undated = tasks_of[mark.project]
        split = bisect.bisect_left(starts, at)
        before, after = tasks[max(0, split - SIDE) : split], tasks[split : split + SIDE]
        # The other changes of its project marked between its first and its last task (some
        # of these tasks before them, some after), or at the same time as it.
        held = range(0)
        if before or after:
            first, last = starts[split - len(before)], starts[split + len(after) - 1]
            held = range(bisect.bisect_left(moments, first), bisect.bisect_right(moments, last))
        same = range(bisect.bisect_left(moments, at), bisect.bisect_right(moments, at))
        inside = [timed[i] for i in sorted({*held, *same})]
        # A change the journal holds more than once (a command run twice) is one change: named
        # and counted once among the others, as its own comparison says it is held twice.
        others: list[tuple[datetime, ChangeMark]] = []
        seen: set[tuple[str, str | None, datetime]] = set()
        for when, other in inside:
            held_as = (other.text, other.project, when)
            if (
                other is not mark
                and not alike(other, mark)
                and held_as not in seen
                and scope.shared(mark, other)
            ):
                seen.add(held_as)
                others.append((when, other))
        key = (mark.project, split)  # changes with the same tasks on each side share figures
        if key not in figures:
            figures[key] = _figures(before, after)
        warnings = _mixed_in(at, before, others) + _tied(starts, split)
        comparison = _comparison(mark, at, figures[key], warnings)
        twins = sum(alike(other, mark) for other in journal)
        if twins > 1:  # marked again as it was (a command run twice): one change
            comparison.warnings.append(
                f"the journal holds this change {twins} times (the same text, project and "
                "time): each shows the same comparison"
            )
        if undated:
            comparison.warnings.append(_undated(undated, mark.project))
        if mark.project is not None and not tasks and not undated:
            comparison.warnings.append(_nowhere(mark.project, sessions, limited_by))
        elif mark.project is None and (pooled := _pooled(before, after)):
            comparison.warnings.append(pooled)
        out.append(comparison)
    return out


def _nowhere(project: str, sessions: Sequence[SessionRecord], limited_by: str = "") -> str:
    """Why a change has no task: no task of the history (of the sessions the options named by
    ``limited_by`` kept) ran in its folder; the folders nearby that tasks ran in (a subfolder,
    or the folder above), when there are some."""
    inside = project.rstrip("/") + "/"
    spellings = sorted(
        {
            s.project
            for s in sessions
            if s.is_task
            and s.project
            and (s.project.startswith(inside) or project.startswith(s.project.rstrip("/") + "/"))
        }
    )
    # Each folder once, however its sessions named it (a trailing `/`, through a link), as
    # `--by project` groups it: named as its first spelling, without the trailing `/`.
    folders: dict[str, str] = {}
    for name in spellings:
        folders.setdefault(project_key(name), name.rstrip("/") or name)
    near = sorted(folders.values())
    of = f"no task {limited_by} keeps" if limited_by else "no task of this history"
    said = f"{of} ran in {project}"
    if not near:
        return said
    named = ", ".join(near[:NAMED]) + (
        f" and {len(near) - NAMED} more" if len(near) > NAMED else ""
    )
    return f"{said}; tasks ran in {named} (a change counts the tasks of its own folder only)"


def _undated(count: int, project: str | None) -> str:
    """A warning for the tasks of a change's project (of every project when None) left out
    for want of a start: a task's side of the change is told by its start."""
    tasks = "1 task" if count == 1 else f"{count} tasks"
    of = "of this project " if project is not None else ""
    return (
        f"{tasks} {of}{'has' if count == 1 else 'have'} no start time (`undated` in "
        f"`--by day`) and {'was' if count == 1 else 'were'} left out: a task's side of the "
        "change is told by its start"
    )


def _pooled(before: Sequence[SessionRecord], after: Sequence[SessionRecord]) -> str:
    """A warning when the tasks a change marked for every project compares ran in more than one
    project (a side may hold one project's tasks, the other another's); else empty."""
    projects = {project_key(s.project) for s in (*before, *after) if s.project}
    if len(projects) < 2:
        return ""
    return (
        f"marked for every project, it compares tasks of {len(projects)} projects pooled "
        "(`proctor history --changes --project PATH` compares one project's tasks)"
    )


def _tasks(
    sessions: Sequence[SessionRecord], project: str | None
) -> tuple[list[datetime], list[SessionRecord], int]:
    """The tasks of ``project`` (every project when None) that have a start, in the order
    they started, their starts in UTC, and how many of its tasks have none (no time in their
    lines, or one out of the range of dates in UTC)."""
    ours = [
        s
        for s in sessions
        if s.is_task and (project is None or same_project(s.project, Path(project)))
    ]
    dated = [(start, s) for s in ours if (start := _utc(s.started_at)) is not None]
    # In time order (starts carry their own UTC offset); those that started at the same time
    # by their file's path, whatever order the replay gave them in.
    dated.sort(key=lambda pair: (pair[0], pair[1].path))
    return [start for start, _ in dated], [s for _, s in dated], len(ours) - len(dated)


class _Scope:
    """Whether two changes apply to the same tasks (one of them to every project), each
    pair of projects compared once."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, str], bool] = {}

    def shared(self, mark: ChangeMark, other: ChangeMark) -> bool:
        if mark.project is None or other.project is None:
            return True
        pair = (other.project, mark.project)
        if pair not in self.known:
            self.known[pair] = same_project(other.project, Path(mark.project))
        return self.known[pair]


_Figures = tuple[SideFigures, SideFigures, "ChangeDelta | None", str]
"""What a comparison says of its tasks: each side's figures, the difference when it compares
them, and its note."""


def _figures(before: Sequence[SessionRecord], after: Sequence[SessionRecord]) -> _Figures:
    comparable = len(before) >= MIN_SIDE and len(after) >= MIN_SIDE
    # The label stays on every entry, a comparison made or not (its figures are shown).
    note = (
        UNCONTROLLED
        if comparable
        else f"too few tasks to compare: {len(before)} before and {len(after)} after "
        f"(at least {MIN_SIDE} on each side); {UNCONTROLLED}"
    )
    delta = change_delta(before, after) if comparable else None
    return side_figures(before), side_figures(after), delta, note


def _comparison(
    mark: ChangeMark, at: datetime, figures: _Figures, warnings: list[str]
) -> ChangeComparison:
    before, after, delta, note = figures
    return ChangeComparison(
        change=mark.model_copy(update={"at": shown_time(at)}),  # in UTC, however written
        before=before.model_copy(deep=True),  # each comparison its own (a caller may edit one)
        after=after.model_copy(deep=True),
        comparable=delta is not None,
        delta=delta.model_copy(deep=True) if delta is not None else None,
        note=note,
        warnings=warnings,
    )


NAMED = 2
"""Other changes named in a comparison's warning; the rest are counted, so that each
comparison says what it mixes in on one line, however many changes the journal holds."""


def _mixed_in(
    at: datetime, before: Sequence[SessionRecord], others: Sequence[tuple[datetime, ChangeMark]]
) -> list[str]:
    """What else a comparison takes in: the ``others`` changes of the same project marked
    between its first and its last task (or at the same time), in one warning, and tasks
    started before the change that were still running when it was made."""
    warnings = []
    if len(others) == 1:
        (when, other), *_ = others
        where = "at the same time as" if when == at else ("before" if when < at else "after")
        warnings.append(
            f"another change, '{other.text}' ({shown_time(when)}), falls among these tasks "
            f"({where} this one): its effect counts in this comparison too"
        )
    elif others:
        # Each side as the first named says it ("before this one", "at the same time as this
        # one", "after this one"), the next ones shorter ("after it"): "2 after it" alone
        # named no "it".
        sides = [
            ("before this one", "before it", sum(when < at for when, _ in others)),
            (
                "at the same time as this one",
                "at the same time",
                sum(when == at for when, _ in others),
            ),
            ("after this one", "after it", sum(when > at for when, _ in others)),
        ]
        named_sides = [(first, later, n) for first, later, n in sides if n]
        where = ", ".join(
            f"{n} {first if i == 0 else later}" for i, (first, later, n) in enumerate(named_sides)
        )
        named = ", ".join(f"'{other.text}' ({shown_time(when)})" for when, other in others[:NAMED])
        rest = f" and {len(others) - NAMED} more" if len(others) > NAMED else ""
        warnings.append(
            f"{len(others)} other changes fall among these tasks ({where}): {named}{rest}; "
            "their effects count in this comparison too"
        )
    running = [t for t in before if (_utc(t.ended_at) or at) > at]
    if running:
        count = "1 task" if len(running) == 1 else f"{len(running)} tasks"
        warnings.append(
            f"{count} before the change was still running when it was made (a task's side is "
            "told by its start)"
        )
    return warnings


def _tied(starts: Sequence[datetime], split: int) -> list[str]:
    """A warning for each side whose :data:`SIDE` places were cut through tasks that started
    at the same time: which of them were taken was told by their session file's path."""
    warnings = []
    # Each side's farthest task taken, and the nearest one left out beyond it.
    for side, taken, left in (
        ("before", split - SIDE, split - SIDE - 1),
        ("after", split + SIDE - 1, split + SIDE),
    ):
        if left < 0 or left >= len(starts) or starts[left] != starts[taken]:
            continue
        moment = starts[taken]
        if side == "before":
            out = taken - bisect.bisect_left(starts, moment)
        else:
            out = bisect.bisect_right(starts, moment) - left
        tasks = "1 more task" if out == 1 else f"{out} more tasks"
        warnings.append(
            f"{tasks} started at the same time as the farthest one taken {side} the change "
            f"({moment.isoformat()}) and {'was' if out == 1 else 'were'} left out: the "
            f"{SIDE} places went by their session files' paths"
        )
    return warnings


def _utc(text: str | None) -> datetime | None:
    """A session's time in UTC; None when it has none, or one out of the range of dates in
    UTC (a damaged clock's year 1 an hour east of it)."""
    if not text:
        return None
    try:
        return parse_time(text, "session time")
    except ConfigError:
        return None


def render_changes(comparisons: Sequence[ChangeComparison]) -> str:
    if not comparisons:
        return 'No change marked (proctor mark "TEXT" records one).\n'
    lines = [
        "# Before and after each change",
        "",
        UNCONTROLLED[0].upper() + UNCONTROLLED[1:] + ".",
        "",
    ]
    lines += [
        "| change | project | at | side | tasks | median time [95% CI] | median steps [95% CI] | "
        "verified [95% CI] |",
        "|---" * 8 + "|",
    ]
    for item in comparisons:
        text = markdown_cell(item.change.text)
        project = markdown_cell(item.change.project or "every project")
        for name, side in (("before", item.before), ("after", item.after)):
            lines.append(
                f"| {text} | {project} | {item.change.at} | {name} | {side.tasks} | "
                f"{_with_ci(side.median_seconds, side.median_seconds_ci, time=True)}"
                f"{_timed(side.timed_tasks, side.tasks)} | "
                f"{_with_ci(side.median_steps, side.median_steps_ci)} | "
                f"{_with_ci(side.share_verified, side.share_verified_ci, percent=True)} |"
            )
        delta = item.delta
        if delta is not None:
            lines.append(
                f"| {text} | {project} | | after − before | | "
                f"{_signed_seconds(delta, item)} | "
                f"{_signed(delta.median_steps, delta.median_steps_ci, _signed_steps)} | "
                f"{_signed(delta.share_verified, delta.share_verified_ci, _signed_points)} |"
            )
        if not item.comparable:  # (the label is the table's, above)
            said = item.note.removesuffix(f"; {UNCONTROLLED}")
            lines.append(f"| {text} | {project} | | | {said} | | | |")
        for warning in item.warnings:
            lines.append(f"| {text} | {project} | | | {markdown_cell('note: ' + warning)} | | | |")
    lines += [
        "",
        "Medians: percentile-bootstrap intervals; verified: Wilson's score interval, and "
        "Newcombe's for its difference (percentage points). No interval with fewer than "
        f"{MIN_SIDE} tasks on a side.",
    ]
    return "\n".join(lines) + "\n"


def _signed(
    value: float | None, ci: tuple[float, float] | None, shown: Callable[[float], str]
) -> str:
    if value is None:
        return "–"
    return shown(value) if ci is None else f"{shown(value)} [{shown(ci[0])} to {shown(ci[1])}]"


def _signed_seconds(delta: ChangeDelta, item: ChangeComparison) -> str:
    """The median times' difference, or why there is none though the tasks are compared:
    fewer than :data:`MIN_SIDE` of a side's tasks have a time at both ends."""
    if delta.median_seconds is not None:
        return _signed(delta.median_seconds, delta.median_seconds_ci, _signed_time)
    timed = min(item.before.timed_tasks, item.after.timed_tasks)
    return f"– (not compared: {timed} timed on a side, at least {MIN_SIDE} needed)"


def _sign(value: float, shown: str) -> str:
    """The sign before a difference ``shown`` (its magnitude): none when it shows as 0
    (``0.0 s``, neither ``+0.0 s`` nor ``-0.0 s``); ``-`` before a negative one, as
    every report writes it."""
    if not any(digit in shown for digit in "123456789"):
        return ""
    return "-" if value < 0 else "+"


def _timed(timed: int, tasks: int) -> str:
    """`` (2 of 6 timed)`` when the median time is over fewer tasks than the side holds."""
    return f" ({timed} of {tasks} timed)" if timed < tasks else ""


def _signed_time(seconds: float) -> str:
    shown = duration_text(abs(seconds))
    return _sign(seconds, shown) + shown


def _signed_steps(steps: float) -> str:
    """A difference of steps as the summary shows a count: ``-2``, ``+1.5``, ``+1,204``."""
    return count_text(steps, signed=True)


def _signed_points(share: float) -> str:
    shown = fixed(abs(share) * 100)
    return f"{_sign(share, shown)}{shown} pp"


def _with_ci(
    value: float | None,
    ci: tuple[float, float] | None,
    *,
    percent: bool = False,
    time: bool = False,
) -> str:
    if value is None:
        return "–"
    if time:
        text = duration_text(value)
        return text if ci is None else f"{text} [{duration_text(ci[0])}–{duration_text(ci[1])}]"
    if percent:
        text = f"{fixed(value * 100)}%"
        return text if ci is None else f"{text} [{fixed(ci[0] * 100)}–{fixed(ci[1] * 100)}%]"
    # Steps as the summary shows them: a count (12, 1,204), a median between two with its half.
    text = count_text(value)
    return text if ci is None else f"{text} [{count_text(ci[0])}–{count_text(ci[1])}]"
