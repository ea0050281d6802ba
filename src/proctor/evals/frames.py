"""Which frames of a traceback are the project's own code (an eval file, a helper module beside
``evals/``), as an error of an eval names them: a library's line, or proctor's, is not the
project's to mend."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

_PROCTOR = Path(__file__).resolve().parents[1]
"""proctor's own package: its lines are never the project's, wherever it is installed."""


def installed(filename: Path) -> bool:
    """Whether ``filename`` is of an installed package (a project's ``.venv`` is in its
    folder): a library's line, which is not the project's to mend."""
    prefixes = {Path(sys.prefix), Path(sys.base_prefix)}
    return any(p in ("site-packages", "dist-packages") for p in filename.parts) or any(
        filename.is_relative_to(prefix) for prefix in prefixes
    )


def own_code(filename: str, root: Path) -> bool:
    """Whether ``filename`` (a frame's) is a file of the project under ``root`` (resolved),
    and neither an installed package's nor proctor's."""
    if filename.startswith("<"):  # <string>, <frozen ...>: no file of the project
        return False
    path = Path(filename)
    resolved = path.resolve()
    return (
        resolved.is_relative_to(root)
        and not installed(path)
        and not installed(resolved)
        and not resolved.is_relative_to(_PROCTOR)
    )


def raised_below(
    frames: list[traceback.FrameSummary], at: int, root: Path
) -> traceback.FrameSummary | None:
    """The innermost of ``frames`` below ``frames[at]`` (the line of the eval file an error is
    named at) that is the project's own code, the line of a helper module that the eval
    file's call does not tell; None when there is none, or it is ``frames[at]``'s own line
    (the eval file raised it)."""
    own = [f for f in frames[at + 1 :] if own_code(f.filename, root)]
    if not own or (own[-1].filename, own[-1].lineno) == (frames[at].filename, frames[at].lineno):
        return None
    return own[-1]
