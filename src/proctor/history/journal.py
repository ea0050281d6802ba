"""The change journal of ``proctor mark``, and the times it and ``proctor history`` read.

The journal is a JSON-lines file, one :class:`~proctor.models.history.ChangeMark` per line,
in ``$PROCTOR_DATA_DIR`` (default ``$XDG_DATA_HOME/proctor``, else
``~/.local/share/proctor``), named ``changes.jsonl``. A line is appended whole with one write;
a line that cannot be read is skipped and reported, never fatal.
"""

from __future__ import annotations

import calendar
import errno
import json
import os
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from pydantic import ValidationError

from proctor.errors import ConfigError
from proctor.models.errors_format import describe_validation_error
from proctor.models.history import ChangeMark
from proctor.models.io import escape_surrogates
from proctor.util.files import read_regular
from proctor.util.json_shown import WHOLE, json_text
from proctor.util.jsonl import decode_object

JOURNAL = "changes.jsonl"


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
    way on every machine). An ISO week without its day is refused (see
    :func:`refuse_a_week`)."""
    refuse_a_week(text, what)
    try:
        moment = _iso(text)
    except ValueError:
        _refuse_no_such_day(text, what)
        raise no_date(text, what) from None
    try:
        if moment.tzinfo is None and not local:
            return moment.replace(tzinfo=UTC)
        return _in_utc(moment)  # a naive time is taken as local time
    except (OverflowError, ValueError, OSError):  # 0001-01-01T00:00+01:00 is before year 1
        raise ConfigError(
            f"{what} {_shown(text)}: out of the range of dates (years 1 to 9999, in UTC)"
        ) from None


def no_date(text: str, what: str, *, days_back: bool = False) -> ConfigError:
    """The error for ``text``, given as ``what``, that names no date: the forms a date may
    take, ``today``, ``yesterday`` and days or weeks back too where a day is asked for
    (``days_back``: ``--since``, ``--until``), not the moment of a change."""
    forms = [
        "a date like 2026-11-30",
        "an ISO week date like 2026-W48-1",
        "a time like 2026-11-30T14:00",
        *(("today", "yesterday", "days or weeks back like 7d or 2w") if days_back else ()),
    ]
    blank = "" if text.strip() else ", not a blank one"  # (an unset variable in a script)
    expected = f"{', '.join(forms[:-1])}, or {forms[-1]}{blank}"
    return ConfigError(f"{what} {_shown(text)}: expected {expected}")


def _shown(text: str) -> str:
    """A value given for a date as a message quotes it, as JSON writes it (``--since ""``),
    the way an option's blank value is quoted (see :func:`~proctor.cli.options.blank_refused`)."""
    return json_text(text, WHOLE)


def _in_utc(moment: datetime) -> datetime:
    """``moment`` in UTC, a naive one read on the machine's clock. Python reads the clock a
    day either side of the time, which fails within a day of year 1 or 9999; there the
    clock's offset two days inward is taken (so near those edges a zone keeps its earliest
    or its latest rule)."""
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        if moment.tzinfo is not None or moment.year not in (1, 9999):
            raise
    inward = moment + timedelta(days=2 if moment.year == 1 else -2)
    offset = inward.astimezone().utcoffset() or timedelta(0)
    return moment.replace(tzinfo=timezone(offset)).astimezone(UTC)


_WEEK = re.compile(r"\s*(\d{4})-?W(\d{2})(?=$|[^-\d])")
"""An ISO week without its day (``2026-W48``, ``2026W48``, ``2026-W48T14:00``): Python's
``fromisoformat`` takes it as its Monday, where ``--until 2026-W48`` would mean the whole
week. A week date with its day (``2026-W48-3``) names one day, and is read as it."""


_WEEK_DATE = re.compile(r"\s*(\d{4})-?W(\d{2})(?:-?(\d))?(?!\d)")
"""An ISO week, with its day or without (``2026-W48``, ``2026-W48-3``, ``2026W483``)."""


def _refuse_no_such_week(text: str, what: str) -> None:
    """A ConfigError for ``text``, given as ``what``, when it is an ISO week date of a week
    its year does not have (``2025-W53``, ``2026-W00``) or of a day past 7 (``2026-W48-8``),
    saying so: the sentence for a text that is no date would not say what is wrong with it."""
    found = _WEEK_DATE.match(text)
    if found is None or int(found[1]) < 1:
        return
    year, week, day = int(found[1]), int(found[2]), found[3]
    weeks = date(year, 12, 28).isocalendar()[1]  # the 28th of December is in the last week
    if not 1 <= week <= weeks:
        raise ConfigError(
            f"{what} {_shown(text)}: {year} has ISO weeks {year}-W01 to {year}-W{weeks}, "
            f"not week {week:02}"
        )
    if day is not None and not 1 <= int(day) <= 7:
        raise ConfigError(
            f"{what} {_shown(text)}: the day of an ISO week is 1 (its Monday) to 7 (its Sunday), "
            f"not {day}"
        )
    try:
        date.fromisocalendar(year, week, int(day or 1))
    except ValueError:  # 9999-W52-7 is a day of the year 10000
        raise ConfigError(
            f"{what} {_shown(text)}: out of the range of dates (years 1 to 9999)"
        ) from None


_DATE = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})(?=$|[T\sZz+-])")
"""A date as ISO writes it, at the start of a text (``2026-02-30``, ``2026-13-01T14:00``,
``2026-02-30Z``, ``2026-02-30+01:00``)."""


def _refuse_no_such_day(text: str, what: str) -> None:
    """A ConfigError for ``text``, given as ``what``, that is no date read but is written as
    one, of a month or a day its year or month does not have (``2026-02-30``), saying so."""
    found = _DATE.match(text)
    if found is None or int(found[1]) < 1:
        return
    year, month, day = int(found[1]), int(found[2]), int(found[3])
    if not 1 <= month <= 12:
        raise ConfigError(f"{what} {_shown(text)}: a year has months 01 to 12, not {month:02}")
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        raise ConfigError(
            f"{what} {_shown(text)}: {year}-{month:02} has days 01 to {days}, not {day:02}"
        )


def refuse_a_week(text: str, what: str) -> None:
    """A ConfigError for ``text``, given as ``what``, when it is an ISO week without its day,
    naming the days it spans; nothing for any other text."""
    _refuse_no_such_week(text, what)
    found = _WEEK.match(text)
    if found is None:
        return
    year, week = int(found[1]), int(found[2])
    monday, sunday = date.fromisocalendar(year, week, 1), date.fromisocalendar(year, week, 7)
    raise ConfigError(
        f"{what} {_shown(text)}: a week, seven days, where a day is expected; give its first "
        f"day, {monday} ({year}-W{week:02}-1), or its last, {sunday} ({year}-W{week:02}-7)"
    )


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


_AGO = re.compile(r"(\d+)([dw])")
"""``7d``, ``2w``: that many days or weeks before today."""
_MOST_DIGITS = 7
"""The most digits a count of days back can have and stay within years 1 to 9999 (3,652,058
days at the most): one of more is out of range however many days it names, and is never made
into a number (Python refuses to read one of thousands of digits)."""
_NAMED_DAYS = {"today": 0, "yesterday": 1}


def parse_day(text: str, what: str, today: date | None = None) -> date:
    """The day ``--since``/``--until`` name, on the machine's clock (the days sessions are
    kept by): a date as it is; a time without a zone, its date; a time with one, the local
    day of that moment; ``today``, ``yesterday``, ``7d`` (seven days before today) or ``2w``
    (two weeks before today), counted back from ``today`` (default: the machine's)."""
    back = _NAMED_DAYS.get(text.strip().lower())
    ago = _AGO.fullmatch(text.strip().lower())
    if back is not None or ago is not None:
        try:
            if ago is not None and len(ago[1].lstrip("0")) > _MOST_DIGITS:
                raise OverflowError("too many days back")
            days = back if back is not None else int(ago[1]) * (7 if ago[2] == "w" else 1)  # type: ignore[index]
            return (today or datetime.now().date()) - timedelta(days=days)
        except OverflowError:
            raise ConfigError(
                f"{what} {_shown(text)}: out of the range of dates (years 1 to 9999)"
            ) from None
    refuse_a_week(text, what)  # --until 2026-W48 would be its Monday alone
    try:
        moment = _iso(text)
    except ValueError:
        _refuse_no_such_day(text, what)
        raise no_date(text, what, days_back=True) from None
    try:
        return moment.date() if moment.tzinfo is None else moment.astimezone().date()
    except OverflowError:
        raise ConfigError(
            f"{what} {_shown(text)}: out of the range of dates (years 1 to 9999)"
        ) from None


def add_mark(path: Path, mark: ChangeMark) -> None:
    """Append ``mark`` to the journal in one write (the folder is created if needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (mark.model_dump_json(by_alias=True) + "\n").encode()
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        # A named pipe or a device where the journal belongs: opened, it would block or fail.
        raise OSError(
            errno.EINVAL, "not a regular file (a named pipe, a socket, a device)", str(path)
        )
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


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def shown_time(moment: datetime) -> str:
    """A change's time as ``mark`` and ``history --changes`` show it (``moment`` in UTC): to
    the millisecond, as a mark made now is, or to the microsecond when ``--at`` gave a finer
    time (the journal keeps it)."""
    finer = moment.microsecond % 1000
    return moment.isoformat(timespec="microseconds" if finer else "milliseconds")


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


def refuse_a_file(project: Path) -> None:
    """A ConfigError when ``project`` (as ``--project`` named it, made absolute) is there and
    is no folder (a file, a device): no session ran in it, and ``history`` and ``mark`` say so
    alike. One that is not there is let by (a folder deleted since may still name sessions);
    an OSError from looking (a name too long) is the caller's to handle."""
    if project.exists() and not project.is_dir():
        raise ConfigError(f"--project {project}: a file; a project is the folder a session ran in")


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
