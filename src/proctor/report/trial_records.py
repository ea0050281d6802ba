"""Reading a stored run's trial records (``trials/CASE/AGENT/CONDITION/REPEAT/trial.json``),
each as a person's marks leave it: a record that cannot be used (unreadable, a link or a
folder, another trial's) is read as a stand-in infra-error record of its folder's trial,
saying why, so that no trial is silently dropped.

    records = load_records(run_dir, notes)
    [r for r in records if is_stand_in(r)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import R, escape_surrogates, read_record, read_trial
from proctor.models.run import RunManifest
from proctor.models.trial import TrialRecord
from proctor.paths import TRIAL_RECORDS, RunPaths, no_run_in, run_holding, runs_below
from proctor.report.annotations import annotator, read_marks, trial_id
from proctor.util.masking import MASK
from proctor.util.text import plural

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
            manifest = optional_record(paths.run_json, RunManifest, [])
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
    annotate = annotator(read_marks(run_dir, notes, strict_annotations))
    cells = set(planned or ())
    for path in unusable:
        kind = "a link" if path.is_symlink() else "a folder" if path.is_dir() else "not a file"
        notes.append(f"{path}: {kind}, not a record; counted as an infra-error")
        why = {"a link": "a link, not a file of the run's own", "a folder": "a folder, not a file"}
        yield annotate(_lost(path, f"{UNREADABLE}: {path}: {why.get(kind, kind)}"))
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
        yield annotate(record)


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
    key = trial_key(record)
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


def trial_key(record: TrialRecord) -> TrialKey:
    """The trial a record is of: (case, agent, condition, repeat)."""
    return (record.case, record.agent, record.condition, record.repeat)


def optional_record(path: Path, model: type[R], notes: list[str]) -> R | None:
    """The record at ``path``; None when there is none, or when it does not read (said in
    ``notes``: the run is read without it). A newer schema is raised."""
    if not path.exists():
        return None
    try:
        return read_record(path, model)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        notes.append(f"{exc}; read without it")
        return None
