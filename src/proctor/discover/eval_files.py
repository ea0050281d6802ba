"""Where evals written as code are looked for: the ``*.eval.py`` files of a project's
``evals/`` folder and its folders, hidden folders, caches, installed packages and links to
folders aside. ``proctor eval`` imports these files (:mod:`proctor.evals.discover`), and
``proctor run`` names the command that runs them when a ``--source`` holds no case but them
(:func:`proctor.plan.resolve.nothing_runnable`): both look in the same folders."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

SUFFIX = ".eval.py"
NOT_LOOKED_IN = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages"})
"""The folders (beside hidden ones: ``.git``, ``.venv``, ``.tox``) that neither
:func:`eval_files` nor the search for misnamed eval files enters: caches and installed
packages, which hold no eval file a person wrote (a copy of one vendored there is never
imported, so never run)."""


def folders_looked_in(evals_dir: Path) -> Iterator[tuple[Path, list[os.DirEntry[str]]]]:
    """Each folder of ``evals_dir`` (itself first) that the evals are looked for in, with its
    entries other than folders (a link to a file among them): hidden folders and
    :data:`NOT_LOOKED_IN` are not entered, nor is a link to a folder (so a link to a folder
    above never loops), nor a folder reached already by another path (a bind mount of one
    above); a folder that cannot be listed is passed by."""
    seen: set[tuple[int, int]] = set()
    todo = [evals_dir]
    while todo:
        folder = todo.pop()
        try:
            info = os.stat(folder)
            with os.scandir(folder) as scanned:
                entries = list(scanned)
        except OSError:  # (a folder that cannot be listed)
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        files = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    name = entry.name
                    if not name.startswith(".") and name not in NOT_LOOKED_IN:
                        todo.append(Path(entry.path))
                    continue
            except OSError:
                continue
            files.append(entry)
        yield folder, files


def eval_files(evals_dir: Path) -> list[Path]:
    """The eval files of ``evals_dir``, sorted: the files (or links to files) whose name ends
    ``.eval.py`` in it and its folders, those of :func:`folders_looked_in` alone (hidden
    folders, :data:`NOT_LOOKED_IN` and links to folders are not looked in); a hidden file is
    none (an editor's lock ``.#a.eval.py``, macOS's ``._a.eval.py`` unpacked from an archive)."""
    return sorted(
        Path(entry.path)
        for _, files in folders_looked_in(evals_dir)
        for entry in files
        if entry.name.endswith(SUFFIX) and not entry.name.startswith(".")
    )
