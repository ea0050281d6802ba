"""Links that would lead a write of proctor's out of a trial's scratch folder.

A case's setup lines run in the trial's workspace with ``HOME`` in its scratch home, before
the agent is provisioned: a line that makes the scratch home's ``.claude`` (or ``.codex``,
``.gemini``) a link to a folder elsewhere would have proctor write the agent's settings, and
the login it lends the agent, wherever the link leads. The way to each path proctor writes in
the scratch folder is checked, link by link, once each setup line has run. What lies below
(a skill folder of the user's linked into ``.claude/skills/``) is the agent's to read, and
proctor writes nothing through it: a file it writes there replaces a link, never follows it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def link_out(root: Path, path: Path) -> tuple[Path, Path] | None:
    """The first link that leads out of ``root``, and the place it leads to, on the way from
    ``root`` to ``path`` (``root`` itself, each folder between, and ``path``, made or not);
    None when every such link stays inside (``home/.claude -> .config/claude`` is no
    problem)."""
    if os.path.islink(root):
        return root, Path(os.path.realpath(root))
    inside = Path(os.path.realpath(root))
    here = root
    for part in path.relative_to(root).parts:
        here = here / part
        if os.path.islink(here):
            target = Path(os.path.realpath(here))
            if target != inside and inside not in target.parents:
                return here, target
    return None


def first_link_out(root: Path, paths: Iterable[Path]) -> tuple[Path, Path] | None:
    """:func:`link_out` of the first of ``paths`` that leads out of ``root``; else None."""
    for path in paths:
        found = link_out(root, path)
        if found is not None:
            return found
    return None
