"""Reading a run's journal (``journal.jsonl``, see :mod:`proctor.session.journal`, which
writes it): its entries, the stretches of wall-clock time that ran the run (the first run
and each ``--resume``), which ``proctor run`` and ``proctor report`` count as the run's wall time,
and whether the process that runs it still does (one rule for the viewer, ``report``,
``compare``, ``annotate``, ``findings`` and ``run --resume``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from proctor.models.run import JournalEntry
from proctor.models.trial import TrialRecord
from proctor.util.files import open_regular
from proctor.util.jsonl import decode_object
from proctor.util.processes import process_start


def read(path: Path) -> Iterator[JournalEntry]:
    """The journal's entries, in order; a cut or foreign line is skipped. A journal that is
    not a regular file (a named pipe would block the reader) raises OSError."""
    try:
        with open_regular(path) as fh:
            text = fh.read()
    except FileNotFoundError:
        return
    for line in text.splitlines():
        record = decode_object(line)
        if record is None:
            continue
        try:
            yield JournalEntry.model_validate(record)
        except ValueError:
            continue


@dataclass
class Stretch:
    """One stretch that ran the run: from its ``run-started`` or ``run-resumed`` line to its
    ``run-finished`` line, or, for an orchestrator that was killed (or is still running), to the
    last line it wrote."""

    start: datetime
    end: datetime
    finished: bool = False
    """It ended with its ``run-finished`` line; else its end is only the last line it wrote,
    and its true length is unknown (longer)."""

    @property
    def ms(self) -> float:
        # (A clock set back between two lines counts nothing, never less than nothing.)
        return max((self.end - self.start).total_seconds(), 0.0) * 1000


def stretches(path: Path) -> list[Stretch]:
    """The stretches that ran the run of journal ``path``, in order (none without a journal)."""
    out: list[Stretch] = []
    for entry in read(path):
        try:
            moment = datetime.fromisoformat(entry.time.replace("Z", "+00:00"))
        except ValueError:
            continue
        if entry.event in ("run-started", "run-resumed"):
            out.append(Stretch(moment, moment))
        elif out:
            out[-1].end = max(out[-1].end, moment)
            if entry.event == "run-finished":
                out[-1].finished = True
    return out


def earlier_wall_ms(path: Path) -> float:
    """The wall-clock time, in milliseconds, of the stretches that ran the run before the
    current one (which begins at the last ``run-started`` or ``run-resumed`` line)."""
    return round(sum(s.ms for s in stretches(path)[:-1]), 3)


def earlier_cut(path: Path) -> bool:
    """Whether a stretch before the current one ended without its ``run-finished`` line (its
    orchestrator was killed): :func:`earlier_wall_ms` then counts it only to the last line it
    wrote, and is a lower bound."""
    return any(not s.finished for s in stretches(path)[:-1])


TrialKey = tuple[str, str, str, int]


def started_trials(path: Path) -> set[TrialKey]:
    """The trials (case, agent, condition, repeat) the run of journal ``path`` started in its
    last stretch (since its last ``run-started`` or ``run-resumed`` line): one of them that left
    no record was cut off with no chance to write it (its processes killed with the
    orchestrator, or its record refused by a full disk). A trial an earlier stretch started
    and left unrecorded is cleared by the resume that follows, to run again: until this
    stretch starts it, it is not started; nor is one whose attempt ended to run again
    (``trial-retried``: kept under ``attempts/``), until its next attempt starts."""
    started: set[TrialKey] = set()
    for e in read(path):
        if e.event in ("run-started", "run-resumed"):
            started.clear()
        elif (
            e.event in ("trial-started", "trial-retried")
            and e.case is not None
            and e.agent is not None
            and e.condition is not None
            and e.repeat is not None
        ):
            key = (e.case, e.agent, e.condition, e.repeat)
            if e.event == "trial-started":
                started.add(key)
            else:
                started.discard(key)
    return started


def unrecorded(path: Path, planned: Iterable[TrialKey], records: Iterable[TrialRecord]) -> int:
    """How many of the ``planned`` trials the journal ``path`` says started and have none of
    ``records``: cut off with no chance to write one (killed with the orchestrator, or
    refused by a full disk); 0 when the journal cannot be read."""
    try:
        started = started_trials(path)
    except OSError:  # not a regular file: as a run without a journal
        return 0
    recorded = {(r.case, r.agent, r.condition, r.repeat) for r in records}
    return len(started.intersection(planned) - recorded)


RUN_EVENTS = ("run-started", "run-resumed", "run-finished")


def run_entries(journal: Path) -> Iterator[JournalEntry]:
    """The run-level lines of a journal (started, resumed, finished), in order, read without
    decoding its trials' lines. A regular file only (a named pipe would block its reader); a
    line that is not UTF-8 or not JSON, or nested too deeply, is skipped; none when it cannot
    be read."""
    try:
        with open_regular(journal) as fh:
            for raw in fh:
                if b'"run-' not in raw:
                    continue
                record = decode_object(raw)
                if record is None:
                    continue
                try:
                    entry = JournalEntry.model_validate(record)
                except (ValueError, RecursionError):
                    continue
                if entry.event in RUN_EVENTS:
                    yield entry
    except OSError:
        return


def unfinished(journal: Path) -> bool:
    """Whether the run of ``journal`` started (or was last resumed) and has not written its
    end: its last run-level line is not ``run-finished`` (its process still runs it, or is
    gone); False without a journal."""
    events = [entry.event for entry in run_entries(journal)]  # one per start or resume
    return bool(events) and events[-1] != "run-finished"


def orchestrator(journal: Path) -> tuple[int, int] | None:
    """The process that started (or last resumed) the run of ``journal``, as its pid and
    start time, when it has not written the run's end; else None."""
    entries = list(run_entries(journal))  # a few lines: one per start or resume
    last = entries[-1] if entries else None
    if last is None or last.event == "run-finished" or last.pid is None:
        return None
    return None if last.pid_start is None else (last.pid, last.pid_start)


def alive(process: tuple[int, int] | None) -> bool:
    """Whether the process (pid, start time) of :func:`orchestrator` is still that process (a
    pid alone could be another machine's, or reused)."""
    return process is not None and process_start(process[0]) == process[1]


def live_orchestrator(journal: Path) -> int | None:
    """The pid of the process that last started or resumed the run, when it is still that
    process and has not finished the run; else None."""
    process = orchestrator(journal)
    return process[0] if process is not None and alive(process) else None
