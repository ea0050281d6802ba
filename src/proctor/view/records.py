"""What the index keeps of a run and of a trial, read from the records on disk (the records
stay the source of truth; these rows are a cache of them)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path, PurePath

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import R, escape_surrogates, read_record, read_trial
from proctor.models.journal import alive, orchestrator
from proctor.models.run import RunManifest
from proctor.models.suite import SuiteRecord
from proctor.models.trial import SCORED_STATUSES, TrialRecord
from proctor.paths import GENERATED_SOURCES, RunPaths
from proctor.report.annotations import apply_annotations, read_annotations
from proctor.report.effort import cost_rollup
from proctor.report.planned import missing_records
from proctor.report.run_wall import wall_of
from proctor.report.trial_records import TrialKey
from proctor.view.stored import stale_aggregate


@dataclass(frozen=True)
class TrialRow:
    run: str
    key: str
    """``case/agent/condition/repeat``, the trial's folder under ``trials/``."""
    case: str
    agent: str
    condition: str
    repeat: int
    status: str
    passed: bool | None
    score: float | None
    reason: str
    total_ms: float
    agent_ms: float
    harness_ms: float
    tool_calls: int
    tokens: int
    cost_usd: float | None
    tags: tuple[str, ...]
    spent_usd: float | None = None
    """The trial's share of its run's cost, as ``proctor report`` sums it (retried attempts
    included; 0 for a trial that never reached its agent); None when it is unknown."""
    warnings: tuple[str, ...] = ()
    """What the trial noticed that decides nothing (``trial.json``'s ``warnings``)."""


@dataclass(frozen=True)
class RunFacts:
    """A run's manifest, aggregate and liveness, as read from its folder."""

    name: str
    manifest: RunManifest | None
    suite: SuiteRecord | None
    in_progress: bool
    problem: str | None
    """Why a record of the run could not be read (shown on its page), else None."""
    manifest_problem: str | None = None
    """Why ``run.json`` is there and does not read (damaged, half-written, a link), as one
    sentence starting ``run.json: ``; None when it reads or is not there."""
    wall: tuple[float | None, bool] = (None, False)
    """Its wall time in milliseconds and whether it is a lower bound, as ``proctor report``
    tells them (from the journal's stretches: see :func:`proctor.report.run_wall.run_wall`)."""
    source: str | None = None
    """What the run ran, as the pages name it (see :func:`ran_source`)."""


def ran_source(run_dir: Path, manifest: RunManifest | None) -> str | None:
    """The source a person ran: the manifest's ``source``; of a run of the cases proctor
    writes into the results directory (``proctor eval``'s ``evals-src/<timestamp>``), the
    suite it recorded, whole (it is kept relative to the folder holding the results
    directory), and the eval files it ran: ``/work/app/evals (builds/index.eval.py)``."""
    if manifest is None or not manifest.source:
        return None
    if PurePath(manifest.source).parent.name not in GENERATED_SOURCES:
        return manifest.source
    suite = manifest.suite
    if not suite or suite in GENERATED_SOURCES:  # an inline --prompt run: no other source
        return manifest.source
    if not PurePath(suite).is_absolute():
        suite = (Path(os.path.realpath(run_dir)).parent.parent / suite).as_posix()
    files = ", ".join(manifest.eval_files)
    return f"{suite} ({files})" if files else suite


def trial_row(run: str, record: TrialRecord) -> TrialRow:
    tokens = sum(u.total_tokens for u in record.usage.values())
    return TrialRow(
        run=run,
        key=f"{record.case}/{record.agent}/{record.condition}/{record.repeat}",
        case=record.case,
        agent=record.agent,
        condition=record.condition,
        repeat=record.repeat,
        status=record.status,
        passed=record.passed,
        score=record.score,
        reason=record.reason,
        total_ms=record.timings.total_ms,
        agent_ms=record.timings.agent_ms,
        harness_ms=record.timings.harness_ms,
        tool_calls=record.tool_calls,
        tokens=tokens,
        cost_usd=record.cost.total_usd,
        tags=tuple(record.tags),
        spent_usd=cost_rollup([record])[0],
        warnings=tuple(record.warnings),
    )


def read_trial_rows(run_dir: Path, paths: list[Path]) -> list[TrialRow]:
    """Rows for the given ``trial.json`` files of a run, with the run's annotations applied; a
    file that cannot be read becomes an ``infra-error`` row saying why."""
    records: list[TrialRecord] = []
    for path in paths:
        try:
            record, _ = read_trial(path)
        except (ConfigError, SchemaVersionError) as exc:
            case, agent, condition, repeat = path.parent.parts[-4:]
            record = TrialRecord(
                case=case,
                agent=agent,
                condition=condition,
                repeat=int(repeat) if repeat.isdigit() else 0,
                status="infra-error",
                reason=f"unreadable trial.json: {exc}",
            )
        records.append(record)
    try:
        annotations = read_annotations(run_dir)
    except SchemaVersionError:
        annotations = None
    if annotations is not None:
        records = apply_annotations(records, annotations)
    return [
        replace(trial_row(run_dir.name, record), key=folder_key(run_dir, path))
        for path, record in zip(paths, records, strict=True)
    ]


MISSING_STAMP = "missing"
"""The stamp of a trial's row that stands in for a record missing from a finished run."""


def missing_rows(
    run_dir: Path,
    facts: RunFacts,
    found: set[TrialKey],
    keys: set[str],
    problems: list[str] | None = None,
) -> list[TrialRow]:
    """An infra-error row for each trial a finished run planned whose record is not among
    ``found`` (case, agent, condition, repeat), as ``proctor report`` counts it; a folder
    with a record of its own (one of ``keys``) is never replaced by one. A ``resolved.json``
    that does not read (the plan) is said in ``problems``, its trials without a record left
    out (see :func:`proctor.report.planned.planned_cells`)."""
    lost = missing_records(RunPaths(run_dir), facts.manifest, found, notes=problems)
    rows = [trial_row(run_dir.name, record) for record in lost]
    return [row for row in rows if row.key not in keys]


def folder_key(run_dir: Path, trial_json: Path) -> str:
    """``case/agent/condition/repeat`` of a ``trial.json``, from its folder; a byte of a
    folder's name that is not UTF-8 written ``\\xe9``, as the trial's record names its case
    (SQLite holds no lone surrogate)."""
    return escape_surrogates("/".join(trial_json.parent.relative_to(run_dir / "trials").parts))


def run_facts(run_dir: Path) -> RunFacts:
    paths = RunPaths(run_dir)
    problems: list[str] = []
    manifest = _optional(paths.run_json, RunManifest, problems)
    manifest_problem = _named_by_file(problems[0], paths.run_json) if problems else None
    # As the run wrote it: the index is refreshed under its lock, and recomputing a run a
    # person annotated (every trial read again) would hold every page for seconds. The run's
    # own page shows the figures with the marks applied (see view.stored.suite_of).
    suite = _optional(paths.suite_json, SuiteRecord, problems)
    # A run whose run.json records its end is over, unless resumed since: the resume of a
    # stopped run keeps the end (and the suite.json, its exit 130) that run wrote until it
    # ends, and its journal names the process that runs it now. One without its run.json (not
    # written yet: the journal's first line comes just before it) is asked too, as
    # `proctor report` asks.
    live = (
        manifest is None or manifest.finished_at is None or _resumed_since(manifest)
    ) and _orchestrator_alive(paths)
    if live:
        suite = None  # a run in progress has no aggregate yet
    elif (
        suite is not None
        and (manifest is None or manifest.finished_at is None)
        and stale_aggregate(run_dir, suite)
    ):
        suite = None  # stale: it stopped since, as `proctor report` reads it (no exit code)
    if manifest is not None and manifest.finished_at is None and not live and suite is None:
        # How to finish it, as the run page and `proctor report` say it (an eval run is run
        # again, not resumed).
        problems.append(
            "this run did not finish (the process that ran it is gone), so it has no exit "
            f"code: {manifest.finish_hint(run_dir)}"
        )
    return RunFacts(
        run_dir.name,
        manifest,
        suite,
        live,
        "; ".join(problems) or None,
        manifest_problem,
        wall_of(suite, paths.journal, manifest),
        ran_source(run_dir, manifest),
    )


def _resumed_since(manifest: RunManifest) -> bool:
    """Whether the run was resumed after the end its ``run.json`` records (both ISO times as
    proctor writes them, which compare as text)."""
    ended = manifest.finished_at
    return ended is not None and any(start > ended for start in manifest.resumed_at)


def _named_by_file(problem: str, path: Path) -> str:
    """``problem`` about the record at ``path``, naming it by its file's name (``run.json: …``)
    rather than by its whole path: the sentence is the same wherever the results are."""
    whole = f"{path}: "
    rest = problem[len(whole) :] if problem.startswith(whole) else problem
    return f"{path.name}: {rest}"


def _optional(path: Path, model: type[R], problems: list[str]) -> R | None:
    if path.is_symlink():  # a record linked in from elsewhere is not this run's
        problems.append(f"{path}: a link; not read as the run's own")
        return None
    if not path.exists():
        return None
    try:
        return read_record(path, model)
    except (ConfigError, SchemaVersionError) as exc:
        problems.append(str(exc))
        return None


def _orchestrator_alive(paths: RunPaths) -> bool:
    """Whether the process that started (or last resumed) the run still runs it."""
    return alive(orchestrator(paths.journal))


def signature(run_dir: Path) -> str:
    """Changes whenever a file the index reads from the run changes: the manifest, the
    aggregate, the journal (a trial finished), the annotations, the trials folder."""
    paths = RunPaths(run_dir)
    parts = []
    for path in (
        paths.run_json,
        paths.suite_json,
        paths.journal,
        paths.annotations,
        paths.trials_dir,
    ):
        try:
            stat = path.stat()
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{stat.st_mtime_ns}:{stat.st_size}")
    return "|".join(parts)


def scored(status: str) -> bool:
    return status in SCORED_STATUSES
