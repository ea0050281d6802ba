"""Globs over a workspace that never leave it."""

from __future__ import annotations

import errno
from pathlib import Path


def glob_workspace(root: Path, pattern: str, *, contained: bool = True) -> list[str]:
    """Workspace-relative matches of ``pattern`` (``**`` allowed); never escapes the root.

    With ``contained`` (the default), a match that is, or lies under, a symlink leading out of
    the workspace is left out: ``out -> /etc`` does not make ``out/passwd`` a workspace file.
    """
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        return []
    real_root = root.resolve()
    try:
        return sorted(
            p.relative_to(root).as_posix()
            for p in root.glob(pattern)
            if not contained or p.resolve().is_relative_to(real_root)
        )
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # The path itself would fill a screen: say what happened, not where.
        length = len(str(exc.filename or ""))
        raise OSError(
            exc.errno,
            f"the workspace holds a path longer than the system allows ({length} characters), "
            f"so {pattern!r} cannot be matched in it",
        ) from None
