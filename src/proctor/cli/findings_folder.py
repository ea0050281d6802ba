"""Which results directory ``proctor findings`` (and its ``dismiss``) reads when none is named:
the one ``proctor run`` writes to, ``out`` of ``./proctor.json``, else ``./proctor-results``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import click

from proctor.models.config import DEFAULT_OUT


class Folder(NamedTuple):
    """A results directory and how it was chosen: ``""`` when named on the command line, else
    a phrase (``the results directory ./proctor.json's out names``, ``the default results
    directory``)."""

    path: Path
    chosen: str = ""


def default_folder() -> Folder:
    """``out`` of ``./proctor.json`` when it sets one (as ``proctor run`` writes there), else
    ``./proctor-results``. A ``./proctor.json`` that does not read is a note on stderr, and the
    default is read."""
    from proctor.errors import ProctorError
    from proctor.models.loading import load_top_config

    try:
        top, found = load_top_config(None, Path.cwd())
    except ProctorError as exc:
        click.echo(f"proctor: note: {exc}; its out is not read: {DEFAULT_OUT} is", err=True)
        return Folder(Path(DEFAULT_OUT), DEFAULT_CHOSEN)
    if top.out and found is not None:
        return Folder(Path(top.out), f"the results directory ./{found.name}'s out names")
    return Folder(Path(DEFAULT_OUT), DEFAULT_CHOSEN)


DEFAULT_CHOSEN = "the default results directory"


def results_folder(given: Path | None) -> Folder:
    """The results directory named (``RESULTS_DIR``, ``--dir``), else :func:`default_folder`;
    a ConfigError (one sentence) when it is none. A default that is no folder says how it was
    chosen and how to name another."""
    from proctor.errors import ConfigError

    folder = Folder(given) if given is not None else default_folder()
    path, chosen = folder
    how = f"; {chosen}" if chosen else ""
    if not path.is_dir():
        what = "a file" if path.exists() else "no such folder"
        hint = "; name the one your runs are in: `proctor findings RESULTS_DIR`" if chosen else ""
        raise ConfigError(f"{path}: not a results directory ({what}{how}){hint}")
    if (path / "run.json").is_file():
        raise ConfigError(
            f"{path}: a run folder; findings live in the results directory that holds it"
        )
    if not (path / "findings.json").exists() and not any(path.glob("run-*")):
        raise ConfigError(
            f"{path}: not a results directory (no run-* folder and no findings.json{how}; "
            "`proctor run --out DIR` makes one)"
        )
    return folder


def other_folders(folder: Folder) -> list[Path]:
    """The results directories a user may mean besides a default one: ``./proctor-results``
    and ``out`` of ``./proctor.json``, those that hold a ledger; none when ``folder`` was
    named."""
    if not folder.chosen:
        return []
    from proctor.errors import ProctorError
    from proctor.models.loading import load_top_config

    candidates = [Path(DEFAULT_OUT)]
    try:
        top, _ = load_top_config(None, Path.cwd())
        if top.out:
            candidates.append(Path(top.out))
    except ProctorError:
        pass  # (said when the default was chosen)
    here = os.path.realpath(folder.path)
    return [
        path
        for path in dict.fromkeys(candidates)
        if os.path.realpath(path) != here and (path / "findings.json").is_file()
    ]


def holding(folders: list[Path], finding: str) -> Path | None:
    """The first of ``folders`` whose ledger names ``finding`` (its whole id, or a prefix of
    one id alone); None when none does or a ledger does not read."""
    from proctor.cli.findings import finding_named
    from proctor.errors import ProctorError
    from proctor.report.findings import load_ledger

    for path in folders:
        try:
            finding_named(load_ledger(path), finding)
        except (ProctorError, ValueError, OSError):
            continue
        return path
    return None
