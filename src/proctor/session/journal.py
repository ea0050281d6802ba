"""A run's append-only journal (``journal.jsonl``): when each trial started, in which worker
process, when an attempt of it ended in a transient error and it ran again (``--retry-errors``),
and when it finished with which status. ``proctor run --resume`` reads it to stop a
worker an orchestrator left behind; people read it to see what a run was doing when it died.

Each line is written whole with one ``write`` of an ``O_APPEND`` file, so a crash leaves at most
one cut line at the end, which readers skip; the next line written starts on a line of its own.
The trial records stay the source of truth: a trial counts as finished when its ``trial.json``
is there, whatever the journal says. Reading it (:func:`read`, the stretches that ran the run)
is :mod:`proctor.models.journal`'s, which the reports use too.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic_core import PydanticSerializationError

from proctor.execute.events import (
    RunEvent,
    RunStarted,
    TrialFinished,
    TrialRetried,
    TrialStarted,
)
from proctor.models.io import dump_json
from proctor.models.journal import earlier_cut as earlier_cut  # (re-exported)
from proctor.models.journal import earlier_wall_ms as earlier_wall_ms
from proctor.models.journal import live_orchestrator as live_orchestrator
from proctor.models.journal import read as read
from proctor.models.run import JournalEntry, JournalEvent
from proctor.util.clock import now_iso
from proctor.util.files import remove_empty_folders
from proctor.util.jsonl import decode_object
from proctor.util.masking import mask
from proctor.util.processes import process_start

TrialKey = tuple[str, str, str, int]


def append(path: Path, entry: JournalEntry) -> None:
    try:
        line = (entry.model_dump_json(by_alias=True, exclude_none=True) + "\n").encode()
    except PydanticSerializationError:  # a case folder's name that is not UTF-8: escaped
        fields = entry.model_dump(mode="json", by_alias=True, exclude_none=True)
        line = dump_json(fields, indent=False).encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        # A line a crash or a full disk cut short is ended first, so this one is not glued
        # to it (read as one foreign line: a resume's first, naming its process, was lost).
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        os.write(fd, line)
    except OSError as exc:  # (a full disk): named, as a refused write of a record is
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    finally:
        os.close(fd)


def note(path: Path, event: JournalEvent) -> None:
    """A run-level line, naming this process (the orchestrator) and when it started."""
    pid = os.getpid()
    append(path, JournalEntry(event=event, time=now_iso(), pid=pid, pid_start=process_start(pid)))


def started_here(path: Path) -> bool:
    """Whether this process started the run of journal ``path`` (its ``run-started`` line
    names it): of run folders that appeared in a results directory, the one it made, not
    another proctor's writing there too."""
    pid = os.getpid()
    return any(e.event == "run-started" and e.pid == pid for e in read(path))


class Journal:
    """The subscriber that writes a run's trial lines."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            entry = JournalEntry(event="trials-started", time=now_iso(), scratch=event.scratch)
            append(self.path, entry)
        elif isinstance(event, TrialStarted):
            key = (event.case, event.agent, event.condition, event.repeat)
            start = process_start(event.pid) if event.pid else None
            self._trial("trial-started", key, pid=event.pid, pid_start=start, node=event.node)
        elif isinstance(event, TrialRetried):
            r = event.record
            self._trial(
                "trial-retried",
                (r.case, r.agent, r.condition, r.repeat),
                attempt=event.attempt,
                status=r.status,
                reason=mask(r.reason),
                folder=event.folder,
            )
        elif isinstance(event, TrialFinished):
            r = event.record
            self._trial("trial-finished", (r.case, r.agent, r.condition, r.repeat), status=r.status)

    def _trial(self, event: JournalEvent, key: TrialKey, **facts: object) -> None:
        # A case folder, an agent or a condition named with a key proctor masks is written
        # masked, as every other record of the trial shows it (its trial.json too: a finished
        # trial's line, from its record, pairs with its started one).
        case, agent, condition = (mask(name) for name in key[:3])
        repeat = key[3]
        entry = JournalEntry.model_validate(
            {"event": event, "time": now_iso(), "case": case, "agent": agent,
             "condition": condition, "repeat": repeat, **facts}
        )  # fmt: skip
        append(self.path, entry)


def scratch_folders(path: Path) -> list[Path]:
    """The scratch folders the run's executions used (each removed when its execution ended,
    unless the orchestrator died)."""
    return [Path(e.scratch) for e in read(path) if e.event == "trials-started" and e.scratch]


def live_workers(path: Path) -> dict[TrialKey, int]:
    """Trials the journal saw start and not finish whose worker process is still the same
    process (its pid and start time match): trial key → pid."""
    started: dict[TrialKey, JournalEntry] = {}
    for entry in read(path):
        if entry.case is None or entry.agent is None or entry.condition is None:
            continue
        if entry.repeat is None:
            continue
        key = (entry.case, entry.agent, entry.condition, entry.repeat)
        if entry.event == "trial-started":
            started[key] = entry
        elif entry.event in ("trial-finished", "trial-retried"):  # (its attempt's worker ended)
            started.pop(key, None)
    return {
        key: entry.pid
        for key, entry in started.items()
        if entry.pid is not None
        and entry.pid_start is not None
        and process_start(entry.pid) == entry.pid_start
    }


STARTING_RECORDS = ("journal.jsonl", "config.json", "resolved.json", "run.json")
"""What a run folder holds before its ``run.json`` is written whole."""


def not_started(root: Path, error: OSError, made: list[Path] | None = None) -> None:
    """Say on ``error`` (writing the first records of the run folder ``root`` failed: a full
    disk) that the run did not start, and whether its folder was removed (see
    :func:`discard_unstarted`): ``proctor: error: …/config.json: No space left on device; the
    run did not start; its folder was removed``, not that what was finished is kept. The
    folders ``made`` for it (``--out`` and above) go with it when it goes and they are empty."""
    gone = discard_unstarted(root)
    if gone:
        remove_empty_folders(made or [])
    error.add_note(f"the run did not start{'; its folder was removed' if gone else ''}")


def discard_unstarted(root: Path) -> bool:
    """Remove the run folder ``root`` this process made when writing its first records failed
    (a full disk): only when it holds nothing but those records (the journal with this
    process's ``run-started`` line alone, ``config.json``, ``resolved.json``, the temp file of
    one cut off), so nothing another program put there is lost. Whether it is gone."""
    from proctor.models.io import PARTIAL_WRITE

    try:
        names = os.listdir(root)
        journal = root / "journal.jsonl"
        lines = journal.read_bytes().splitlines() if journal.name in names else []
    except OSError:
        return False
    for name in names:
        partial = PARTIAL_WRITE.fullmatch(name)
        if (partial["name"] if partial else name) not in STARTING_RECORDS:
            return False
    for line in lines:
        record = decode_object(line)
        if record is None or record.get("event") != "run-started":
            return False
        if record.get("pid") != os.getpid():
            return False
    try:
        for name in names:
            os.unlink(root / name)
        root.rmdir()
    except OSError:
        return False
    return True
