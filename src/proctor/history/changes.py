"""Before and after a change: the change journal (``proctor mark``) and the comparison of the
tasks on each side of a change (``proctor history --changes``).

The journal is a JSON-lines file, one :class:`~proctor.models.history.ChangeMark` per line,
in ``$PROCTOR_DATA_DIR`` (default ``$XDG_DATA_HOME/proctor``, else
``~/.local/share/proctor``), named ``changes.jsonl``. A line is appended whole with one write;
a line that cannot be read is skipped and reported, never fatal.
"""

from __future__ import annotations

import bisect
import errno
import json
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from proctor.errors import ConfigError
from proctor.history.projects import same_project
from proctor.history.record import SessionRecord
from proctor.models.errors_format import describe_validation_error
from proctor.models.history import ChangeComparison, ChangeDelta, ChangeMark, SideFigures
from proctor.models.io import escape_surrogates
from proctor.util.files import read_regular
from proctor.util.jsonl import decode_object
from proctor.util.text import duration_text, table_cell

if TYPE_CHECKING:
    from proctor.stats.bootstrap import Statistic

JOURNAL = "changes.jsonl"
SIDE = 10
"""Tasks taken on each side of a change, the nearest ones."""
MIN_SIDE = 3
"""Fewer tasks than this on either side: the figures are shown, the comparison is not made."""
UNCONTROLLED = (
    "uncontrolled comparison: anything else that changed between these sessions counts too; "
    "for a controlled one, run an A/B (proctor run with two conditions, see docs/ab.md)"
)


def journal_path(env: Mapping[str, str]) -> Path:
    """The change journal: ``$PROCTOR_DATA_DIR/changes.jsonl``, else under
    ``$XDG_DATA_HOME/proctor``, else ``~/.local/share/proctor``. A relative
    ``PROCTOR_DATA_DIR`` is a ConfigError (each folder proctor runs in would have a journal of
    its own); a relative ``XDG_DATA_HOME`` is ignored, as the XDG specification says."""
    given = env.get("PROCTOR_DATA_DIR")
    if given:
        if not os.path.isabs(given):
            raise ConfigError(
                f"PROCTOR_DATA_DIR {given!r} is not a full path: each folder proctor runs in "
                "would have a change journal of its own (give it as /…)"
            )
        return Path(given) / JOURNAL
    xdg = env.get("XDG_DATA_HOME")
    home = Path(env.get("HOME") or Path.home())
    base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share"
    return base / "proctor" / JOURNAL


def parse_time(text: str, what: str, *, local: bool = False) -> datetime:
    """An ISO date or date-time as an aware UTC time; ConfigError otherwise. A date or a time
    without an offset is on the machine's clock when ``local`` (what a person types: a date
    is the start of that day, as for ``--since``), else UTC (a file's text, read the same
    way on every machine)."""
    try:
        moment = _iso(text)
    except ValueError:
        raise ConfigError(
            f"{what} {text!r}: expected a date or time like 2026-11-30 or 2026-11-30T14:00"
        ) from None
    try:
        if moment.tzinfo is None and not local:
            return moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)  # a naive time is taken as local time
    except (OverflowError, ValueError, OSError):  # 0001-01-01T00:00+01:00 is before year 1
        raise ConfigError(
            f"{what} {text!r}: out of the range of dates (years 1 to 9999, in UTC)"
        ) from None


def _iso(text: str) -> datetime:
    if not text.strip():
        raise ValueError("empty")
    stripped = text.strip()
    if stripped[-1:] in ("Z", "z"):  # UTC, in either case
        stripped = stripped[:-1] + "+00:00"
    return datetime.fromisoformat(stripped)


def clock_gap(text: str) -> str | None:
    """What is odd about a time without a zone on this machine's clock: one the clock skips
    (the hour it goes forward) or passes twice (the hour it goes back), as a sentence; None
    for any other time, and for a time with a zone or a date alone."""
    try:
        moment = _iso(text)
    except ValueError:
        return None
    if moment.tzinfo is not None or len(text.strip()) <= len("2026-11-30"):
        return None
    try:
        first = moment.replace(fold=0).astimezone(UTC)
        second = moment.replace(fold=1).astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        return None
    if first == second:
        return None
    back = first.astimezone().replace(tzinfo=None)
    if back != moment.replace(fold=0):  # a time the clock skips: no UTC time reads back as it
        return (
            f"{text} does not exist on this machine's clock (it goes forward then); "
            f"taken as {first.isoformat()}"
        )
    return (
        f"{text} happens twice on this machine's clock (it goes back then); taken as the "
        f"first, {first.isoformat()} (give an offset to name the other)"
    )


def parse_day(text: str, what: str) -> date:
    """The day ``--since``/``--until`` name, on the machine's clock (the days sessions are
    kept by): a date as it is; a time without a zone, its date; a time with one, the local
    day of that moment."""
    try:
        moment = _iso(text)
    except ValueError:
        raise ConfigError(
            f"{what} {text!r}: expected a date like 2026-11-30 (or a time like 2026-11-30T14:00)"
        ) from None
    try:
        return moment.date() if moment.tzinfo is None else moment.astimezone().date()
    except OverflowError:
        raise ConfigError(f"{what} {text!r}: out of the range of dates (years 1 to 9999)") from None


def add_mark(path: Path, mark: ChangeMark) -> None:
    """Append ``mark`` to the journal in one write (the folder is created if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (mark.model_dump_json(by_alias=True) + "\n").encode()
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        # A named pipe or a device where the journal belongs: opened, it would block or fail.
        raise OSError(errno.EINVAL, "not a regular file (a named pipe, a device)", str(path))
    with open(path, "a+b") as fh:
        # A journal edited by hand may have lost its last newline: the mark would be glued
        # onto the last line, and both skipped. (Two marks at once may each add one: a blank
        # line, which is skipped.)
        if fh.seek(0, os.SEEK_END) > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                line = b"\n" + line
        fh.write(line)


def dangling_link(path: Path) -> str | None:
    """Where the way to ``path`` is a link to a place that cannot be reached (the journal's
    own, or a folder's on the way: a data folder on a disk not mounted), as the end of a
    sentence about it; None when no link on the way is broken."""
    for place in (path, *path.parents):
        if os.path.islink(place) and not os.path.exists(place):
            what = "is" if place == path else f"lies in {place}, which is"
            return f"{what} a link to {os.readlink(place)}, which cannot be reached"
    return None


def read_marks(path: Path) -> tuple[list[ChangeMark], list[str]]:
    """Every mark in the journal, oldest first, and a note per line that could not be read."""
    try:
        data = read_regular(path)
    except FileNotFoundError:
        gone = dangling_link(path)
        if gone is not None:  # a journal or its folder moved away, a link left: not "no change"
            raise ConfigError(f"{path}: the change journal {gone}") from None
        return [], []
    except OSError as exc:  # a folder, a file in the way: a journal that is not there
        raise ConfigError(f"{path}: the change journal cannot be read ({_why(exc)})") from exc
    marks: list[tuple[datetime, ChangeMark]] = []
    notes: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            # The first line may start with the byte-order mark some editors write.
            record = decode_object(raw.decode("utf-8-sig" if number == 1 else "utf-8"))
            if record is None:
                raise ValueError("not a JSON object")
            if "schemaVersion" not in record:
                raise ValueError(
                    f"no schemaVersion, where this proctor writes "
                    f"{ChangeMark.current_schema_version}"
                )
            version = record["schemaVersion"]
            if type(version) is not int or version != ChangeMark.current_schema_version:
                shown = json.dumps(version, default=repr)  # as the file spells it: true, "2"
                raise ValueError(
                    f"schemaVersion {shown}, where this proctor writes "
                    f"{ChangeMark.current_schema_version}"
                )
            mark = ChangeMark.model_validate(record)
            if not mark.text.strip():
                raise ValueError("its text is empty")
            if mark.project is not None and not mark.project.strip():
                raise ValueError("its project is empty; null means every project")
            if mark.project is not None and not os.path.isabs(mark.project):
                raise ValueError(
                    f"its project {mark.project!r} is not a full path (a relative one would "
                    "name another folder from each folder history runs in)"
                )
            if mark.project is not None and not _folder_name(mark.project):
                raise ValueError(
                    f"its project {mark.project!r} names no folder (a NUL byte, or a lone "
                    "surrogate that is no byte of a name)"
                )
            moment = parse_time(mark.at, "at")
            if "project" not in record:  # null is every project; no key is likely a slip
                notes.append(
                    f"{path}:{number}: no project: the change is taken for every project "
                    '(write "project": null to say so, or the folder it was made in)'
                )
            marks.append((moment, mark))
        except ValidationError as exc:  # the field and what it should be, in one sentence
            detail = describe_validation_error("", exc, ChangeMark).removeprefix(": ")
            notes.append(f"{path}:{number}: skipped, not a change mark ({detail})")
        except (ValueError, ConfigError) as exc:  # UnicodeDecodeError is a ValueError
            notes.append(f"{path}:{number}: skipped, not a change mark ({exc})")
    # In time order, whatever offset each mark was written with.
    marks.sort(key=lambda pair: pair[0])
    return [mark for _, mark in marks], notes


def _folder_name(project: str) -> bool:
    """Whether ``project`` can name a folder (no NUL byte, no lone surrogate outside the
    escaped bytes of a name that is not UTF-8)."""
    try:
        os.fsencode(project)
    except UnicodeError:
        return False
    return "\x00" not in project


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


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
        median_seconds=strict_median(seconds) if seconds else None,
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
        point = strict_median(ours) - strict_median(theirs)
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
) -> list[ChangeComparison]:
    """:func:`compare_change` of each of ``marks``, in their order, against the changes of
    ``journal`` (``marks`` when not given). Each time is read once, and each project's tasks
    are found once, however many changes it has."""
    journal = marks if journal is None else journal
    times: dict[int, datetime] = {}
    for m in (*journal, *marks):
        if id(m) not in times:
            times[id(m)] = parse_time(m.at, "change time")
    timed = sorted(((times[id(m)], m) for m in journal), key=lambda pair: pair[0])
    moments = [when for when, _ in timed]
    tasks_of: dict[str | None, tuple[list[datetime], list[SessionRecord]]] = {}
    figures: dict[tuple[str | None, int], _Figures] = {}
    scope = _Scope()
    out = []
    for mark in marks:
        at = times[id(mark)]
        if mark.project not in tasks_of:
            tasks_of[mark.project] = _tasks(sessions, mark.project)
        starts, tasks = tasks_of[mark.project]
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
        others = [
            (when, other)
            for when, other in inside
            if other is not mark and other != mark and scope.shared(mark, other)
        ]
        key = (mark.project, split)  # changes with the same tasks on each side share figures
        if key not in figures:
            figures[key] = _figures(before, after)
        comparison = _comparison(mark, figures[key], _mixed_in(at, before, others))
        twins = sum(other == mark for other in journal)
        if twins > 1:  # marked again as it was (a command run twice): one change
            comparison.warnings.append(
                f"the journal holds this change {twins} times (the same text, project and "
                "time): each shows the same comparison"
            )
        if mark.project is not None and not tasks:
            comparison.warnings.append(_nowhere(mark.project, sessions))
        out.append(comparison)
    return out


def _nowhere(project: str, sessions: Sequence[SessionRecord]) -> str:
    """Why a change has no task: no task of the history ran in its folder; the folders nearby
    that tasks ran in (a subfolder, or the folder above), when there are some."""
    inside = project.rstrip("/") + "/"
    near = sorted(
        {
            s.project
            for s in sessions
            if s.is_task
            and s.project
            and (s.project.startswith(inside) or project.startswith(s.project.rstrip("/") + "/"))
        }
    )
    said = f"no task of this history ran in {project}"
    if not near:
        return said
    named = ", ".join(near[:NAMED]) + (
        f" and {len(near) - NAMED} more" if len(near) > NAMED else ""
    )
    return f"{said}; tasks ran in {named} (a change counts the tasks of its own folder only)"


def _tasks(
    sessions: Sequence[SessionRecord], project: str | None
) -> tuple[list[datetime], list[SessionRecord]]:
    """The tasks of ``project`` (every project when None), in the order they started, and
    their starts in UTC."""
    dated = [
        (start, s)
        for s in sessions
        if s.is_task
        and (start := _utc(s.started_at)) is not None  # in the range of dates in UTC
        and (project is None or same_project(s.project, Path(project)))
    ]
    dated.sort(key=lambda pair: pair[0])  # in time order: starts carry their own UTC offset
    return [start for start, _ in dated], [s for _, s in dated]


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
    note = (
        UNCONTROLLED
        if comparable
        else f"too few tasks to compare: {len(before)} before and {len(after)} after "
        f"(at least {MIN_SIDE} on each side)"
    )
    delta = change_delta(before, after) if comparable else None
    return side_figures(before), side_figures(after), delta, note


def _comparison(mark: ChangeMark, figures: _Figures, warnings: list[str]) -> ChangeComparison:
    before, after, delta, note = figures
    return ChangeComparison(
        change=mark,
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
            f"another change, '{other.text}' ({other.at}), falls among these tasks "
            f"({where} this one): its effect counts in this comparison too"
        )
    elif others:
        sides = {
            "before this one": sum(when < at for when, _ in others),
            "at the same time": sum(when == at for when, _ in others),
            "after it": sum(when > at for when, _ in others),
        }
        where = ", ".join(f"{n} {side}" for side, n in sides.items() if n)
        named = ", ".join(f"'{other.text}' ({other.at})" for _, other in others[:NAMED])
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
        text = table_cell(item.change.text)
        project = table_cell(item.change.project or "every project")
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
                f"{_signed(delta.median_seconds, delta.median_seconds_ci, _signed_time)} | "
                f"{_signed(delta.median_steps, delta.median_steps_ci, _signed_steps)} | "
                f"{_signed(delta.share_verified, delta.share_verified_ci, _signed_points)} |"
            )
        if not item.comparable:
            lines.append(f"| {text} | {project} | | | {item.note} | | | |")
        for warning in item.warnings:
            lines.append(f"| {text} | {project} | | | {table_cell('note: ' + warning)} | | | |")
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


def _sign(value: float) -> str:
    return "−" if value < 0 else "+"


def _timed(timed: int, tasks: int) -> str:
    """`` (2 of 6 timed)`` when the median time is over fewer tasks than the side holds."""
    return f" ({timed} of {tasks} timed)" if timed < tasks else ""


def _signed_time(seconds: float) -> str:
    return _sign(seconds) + duration_text(abs(seconds))


def _signed_steps(steps: float) -> str:
    return f"{_sign(steps)}{abs(steps):.1f}"


def _signed_points(share: float) -> str:
    return f"{_sign(share)}{abs(share) * 100:.0f} pp"


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
    scale, unit, digits = (100, "%", 0) if percent else (1, "", 1)
    text = f"{value * scale:.{digits}f}{unit}"
    if ci is not None:
        text += f" [{ci[0] * scale:.{digits}f}–{ci[1] * scale:.{digits}f}{unit}]"
    return text


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def from_current(path: Path, cwd: Path | None, what: str) -> Path:
    """``path`` (given as ``what``, an option) made absolute against the current folder
    ``cwd`` (see :func:`proctor.paths.current_folder`); a ConfigError when it is relative and
    that folder no longer exists."""
    if path.is_absolute():
        return path
    if cwd is None:
        raise ConfigError(
            f"{what}: relative to a current folder that no longer exists; give the full path"
        )
    return cwd / path


def mark_for(text: str, project: Path | None, at: str | None, cwd: Path | None) -> ChangeMark:
    """The mark ``proctor mark`` writes: the project defaults to the current folder (None when
    that folder no longer exists). Bytes of a name or text that are not UTF-8 are kept
    escaped (``caf\\xe9``), as a history's summaries keep them."""
    if not text.strip():
        raise ConfigError("the change needs a description (TEXT is empty)")
    moment = (
        parse_time(at, "--at", local=True).isoformat()  # to the microsecond given
        if at is not None
        else now_utc()
    )
    folder = project if project is not None else cwd
    if folder is None:
        raise ConfigError("the current folder no longer exists; name the project with --project")
    where = os.path.realpath(from_current(folder, cwd, f"--project {folder}"))
    return ChangeMark(
        text=escape_surrogates(text.strip()), project=escape_surrogates(where), at=moment
    )
