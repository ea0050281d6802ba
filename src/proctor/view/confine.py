"""Paths from requests, confined to the results directory: a run must be one the index
knows, and a file must resolve (symlinks followed) to a place inside its run folder. ``..``,
absolute paths and symlinks leading out are refused. A backslash is an ordinary character of
a name here (a case folder may be named ``back\\slash``), never a separator. A folder whose name
holds bytes that are not UTF-8 is named as the index and the reports show it (``caf\\xe9``)."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from proctor.models.io import unescape_bytes
from proctor.view.index import ResultsIndex


def on_disk(base: Path, relative: str) -> str:
    """``relative``, or, when no such path is there and it holds ``\\xe9``-style escapes of
    bytes that are not UTF-8, the name with those bytes (as Python decodes a file name) when
    that one is."""
    if os.path.lexists(base / relative):
        return relative
    raw = unescape_bytes(relative)
    return raw if raw != relative and os.path.lexists(base / raw) else relative


def inside(base: Path, relative: str) -> Path | None:
    """``base / relative`` when it stays inside ``base`` once resolved, else None."""
    relative = on_disk(base, relative)
    parts = PurePosixPath(relative).parts
    if not relative or relative.startswith("/") or any(p in ("..", "") for p in parts):
        return None
    if "\x00" in relative:
        return None
    try:
        root = base.resolve(strict=True)
        target = (root / relative).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return target if target.is_relative_to(root) else None


def run_folder(index: ResultsIndex, run: str) -> Path | None:
    """The folder of a run the index knows, when it still resolves inside the results; a run
    folder the index has not seen yet (a stable URL of a new run) is looked for after one
    refresh."""
    if index.run_row(run) is None:
        if not (run.startswith("run-") and inside(index.root, run)):
            return None
        index.refresh(force=True)
        if index.run_row(run) is None:
            return None
    return inside(index.root, run)


def trial_folder(index: ResultsIndex, run: str, key: str) -> Path | None:
    """The folder of one trial (``case/agent/condition/repeat``) of a known run."""
    folder = run_folder(index, run)
    if folder is None or len(PurePosixPath(key).parts) != 4:
        return None
    found = inside(folder, f"trials/{key}")
    if found is None or not found.is_dir():  # a stray file is no trial
        return None
    # A linked case, agent, condition or repeat folder is not this run's own trial.
    step = folder / "trials"
    for part in PurePosixPath(on_disk(step, key)).parts:
        step = step / part
        if step.is_symlink():
            return None
    return found
