"""Where a trial of a run stands, as the Trial page follows it: planned and not started,
running, done, or never started because its run stopped; and a cheap fingerprint of what
the followed page shows, so a poll that finds nothing changed is answered 304 without
reading the run's plan or rendering anything."""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from proctor.errors import ConfigError, SchemaVersionError
from proctor.paths import RunPaths, TrialPaths
from proctor.report.planned import planned_cells
from proctor.view.confine import run_folder, trial_folder
from proctor.view.index import ResultsIndex

TrialState = Literal["pending", "running", "done", "stopped"]

_Stat = tuple[int, int, int] | None
_plans: dict[Path, tuple[_Stat, frozenset[str], str | None]] = {}
_plans_lock = threading.Lock()
KEPT_PLANS = 16
"""Runs whose planned trials are kept in memory (read again only when ``resolved.json``
changes)."""


def _stat(path: Path) -> _Stat:
    """What tells one version of a file from another (None for no file)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def planned_keys(run_dir: Path) -> frozenset[str]:
    """The keys (``case/agent/condition/repeat``) of the trials the run's ``resolved.json``
    plans; the file is read again only when its size, time or inode changed. Empty for a plan
    that does not read: :func:`plan_problem` says why."""
    return _plan(run_dir)[1]


def plan_problem(run_dir: Path) -> str | None:
    """Why the run's ``resolved.json`` (its plan) does not read, as one sentence naming the
    file; None when it reads or is not there (a run not yet planned)."""
    return _plan(run_dir)[2]


def _plan(run_dir: Path) -> tuple[_Stat, frozenset[str], str | None]:
    path = RunPaths(run_dir).resolved_json
    stamp = _stat(path)
    with _plans_lock:
        kept = _plans.get(path)
        if kept is not None and kept[0] == stamp:
            return kept
    try:
        cells = planned_cells(run_dir)
        problem = None
    except (ConfigError, SchemaVersionError) as exc:
        cells, problem = [], str(exc)
    plan = (stamp, frozenset(f"{c}/{a}/{cond}/{r}" for c, a, cond, r in cells), problem)
    with _plans_lock:
        _plans[path] = plan
        while len(_plans) > KEPT_PLANS:
            _plans.pop(next(iter(_plans)))
    return plan


def trial_state(index: ResultsIndex, run: str, key: str) -> TrialState | None:
    """Where a trial stands: ``"pending"`` (planned by a run in progress, not started: no
    folder yet), ``"running"`` (a folder, no record yet, its run in progress), ``"done"`` (its
    record is written, or its run is over) or ``"stopped"`` (planned, no folder, and its run
    is over: it stopped before this trial started); None for a trial the run does not know."""
    index.refresh()
    run_dir, row = run_folder(index, run), index.run_row(run)
    if run_dir is None or row is None:
        return None
    folder = trial_folder(index, run, key)
    if folder is None:
        if key not in planned_keys(run_dir):
            return None
        return "pending" if row["in_progress"] else "stopped"
    if not row["in_progress"] or os.path.lexists(TrialPaths(folder).trial_json):
        return "done"
    return "running"


def _listing(folder: Path) -> list[str]:
    """Each entry of the folder (and of its ``evaluators`` folder) with its inode, size and
    time."""
    found = []
    for where in (folder, folder / "evaluators"):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            # (its inode too: a file replaced by a rename, of the same size, in one tick)
            found.append(f"{where.name}/{entry.name} {st.st_ino} {st.st_size} {st.st_mtime_ns}")
    return found


def fingerprint(index: ResultsIndex, run: str, key: str, query: str) -> str | None:
    """An ETag for the followed part of a trial's page: it changes whenever any file of the
    trial changes (its folder made: it started; its ``trial.json`` written: it ended), the run
    stops or ends, or its plan changes; None for a run the index does not know. Other trials
    of the run starting or ending leave it as it was (a poll of a busy run is still a 304).
    Reading it costs a few ``stat`` calls, no file is read."""
    found = _run_of(index, run)
    if found is None:
        return None
    run_dir, row = found
    folder = trial_folder(index, run, key)
    shown = _listing(folder) if folder is not None else ["no folder"]
    return _etag(run_dir, row, run, key, query, *shown)


def _run_of(index: ResultsIndex, run: str) -> tuple[Path, Any] | None:
    """The run's folder and index row, the index refreshed first; None for a run it does not
    know."""
    index.refresh()
    row = index.run_row(run)
    run_dir = run_folder(index, run)
    return None if row is None or run_dir is None else (run_dir, row)


def _etag(run_dir: Path, row: Any, *parts: str) -> str:
    """An ETag of ``parts`` and of what any page of the run follows: whether the run is in
    progress, and its plan's file."""
    stamp = repr(_stat(RunPaths(run_dir).resolved_json))
    text = "\n".join((*parts, str(row["in_progress"]), stamp))
    return f'"{hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]}"'


def _groups(run_dir: Path) -> list[str]:
    """Each case, agent and condition folder under ``trials`` with its time: a trial's folder
    made or removed changes its condition folder's (one ``stat`` a group, none a trial)."""
    found: list[str] = []

    def walk(path: Path, depth: int) -> None:
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append(f"{depth} {entry.name} {st.st_ino} {st.st_mtime_ns}")
            if depth < 3:
                walk(Path(entry.path), depth + 1)

    walk(RunPaths(run_dir).trials_dir, 1)
    return found


def run_fingerprint(index: ResultsIndex, run: str, query: str) -> str | None:
    """An ETag for the followed part of a run's page: it changes whenever the run's record of
    its progress (its signature: the journal notes each trial that starts or ends), its plan,
    or a group's folder of trials (a trial's folder made) changes; None for a run the index
    does not know. It costs a ``stat`` a group of trials: no trial's folder is listed."""
    found = _run_of(index, run)
    if found is None:
        return None
    run_dir, row = found
    groups = _groups(run_dir) if row["in_progress"] else []
    return _etag(run_dir, row, run, query, str(row["signature"]), *groups)


def not_started(run_dir: Path, seen: Iterable[str]) -> list[tuple[str, list[str]]]:
    """The trials the run's ``resolved.json`` plans that are not among ``seen`` (those with a
    record, and those running), by case, each case's in matrix order (repeats by number):
    never started, or not started yet."""
    left = planned_keys(run_dir) - set(seen)
    by_case: dict[str, list[str]] = {}
    for key in sorted(left, key=_order):
        by_case.setdefault(key.split("/", 1)[0], []).append(key)
    return list(by_case.items())


def _order(key: str) -> tuple[str, int]:
    group, _, repeat = key.rpartition("/")
    return (group, int(repeat) if repeat.isdigit() else 0)


RUNNING_SHOWN = 20
"""The running trials a Run page names at most (a run's concurrency is seldom more)."""


def running_trials(run_dir: Path) -> list[str]:
    """The keys of the run's trials that have a folder and no ``trial.json`` yet: those of a
    run in progress are running (the index lists a trial once its record is written)."""
    trials = RunPaths(run_dir).trials_dir
    found: list[str] = []

    def folders(path: Path) -> list[Path]:
        try:
            return sorted(p for p in path.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            return []

    for case in folders(trials):
        for agent in folders(case):
            for condition in folders(agent):
                for repeat in folders(condition):
                    if not os.path.lexists(TrialPaths(repeat).trial_json):
                        found.append("/".join(repeat.relative_to(trials).parts))
    return found
