"""Globs over a workspace that never leave it."""

from __future__ import annotations

from pathlib import Path


def glob_workspace(root: Path, pattern: str, *, contained: bool = True) -> list[str]:
    """Workspace-relative matches of ``pattern`` (``**`` allowed); never escapes the root.

    With ``contained`` (the default), a match that is, or lies under, a symlink leading out of
    the workspace is left out: ``out -> /etc`` does not make ``out/passwd`` a workspace file.
    """
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        return []
    real_root = root.resolve()
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.glob(pattern)
        if not contained or p.resolve().is_relative_to(real_root)
    )
