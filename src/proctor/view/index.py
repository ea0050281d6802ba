"""The viewer's index: a stdlib ``sqlite3`` file inside the results directory that caches what
the pages need from every run and trial, built incrementally.

Each run folder has a signature (the sizes and times of its manifest, aggregate, journal,
annotations and trials folder); only a run whose signature changed is read again, and of it
only the ``trial.json`` files that changed. An index of another schema, or one that cannot be
opened, is rebuilt from the records. Refreshing is cheap enough to run on every request (at
most once a second), which is how the viewer follows runs still in progress.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proctor.models.journal import alive, orchestrator
from proctor.models.trial import INTERRUPTED_PREFIX
from proctor.paths import RunPaths
from proctor.util.masking import mask
from proctor.view.offsets import LineOffsets, pack, scan_offsets, unpack
from proctor.view.records import (
    MISSING_STAMP,
    TrialRow,
    folder_key,
    missing_rows,
    read_trial_rows,
    run_facts,
    signature,
)
from proctor.view.schema import (
    ADDED_COLUMNS,
    INDEX_FILE,
    RUN_COLUMNS,
    SCHEMA,
    SCHEMA_VERSION,
    TRIAL_COLUMNS,
    index_file_of,
    run_values,
)

_REFRESH_EVERY_S = 1.0


class ResultsIndex:
    """The index of one results directory (``only``: a single run folder of it)."""

    def __init__(self, root: Path, *, only: str | None = None, db_path: Path | None = None):
        self.root = root
        self.only = only
        # A viewer of one run keeps an index of its own: sharing the folder's, it would drop
        # every other run from under a viewer of the whole folder.
        self.db_path = db_path or root / (INDEX_FILE if only is None else index_file_of(only))
        self._lock = threading.RLock()
        self._last_refresh = 0.0
        self._db = self._open()
        self._db_file = _file_id(self.db_path)
        self._orchestrators: dict[str, tuple[str, tuple[int, int] | None]] = {}
        """Of each run in progress, its signature and the orchestrator its journal named then
        (pid and start time): while the signature holds, so does the journal."""
        self.root_gone = False
        """Whether the results folder was not there at the last refresh (deleted or moved
        under the viewer): its runs are dropped, and read again when it is back."""
        self.gone: str | None = None
        """What the viewer shows and was not there at the last refresh, as a sentence: the
        results folder, or the run folder of a viewer of one run (its run is then dropped)."""

    def _open(self) -> sqlite3.Connection:
        try:
            return self._prepared(self._connect())
        except sqlite3.OperationalError:
            raise  # locked, or a disk error: another viewer's index is not deleted for it
        except sqlite3.DatabaseError:  # not a database: a damaged file is replaced
            pass
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.db_path}{suffix}").unlink(missing_ok=True)
        return self._prepared(self._connect())

    def _prepared(self, db: sqlite3.Connection) -> sqlite3.Connection:
        """The tables made (or, of another schema, made again) in one transaction: viewers
        started together on one folder each find the index whole, never half made."""
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is not None and row[0] == str(SCHEMA_VERSION):
                _add_columns(db)
                _renumber_steps(db)
            else:
                tables = db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'"
                ).fetchall()
                for (table,) in tables:
                    db.execute(f'DROP TABLE "{table}"')
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("DELETE FROM meta")
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                db.execute("INSERT INTO meta VALUES ('steps', ?)", (STEPS_VERSION,))
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            db.close()
            raise
        return db

    def _connect(self) -> sqlite3.Connection:
        # A viewer waits for another one writing the same index (several may share a folder).
        db = sqlite3.connect(
            self.db_path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        db.row_factory = sqlite3.Row
        # Turning a new file to WAL does not wait for a viewer doing the same: tried again.
        deadline = time.monotonic() + 30.0
        while db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            try:
                db.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    db.close()
                    raise
                time.sleep(0.05)
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        return db

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            # IMMEDIATE: the write lock from the start. A transaction that reads first and then
            # writes cannot wait for another viewer's writes, and fails with "locked" instead.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- building -----------------------------------------------------------------------

    def run_dirs(self) -> list[Path]:
        """The run folders of the results directory (a folder holding ``run.json`` or
        ``trials/``), or the one run when the index is of a single run."""
        if self.only is not None:
            run = self.root / self.only
            return [run] if _is_dir(run) else []  # a run folder deleted is no run
        try:
            entries = list(self.root.iterdir())
        except OSError:
            return []
        return sorted(
            p
            for p in entries
            if p.is_dir()
            and not p.is_symlink()  # a run linked in from elsewhere is not this folder's
            and ((p / "run.json").is_file() or (p / "trials").is_dir())
        )

    def refresh(self, *, force: bool = False) -> int:
        """Bring the index up to date with the folder; the number of runs read again."""
        with self._lock:
            now = time.monotonic()
            if not force and now - self._last_refresh < _REFRESH_EVERY_S:
                return 0
            self._last_refresh = now
            self.root_gone = not _is_dir(self.root)
            shown = self.root if self.only is None else self.root / self.only
            kind = "results" if self.only is None else "run"
            self.gone = (
                f"the {kind} folder {shown} is gone (deleted or moved)"
                if self.root_gone or not _is_dir(shown)
                else None
            )
            if not self.root_gone and _file_id(self.db_path) != self._db_file:
                self._reopen()  # the folder is back (its index went with it), or made anew
            stored = {
                r["name"]: (r["signature"], r["in_progress"])
                for r in self._db.execute("SELECT name, signature, in_progress FROM runs")
            }
            present = {p.name: p for p in self.run_dirs()}
            changed = 0
            for name, run_dir in present.items():
                sig = signature(run_dir)
                old = stored.get(name)
                # A run in progress whose signature holds is as it was: every trial's record
                # is written before its journal line (the signature), and a record edited by
                # hand shows once the run's next line is. Only its orchestrator can have gone.
                if old is None or old[0] != sig or (old[1] and not self._runs_on(run_dir, sig)):
                    self._index_run(run_dir, sig)
                    changed += 1
            for name in set(self._orchestrators) - set(present):
                del self._orchestrators[name]
            gone = [n for n in stored if n not in present]
            with self._tx() as db:
                for name in gone:
                    for table in ("runs", "trials", "trajectories"):
                        key = "name" if table == "runs" else "run"
                        db.execute(f"DELETE FROM {table} WHERE {key} = ?", (name,))
            return changed + len(gone)

    def _runs_on(self, run_dir: Path, sig: str) -> bool:
        """Whether the orchestrator of a run in progress still runs it: a few ``stat`` calls;
        the journal is read again only when the run's signature changed."""
        kept = self._orchestrators.get(run_dir.name)
        if kept is None or kept[0] != sig:
            kept = (sig, orchestrator(RunPaths(run_dir).journal))
            self._orchestrators[run_dir.name] = kept
        return alive(kept[1])

    def _reopen(self) -> None:
        """The index opened again at its path: the file this viewer had open was deleted
        (with the results folder) or replaced. If it cannot be, the open one serves on."""
        try:
            db = self._open()
        except sqlite3.Error:
            return
        self._db.close()
        self._db, self._db_file = db, _file_id(self.db_path)

    def _index_run(self, run_dir: Path, sig: str) -> None:
        name = run_dir.name
        files = RunPaths(run_dir).trial_jsons()
        known = {
            r["key"]: r["stamp"]
            for r in self._db.execute("SELECT key, stamp FROM trials WHERE run = ?", (name,))
        }
        stamps = {folder_key(run_dir, p): _stamp(p) for p in files}
        annotations_changed = _annotations_stamp(run_dir) != self._meta(f"annotations:{name}")
        stale = [
            p
            for p in files
            if annotations_changed
            or known.get(folder_key(run_dir, p)) != stamps[folder_key(run_dir, p)]
        ]
        rows = read_trial_rows(run_dir, stale)
        facts = run_facts(run_dir)
        with self._tx() as db:
            for key in set(known) - set(stamps):  # a trial missing before is looked for again
                db.execute("DELETE FROM trials WHERE run = ? AND key = ?", (name, key))
            db.executemany(
                f"INSERT OR REPLACE INTO trials ({TRIAL_COLUMNS}) VALUES ({', '.join('?' * 20)})",
                [fitted(_trial_values(row, stamps.get(row.key, ""))) for row in rows],
            )
            found = db.execute(
                "SELECT case_name, agent, condition, repeat FROM trials WHERE run = ?", (name,)
            ).fetchall()
            cells = {(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in found}
            unread: list[str] = []  # a plan that does not read: said on the run's page
            lost = missing_rows(run_dir, facts, cells, set(stamps), unread)
            if unread:
                said = "; ".join(p for p in (facts.problem, *unread) if p)
                facts = dataclasses.replace(facts, problem=said)
            db.executemany(
                f"INSERT OR REPLACE INTO trials ({TRIAL_COLUMNS}) VALUES ({', '.join('?' * 20)})",
                [fitted(_trial_values(row, MISSING_STAMP)) for row in lost],
            )
            totals = db.execute(
                "SELECT count(*) n, sum(status IN ('passed','failed','timeout')) scored, "
                "sum(status = 'passed') passes, sum(spent_usd) cost, "
                "sum(spent_usd IS NULL) unpriced, sum(substr(reason, 1, ?) = ?) cut "
                "FROM trials WHERE run = ?",
                (len(INTERRUPTED_PREFIX), INTERRUPTED_PREFIX, name),
            ).fetchone()
            counts = dict(
                db.execute(
                    "SELECT status, count(*) FROM trials WHERE run = ? GROUP BY status", (name,)
                ).fetchall()
            )
            facets = {
                col: [
                    r[0]
                    for r in db.execute(
                        f"SELECT DISTINCT {col} FROM trials WHERE run = ? ORDER BY 1", (name,)
                    )
                ]
                for col in ("agent", "condition", "case_name")
            }
            db.execute(
                f"INSERT OR REPLACE INTO runs ({RUN_COLUMNS}) VALUES ({', '.join('?' * 24)})",
                fitted(run_values(facts, sig, dict(totals), counts, facets)),
            )
            db.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (f"annotations:{name}", _annotations_stamp(run_dir)),
            )

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    # -- trajectories ------------------------------------------------------------------

    def trajectory_offsets(self, run: str, key: str, path: Path) -> LineOffsets:
        """The line offsets of a trial's ``trajectory.jsonl``, scanned on from where the
        index last stopped (the whole file only the first time)."""
        with self._lock:
            row = self._db.execute(
                "SELECT * FROM trajectories WHERE run = ? AND key = ?", (run, key)
            ).fetchone()
            known = None
            if row is not None:
                known = LineOffsets(
                    starts=unpack(row["starts"]),
                    tool_calls=unpack(row["tool_calls"]),
                    scanned_to=row["scanned_to"],
                    identity=(row["inode"], row["device"]),
                    fingerprint=row["fingerprint"] or b"",
                )
            before = None if known is None else _scan_state(known)
            offsets = scan_offsets(path, known)
            if before != _scan_state(offsets):
                with self._tx() as db:
                    db.execute(
                        "INSERT OR REPLACE INTO trajectories (run, key, scanned_to, inode,"
                        " device, starts, tool_calls, fingerprint) VALUES (?,?,?,?,?,?,?,?)",
                        (
                            run,
                            key,
                            offsets.scanned_to,
                            offsets.identity[0],
                            offsets.identity[1],
                            pack(offsets.starts),
                            pack(offsets.tool_calls),
                            offsets.fingerprint,
                        ),
                    )
            return offsets

    # -- reading -----------------------------------------------------------------------

    def query(self, sql: str, params: tuple[object, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def run_row(self, name: str) -> sqlite3.Row | None:
        rows = self.query("SELECT * FROM runs WHERE name = ?", (name,))
        return rows[0] if rows else None


def _scan_state(offsets: LineOffsets) -> tuple[object, ...]:
    """What tells one scan of a trajectory from another (a changed one is written back)."""
    return (offsets.scanned_to, offsets.identity, offsets.fingerprint)


STEPS_VERSION = "2"
"""How the index numbers a trajectory's steps: since 2, a search of the agent's own tool list
is no step, as in the process metrics."""


def _renumber_steps(db: sqlite3.Connection) -> None:
    """The trajectories' offsets scanned again (when next shown) if the index numbered their
    steps otherwise: a link to step ``n`` of a trial's metrics would open another call."""
    row = db.execute("SELECT value FROM meta WHERE key = 'steps'").fetchone()
    if row is None or row[0] != STEPS_VERSION:
        db.execute("DELETE FROM trajectories")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('steps', ?)", (STEPS_VERSION,))


def _add_columns(db: sqlite3.Connection) -> None:
    for table, column, kind in ADDED_COLUMNS:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            try:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            except sqlite3.OperationalError:  # another viewer added it meanwhile
                continue
            if table == "trials":  # the rows made before it are read again, to fill it
                db.execute("UPDATE trials SET stamp = ''")
            if table in {"trials", "runs"}:  # so are the runs, to fill theirs
                db.execute("UPDATE runs SET signature = ''")


def _file_id(path: Path) -> tuple[int, int] | None:
    """The file's device and inode, or None when it is not there."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _stamp(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return "-"
    return f"{stat.st_mtime_ns}:{stat.st_size}"


def _annotations_stamp(run_dir: Path) -> str:
    return _stamp(RunPaths(run_dir).annotations)


SQLITE_INT = 2**63
"""SQLite's integers are 64-bit: a bigger count (an edited record) is stored as a real."""


def fitted(values: tuple[object, ...]) -> tuple[object, ...]:
    """The row with every integer SQLite cannot hold made a float."""
    return tuple(
        float(v) if type(v) is int and not -SQLITE_INT <= v < SQLITE_INT else v for v in values
    )


def _trial_values(row: TrialRow, stamp: str) -> tuple[object, ...]:
    return (
        row.run,
        row.key,
        row.case,
        row.agent,
        row.condition,
        row.repeat,
        row.status,
        None if row.passed is None else int(row.passed),
        row.score,
        # The index is a file on disk: a reason that quotes a key (a record written before the
        # key was registered) keeps it out. Names stay as they are: pages are found by them.
        mask(row.reason) if isinstance(row.reason, str) else row.reason,
        row.total_ms,
        row.agent_ms,
        row.harness_ms,
        row.tool_calls,
        row.tokens,
        row.cost_usd,
        json.dumps(list(row.tags)),
        stamp,
        row.spent_usd,
        json.dumps([mask(w) for w in row.warnings]),
    )
