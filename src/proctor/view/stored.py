"""Records read from a run folder for a page, with the aggregate cached while its files are
unchanged (the run page reads it on every visit)."""

from __future__ import annotations

import threading
from pathlib import Path

from proctor.errors import ConfigError, ProctorError, SchemaVersionError
from proctor.models.io import read_record, read_trial
from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.annotations import apply_annotations, read_annotations
from proctor.report.recompute import recompute
from proctor.report.stored import stored_run

Stamp = tuple[int, int]
_SUITES: dict[Path, tuple[tuple[Stamp, Stamp | None, int], SuiteRecord | None]] = {}
_STOPPED: dict[Path, tuple[str, SuiteRecord | None]] = {}
_LOCK = threading.Lock()


def _stamp(path: Path) -> Stamp | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def suite_of(run_dir: Path, *, missing: int = 0, stopped: str | None = None) -> SuiteRecord | None:
    """The run's aggregate (None while the run is in progress, or when unreadable): its
    ``suite.json``, or, when ``annotations.json`` was written after it (``proctor
    annotate``) or ``missing`` trials have no record it can read (gone from the finished
    run, or a trial.json that does not read), the aggregate recomputed from the trials with
    the marks applied and each such trial an infra-error, as ``proctor report`` recomputes
    it. Cached while both files and the number missing are unchanged.

    ``stopped`` is the index's signature of a run that wrote no ``suite.json`` and that
    nothing runs any more (killed, or its machine stopped): its aggregate is the one
    ``proctor report`` computes from the trials that ran (interrupted, exit code 130),
    cached while the signature holds. So is the aggregate of such a run whose ``suite.json``
    is stale (see :func:`stale_aggregate`)."""
    paths = RunPaths(run_dir)
    written = _stamp(paths.suite_json)
    if written is None:
        return None if stopped is None else _stopped_suite(run_dir, stopped)
    if stopped is not None:
        with _LOCK:
            cached_stop = _STOPPED.get(run_dir)
        if cached_stop is not None and cached_stop[0] == stopped:
            return cached_stop[1]
        try:
            written_suite: SuiteRecord | None = read_record(paths.suite_json, SuiteRecord)
        except (ConfigError, SchemaVersionError):
            written_suite = None
        if written_suite is not None and stale_aggregate(run_dir, written_suite):
            return _stopped_suite(run_dir, stopped)
    marks = _stamp(paths.annotations)
    stamp = (written, marks, missing)
    with _LOCK:
        cached = _SUITES.get(paths.suite_json)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    try:
        suite: SuiteRecord | None = read_record(paths.suite_json, SuiteRecord)
    except (ConfigError, SchemaVersionError):
        suite = None
    if suite is not None and (missing or (marks is not None and marks[0] >= written[0])):
        recomputed = _recomputed(run_dir)
        if recomputed is not None:  # the marks change no finding: the ledger took the run as run
            suite = recomputed.model_copy(update={"findings": suite.findings})
    with _LOCK:
        _SUITES[paths.suite_json] = (stamp, suite)
    return suite


def stale_aggregate(run_dir: Path, suite: SuiteRecord) -> bool:
    """Whether the run's ``suite.json`` (``suite``) says it finished while ``proctor report``
    reads the run as stopped short: of a run without its ``run.json``, a journal that says it
    started again and never wrote its end (a resume killed); of one whose ``run.json``
    records no end, that alone. Its verdict is then the one recomputed from its trials
    (interrupted, exit code 130), as ``proctor report`` gives it."""
    return not suite.interrupted and stored_run(run_dir, []).stopped_short


def _stopped_suite(run_dir: Path, signature: str) -> SuiteRecord | None:
    with _LOCK:
        cached = _STOPPED.get(run_dir)
        if cached is not None and cached[0] == signature:
            return cached[1]
    suite = _recomputed(run_dir)
    with _LOCK:
        _STOPPED[run_dir] = (signature, suite)
    return suite


def _recomputed(run_dir: Path) -> SuiteRecord | None:
    """The aggregate ``proctor report`` computes from the run's trials, annotations applied;
    None when the run cannot be read that way (its ``suite.json`` is shown instead)."""
    try:
        _, suite = recompute(run_dir, compact_records=True)
    except (ProctorError, OSError):
        return None
    return suite


def trial_of(run_dir: Path, trial_dir: Path) -> tuple[TrialRecord | None, str | None]:
    """The trial's record with the run's annotations applied, or None and why not."""
    if (trial_dir / "trial.json").is_symlink():
        return None, "trial.json is a link: not read"
    try:
        record, _ = read_trial(trial_dir / "trial.json")
    except (ConfigError, SchemaVersionError) as exc:
        return None, str(exc)
    try:
        annotations = read_annotations(run_dir)
    except SchemaVersionError as exc:
        return record, str(exc)
    return apply_annotations([record], annotations)[0], None
