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
import stat as stat_mode
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from proctor.util.diffpaths import quote_path

IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".git"})
IGNORED_SUFFIXES = (".pyc", ".pyo")
MAX_TEXT_BYTES = 2_000_000


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
    size and time, in one pass of ``os.scandir``: a file costs one ``lstat``.

    When ``links`` is given, the path of every symlink anywhere under ``root`` (cache folders
    included) is appended to it, for the caller to check where each one leads; ``linked``
    gets the files (outside cache folders) that have more than one hard link; ``unread`` the
    folders that could not be listed (no permission, a path past the system's limit), with why;
    ``symlinks`` each symlink outside cache folders, by workspace-relative path, with its target.
    """
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return {}
    try:
        return _scan(fd, str(root), links, linked, unread, symlinks)
    finally:
        os.close(fd)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""A file is opened without following a link, and without waiting for a writer (a named pipe
put where a file was, which is then not read: only a regular file is)."""


def _scan(
    root_fd: int,
    root: str,
    links: list[str] | None = None,
    linked: list[str] | None = None,
    unread: dict[str, str] | None = None,
    symlinks: dict[str, str] | None = None,
    stamps: dict[str, tuple[int, int]] | None = None,
) -> FileStats:
    """:func:`scan` of the folder open as ``root_fd`` (at the path ``root``). Each folder under
    it is listed through a descriptor opened without following a link, and only when it is
    still the folder its parent's listing showed (the same device and inode): a folder swapped
    for a link while the tree is scanned is never listed through it. ``stamps`` gets each
    file's change time and inode."""
    stats: FileStats = {}
    stack: list[tuple[str, str, bool, tuple[int, int] | None]] = [("", root, False, None)]
    while stack:
        prefix, folder, ignored, seen = stack.pop()
        try:
            fd = root_fd if seen is None else os.open(folder, _DIR_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone while scanned (or a file put in its place)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                continue  # a link put in its place while scanned: never followed
            if unread is not None and prefix and not ignored:
                unread[prefix.rstrip("/")] = exc.strerror or type(exc).__name__
            continue
        try:
            if seen is not None:
                st = os.fstat(fd)
                if (st.st_dev, st.st_ino) != seen:
                    continue  # another folder in its place since its parent was listed
            try:
                entries = list(os.scandir(fd))
            except OSError as exc:
                if unread is not None and prefix and not ignored:
                    unread[prefix.rstrip("/")] = exc.strerror or type(exc).__name__
                continue
            for entry in entries:
                name = entry.name
                try:
                    if entry.is_symlink():
                        if links is not None:
                            links.append(os.path.join(folder, name))
                        if symlinks is not None and not ignored:
                            symlinks[f"{prefix}{name}"] = os.readlink(name, dir_fd=fd)
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        skip = ignored or name in IGNORED_DIRS
                        if not skip or links is not None:
                            st = entry.stat(follow_symlinks=False)
                            path = os.path.join(folder, name)
                            stack.append((f"{prefix}{name}/", path, skip, (st.st_dev, st.st_ino)))
                        continue
                    if ignored or name.endswith(IGNORED_SUFFIXES):
                        continue
                    if entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        stats[f"{prefix}{name}"] = (st.st_size, st.st_mtime_ns)
                        if stamps is not None:
                            stamps[f"{prefix}{name}"] = (st.st_ctime_ns, st.st_ino)
                        if linked is not None and st.st_nlink > 1:
                            linked.append(os.path.join(folder, name))
                except OSError:
                    continue  # gone while scanned
        finally:
            if fd != root_fd:
                os.close(fd)
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
        """The content ``rel`` had (up to one byte past :data:`MAX_TEXT_BYTES`: see
        :func:`_read_file`), or None when it cannot be read."""
        source = self.source(rel)
        return None if source is None else _read_file(str(source))


def _open_file(path: str, folder: int | None = None) -> int | None:
    """A descriptor of the regular file at ``path`` (relative to the folder open as
    ``folder``), opened without following a link and without waiting on a named pipe; None
    when it is anything else, or cannot be opened."""
    try:
        fd = os.open(path, _FILE_FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        if stat_mode.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _read_file(path: str, folder: int | None = None) -> bytes | None:
    """The content of the regular file at ``path`` (see :func:`_open_file`), read up to one
    byte past :data:`MAX_TEXT_BYTES`: a file that grew past it after it was listed is never
    read whole (more bytes than that says it is too large to show)."""
    fd = _open_file(path, folder)
    if fd is None:
        return None
    try:
        with open(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_TEXT_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


CHUNK = 1 << 16


def _same_content(a: Path | None, tree: _Tree, rel: str) -> bool:
    """Whether the file ``a`` and the file ``rel`` of ``tree`` hold the same bytes, compared in
    chunks (never whole in memory)."""
    if a is None:
        return False
    fa = _open_file(str(a))
    if fa is None:
        return False
    try:
        fb = tree.open(rel)
        if fb is None:
            return False
        try:
            if os.fstat(fa).st_size != os.fstat(fb).st_size:
                return False
            with open(fa, "rb", closefd=False) as ha, open(fb, "rb", closefd=False) as hb:
                while True:
                    chunk = ha.read(CHUNK)
                    if chunk != hb.read(CHUNK):
                        return False
                    if not chunk:
                        return True
        finally:
            os.close(fb)
    except OSError:
        return False
    finally:
        os.close(fa)


class _Tree:
    """A folder open for reading its files: each file is reached through its folders, each
    opened in turn without following a link (a folder the agent swapped for a link is not
    read through), and read only when it is a regular file. The folders of the last file
    reached stay open for the next (files come in sorted order: mostly the same folders)."""

    def __init__(self, root: int) -> None:
        self.fds = [root]
        self.names: list[str] = []

    def open(self, rel: str) -> int | None:
        """A descriptor of the regular file ``rel`` (see :func:`_open_file`), or None."""
        *parts, name = rel.split("/")
        try:
            folder = self._folder(parts)
        except OSError:
            return None
        return _open_file(name, folder)

    def read(self, rel: str) -> bytes | None:
        """The content of the regular file ``rel``, as :func:`_read_file` reads it."""
        *parts, name = rel.split("/")
        try:
            folder = self._folder(parts)
        except OSError:
            return None
        return _read_file(name, folder)

    def _folder(self, parts: list[str]) -> int:
        kept = 0
        while kept < min(len(parts), len(self.names)) and parts[kept] == self.names[kept]:
            kept += 1
        while len(self.names) > kept:
            self.names.pop()
            os.close(self.fds.pop())
        for name in parts[kept:]:
            self.fds.append(os.open(name, _DIR_FLAGS, dir_fd=self.fds[-1]))
            self.names.append(name)
        return self.fds[-1]

    def close(self) -> None:
        """Close the folders held open (not the root: its opener closes it)."""
        while self.names:
            self.names.pop()
            os.close(self.fds.pop())


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


Stamp = tuple[int, int, int, int]
"""A file's size, modification time, change time (both in ns) and inode."""
Known = dict[str, tuple[Stamp | None, str]]
"""Path → the file's :data:`Stamp` (None: no such file) when its part of a diff was made, and
that part (empty when unchanged)."""


def workspace_diff(
    before: Snapshot,
    root: Path,
    masked: Callable[[bytes], bytes] | None = None,
    known: Known | None = None,
) -> str:
    """The unified diff of ``root`` against the snapshot, reading only the files whose size
    or time changed (and the copies kept aside); a file is held in memory only while its own
    diff is made, and only when its content did change. ``masked``: what both sides' text
    goes through before it is compared (a file the same once masked is unchanged).

    ``root`` and the folders under it are never followed when a link is put in their place,
    nor a file when a link or a named pipe is (see :class:`_Tree`), even while the agent runs.
    ``known``: each file's part of the last diff made, kept by a caller that diffs the same
    workspace again (:class:`~proctor.execute.live.LiveDiff`): a file whose stamp is the same
    is not read again (only one whose change time is older than :data:`RACY_NS` is kept)."""
    try:
        fd = os.open(root, _DIR_FLAGS)
    except OSError:
        fd = None  # gone, or a link put in its place: its files are not there
    try:
        return _workspace_diff(before, root, fd, masked, known)
    finally:
        if fd is not None:
            os.close(fd)


def _workspace_diff(
    before: Snapshot,
    root: Path,
    fd: int | None,
    masked: Callable[[bytes], bytes] | None,
    known: Known | None,
) -> str:
    out: list[str] = []
    unread: dict[str, str] = {}
    links: dict[str, str] = {}
    stamps: dict[str, tuple[int, int]] | None = {} if known is not None else None
    settled = time.time_ns() - RACY_NS
    now = {} if fd is None else _scan(fd, str(root), unread=unread, symlinks=links, stamps=stamps)
    tree = None if fd is None else _Tree(fd)
    hidden = tuple(f"{folder}/" for folder in unread)
    compared: set[str] = set()
    try:
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
            stamp: Stamp | None = None
            if known is not None and stamps is not None:
                compared.add(rel)
                if stat is not None:
                    stamp = (*stat, *stamps[rel])
                last = known.get(rel)
                if last is not None and last[0] == stamp:
                    out.append(last[1])
                    continue
            part = _file_diff(before, tree, rel, stat, was, masked)
            if known is not None:
                if stamp is None or stamp[2] < settled:
                    known[rel] = (stamp, part)
                else:
                    known.pop(rel, None)  # may change again with the same stamp
            out.append(part)
    finally:
        if tree is not None:
            tree.close()
    if known is not None:
        for rel in set(known) - compared:
            del known[rel]
    for rel in sorted(set(before.links) | set(links)):
        if before.links.get(rel) != links.get(rel) and not (hidden and rel.startswith(hidden)):
            out.append(_link_change(rel, before.links.get(rel), links.get(rel)))
    for folder, why in sorted(unread.items()):
        # Said, not left out: what changed in there cannot be shown.
        out.append(f"diff --git {quote_path('a/' + folder)} {quote_path('b/' + folder)}\n")
        out.append(f"Not compared: the folder {quote_path(folder)} could not be read ({why})\n")
    return "".join(out)


def _file_diff(
    before: Snapshot,
    tree: _Tree | None,
    rel: str,
    stat: tuple[int, int] | None,
    was: tuple[int, int] | None,
    masked: Callable[[bytes], bytes] | None,
) -> str:
    """The part of the diff of one file whose size or time changed (or whose copy was kept
    aside): empty when its content is the same."""
    if (
        tree is not None
        and stat is not None
        and was is not None
        and _same_content(before.source(rel), tree, rel)
    ):
        return ""
    if max(stat[0] if stat else 0, was[0] if was else 0) > MAX_TEXT_BYTES:
        # Shown as binary whatever it holds: named, never read whole into memory.
        had = was is not None and before.source(rel) is not None
        return _binary_change(rel, had=had, has=stat is not None)
    old: dict[str, bytes] = {}
    new: dict[str, bytes] = {}
    if was is not None:
        content = before.read(rel)
        if content is not None:
            old[rel] = content
    if stat is not None and tree is not None:
        content = tree.read(rel)
        if content is not None:
            new[rel] = content
    if any(len(content) > MAX_TEXT_BYTES for content in (*old.values(), *new.values())):
        # Grown past the limit since it was listed: as binary, as a large file is.
        return _binary_change(rel, had=rel in old, has=rel in new)
    if masked is not None:
        old, new = (
            {k: masked(v) for k, v in old.items()},
            {k: masked(v) for k, v in new.items()},
        )
    return unified_diff(old, new)


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
