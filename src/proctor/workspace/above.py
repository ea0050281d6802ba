"""What an agent CLI would load from the folders above a trial's workspace.

Claude Code reads a ``.mcp.json`` in every folder above its working folder, and its
``.claude/skills``, ``commands`` and ``agents`` up to the repository's root (every folder
above when there is none); Codex reads ``AGENTS.md`` and ``.agents/skills`` from the
repository's root down; Gemini CLI its ``GEMINI.md`` up to the repository's root. A trial's
workspace lies in the temporary folder (``TMPDIR``): such a file in it or above it (a
``/tmp/.mcp.json`` another user left, a ``TMPDIR`` inside the user's home or a repository)
reaches every trial. (Instruction files Claude Code reads from above are left out by the
trial's settings.)
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Reach = Literal["every", "repository", "repository-or-every"]
"""How far up a CLI reads a file: every folder above, the folders up to the repository's root
(none when no folder above is in a repository), or up to it and every folder when none."""


@dataclass(frozen=True)
class ReadAbove:
    """Files (paths relative to a folder) a CLI reads from the folders above its working
    folder, how far up, and what they give it."""

    names: tuple[str, ...]
    reach: Reach
    gives: str
    root: bool = True
    """Whether the file system's root counts among the folders above (Claude Code's walk for
    a ``.mcp.json`` stops below it)."""


def found_above(folder: Path, reads: Iterable[ReadAbove]) -> list[tuple[Path, ReadAbove]]:
    """Each file of ``reads`` in ``folder`` or a folder above it (as given and resolved)."""
    found: dict[Path, ReadAbove] = {}
    for start in dict.fromkeys((folder, Path(os.path.realpath(folder)))):
        chain = [start, *start.parents]
        root = next((i for i, f in enumerate(chain) if os.path.lexists(f / ".git")), None)
        for read in reads:
            if read.reach == "every" or (read.reach == "repository-or-every" and root is None):
                folders = chain
            elif root is None:
                continue
            else:
                folders = chain[: root + 1]
            for place in folders:
                if not read.root and place == place.parent:  # "/"
                    continue
                for name in read.names:
                    path = place / name
                    if os.path.lexists(path):
                        found.setdefault(path, read)
    return list(found.items())
