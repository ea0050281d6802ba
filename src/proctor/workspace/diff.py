"""``workspace.diff``: what the agent changed relative to the fixture, as a unified diff.

The workspace as the agent found it is kept as a :class:`Snapshot`: each file's size and
modification time, never its content in memory. A file still as the fixture has it is read from
the fixture when its old content is needed; a file that setup lines wrote (or that changed in
the last moments before the snapshot) is copied aside, to a scratch folder. After the trial,
only the files whose size or time changed are read and compared, so the cost of a trial does not
grow with the size of the repository it works in.
"""

from __future__ import annotations

import difflib
import os
import shutil
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proctor.models.io import escape_surrogates

IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
MAX_TEXT_BYTES = 2_000_000


RACY_NS = 2_000_000_000
"""A file modified this close to the snapshot may change again within the file system's time
granularity without its time changing: its content is kept, and compared, whatever its time."""


def walk(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every regular file under ``root`` (minus caches and symlinks), with its stat, by
    workspace-relative path."""
    if not root.is_dir():
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in sorted(filenames):
            if name.endswith(IGNORED_SUFFIXES):
                continue
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            yield Path(path).relative_to(root).as_posix(), st


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` (minus caches), by workspace-relative path, with its
    content (for small trees and tests; trials keep a :class:`Snapshot`)."""
    files: dict[str, bytes] = {}
    for rel, _ in walk(root):
        try:
            files[rel] = (root / rel).read_bytes()
        except OSError:
            continue
    return files


@dataclass
class Snapshot:
    """The workspace as the agent found it: size and time of each file, and where its content
    can be read again (the fixture, or the copy kept aside)."""

    root: Path
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Path → (size, modification time in ns)."""
    fixture: Path | None = None
    kept: Path | None = None
    kept_paths: set[str] = field(default_factory=set)

    def read(self, rel: str) -> bytes | None:
        source = self.kept if rel in self.kept_paths else self.fixture
        if source is None:
            return None
        try:
            return (source / rel).read_bytes()
        except OSError:
            return None


def take_snapshot(root: Path, fixture: Path | None, kept: Path) -> Snapshot:
    """The :class:`Snapshot` of ``root``: files as the folder ``fixture`` has them (same size
    and time) are read from there when needed; every other file is copied to ``kept``."""
    snap = Snapshot(root, fixture=fixture, kept=kept)
    racy_after = time.time_ns() - RACY_NS
    for rel, st in walk(root):
        snap.stats[rel] = (st.st_size, st.st_mtime_ns)
        if fixture is not None and st.st_mtime_ns < racy_after:
            try:
                there = os.lstat(fixture / rel)
                if (there.st_size, there.st_mtime_ns) == (st.st_size, st.st_mtime_ns):
                    continue  # as the fixture has it
            except OSError:
                pass
        target = kept / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(root / rel, target)
        except OSError:
            continue
        snap.kept_paths.add(rel)
    return snap


def workspace_diff(before: Snapshot, root: Path) -> str:
    """The unified diff of ``root`` against the snapshot, reading only the files whose size
    or time changed (and the copies kept aside)."""
    old: dict[str, bytes] = {}
    new: dict[str, bytes] = {}
    now = dict(walk(root))
    for rel in sorted(set(before.stats) | set(now)):
        st = now.get(rel)
        stat = (st.st_size, st.st_mtime_ns) if st is not None else None
        if stat == before.stats.get(rel) and rel not in before.kept_paths:
            continue  # unchanged: not read
        if rel in before.stats:
            content = before.read(rel)
            if content is not None:
                old[rel] = content
        if st is not None:
            try:
                new[rel] = (root / rel).read_bytes()
            except OSError:
                continue
    return unified_diff(old, new)


def _text(data: bytes) -> list[str] | None:
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def unified_diff(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> str:
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


def changed_paths(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
