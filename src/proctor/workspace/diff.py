"""``workspace.diff``: what the agent changed relative to the fixture, as a unified diff."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from proctor.models.io import escape_surrogates

IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
MAX_TEXT_BYTES = 2_000_000


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (minus caches), by workspace-relative path."""
    files: dict[str, bytes] = {}
    if not root.is_dir():
        return files
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in sorted(filenames):
            if name.endswith(IGNORED_SUFFIXES):
                continue
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            try:
                files[path.relative_to(root).as_posix()] = path.read_bytes()
            except OSError:
                continue
    return files


def _text(data: bytes) -> list[str] | None:
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def unified_diff(before: dict[str, bytes], after: dict[str, bytes]) -> str:
    """A git-style unified diff of two snapshots; binary files are named, not shown."""
    out: list[str] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        # A name that is not UTF-8 is shown escaped (bad\xffname), so the diff can be written.
        path = escape_surrogates(key)
        a = f"a/{path}" if old is not None else "/dev/null"
        b = f"b/{path}" if new is not None else "/dev/null"
        old_lines = _text(old) if old is not None else []
        new_lines = _text(new) if new is not None else []
        out.append(f"diff --git a/{path} b/{path}\n")
        if old is None:
            out.append("new file\n")
        elif new is None:
            out.append("deleted file\n")
        if old_lines is None or new_lines is None:
            out.append(f"Binary files {a} and {b} differ\n")
            continue
        for line in difflib.unified_diff(old_lines, new_lines, a, b):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def changed_paths(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
