"""The findings ledger on disk (``findings.json`` in a results directory): read, written
atomically and durably, its temp files that a killed write left removed, and the lock one
read-change-write holds (see :mod:`proctor.report.findings`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from proctor.errors import ConfigError
from proctor.models.findings import FindingsLedger
from proctor.models.io import PARTIAL_WRITE, read_record, write_record
from proctor.paths import LEDGER_FILE


def ledger_path(results_dir: Path) -> Path:
    return results_dir / LEDGER_FILE


def load_ledger(results_dir: Path) -> FindingsLedger:
    """The ledger of ``results_dir`` (empty when there is none yet). An unreadable one is a
    ConfigError naming the file and field; a newer one a SchemaVersionError."""
    path = ledger_path(results_dir)
    if not path.exists():
        return FindingsLedger()
    return read_record(path, FindingsLedger)


STALE_TEMP_SEC = 60.0
"""How old a temp file of the ledger must be for :func:`save_ledger` to take it for one a
killed write left behind; a younger one may be another process's write in progress."""


def save_ledger(results_dir: Path, ledger: FindingsLedger) -> None:
    """Write the ledger through a temp file and a rename, flushed to the disk: a crash, or a
    power loss, leaves the previous one. A failed write is a ConfigError naming the file.
    Under the ledger's lock, the ledger's temp files that killed writes left (older than
    :data:`STALE_TEMP_SEC`) are removed first."""
    path = ledger_path(results_dir)
    with ledger_lock(results_dir):
        remove_stale_temp_files(results_dir)
        try:
            write_record(path, ledger, durable=True)
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be written ({exc.strerror or exc})") from exc


def remove_stale_temp_files(results_dir: Path, now: float | None = None) -> list[Path]:
    """Remove the ledger's temp files (``.findings.json.XXXXXXXX.tmp``) last written more than
    :data:`STALE_TEMP_SEC` before ``now`` (default: the time now); the files removed. One that
    cannot be removed is left for the next write."""
    now = time.time() if now is None else now
    removed = []
    for candidate in results_dir.glob(f".{LEDGER_FILE}.*.tmp"):
        named = PARTIAL_WRITE.fullmatch(candidate.name)
        if named is None or named.group("name") != LEDGER_FILE:
            continue
        try:
            if now - candidate.lstat().st_mtime <= STALE_TEMP_SEC:
                continue
            candidate.unlink()
        except OSError:
            continue
        removed.append(candidate)
    return removed


_LOCKED = threading.local()
"""Per thread: the results folders whose ledger it holds the lock of, with how deep."""


@contextlib.contextmanager
def ledger_lock(results_dir: Path) -> Iterator[None]:
    """Hold the ledger of ``results_dir`` for one read-change-write: two commands at once (a
    ``findings dismiss`` beside another, or beside a ``report``) take turns instead of each
    writing over the other's change. Taken again inside, it is already held. A folder that
    cannot be opened is read without it (its ledger cannot be written either)."""
    key = os.path.realpath(results_dir)
    held: dict[str, int] = _LOCKED.__dict__.setdefault("held", {})
    if held.get(key):
        held[key] += 1
        try:
            yield
        finally:
            held[key] -= 1
        return
    try:  # the folder itself is locked: no lock file is left among the runs
        fd = os.open(key, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held[key] = 1
        try:
            yield
        finally:
            held.pop(key, None)
    finally:
        os.close(fd)  # closing it lets the lock go
