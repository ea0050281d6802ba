"""Records read from a run folder for a page, with the aggregate cached while its file is
unchanged (the run page reads it on every visit)."""

from __future__ import annotations

import threading
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import read_record, read_trial
from proctor.models.suite import SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.stored import apply_annotations, read_annotations
from proctor.util.files import open_regular

_SUITES: dict[Path, tuple[tuple[int, int], SuiteRecord | None]] = {}
_LOCK = threading.Lock()


def suite_of(run_dir: Path) -> SuiteRecord | None:
    """The run's ``suite.json`` (None while the run is in progress, or when unreadable)."""
    path = RunPaths(run_dir).suite_json
    try:
        stat = path.stat()
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        cached = _SUITES.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    try:
        suite: SuiteRecord | None = read_record(path, SuiteRecord)
    except (ConfigError, SchemaVersionError):
        suite = None
    with _LOCK:
        _SUITES[path] = (stamp, suite)
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


def read_head(path: Path, limit: int) -> tuple[str | None, bool]:
    """The first ``limit`` bytes of a text file (None when absent), and whether it is longer."""
    try:
        with open_regular(path) as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None, False
    return data[:limit].decode("utf-8", errors="replace"), len(data) > limit
