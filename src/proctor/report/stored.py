"""Reading a stored run back: its manifest, its resolved configuration and every trial, from
any schema version this proctor understands (older records are upgraded as they are read), and
recomputing its aggregate. Nothing here re-runs an agent or an evaluator.

    run = load_run("proctor-results/run-20261201T120000Z-abc123")
    run.records[0].status, run.gate, run.suite.exit_code
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.compact import compact
from proctor.models.config import DEFAULT_GATE, Gate
from proctor.models.gating import applied_gate
from proctor.models.io import R, escape_surrogates, read_record, read_trial
from proctor.models.journal import live_orchestrator, stretches, unfinished, unrecorded
from proctor.models.loading import load_top_config
from proctor.models.run import AnnotationsRecord, ResolvedRecord, RunManifest, SkippedCaseRecord
from proctor.models.suite import GateFrom, SuiteRecord
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.paths import TRIAL_RECORDS, RunPaths, no_run_in, run_holding, runs_below
from proctor.report.aggregate import aggregate
from proctor.util.masking import MASK
from proctor.util.text import plural


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
        matrix = self.resolved.matrix if self.resolved is not None else []
        return [(c.case, c.agent, c.condition, c.repeat) for c in matrix]

    @property
    def planned(self) -> int | None:
        """The trials the run planned, when its manifest says."""
        return self.manifest.trials_planned or None if self.manifest is not None else None


TrialKey = tuple[str, str, str, int]

UNREADABLE = "unreadable trial.json"
"""The start of the reason of a stand-in record for a trial.json that could not be read."""
MISPLACED = "trial.json of trial"
"""The start of the reason of a stand-in record for a trial.json found in another trial's
folder."""
MISSING = "no trial.json"
"""The start of the reason of a stand-in record for a trial a finished run planned and whose
record is not in its folder."""


def is_stand_in(record: TrialRecord) -> bool:
    """Whether ``record`` stands in for a trial.json that could not be used (see
    :func:`iter_records`), not a trial's own record."""
    return record.status == "infra-error" and record.reason.startswith(
        (UNREADABLE, MISPLACED, MISSING)
    )


def _lost(path: Path, reason: str) -> TrialRecord:
    case, agent, condition, repeat = path.parent.parts[-4:]
    return TrialRecord(
        case=case,
        agent=agent,
        condition=condition,
        repeat=int(repeat) if repeat.isdigit() else 0,
        status="infra-error",
        reason=reason,
    )


def load_records(
    run_dir: Path,
    notes: list[str] | None = None,
    planned: Sequence[TrialKey] | None = None,
    *,
    none_is_empty: bool = False,
    strict_annotations: bool = False,
) -> list[TrialRecord]:
    """Every stored trial of a run; ConfigError when the folder holds none. A trial.json that
    cannot be read, or that is not its folder's own (see :func:`iter_records`), counts as an
    infra-error trial saying why (named by its folder); one whose analysis sections (process
    metrics, rules) are malformed is read without them, with a note."""
    return list(
        iter_records(
            run_dir,
            notes,
            planned,
            none_is_empty=none_is_empty,
            strict_annotations=strict_annotations,
        )
    )


def iter_records(
    run_dir: Path,
    notes: list[str] | None = None,
    planned: Sequence[TrialKey] | None = None,
    *,
    none_is_empty: bool = False,
    strict_annotations: bool = False,
) -> Iterator[TrialRecord]:
    """:func:`load_records` one record at a time, for a caller that never needs them all at
    once (the findings ledger, over a run of many thousands of trials). A record that is not
    its folder's own (moved or copied by hand: it names another trial, or, given the
    ``planned`` cells, a trial the run never planned) counts as an infra-error of its folder's
    trial, with a note naming the file. A run folder (its run.json and resolved.json there)
    without any trial record (stopped before its first trial ended) is a ConfigError saying
    so, or, with ``none_is_empty``, no record. An ``annotations.json`` that does not read is
    a note (the run read without the marks), or, with ``strict_annotations``, a ConfigError:
    a command whose result a person's ``failed`` mark changes (``report``, ``compare``)
    refuses rather than count the run without it."""
    notes = notes if notes is not None else []
    paths = RunPaths(run_dir)
    trial_files, unusable = paths.trial_jsons(), paths.unusable_trial_jsons()
    if not trial_files and not unusable:
        if paths.run_json.is_file() and paths.resolved_json.is_file():
            if none_is_empty:
                return
            manifest = _optional(paths.run_json, RunManifest, [])
            hint = f" (`proctor run --resume {run_dir}` runs them)"
            if manifest is not None and manifest.by_eval:  # it cannot be resumed
                hint = f"; {manifest.finish_hint(run_dir)}"
            raise ConfigError(
                f"{run_dir}: no trial of this run has a record: it was stopped before its "
                f"first trial ended{hint}"
            )
        above = runs_below(run_dir) or no_run_in(run_dir)
        if above is not None:  # `proctor report proctor-results`, a level or two too high
            raise ConfigError(f"{run_dir}: {above}")
        holder = run_holding(run_dir)
        if holder is not None:  # `proctor report RUN/trials/CASE/AGENT/COND/1`, too deep
            raise ConfigError(
                f"{run_dir}: a folder inside the run folder {holder}, not a run folder; name "
                "the run folder"
            )
        lost = _runs_without_manifest(run_dir)
        if lost is not None:  # `proctor report proctor-results`, its run's run.json gone
            raise ConfigError(f"{run_dir}: {lost}")
        raise ConfigError(f"{run_dir}: no trials/*/*/*/*/trial.json found; is this a run folder?")
    marks = {a.trial: a for a in _marks_of(run_dir, notes, strict_annotations).annotations}
    cells = set(planned or ())
    for path in unusable:
        kind = "a link" if path.is_symlink() else "a folder" if path.is_dir() else "not a file"
        notes.append(f"{path}: {kind}, not a record; counted as an infra-error")
        why = {"a link": "a link, not a file of the run's own", "a folder": "a folder, not a file"}
        yield _annotated(_lost(path, f"{UNREADABLE}: {path}: {why.get(kind, kind)}"), marks)
    for path in trial_files:
        try:
            record, dropped = read_trial(path)
        except SchemaVersionError:
            raise
        except ConfigError as exc:
            notes.append(f"{exc}; counted as an infra-error")
            record = _lost(path, f"{UNREADABLE}: {exc}")
        else:
            if dropped:
                notes.append(f"{path}: malformed {', '.join(dropped)} left out")
            misplaced = _misplaced(path, record, cells)
            if misplaced is not None:
                notes.append(
                    f"{path}: the record of trial {trial_id(record)}, {misplaced}; counted as "
                    "an infra-error of its folder's trial"
                )
                record = _lost(path, f"{MISPLACED} {trial_id(record)}, {misplaced}")
        yield _annotated(record, marks)


def _runs_without_manifest(folder: Path) -> str | None:
    """What is said of ``folder``, which holds no trial record of its own, when run folders in
    it hold trial records but no ``run.json`` (a results directory whose run lost it): those
    folders, with how many trials each holds, and to name one (a run folder named is read
    without its run.json); None when none does."""
    found = []
    for trials in sorted(folder.glob("*/trials/")):
        run = trials.parent
        if not (run / "run.json").exists() and (held := sum(1 for _ in run.glob(TRIAL_RECORDS))):
            found.append((run, held))
    if not found:
        return None
    if len(found) == 1:
        ((run, held),) = found
        return (
            f"a results directory whose run folder {run} has no run.json but holds "
            f"{plural(held, 'trial record')}; name that run folder to read them"
        )
    listed = ", ".join(f"{run} ({held})" for run, held in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (
        f"a results directory whose run folders have no run.json but hold trial records "
        f"({listed}{more}); name one of them to read its trials"
    )


def _misplaced(path: Path, record: TrialRecord, planned: set[TrialKey]) -> str | None:
    """Why ``record`` is not the record of the trial folder ``path`` is in, or None. Each
    folder holds one record, so a record that names its own folder duplicates no other (two
    folders whose names read alike once a secret is masked are two trials)."""
    folder = path.parent.parts[-4:]
    named = (record.case, record.agent, record.condition, str(record.repeat))
    if not all(_same_name(n, f) for n, f in zip(named, folder, strict=True)):
        return "in another folder"
    key = _key(record)
    from_folder = (*folder[:3], record.repeat)
    if planned and key not in planned and from_folder not in planned:
        return "which the run did not plan"
    return None


def _same_name(recorded: str, folder: str) -> bool:
    """Whether a record's name is its folder's: as written, or as it reads once written
    (a byte that is not UTF-8 escaped, a secret masked as ``***``)."""
    shown = escape_surrogates(folder)
    if recorded in (folder, shown):
        return True
    if MASK not in recorded:
        return False
    pattern = ".+".join(re.escape(part) for part in recorded.split(MASK))
    return re.fullmatch(pattern, shown, flags=re.DOTALL) is not None


def _key(record: TrialRecord) -> TrialKey:
    return (record.case, record.agent, record.condition, record.repeat)


def trial_id(record: TrialRecord) -> str:
    return f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"


def read_annotations(
    run_dir: Path, notes: list[str] | None = None, *, strict: bool = False
) -> AnnotationsRecord:
    """The run's ``annotations.json`` (empty when there is none; unreadable: a note, or the
    ConfigError itself when ``strict``)."""
    path = RunPaths(run_dir).annotations
    if not path.exists():
        return AnnotationsRecord()
    try:
        return read_record(path, AnnotationsRecord)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        if strict:
            raise
        if notes is not None:
            notes.append(f"{exc}; the run is read without its annotations")
        return AnnotationsRecord()


def _marks_of(run_dir: Path, notes: list[str], strict: bool) -> AnnotationsRecord:
    if not strict:
        return read_annotations(run_dir, notes)
    try:
        return read_annotations(run_dir, strict=True)
    except ConfigError as exc:
        raise ConfigError(
            f"{exc}; nothing was recomputed, as the marks it holds would be left out: mend it, "
            "or move it away to read the run without them"
        ) from exc


def apply_annotations(
    records: list[TrialRecord], annotations: AnnotationsRecord
) -> list[TrialRecord]:
    """Each annotated trial as the person said: ``failed`` counts as a failure (score 0),
    ``excluded`` leaves the statistics (status ``skipped``); both keep the note."""
    marks = {a.trial: a for a in annotations.annotations}
    return [_annotated(record, marks) for record in records]


def annotator(annotations: AnnotationsRecord) -> Callable[[TrialRecord], TrialRecord]:
    """:func:`apply_annotations` for one record at a time."""
    marks = {a.trial: a for a in annotations.annotations}
    return lambda record: _annotated(record, marks)


def _annotated(record: TrialRecord, marks: Mapping[str, TrialAnnotation]) -> TrialRecord:
    mark = marks.get(trial_id(record))
    if mark is None:
        return record
    if mark.verdict == "failed":
        update = {"status": "failed", "passed": False, "score": 0.0}
        reason = f"annotated failed: {mark.note} (was {record.status}: {record.reason})"
    else:
        update = {"status": "skipped", "passed": None, "score": None}
        reason = f"annotated excluded: {mark.note} (was {record.status}: {record.reason})"
    was = {"reason": reason, "annotation": mark, "status_before_annotation": record.status}
    return record.model_copy(update={**update, **was})


def reason_before_annotation(record: TrialRecord) -> str | None:
    """The reason the trial ended with before a person's mark replaced it; None for a trial
    no mark changed."""
    mark, was = record.annotation, record.status_before_annotation
    if mark is None or was is None:
        return None
    prefix = f"annotated {mark.verdict}: {mark.note} (was {was}: "
    if record.reason.startswith(prefix) and record.reason.endswith(")"):
        return record.reason[len(prefix) : -1]
    return None


def _optional(path: Path, model: type[R], notes: list[str]) -> R | None:
    if not path.exists():
        return None
    try:
        return read_record(path, model)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        notes.append(f"{exc}; read without it")
        return None


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
    manifest = _optional(paths.run_json, RunManifest, notes)
    lost = missing_records(paths, manifest, {_key(r) for r in records}, planned, notes)
    records += [compact(r) for r in lost] if compact_records else lost
    suite = _optional(paths.suite_json, SuiteRecord, notes)
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


def missing_records(
    paths: RunPaths,
    manifest: RunManifest | None,
    found: Collection[TrialKey],
    planned: Sequence[TrialKey] | None = None,
    notes: list[str] | None = None,
) -> list[TrialRecord]:
    """A stand-in infra-error record for each trial a finished run planned (``planned``, else
    read from its ``resolved.json``) that is not among the ``found`` records, its trial.json
    not in its folder (removed by hand): a run that finished is not one that was stopped,
    and a trial taken out of it must not leave the rest to pass without it. None for a run
    that did not finish, or was interrupted. A plan read here that does not read is said in
    ``notes``, when given (see :func:`planned_cells`)."""
    if manifest is None or manifest.finished_at is None or manifest.interrupted:
        return []
    if planned is None:  # (a plan that does not read: said in the notes, when given)
        planned = planned_cells(paths.root, notes)
    notes = notes if notes is not None else []
    lost = [cell for cell in planned if cell not in found]
    for case, agent, condition, repeat in lost:
        folder = paths.trial(case, agent, condition, repeat).root
        notes.append(f"{folder}: no trial.json, in a run that finished; counted as an infra-error")
    reason = f"{MISSING}: the run finished, and this trial's record is not in its folder"
    return [
        TrialRecord(
            case=case,
            agent=agent,
            condition=condition,
            repeat=repeat,
            status="infra-error",
            reason=reason,
        )
        for case, agent, condition, repeat in lost
    ]


def missing_of(
    run_dir: Path,
    records: Sequence[TrialRecord],
    notes: list[str],
    planned: Sequence[TrialKey] | None = None,
) -> list[TrialRecord]:
    """:func:`missing_records` of a run folder whose records were read by the caller (as
    :func:`load_run` adds them): a stand-in infra-error for each trial its finished run planned
    (``planned``, when the caller read it: see :func:`planned_cells`) that has no record."""
    paths = RunPaths(run_dir)
    manifest = _optional(paths.run_json, RunManifest, notes)
    return missing_records(paths, manifest, {_key(r) for r in records}, planned, notes)


def stored_run(run_dir: Path, records: list[TrialRecord]) -> StoredRun:
    """A run folder whose records the caller read, with its manifest (``run.json``, when it
    can be read: the caller's reader notes what it could not read), so that
    :attr:`StoredRun.stopped_short` says whether the run finished (and
    :attr:`StoredRun.running_pid` whether it is still running)."""
    paths = RunPaths(run_dir)
    manifest = _optional(paths.run_json, RunManifest, [])
    # Without its run.json, its suite.json says whether it was interrupted.
    suite = _optional(paths.suite_json, SuiteRecord, []) if manifest is None else None
    return with_process(StoredRun(paths, records, manifest, suite=suite))


def planned_cells(run_dir: Path, notes: list[str] | None = None) -> list[tuple[str, str, str, int]]:
    """The trials a stored run planned (see :attr:`StoredRun.cells`); none without its
    ``resolved.json`` (a run not yet planned). Given ``notes``, a ``resolved.json`` that is
    there and does not read (not JSON, not valid, of a newer proctor's schema) is said in them,
    with what is left out for want of the plan (its trials that have no record: never run, or
    their trial.json removed), and none are given. Without ``notes``, it is raised, its
    ConfigError (or SchemaVersionError) naming the file and saying it holds the run's plan: a
    plan that does not read is not one that planned nothing."""
    path = RunPaths(run_dir).resolved_json
    try:
        resolved = read_record(path, ResolvedRecord)
    except (ConfigError, SchemaVersionError) as exc:
        if not path.exists():
            return []
        if notes is None:  # (of its kind: a newer schema stays a SchemaVersionError)
            said = f"{exc}; it holds the run's plan, which trials it planned"
            kind = SchemaVersionError if isinstance(exc, SchemaVersionError) else ConfigError
            raise kind(said) from exc
        notes.append(
            f"{exc}; it holds the run's plan: the trials the run planned that have no "
            "record (not run, or their trial.json removed) are left out, not listed as "
            "incomplete pairs nor counted as infra-errors"
        )
        return []
    return StoredRun(RunPaths(run_dir), [], resolved=resolved).cells


def check_own_gate(
    suite: SuiteRecord,
    records: Iterable[TrialRecord],
    cells: Iterable[tuple[str, str, str, int]],
    pooled: bool = False,
) -> None:
    """A ConfigError (exit 2) for a run whose own A/B gate (its ``resolved.json``'s
    ``gate.ab``, the first run's of several) names a condition the runs neither ran nor
    planned (a ``resolved.json`` edited by hand, or of another run): the gate could only fail
    for want of a pair, which would read as a regression; `proctor compare RUN` refuses it
    alike, and so does :func:`proctor.recompute_run` of the run without a ``config``. A
    condition planned and never reached is gated on, and fails."""
    from proctor.report.ab.choose import gate_missing

    ab = suite.gate.ab
    if ab is None:
        return
    names = {r.condition for r in records} | {cell[2] for cell in cells}
    said = gate_missing(
        (ab.treatment, ab.baseline), names, "the first run's" if pooled else "the run's"
    )
    if said is not None:
        raise ConfigError(
            f"{said}, so it could only fail; `proctor report RUN --config FILE` applies "
            "another file's gate"
        )


def config_gate(config: Path) -> Gate | None:
    """The gate a configuration file holds; None when it holds none."""
    top, _ = load_top_config(config, None)  # (a path given: the current folder is not read)
    return top.gate


def gate_from(
    config: Path, records: list[TrialRecord], cells: Iterable[tuple[str, str, str, int]] = ()
) -> tuple[Gate, bool]:
    """The gate of another configuration file, checked against the conditions that ran or
    were planned (``cells``, the run's matrix: a run stopped before a condition ran has it),
    and whether the file holds one (when not, the gate is proctor's default)."""
    held = config_gate(config)
    gate = applied_gate(held)
    ran = {r.condition for r in records} | {cell[2] for cell in cells}
    for name in (gate.ab.treatment, gate.ab.baseline) if gate.ab is not None else ():
        if name not in ran:
            raise ConfigError(
                f"{config}: field 'gate.ab': condition '{name}' is not in this run "
                f"(conditions: {', '.join(sorted(ran))})"
            )
    return gate, held is not None


Relabel = Callable[[list[TrialRecord]], list[TrialRecord]]


def recompute(
    run_dir: Path | str,
    config: Path | None = None,
    labels: Relabel | None = None,
    *,
    compact_records: bool = False,
    strict_annotations: bool = False,
) -> tuple[StoredRun, SuiteRecord]:
    """The stored run and its aggregate recomputed from its trials (with the gate of
    ``config`` when given, else the run's own; ``labels`` rewrites the trials' labels). With
    ``compact_records`` the run's records are compact stand-ins (see :func:`load_run`)."""
    root = Path(run_dir)
    run = load_run(
        root,
        need_gate=config is None,
        compact_records=compact_records and labels is None,
        strict_annotations=strict_annotations,
    )
    if labels is not None:
        run.records = labels(run.records)
        if compact_records:
            run.records = [compact(r) for r in run.records]
    gate, held = (
        gate_from(config, run.records, run.cells) if config is not None else (run.gate, True)
    )
    wall = run_wall(run)
    suite = aggregate(
        run.records,
        gate,
        run_id=run_name(run),
        skipped_cases=run.skipped_cases,
        interrupted=run.stopped_short,
        planned=run.planned,
        unrecorded=run.stopped_short and unrecorded(run.paths.journal, run.cells, run.records),
        wall_ms=wall[0],
        cells=run.cells,
        wall_lower_bound=wall[1],
        wall_session=run.manifest is not None and run.manifest.by_record,
    )
    own = run.gate if run.resolved is not None else None
    if config is not None and own != gate:  # the report says its gate is not the run's own
        source = GateFrom(config=str(config), run_gate=own, no_gate=not held)
        suite = suite.model_copy(update={"gate_from": source})
    return run, suite


def run_wall(run: StoredRun) -> tuple[float | None, bool]:
    """The run's wall time in milliseconds, and whether it is a lower bound. Its journal's
    stretches (the first run and each ``--resume``) give it: ``suite.json``'s when the last
    stretch wrote it as it finished (it counts the earlier ones from the journal too), else
    their sum, which a resume killed after it (``suite.json`` is then stale) or a run killed
    before it wrote one needs. A stretch its orchestrator did not finish (killed, or running
    still) counts to the last line it wrote: the time is then a lower bound. A run without a
    journal has ``suite.json``'s. A run of ``proctor record`` has its session's span."""
    if run.manifest is not None and run.manifest.by_record:
        return session_span(run.records), False
    return wall_of(run.suite, run.paths.journal)


def session_span(records: Sequence[TrialRecord]) -> float | None:
    """The wall time of a run of ``proctor record``: its session's, from its transcript's
    first to its last time (its trial's ``timings``), not the time the recording took; None
    when the transcript gives no times."""
    spans = [r.timings.total_ms for r in records if r.timings.started_at is not None]
    return round(sum(spans), 3) if spans and len(spans) == len(records) else None


def wall_of(
    suite: SuiteRecord | None, journal: Path, manifest: RunManifest | None = None
) -> tuple[float | None, bool]:
    """:func:`run_wall` of a run's ``suite.json`` (None when it has none), journal and
    ``run.json``."""
    recorded = suite.totals if suite is not None else None
    if manifest is not None and manifest.by_record:  # the session's span, as record wrote it
        return (recorded.wall_ms if recorded is not None else None), False
    try:
        spans = stretches(journal)
    except OSError:  # not a regular file, or unreadable: as a run without a journal
        spans = []
    if not spans:
        return (recorded.wall_ms, recorded.wall_lower_bound) if recorded else (None, False)
    cut = any(not s.finished for s in spans)
    if spans[-1].finished and recorded is not None and recorded.wall_ms is not None:
        return recorded.wall_ms, cut
    return round(sum(s.ms for s in spans), 3), cut


def run_name(run: StoredRun) -> str:
    """The run's id as its ``run.json`` records it (a folder renamed, copied, or reached
    through a link such as ``latest`` keeps it), else its folder's name."""
    manifest = run.manifest
    return manifest.run_id if manifest is not None and manifest.run_id else run.paths.root.name
