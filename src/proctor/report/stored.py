"""Reading a stored run back: its manifest, its resolved configuration, its aggregate and every
trial, from any schema version this proctor understands (older records are upgraded as they
are read), and whether it finished, stopped, or still runs. Its trials are read by
:mod:`proctor.report.trial_records`, its plan by :mod:`proctor.report.planned`, and its
aggregate recomputed by :mod:`proctor.report.recompute`.

    run = load_run("proctor-results/run-20261201T120000Z-abc123")
    run.records[0].status, run.gate, run.suite.exit_code
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.compact import compact
from proctor.models.config import DEFAULT_GATE, Gate
from proctor.models.io import read_record
from proctor.models.journal import live_orchestrator, unfinished
from proctor.models.run import ResolvedRecord, RunManifest, SkippedCaseRecord
from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.planned import cells_of, missing_records
from proctor.report.trial_records import iter_records, load_records, optional_record, trial_key


@dataclass
class StoredRun:
    """A results directory as proctor reads it."""

    paths: RunPaths
    records: list[TrialRecord]
    manifest: RunManifest | None = None
    resolved: ResolvedRecord | None = None
    suite: SuiteRecord | None = None
    """The aggregate written at the end of the run (None when it never finished)."""
    notes: list[str] = field(default_factory=list)
    """What could not be read as written and how it was read instead, one sentence each."""
    running_pid: int | None = None
    """The process (pid) that still runs the run, by its journal, when it was read (see
    :func:`proctor.models.journal.live_orchestrator`); None once it finished or stopped."""
    unended: bool = False
    """Of a run without its ``run.json``: its journal says it started (or was resumed) and
    never wrote its end (see :func:`proctor.models.journal.unfinished`)."""

    @property
    def state(self) -> Literal["running", "stopped", "finished"]:
        """``running`` while :attr:`running_pid` runs it (its records are the trials finished
        so far), ``stopped`` when it ended before it finished (interrupted, or killed: its
        ``proctor run --resume`` finishes it), else ``finished``."""
        if self.running_pid is not None:
            return "running"
        m = self.manifest
        if m is None:  # run.json missing or unreadable: as its journal and suite.json say
            return "stopped" if self.stopped_short else "finished"
        return "stopped" if m.interrupted or m.finished_at is None else "finished"

    @property
    def gate(self) -> Gate:
        return self.resolved.gate if self.resolved is not None else DEFAULT_GATE

    @property
    def stopped_short(self) -> bool:
        """Interrupted, killed before it finished (no ``finishedAt``), or fewer trials on disk
        than it planned. Without its ``run.json`` (missing, or unreadable): when its journal
        says it never wrote its end, else when its ``suite.json`` says it was interrupted; a
        folder of trials with neither is read as a finished run."""
        m = self.manifest
        if m is None:
            return self.unended or (self.suite is not None and self.suite.interrupted)
        planned = self.planned
        return (
            m.interrupted
            or m.finished_at is None
            or (planned is not None and len(self.records) < planned)
        )

    @property
    def skipped_cases(self) -> list[SkippedCaseRecord]:
        """The cases the run found and did not run, with why: as its ``suite.json`` records
        them, else (a run that never finished) as its ``resolved.json`` does."""
        if self.suite is not None:
            return list(self.suite.skipped_cases)
        return list(self.resolved.skipped) if self.resolved is not None else []

    @property
    def cells(self) -> list[tuple[str, str, str, int]]:
        """The trials the run planned (case, agent, condition, repeat), when ``resolved.json``
        says."""
        return cells_of(self.resolved)

    @property
    def planned(self) -> int | None:
        """The trials the run planned, when its manifest says."""
        return self.manifest.trials_planned or None if self.manifest is not None else None


def load_run(
    run_dir: Path | str,
    *,
    need_gate: bool = True,
    compact_records: bool = False,
    strict_annotations: bool = False,
) -> StoredRun:
    """Read a results directory (``run-…`` folder). Raises ConfigError when it holds no
    trials, or when its ``resolved.json`` (which holds the run's gate) cannot be read and
    ``need_gate`` says the caller needs that gate (else it is a note). With
    ``compact_records``, the records are read one at a time into compact read-only stand-ins
    (:mod:`proctor.models.compact`), for a caller that only aggregates and renders them."""
    root = Path(run_dir)
    paths = RunPaths(root)
    notes: list[str] = []
    resolved = None
    try:
        resolved = read_record(paths.resolved_json, ResolvedRecord)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        if need_gate and RunPaths(root).trial_jsons():
            raise ConfigError(
                f"{exc}; it holds the run's gate: restore it, or give the gate with --config FILE"
            ) from exc
        if not need_gate:
            notes.append(f"{exc}; read without it")
    planned = StoredRun(paths, [], resolved=resolved).cells
    if compact_records:
        records = [
            compact(r)
            for r in iter_records(
                root, notes, planned, none_is_empty=True, strict_annotations=strict_annotations
            )
        ]
    else:
        records = load_records(
            root, notes, planned, none_is_empty=True, strict_annotations=strict_annotations
        )
    manifest = optional_record(paths.run_json, RunManifest, notes)
    lost = missing_records(paths, manifest, {trial_key(r) for r in records}, planned, notes)
    records += [compact(r) for r in lost] if compact_records else lost
    suite = optional_record(paths.suite_json, SuiteRecord, notes)
    run = StoredRun(paths, records, manifest, resolved, suite, notes)
    return with_process(run)


def with_process(run: StoredRun) -> StoredRun:
    """``run`` with its :attr:`~StoredRun.running_pid`: of a run that has not finished, the
    process that still runs it, when there is one (the rule of ``report``, ``compare`` and
    ``run --resume``). One without its run.json yet (written just after the journal's first
    line) is asked too, and its journal says whether it ended."""
    if run.manifest is None:
        run.unended = unfinished(run.paths.journal)
    if run.stopped_short:
        run.running_pid = live_orchestrator(run.paths.journal)
    return run


def stored_run(run_dir: Path, records: list[TrialRecord]) -> StoredRun:
    """A run folder whose records the caller read, with its manifest (``run.json``, when it
    can be read: the caller's reader notes what it could not read), so that
    :attr:`StoredRun.stopped_short` says whether the run finished (and
    :attr:`StoredRun.running_pid` whether it is still running)."""
    paths = RunPaths(run_dir)
    manifest = optional_record(paths.run_json, RunManifest, [])
    # Without its run.json, its suite.json says whether it was interrupted.
    suite = optional_record(paths.suite_json, SuiteRecord, []) if manifest is None else None
    return with_process(StoredRun(paths, records, manifest, suite=suite))


def run_name(run: StoredRun) -> str:
    """The run's id as its ``run.json`` records it (a folder renamed, copied, or reached
    through a link such as ``latest`` keeps it), else its folder's name."""
    manifest = run.manifest
    return manifest.run_id if manifest is not None and manifest.run_id else run.paths.root.name
