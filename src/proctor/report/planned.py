"""The plan of a stored run, as its ``resolved.json`` records it: the trials it planned (case,
agent, condition, repeat), and a stand-in infra-error record for each trial a finished run
planned that has no record in its folder (removed by hand), so that a trial taken out of a
finished run does not leave the rest to pass without it.

    cells = planned_cells(run_dir, notes)
    records += missing_of(run_dir, records, notes, cells)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import read_record
from proctor.models.run import ResolvedRecord, RunManifest
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.trial_records import MISSING, TrialKey, optional_record, trial_key

PLAN_HELD = "it holds the run's plan, which trials it planned"
"""What :func:`planned_cells` adds to the error of a plan that does not read, when it raises."""
PLAN_LEFT_OUT = (
    "it holds the run's plan: the trials the run planned that have no record (not run, or "
    "their trial.json removed) are left out, not listed as incomplete pairs nor counted as "
    "infra-errors"
)
"""What :func:`planned_cells` adds to the error of a plan that does not read, in its note."""


def cells_of(resolved: ResolvedRecord | None) -> list[tuple[str, str, str, int]]:
    """The trials a run's ``resolved.json`` says it planned (case, agent, condition, repeat);
    none without it."""
    matrix = resolved.matrix if resolved is not None else []
    return [(c.case, c.agent, c.condition, c.repeat) for c in matrix]


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
    :func:`proctor.report.stored.load_run` adds them): a stand-in infra-error for each trial
    its finished run planned (``planned``, when the caller read it: see
    :func:`planned_cells`) that has no record."""
    paths = RunPaths(run_dir)
    manifest = optional_record(paths.run_json, RunManifest, notes)
    return missing_records(paths, manifest, {trial_key(r) for r in records}, planned, notes)


def planned_cells(run_dir: Path, notes: list[str] | None = None) -> list[tuple[str, str, str, int]]:
    """The trials a stored run planned (see :func:`cells_of`); none without its
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
            said = f"{exc}; {PLAN_HELD}"
            kind = SchemaVersionError if isinstance(exc, SchemaVersionError) else ConfigError
            raise kind(said) from exc
        notes.append(f"{exc}; {PLAN_LEFT_OUT}")
        return []
    return cells_of(resolved)
