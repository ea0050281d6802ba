"""Links that would lead a write of proctor's out of a trial's scratch folder.

A case's setup lines run in the trial's workspace with ``HOME`` in its scratch home, before
the agent is provisioned: a line that makes the scratch home's ``.claude`` (or ``.codex``,
``.gemini``, a settings file in them) a link to a folder elsewhere would have proctor write
the agent's settings, and the login it lends the agent, wherever the link leads. Each path
proctor writes in the scratch folder is checked, link by link, once each setup line has run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def link_out(root: Path, path: Path) -> tuple[Path, Path] | None:
    """The first link that leads out of ``root``, and the place it leads to, on the way from
    ``root`` to ``path`` (``root`` itself, or a path under it, made or not) or anywhere below
    ``path`` when it is a folder (``.claude/settings.json -> ~/.claude/settings.json``); None
    when every such link stays inside (``home/.claude -> .config/claude`` is no problem)."""
    if os.path.islink(root):
        return root, Path(os.path.realpath(root))
    inside = Path(os.path.realpath(root))
    here = root
    for part in path.relative_to(root).parts:
        here = here / part
        found = _leads_out(here, inside)
        if found is not None:
            return found
    return _below(here, inside, set())


def _leads_out(path: Path, inside: Path) -> tuple[Path, Path] | None:
    if not os.path.islink(path):
        return None  # a file or folder of its own (or nothing yet): it is where it is
    target = Path(os.path.realpath(path))
    return None if target == inside or inside in target.parents else (path, target)


def _below(folder: Path, inside: Path, seen: set[str]) -> tuple[Path, Path] | None:
    """The first link out of ``inside`` in ``folder``'s tree (a link to a folder inside is
    looked into as well, once)."""
    real = os.path.realpath(folder)
    if real in seen or not os.path.isdir(folder):
        return None
    seen.add(real)
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return None  # nothing proctor could write in either
    for entry in entries:
        path = Path(entry.path)
        found = _leads_out(path, inside)
        if found is None and entry.is_dir():  # a folder, or a link to one inside
            found = _below(path, inside, seen)
        if found is not None:
            return found
    return None


def first_link_out(root: Path, paths: Iterable[Path]) -> tuple[Path, Path] | None:
    """:func:`link_out` of the first of ``paths`` that leads out of ``root``; else None."""
    for path in paths:
        found = link_out(root, path)
        if found is not None:
            return found
    return None
