"""A run given twice to a command that pools runs (``report``, ``compare``): refused, as its
trials would count twice and narrow every interval."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError, ProctorError
from proctor.models.io import read_record
from proctor.models.run import RunManifest
from proctor.models.trial import BY_HAND, TrialRecord
from proctor.paths import RunPaths


def check_distinct(run_dirs: Sequence[Path]) -> None:
    """Each run given once: a run given twice would count its trials twice and narrow every
    interval. A ConfigError (exit 2) naming it."""
    seen: dict[str, Path] = {}
    for run_dir in run_dirs:
        # The folder, and the run it holds: a copy of a run folder is the same run.
        keys = [os.path.realpath(run_dir)]
        run_id = _run_id(run_dir)
        if run_id is not None:
            keys.append(f"run:{run_id}")
        for key in keys:
            if key in seen:
                also = f" (also as {seen[key]})" if str(seen[key]) != str(run_dir) else ""
                raise ConfigError(
                    f"{run_dir}: the same run is given twice{also}; give each run once, or its "
                    "trials would count twice"
                )
        for key in keys:
            seen[key] = run_dir


def check_no_trial_twice(run_dirs: Sequence[Path], per_run: Sequence[list[TrialRecord]]) -> None:
    """No trial read in two of the runs: a copy of a run folder whose ``run.json`` is gone
    (renamed, edited, or left out of a copy) is the same run, told by its trials, which
    carry the times they took to the microsecond; a session a person drove, recorded twice,
    is told by its agent's session id. A ConfigError (exit 2) naming both."""
    seen: dict[tuple[Any, ...], Path] = {}
    for run_dir, records in zip(run_dirs, per_run, strict=True):
        mine: set[tuple[Any, ...]] = set()
        for record in records:
            timings = record.timings
            if not timings.total_ms and record.session_id is None:
                continue  # a trial that never ran: nothing tells it apart
            # A recorded session is told by its agent's session id (and the times its
            # transcript gives, when it gives any).
            trial = f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"
            mark = (trial, timings.total_ms, timings.agent_ms, record.session_id)
            other = seen.get(mark)
            if other is not None:
                by_hand = record.session_id is not None and record.reason.endswith(BY_HAND)
                same = (
                    f"the same session, {record.session_id}, recorded in both"
                    if by_hand or not timings.total_ms
                    else "the same trial, to the microsecond of its time"
                )
                raise ConfigError(
                    f"{run_dir}: trial {trial} is also in {other} ({same}): the same run is "
                    "given twice; give each run once, or its trials would count twice"
                )
            mine.add(mark)
        seen.update(dict.fromkeys(mine, run_dir))


def _run_id(run_dir: Path) -> str | None:
    try:
        return read_record(RunPaths(run_dir).run_json, RunManifest).run_id
    except (ProctorError, OSError):
        return None
