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
import errno
import os
import shutil
import stat as stat_module
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proctor.util.diffpaths import quote_path

IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
MAX_TEXT_BYTES = 2_000_000
COMPARE_CHUNK = 64 * 1024
"""Bytes compared at a time when a file's content is compared with its snapshot."""


RACY_NS = 2_000_000_000
"""A file modified this close to the snapshot may change again within the file system's time
granularity without its time changing: its content is kept, and compared, whatever its time."""


FileStats = dict[str, tuple[int, int]]
"""Workspace-relative path → (size, modification time in ns) of each regular file."""


def scan(
    root: Path,
    links: list[str] | None = None,
    linked: list[str] | None = None,
    unread: dict[str, str] | None = None,
    symlinks: dict[str, str] | None = None,
) -> FileStats:
    """Every regular file under ``root`` (minus caches, symlinks and special files) with its
    size and time, in one pass of ``os.scandir``: a file costs one ``lstat``, a folder none.

    When ``links`` is given, the path of every symlink anywhere under ``root`` (cache folders
    included) is appended to it, for the caller to check where each one leads; ``linked``
    gets the files (outside cache folders) that have more than one hard link; ``unread`` the
    folders that could not be listed (no permission, a path past the system's limit), with why;
    ``symlinks`` each symlink outside cache folders, by workspace-relative path, with its target.
    """
    stats: FileStats = {}
    if not root.is_dir():
        return stats
    stack: list[tuple[str, str, bool]] = [("", str(root), False)]
    while stack:
        prefix, folder, ignored = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue  # gone while scanned
        except OSError as exc:
            if unread is not None and prefix and not ignored:
                unread[prefix.rstrip("/")] = exc.strerror or type(exc).__name__
            continue
        for entry in entries:
            name = entry.name
            try:
                if entry.is_symlink():
                    if links is not None:
                        links.append(entry.path)
                    if symlinks is not None and not ignored:
                        symlinks[f"{prefix}{name}"] = os.readlink(entry.path)
                    continue
                if entry.is_dir(follow_symlinks=False):
                    skip = ignored or name in IGNORED_DIRS
                    if not skip or links is not None:
                        stack.append((f"{prefix}{name}/", entry.path, skip))
                    continue
                if ignored or name.endswith(IGNORED_SUFFIXES):
                    continue
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    stats[f"{prefix}{name}"] = (st.st_size, st.st_mtime_ns)
                    if linked is not None and st.st_nlink > 1:
                        linked.append(entry.path)
            except OSError:
                continue  # gone while scanned
    return stats


def walk(root: Path) -> Iterator[tuple[str, tuple[int, int]]]:
    """Every regular file under ``root`` (minus caches and symlinks) with its size and time,
    by workspace-relative path, in sorted order."""
    yield from sorted(scan(root).items())


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
    links: dict[str, str] = field(default_factory=dict)
    """Path → target of each symlink."""

    def source(self, rel: str) -> Path | None:
        """Where the content ``rel`` had when the snapshot was taken can be read now (None
        when nowhere: see :meth:`changed_at_source`)."""
        source = self.kept if rel in self.kept_paths else self.fixture
        if source is None or self.changed_at_source(rel):
            return None
        return source / rel

    def changed_at_source(self, rel: str) -> bool:
        """Whether the fixture's own ``rel``, read for the content the agent found, changed
        since (someone edited the fixture during the trial): that content is then unknown."""
        if rel in self.kept_paths or self.fixture is None or rel not in self.stats:
            return False
        try:
            stat = os.stat(self.fixture / rel, follow_symlinks=False)
        except OSError:
            return True
        return (stat.st_size, stat.st_mtime_ns) != self.stats[rel]

    def read(self, rel: str) -> bytes | None:
        source = self.source(rel)
        if source is None:
            return None
        try:
            return source.read_bytes()
        except OSError:
            return None


def _open_own(path: Path) -> int:
    """A descriptor of the workspace's file ``path`` open for reading, when it is a regular
    file: a link is not followed and a named pipe is not waited on (the agent may have put
    one in its place since the folder was listed: the diff so far is made while it runs, and
    a pipe no one writes blocked its reader for good). Anything else raises OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat_module.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_own(path: Path, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of the workspace's file ``path`` (see :func:`_open_own`):
    one more than ``limit`` says it grew past it since it was listed."""
    with open(_open_own(path), "rb", closefd=True) as fh:
        return fh.read(limit + 1)


def _same_content(a: Path | None, b: Path) -> bool:
    """Whether a file kept aside (or the fixture's) and the workspace's file ``b`` hold the
    same bytes, compared in chunks (never whole in memory); ``b`` is read as
    :func:`_open_own` opens it."""
    if a is None:
        return False
    try:
        with open(a, "rb") as old, open(_open_own(b), "rb", closefd=True) as new:
            while True:
                chunk = old.read(COMPARE_CHUNK)
                if chunk != new.read(COMPARE_CHUNK):
                    return False
                if not chunk:
                    return True
    except OSError:
        return False


def take_snapshot(
    root: Path, fixture: Path | None, kept: Path, fixture_stats: FileStats | None = None
) -> Snapshot:
    """The :class:`Snapshot` of ``root``: files as the folder ``fixture`` has them (same size
    and time) are read from there when needed; every other file is copied to ``kept``.

    ``fixture_stats`` is :func:`scan` of ``fixture`` when the caller has it already (the
    fixture's copy does): the fixture is then not scanned again.
    """
    snap = Snapshot(root, fixture=fixture, kept=kept)
    snap.stats = scan(root, symlinks=snap.links)
    if fixture is not None and fixture_stats is None:
        fixture_stats = scan(fixture)
    racy_after = time.time_ns() - RACY_NS
    for rel, stat in snap.stats.items():
        if fixture_stats is not None and stat[1] < racy_after and fixture_stats.get(rel) == stat:
            continue  # as the fixture has it
        target = kept / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(root / rel, target)
        except OSError:
            continue
        snap.kept_paths.add(rel)
    return snap


def copy_snapshot(copy: Path) -> Snapshot:
    """The :class:`Snapshot` of a workspace kept whole as ``copy`` (a prepared session's
    ``before/``): every file's content is read from there, compared in chunks."""
    snap = Snapshot(copy, kept=copy)
    snap.stats = scan(copy, symlinks=snap.links)
    snap.kept_paths = set(snap.stats)
    return snap


def workspace_diff(
    before: Snapshot, root: Path, masked: Callable[[bytes], bytes] | None = None
) -> str:
    """The unified diff of ``root`` against the snapshot, reading only the files whose size
    or time changed (and the copies kept aside); a file is held in memory only while its own
    diff is made, and only when its content did change. ``masked``: what both sides' text
    goes through before it is compared (a file the same once masked is unchanged)."""
    out: list[str] = []
    unread: dict[str, str] = {}
    links: dict[str, str] = {}
    now = scan(root, unread=unread, symlinks=links)
    hidden = tuple(f"{folder}/" for folder in unread)
    for rel in sorted(set(before.stats) | set(now)):
        if hidden and rel.startswith(hidden):
            continue  # in a folder that could not be read: said once below, not as deletions
        stat = now.get(rel)
        was = before.stats.get(rel)
        if stat == was and rel not in before.kept_paths:
            continue  # unchanged: not read
        if was is not None and before.changed_at_source(rel):
            path = rel
            out.append(f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n")
            out.append(
                f"Before unknown: the fixture's {quote_path(path)} changed during the trial\n"
            )
            continue
        if stat is not None and was is not None and _same_content(before.source(rel), root / rel):
            continue
        if max(stat[0] if stat else 0, was[0] if was else 0) > MAX_TEXT_BYTES:
            # Shown as binary whatever it holds: named, never read whole into memory.
            had = was is not None and before.source(rel) is not None
            out.append(_binary_change(rel, had=had, has=stat is not None))
            continue
        old: dict[str, bytes] = {}
        new: dict[str, bytes] = {}
        if was is not None:
            content = before.read(rel)
            if content is not None:
                old[rel] = content
        if stat is not None:
            try:
                content = _read_own(root / rel, MAX_TEXT_BYTES)
            except OSError:
                pass
            else:
                if len(content) > MAX_TEXT_BYTES:  # it grew past it since it was listed
                    out.append(_binary_change(rel, had=bool(old), has=True))
                    continue
                new[rel] = content
        if masked is not None:
            old, new = (
                {k: masked(v) for k, v in old.items()},
                {k: masked(v) for k, v in new.items()},
            )
        out.append(unified_diff(old, new))
    for rel in sorted(set(before.links) | set(links)):
        if before.links.get(rel) != links.get(rel) and not (hidden and rel.startswith(hidden)):
            out.append(_link_change(rel, before.links.get(rel), links.get(rel)))
    for folder, why in sorted(unread.items()):
        # Said, not left out: what changed in there cannot be shown.
        out.append(f"diff --git {quote_path('a/' + folder)} {quote_path('b/' + folder)}\n")
        out.append(f"Not compared: the folder {quote_path(folder)} could not be read ({why})\n")
    return "".join(out)


def _link_change(path: str, old: str | None, new: str | None) -> str:
    """A symlink added, removed or pointed elsewhere, as git writes one: its target is its
    content, in a file of mode 120000 (a link the agent planted is shown, never followed)."""
    a = quote_path(f"a/{path}") if old is not None else "/dev/null"
    b = quote_path(f"b/{path}") if new is not None else "/dev/null"
    lines = [f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n"]
    if old is None:
        lines.append("new file mode 120000\n")
    elif new is None:
        lines.append("deleted file mode 120000\n")
    lines += [f"--- {a}\n", f"+++ {b}\n"]
    lines.append(
        f"@@ -{'1' if old is not None else '0,0'} +{'1' if new is not None else '0,0'} @@\n"
    )
    for sign, target in (("-", old), ("+", new)):
        if target is not None:
            lines.append(f"{sign}{target}\n\\ No newline at end of file\n")
    return "".join(lines)


def _binary_change(path: str, *, had: bool, has: bool) -> str:
    """The lines :func:`unified_diff` writes for a binary file that changed."""
    a = quote_path(f"a/{path}") if had else "/dev/null"
    b = quote_path(f"b/{path}") if has else "/dev/null"
    head = f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n"
    kind = "" if had and has else "new file\n" if has else "deleted file\n"
    return f"{head}{kind}Binary files {a} and {b} differ\n"


def _text(data: bytes) -> list[str] | None:
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # Lines end at "\n" only, as git's do (str.splitlines would also break at a form feed,
    # U+2028 and others, and number the hunks wrongly).
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def unified_diff(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> str:
    """A git-style unified diff of two snapshots; binary files are named, not shown."""
    out: list[str] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        # A name that is not UTF-8 is quoted with its bytes in octal ("a/bad\377name"), as
        # git writes it, so the diff can be written and read back.
        path = key
        a = quote_path(f"a/{path}") if old is not None else "/dev/null"
        b = quote_path(f"b/{path}") if new is not None else "/dev/null"
        old_lines = _text(old) if old is not None else []
        new_lines = _text(new) if new is not None else []
        if old_lines is None or new_lines is None:
            out.append(_binary_change(path, had=old is not None, has=new is not None))
            continue
        out.append(f"diff --git {quote_path('a/' + path)} {quote_path('b/' + path)}\n")
        if old is None:
            out.append("new file\n")
        elif new is None:
            out.append("deleted file\n")
        for line in difflib.unified_diff(old_lines, new_lines, a, b):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def changed_paths(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
