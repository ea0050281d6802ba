"""The findings ledger: failing checks tracked across the runs of a results directory.

A *check* is one evaluator of one case × agent × condition, or one task rule of it. Over the
repeats of a run a check fails, passes or is unknown (:mod:`proctor.report.checks`); applying
the run to the ledger (:func:`apply_run`) proposes a finding for a new failure, resolves one
whose check passed, reopens one that fails again, and leaves dismissed ones alone until their
check has passed and failed again. Applying is idempotent: the ledger lists the runs it holds.

    ledger = apply_run(load_ledger(out), "run-20261201T120000Z-abc123", run_checks(records))
    run_events(ledger, "run-20261201T120000Z-abc123")   # [(finding, "new"), ...]

The pure functions (:mod:`proctor.report.ledger_steps`) take and return values;
:func:`update_ledger` reads the runs not yet applied, and what a ``--resume`` added to a run
taken in while interrupted, from disk and rewrites ``findings.json`` atomically after each.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.findings import RUN_EVENTS, Finding, FindingEventKind, FindingsLedger
from proctor.models.io import read_record
from proctor.models.run import RunManifest
from proctor.models.suite import FindingChange
from proctor.paths import TRIAL_RECORDS, RunPaths, suite_of
from proctor.report.checks import (
    CheckKey,
    CheckResult,
    started_instant,
    stored_run_checks,
    stored_run_checks_since,
)
from proctor.report.ledger_copies import PendingRun, RunCopy, copies_held_back, each_run_once
from proctor.report.ledger_steps import (
    _started,
    apply_resume,
    apply_run,
    recorded_since,
    resume_checks,
)
from proctor.report.ledger_steps import dismiss as dismiss
from proctor.report.ledger_steps import dismissal_reason as dismissal_reason
from proctor.report.ledger_steps import dismissal_said as dismissal_said
from proctor.report.ledger_steps import finding_id as finding_id
from proctor.report.ledger_steps import latest_run as latest_run
from proctor.report.ledger_store import STALE_TEMP_SEC as STALE_TEMP_SEC
from proctor.report.ledger_store import ledger_lock as ledger_lock
from proctor.report.ledger_store import ledger_path as ledger_path
from proctor.report.ledger_store import load_ledger as load_ledger
from proctor.report.ledger_store import remove_stale_temp_files as remove_stale_temp_files
from proctor.report.ledger_store import save_ledger as save_ledger
from proctor.report.markdown import render_findings
from proctor.util.logs import shown_as
from proctor.util.text import plural

log = logging.getLogger("proctor")


def run_suite(manifest: RunManifest, results_dir: Path) -> str | None:
    """The suite a run ran, as findings name it: the one its ``run.json`` recorded (see
    :func:`suite_of`), else, for a run of an older proctor, its ``--source`` made absolute
    against the folder it ran in and named by :func:`suite_of` now. None for a run that names
    no source."""
    if manifest.suite:
        return manifest.suite
    if not manifest.source:
        return None
    source = os.path.join(manifest.cwd or "", manifest.source)
    if not os.path.isabs(source):  # a run that did not record where it ran
        return Path(os.path.normpath(source)).as_posix()
    return suite_of(source, results_dir)


def run_events(ledger: FindingsLedger, run_id: str) -> list[tuple[Finding, FindingEventKind]]:
    """The findings that run ``run_id`` proposed, reopened or resolved, and the dismissed ones
    whose check it passed (``passed``), with the event."""
    return [
        (finding, entry.event)
        for finding in ledger.findings
        for entry in finding.history
        if entry.run_id == run_id and entry.event in RUN_EVENTS
    ]


def run_changes(ledger: FindingsLedger, run_id: str) -> list[FindingChange] | None:
    """The findings run ``run_id`` proposed, reopened, resolved or passed while dismissed, as
    its reports show them
    (:attr:`~proctor.models.suite.SuiteRecord.findings`); None when the ledger does not hold
    the run."""
    if run_id not in ledger.runs:
        return None
    return [
        FindingChange(
            event=event,
            id=finding.id,
            case=finding.case,
            agent=finding.agent,
            condition=finding.condition,
            check=finding.check,
        )
        for finding, event in run_events(ledger, run_id)
    ]


def later_repetition(run: str, repetition: int | None) -> str | None:
    """Why the findings ledger holds nothing of run ``run`` when it is a later repetition of a
    ``--repeat-check`` (``repetition``, 2 or more, which the ledger never takes in: see
    :func:`pending_runs`), as ``proctor report`` and ``proctor run --resume`` of its folder say
    it; None for any other run."""
    if repetition is None or repetition < 2:
        return None
    return (
        f"{run} is repetition {repetition} of a repeat check; the findings ledger takes in the "
        "first repetition only, whose report lists the findings it proposed, reopened or "
        "resolved (`proctor findings` lists them all)"
    )


def render_run_events(ledger: FindingsLedger, run_id: str) -> str | None:
    """A Markdown section of run ``run_id``'s findings events; None when the ledger does not
    hold the run."""
    changes = run_changes(ledger, run_id)
    return None if changes is None else render_findings(changes)


@dataclass
class LedgerUpdate:
    """What :func:`update_ledger` did."""

    ledger: FindingsLedger
    applied: list[str] = field(default_factory=list)
    """Runs applied by this update, in order (then the runs whose resume it applied)."""
    notes: list[str] = field(default_factory=list)
    """Runs that could not be applied, and why, one sentence each."""


def pending_runs(
    results_dir: Path, ledger: FindingsLedger
) -> tuple[list[PendingRun], list[str], list[RunCopy]]:
    """The finished run folders of ``results_dir`` the ledger does not hold, with the suite
    each ran, ordered by their ``startedAt`` then name, a note for each run folder whose
    ``run.json`` is unreadable, and the copies of a run found now (see
    :func:`~proctor.report.ledger_copies.each_run_once`). A run still going
    (or killed) has no ``finishedAt`` yet and waits; a copy the ledger recorded is passed over."""
    applied = set(ledger.runs) | set(ledger.copies)
    found: list[tuple[str, str, PendingRun]] = []
    notes: list[str] = []
    for root in sorted(results_dir.glob("run-*")):
        manifest_path = RunPaths(root).run_json
        if root.name in applied or not root.is_dir():
            continue
        if not manifest_path.exists():  # one starting (its run.json comes before its trials)
            if any(root.glob(TRIAL_RECORDS)):  # … else a run.json lost: said, as unreadable
                notes.append(
                    f"{root}: holds trial records but no run.json; the run is not applied to "
                    "the findings ledger (`proctor report` of the folder reads its trials)"
                )
            continue
        if not _utf8(root.name):  # the ledger names runs in JSON, which cannot hold it
            shown = str(root).encode("utf-8", "backslashreplace").decode()
            notes.append(
                f"{shown}: a folder name that is not UTF-8; the run is not applied to the "
                "findings ledger"
            )
            continue
        manifest = _manifest(manifest_path, notes, "the run is not applied to the findings ledger")
        if manifest is None:
            continue
        if manifest.repetition is not None and manifest.repetition > 1:
            # The same runs of the same trials again: applied once, through the first, so
            # that a repeat check of five does not count each failure five times.
            continue
        if manifest.finished_at is not None:
            # An interrupted run counts with the evidence it has, in its place in time: its
            # interrupted trials are errors, which never resolve a finding. What a later
            # `--resume` adds to it is applied then (see :func:`resumed_runs`).
            suite = run_suite(manifest, results_dir)
            cut = manifest.finished_at if manifest.interrupted else None
            ran = PendingRun(root, suite, cut, manifest.run_id)
            found.append((manifest.started_at, root.name, ran))
    pending = [run for _, _, run in sorted(found)]
    kept, copies = each_run_once(ledger, pending)
    return kept, notes, copies


def _manifest(path: Path, notes: list[str], then: str) -> RunManifest | None:
    """A run's ``run.json``; None, with a note saying why and ``then``, when it does not read."""
    try:
        return read_record(path, RunManifest)
    except (ConfigError, SchemaVersionError) as exc:
        notes.append(f"{exc}; {then}")
        return None


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a file name's bytes that are not UTF-8 (surrogate escapes)
        return False
    return True


def update_ledger(results_dir: Path) -> LedgerUpdate:
    """Apply every finished run of ``results_dir`` not yet in its ledger, in order, saving the
    ledger after each. Raises ConfigError (SchemaVersionError) when the ledger itself cannot be
    read; it is then left untouched."""
    with ledger_lock(results_dir):
        return _update_ledger(results_dir)


def known_suites(results_dir: Path, ledger: FindingsLedger) -> FindingsLedger:
    """``ledger`` with the suites and run ids of what an older proctor applied filled in where
    the run folders still tell them: each run it holds without one, from the run's
    ``run.json``; each finding without a suite, from the run it was last (else first) seen in.
    The same value when nothing was learnt."""
    learnt: dict[str, str] = {}
    ids: dict[str, str] = {}
    for run in ledger.runs:
        if run in ledger.run_suites and run in ledger.run_ids:
            continue
        try:
            manifest = read_record(RunPaths(results_dir / run).run_json, RunManifest)
        except (ConfigError, SchemaVersionError, OSError):
            continue  # gone or unreadable: its findings wait for a run to take them up
        if run not in ledger.run_ids:
            ids[run] = manifest.run_id
        suite = run_suite(manifest, results_dir)
        if suite is not None and run not in ledger.run_suites:
            learnt[run] = suite
    if not learnt and not ids:
        return ledger
    updated = ledger.model_copy(deep=True)
    updated.run_suites.update(learnt)
    updated.run_ids.update(ids)
    for finding in updated.findings:
        if finding.suite is None:
            runs = (finding.last_seen_run, finding.first_seen_run)
            finding.suite = next((learnt[r] for r in runs if r in learnt), None)
    return updated


def _update_ledger(results_dir: Path) -> LedgerUpdate:
    update = LedgerUpdate(load_ledger(results_dir))
    known = known_suites(results_dir, update.ledger)
    if known is not update.ledger:
        update.ledger = known
        save_ledger(results_dir, known)
    runs, update.notes, copies = pending_runs(results_dir, update.ledger)
    _record_copies(results_dir, update, [copy for copy in copies if copy.original is None])
    recorded: dict[str, frozenset[CheckKey] | None] = {}
    starts: dict[str, datetime | None] = {}
    for root, suite, interrupted_at, run_id in runs:
        try:
            read: list[str] = []  # (said only for a run applied)
            if interrupted_at is None:
                results = stored_run_checks(root, read)
            else:  # as it was when it stopped: a resume may be running trials in it now
                results = stored_run_checks_since(root, interrupted_at, read)[0]
        except (SchemaVersionError, ConfigError) as exc:
            update.notes.append(f"{exc}; the run is not applied to the findings ledger")
            update.notes += copies_held_back(results_dir, copies, root.name)
            continue
        held_back, note = _late_checks(
            results_dir, update.ledger, root.name, suite, results, recorded, starts
        )
        update.ledger = apply_run(
            update.ledger,
            root.name,
            results,
            suite=suite,
            held_back=held_back,
            interrupted_at=interrupted_at,
        )
        ids = {**update.ledger.run_ids, root.name: run_id}  # (known without its folder)
        update.ledger = update.ledger.model_copy(update={"run_ids": ids})
        save_ledger(results_dir, update.ledger)
        update.applied.append(root.name)
        update.notes += read
        if note:
            update.notes.append(note)
    # A copy of a run applied now; not of one that failed to read (its folder, once removed,
    # leaves the copy to be applied in its stead).
    _record_copies(results_dir, update, [c for c in copies if c.original in update.applied])
    for resumed in resumed_runs(results_dir, update.ledger, update.notes):
        name = resumed.root.name
        read_at = update.ledger.interrupted_runs[name].finished_at
        try:
            added = stored_run_checks_since(resumed.root, read_at)[1]
        except (SchemaVersionError, ConfigError) as exc:
            update.notes.append(f"{exc}; what a resume added to {name} is not applied yet")
            continue
        fresh = resume_checks(update.ledger, name, added, resumed.suite)
        held_back, note = _late_checks(
            results_dir, update.ledger, name, resumed.suite, fresh, recorded, starts
        )
        update.ledger = apply_resume(
            update.ledger,
            name,
            fresh,
            finished_at=resumed.finished_at,
            suite=resumed.suite,
            held_back=held_back,
        )
        save_ledger(results_dir, update.ledger)
        update.applied.append(name)
        if note:
            update.notes.append(note)
    return update


def _record_copies(results_dir: Path, update: LedgerUpdate, copies: list[RunCopy]) -> None:
    """``copies`` said and recorded, so that each is said once and its run.json not read
    again."""
    if not copies:
        return
    update.notes += [copy.note for copy in copies]
    recorded = {**update.ledger.copies, **{copy.name: copy.run_id for copy in copies}}
    update.ledger = update.ledger.model_copy(update={"copies": recorded})
    save_ledger(results_dir, update.ledger)


class ResumedRun(NamedTuple):
    root: Path
    suite: str | None
    finished_at: str
    """Its ``finishedAt`` now (after the resume)."""


def resumed_runs(results_dir: Path, ledger: FindingsLedger, notes: list[str]) -> list[ResumedRun]:
    """The runs the ledger took in while interrupted that a ``--resume`` has finished since
    (their ``finishedAt`` is another than the ledger read): what it added is to be applied.
    A run still being resumed keeps its ``finishedAt`` until the resume ends, and waits. One
    whose ``run.json`` cannot be read gets a note and waits; one whose folder is gone is left
    out."""
    found: list[ResumedRun] = []
    for run, held in ledger.interrupted_runs.items():
        manifest_path = RunPaths(results_dir / run).run_json
        if not manifest_path.exists():
            continue
        manifest = _manifest(
            manifest_path, notes, f"what a resume added to {run} is not applied yet"
        )
        if manifest is None:
            continue
        if manifest.finished_at is None or manifest.finished_at == held.finished_at:
            continue
        suite = ledger.run_suites.get(run)
        found.append(ResumedRun(results_dir / run, suite, manifest.finished_at))
    return found


def _late_checks(
    results_dir: Path,
    ledger: FindingsLedger,
    run_id: str,
    suite: str | None,
    results: Sequence[CheckResult],
    recorded: dict[str, frozenset[CheckKey] | None],
    starts: dict[str, datetime | None],
) -> tuple[set[CheckKey], str | None]:
    """The checks of run ``run_id`` (of ``suite``) that a newer run of the same suite the
    ledger holds has already recorded (by the ledger's findings, and by the newer runs' own
    folders, read once into ``recorded``), and a note saying how many were held back; all of
    them when a newer run's folder cannot be read. A newer run of another suite holds nothing
    back; one applied before proctor kept the suites may be of any."""
    start = _started(run_id)
    if start is None:
        return set(), None
    newer = sorted(
        (started, run)
        for run in ledger.runs
        if (started := _started(run)) is not None
        and (
            started > start
            or (started == start and _started_later(results_dir, run, run_id, starts))
        )
        and ledger.run_suites.get(run, suite) == suite
    )
    if not newer:
        return set(), None
    known = recorded_since(ledger, start, suite)
    unreadable = []
    for _, run in newer:
        if run not in recorded:
            recorded[run] = _recorded_checks(results_dir / run)
        checks = recorded[run]
        if checks is None:
            unreadable.append(run)
        else:
            known |= checks
    keys = {result.key for result in results}
    held_back = keys if unreadable else keys & known
    if not held_back:
        return held_back, None
    newest = newer[-1][1]
    why = (
        f"{unreadable[0]}, which the findings ledger holds, cannot be read to tell which "
        "checks it recorded"
        if unreadable
        else "a newer run had recorded them"
    )
    rest = "; its other checks were applied" if len(held_back) < len(keys) else ""
    return held_back, (
        f"{run_id} started before {newest}, which the findings ledger holds: "
        f"{len(held_back)} of its {plural(len(keys), 'check')} "
        f"{'was' if len(held_back) == 1 else 'were'} held back, since {why} (a failure "
        f"of a finding already listed adds to its failures; they propose, reopen or resolve "
        f"nothing){rest}"
    )


def _started_later(
    results_dir: Path, run: str, than: str, starts: dict[str, datetime | None]
) -> bool:
    """Whether ``run`` started after ``than`` by the ``startedAt`` of their ``run.json``
    (read once into ``starts``), for two runs whose folders name the same second: two runs
    started at once into one results directory. False when either does not read."""
    for name in (run, than):
        if name not in starts:
            try:
                manifest = read_record(RunPaths(results_dir / name).run_json, RunManifest)
            except (ConfigError, SchemaVersionError, OSError):
                starts[name] = None
            else:
                starts[name] = started_instant(manifest.started_at)
    later, earlier = starts[run], starts[than]
    return run != than and later is not None and earlier is not None and later > earlier


def newest_run(results_dir: Path, ledger: FindingsLedger, suite: str | None = None) -> str | None:
    """:func:`latest_run` of ``suite``; of the runs whose folders name the same second as it,
    the one whose ``run.json`` started last (a late run applied after it is not the newest)."""
    latest = latest_run(ledger, suite)
    if latest is None:
        return None
    starts: dict[str, datetime | None] = {}
    for run in ledger.runs:
        if (
            run != latest
            and _started(run) == _started(latest)
            and ledger.run_suites.get(run, suite) == suite
            and _started_later(results_dir, run, latest, starts)
        ):
            latest = run
    return latest


def _recorded_checks(run_dir: Path) -> frozenset[CheckKey] | None:
    """The checks a stored run recorded, passing or failing; None when its folder is gone
    or cannot be read."""
    if not run_dir.is_dir():
        return None
    try:
        return frozenset(result.key for result in stored_run_checks(run_dir))
    except (SchemaVersionError, ConfigError):
        return None


def update_after_run(
    results_dir: Path, run_id: str | None = None, *, held: bool = False, resumed: bool = False
) -> list[FindingChange] | None:
    """:func:`update_ledger` at the end of ``proctor run`` (of run ``run_id``): never raises,
    so a ledger problem never changes the run's outcome; it is logged as a warning and the
    ledger left as it was. A resumed run the ledger held before the resume without keeping it
    as interrupted (``held``: taken in by an older proctor, or taken in finished) gets a note:
    what the resume added is not applied; a ``resumed`` run the ledger took in before says its
    findings as the run's, not as new now. What the ledger holds of run ``run_id`` is returned
    (see :func:`run_changes`); None when it holds nothing of it."""
    try:
        update = update_ledger(results_dir)
    except Exception as exc:
        log.warning("findings ledger not updated: %s", exc, extra=shown_as("warning"))
        return None
    for note in update.notes:
        log.warning("%s", note, extra=shown_as("warning"))
    if run_id is None:
        return None
    changes = run_changes(update.ledger, run_id)
    if changes is None:
        return None
    if held and run_id not in update.applied:
        log.warning(
            "the findings ledger took %s in as it was when it first finished; "
            "what this resume added is not applied to it (see docs/findings.md)",
            run_id,
            extra=shown_as("note"),
        )
    elif changes:  # applied now: here, or by a process that reached the ledger first
        told: Counter[str] = Counter(change.event for change in changes)
        said = ", ".join(f"{told[e]} {e}" for e in RUN_EVENTS if told[e] and e != "passed")
        if passed := told["passed"]:  # a dismissed finding whose check passed
            then = "its" if passed == 1 else "the"
            then += " next failure of each" if passed > 1 else " next failure"
            said += f"{', ' if said else ''}{passed} passed while dismissed: {then} reopens it"
        # A resolved or dismissed finding is listed with the closed ones only (--all).
        every = " --all" if told["resolved"] or passed else ""
        # A finished run resumed (nothing left to run), or one another process took in first:
        # its findings are this run's, not new to the ledger now.
        taken = resumed and run_id not in update.applied
        before = " of this run, taken into the ledger before" if taken else ""
        log.warning(
            "findings%s: %s (`proctor findings %s%s` lists them)",
            before,
            said,
            results_dir,
            every,
            extra=shown_as(),
        )
    return changes
