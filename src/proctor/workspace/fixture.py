"""Materialising a case's fixture into a fresh workspace, safely.

A zip fixture is first checked by :func:`proctor.workspace.archive.check_zip` (entries that
would land outside the workspace, symlinks pointing outside it, encrypted or unreadable entries,
an expanded size above the cap), each refused with a :class:`WorkspaceError` naming the zip and
the entry. Extraction checks again, on the real file system, before every write: regular entries
are written first and symlinks last, so no write can follow a link out of the workspace even when
the archive-level check misses a trick; a damaged entry, or one holding more than the zip
declares, stops it with the same kind of sentence.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from proctor.errors import WorkspaceError
from proctor.util.cpus import usable_cpus
from proctor.util.files import remove_tree
from proctor.util.text import plural
from proctor.workspace.archive import (
    ExpansionBudget,
    ZipFixtureError,
    check_zip,
    is_symlink_entry,
    link_target,
    member_chunks,
    open_zip,
    shown,
)
from proctor.workspace.diff import FileStats, scan

__all__ = ["check_zip", "link_leaves", "materialise_fixture", "symlinks_under", "zip_template"]


def _inside(root: Path, target: Path) -> bool:
    """Whether ``target``, with every symlink that exists now followed, lies within ``root``.

    ``root`` must already be a real path. ``os.path.realpath`` is used rather than
    ``Path.resolve`` because it does not raise on a symlink loop (a loop leads nowhere).
    """
    return Path(os.path.realpath(target)).is_relative_to(root)


def link_leaves(root: Path, link: Path) -> str | None:
    """How following the symlink ``link``, somewhere under the folder ``root``, passes outside
    ``root`` at some step, as it would in a copy of ``root`` made elsewhere under another name
    (each trial's workspace): an absolute target (in the copy it still leads to ``root`` or
    beyond), or a ``..`` above ``root`` (even one coming back in by ``root``'s own name, which
    in the copy names something else); None when it stays inside. Links are followed by their
    text; a loop of links inside ``root`` leads nowhere, not out."""
    parts = [p for p in os.path.relpath(link.parent, root).split(os.sep) if p not in ("", ".")]
    pending: list[str] = []
    target, hops = os.readlink(link), 0
    while True:
        if os.path.isabs(target):
            return f"{target}: an absolute path, which leads outside every copy of the fixture"
        pending.extend(reversed(target.split("/")))
        while pending:
            step = pending.pop()
            if step in ("", "."):
                continue
            if step == "..":
                if not parts:
                    return f"{os.readlink(link)}: it climbs out of {root.name}/"
                parts.pop()
                continue
            here = os.path.join(root, *parts, step)
            if os.path.islink(here):
                break
            parts.append(step)
        else:
            return None
        hops += 1
        if hops > 40:  # a loop: it leads nowhere
            return None
        target = os.readlink(here)


def _escapes(root: Path, target: Path) -> bool:
    return not _inside(Path(os.path.realpath(root)), target)


def _refuse_outside(path: Path, info: zipfile.ZipInfo, root: Path, written: Path) -> None:
    """Raise when ``written``, the real place the entry's write would touch, is outside root."""
    if not _inside(root, written):
        raise ZipFixtureError(
            f"{path}: entry '{info.filename}' would be written outside the workspace",
            unsafe=True,
        )


def _write_entry(
    zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, root: Path, budget: ExpansionBudget
) -> None:
    """Write one directory or regular file; its real path is checked right before the write.
    The file system refusing the write (a name too long, a full disk) is a WorkspaceError."""
    target = root / info.filename
    _refuse_outside(path, info, root, target)
    try:
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as out:
            for piece in member_chunks(zf, path, info, budget):  # reading errors: its own
                out.write(piece)
        mode = (info.external_attr >> 16) & 0o777
        if mode:
            os.chmod(target, mode | stat.S_IRUSR | stat.S_IWUSR)
        # The entry's own time, as unzip sets it: a workspace snapshot then tells the files
        # the agent did not touch by their times (a file written moments ago must be kept
        # aside).
        stamp = time.mktime((*info.date_time, 0, 0, -1))
        os.utime(target, (stamp, stamp))
    except OSError as exc:
        raise WorkspaceError(
            f"{path}: entry '{info.filename}' cannot be written into the workspace "
            f"({exc.strerror or exc})"
        ) from exc


def _write_link(
    zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, root: Path, budget: ExpansionBudget
) -> None:
    """Create one symlink; creating it follows only its parent, so the parent is checked."""
    target = root / info.filename
    _refuse_outside(path, info, root, target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    link = link_target(zf, path, info, budget)  # the zip's own faults: ZipFixtureError
    try:
        os.symlink(link, target)
    except OSError as exc:  # the file system's (a full disk): not the zip's, tried again
        raise WorkspaceError(
            f"{path}: symlink entry '{info.filename}' cannot be created ({exc.strerror or exc})"
        ) from exc


def _extract_zip(path: Path, dest: Path) -> None:
    """Extract ``path`` into ``dest``: directories and files first, symlinks last, so that no
    write passes through a link the archive itself made. Stops once it has written more than
    the cap (:data:`proctor.workspace.archive.MAX_ZIP_EXPANDED_BYTES`), whatever the entries
    declare."""
    check_zip(path)
    root = Path(os.path.realpath(dest))
    budget = ExpansionBudget(path)
    with open_zip(path) as zf:
        entries = zf.infolist()
        links = [info for info in entries if is_symlink_entry(info)]
        for info in entries:
            if not is_symlink_entry(info):
                _write_entry(zf, path, info, root, budget)
        for info in links:
            _write_link(zf, path, info, root, budget)
    # A later link can redirect an earlier one, so each is judged once all exist.
    for info in links:
        if not _inside(root, root / info.filename):
            raise ZipFixtureError(
                f"{path}: symlink entry '{info.filename}' points outside the workspace "
                f"({shown(os.readlink(root / info.filename))})",
                unsafe=True,
            )
    _strip_single_root(dest)
    # Unwrapping a single top folder moves its links up a level: judged again where they are.
    for link in symlinks_under(dest):
        if _escapes(dest, Path(link)):
            raise ZipFixtureError(
                f"{path}: symlink entry '{os.path.relpath(link, dest)}' points outside the "
                "workspace once the zip's single top folder is unwrapped "
                f"({shown(os.readlink(link))})",
                unsafe=True,
            )


def _strip_single_root(dest: Path) -> None:
    """A zip holding one top folder (``src/...``) is unwrapped, as archives usually are.

    The folder is first renamed to a fresh name, so a child with the folder's own name
    (``mypkg/mypkg/``) can move up without colliding with it.
    """
    entries = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        inner = Path(tempfile.mkdtemp(dir=dest, prefix=".unwrap-"))
        entries[0].rename(inner)
        for child in list(inner.iterdir()):
            child.rename(dest / child.name)
        inner.rmdir()
    macosx = dest / "__MACOSX"
    if macosx.is_dir():
        shutil.rmtree(macosx)


def _copy_dir(src: Path, dest: Path) -> FileStats:
    """Copy the folder fixture ``src`` into ``dest``, refusing a symlink that leads out of it;
    returns :func:`scan` of ``src`` (the snapshot compares the workspace with it)."""
    links: list[str] = []
    linked: list[str] = []
    stats = scan(src, links, linked)
    for link in links:
        if _escapes(src, Path(link)):
            raise WorkspaceError(
                f"{link}: symlink points outside the fixture ({os.readlink(link)})"
            )
    # Hard links inside the fixture stay links only when one cp copies every path of them.
    _copy_tree(src, dest, None if linked else stats)
    return stats


def symlinks_under(root: Path) -> list[str]:
    """The path of every symlink under ``root``, found from directory entries alone (no
    ``stat`` of any file)."""
    found: list[str] = []
    stack = [str(root)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_symlink():
                    found.append(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
            except OSError:
                continue
    return found


PARALLEL_FROM_FILES = 2_000
"""A fixture of at least this many files is copied by several ``cp`` processes at once."""
MAX_COPY_JOBS = 4
_FILE_WEIGHT = 16_384
"""What creating one file costs next to copying its bytes, in bytes (measured on ext4 and
tmpfs: about 20 µs a file against about 1 ns a byte)."""


def _copy_tree(src: Path, dest: Path, stats: FileStats | None = None) -> None:
    """``src``'s tree into ``dest``, symlinks as symlinks, times kept (the workspace snapshot
    tells a file the agent did not touch by them). GNU ``cp`` copies, sharing blocks with the
    fixture where the file system can (copy-on-write), never hard links: the fixture is never
    writable through the workspace. A large tree (``stats`` of it, from :func:`scan`) is split
    into parts of about equal cost, copied by several ``cp`` processes at once."""
    if sys.platform.startswith("linux") and shutil.which("cp"):
        jobs = min(MAX_COPY_JOBS, usable_cpus())
        if stats is not None and len(stats) >= PARALLEL_FROM_FILES and jobs > 1:
            if _copy_in_parts(src, dest, stats, jobs):
                return
            _empty(dest)
        done = subprocess.run(
            ["cp", *_CP_FLAGS, f"{src}/.", str(dest)], capture_output=True, check=False
        )
        if done.returncode == 0:
            return
        said = done.stderr.decode("utf-8", "replace")
        if any(full in said for full in _NO_ROOM):  # another copy would only fail again
            _empty(dest)
            first = said.strip().splitlines()[0] if said.strip() else "cp failed"
            raise WorkspaceError(f"the fixture could not be copied into the workspace: {first}")
        _empty(dest)
    try:
        shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)
    except shutil.Error as exc:
        # One sentence, not the thousands of errors a full disk gives, one per file.
        errors = exc.args[0] if exc.args and isinstance(exc.args[0], list) else []
        first = errors[0][-1] if errors and isinstance(errors[0], tuple) else str(exc)[:300]
        raise WorkspaceError(
            "the fixture could not be copied into the workspace "
            f"({plural(len(errors) or 1, 'file')} failed; the first: {first})"
        ) from None


_NO_ROOM = ("No space left on device", "Disk quota exceeded")
"""What ``cp`` says when the workspace's file system is full."""


def _empty(folder: Path) -> None:
    """Remove what a failed copy left in ``folder``, before copying again."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            remove_tree(entry.path, strict=True)
        else:
            os.unlink(entry.path)


_CP_FLAGS = ("-a", "--reflink=auto", "--no-preserve=ownership")


def _weights(stats: FileStats) -> dict[str, int]:
    """The copying cost of every folder (by relative path, "" the root) and file."""
    weights: dict[str, int] = {}
    for rel, (size, _) in stats.items():
        cost = size + _FILE_WEIGHT
        weights[rel] = cost
        parent = rel
        while parent:
            parent = parent.rpartition("/")[0]
            weights[parent] = weights.get(parent, 0) + cost
    return weights


def _parts(src: Path, stats: FileStats, jobs: int) -> tuple[list[tuple[str, int]], list[str]]:
    """Entries to copy whole (relative path, cost), and the folders split into their entries
    to get there (created empty first, parents before children): a folder heavier than a
    job's share is split, down to single files."""
    weights = _weights(stats)
    share = weights.get("", 0) // jobs
    units: list[tuple[str, int]] = []
    split: list[str] = []
    folders = [""]
    while folders:
        folder = folders.pop()
        split.append(folder)
        for entry in sorted(os.scandir(src / folder if folder else src), key=lambda e: e.name):
            rel = f"{folder}/{entry.name}" if folder else entry.name
            cost = weights.get(rel, _FILE_WEIGHT)
            if cost > share and entry.is_dir(follow_symlinks=False):
                folders.append(rel)
            else:
                units.append((rel, cost))
    return units, split


_ARGV_BYTES = 100_000
"""At most this much of paths on one ``cp`` command line (Linux allows 2 MB in all, and a
folder split down to its files can hold hundreds of thousands)."""


def _batches(paths: list[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for path in paths:
        length = len(os.fsencode(path)) + 1
        if batch and size + length > _ARGV_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += length
    if batch:
        yield batch


def _copy_in_parts(src: Path, dest: Path, stats: FileStats, jobs: int) -> bool:
    """Copy ``src`` into ``dest`` with ``jobs`` ``cp`` processes at once; False when one
    failed (the caller copies again the slow way)."""
    units, split = _parts(src, stats, jobs)
    buckets: list[list[str]] = [[] for _ in range(jobs)]
    loads = [0] * jobs
    for rel, cost in sorted(units, key=lambda unit: -unit[1]):  # heaviest first, to the lightest
        lightest = loads.index(min(loads))
        buckets[lightest].append(rel)
        loads[lightest] += cost
    for folder in split[1:]:
        (dest / folder).mkdir(exist_ok=True)

    def copy_part(bucket: list[str]) -> bool:
        by_parent: dict[str, list[str]] = {}
        for rel in bucket:
            by_parent.setdefault(rel.rpartition("/")[0], []).append(rel)
        for parent, rels in by_parent.items():
            for batch in _batches([str(src / rel) for rel in rels]):
                argv = ["cp", *_CP_FLAGS, "--", *batch, str(dest / parent)]
                try:
                    if subprocess.run(argv, capture_output=True, check=False).returncode != 0:
                        return False
                except OSError:
                    return False
        return True

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        ok = all(pool.map(copy_part, [bucket for bucket in buckets if bucket]))
    if ok:
        for folder in reversed(split):  # children first: filling a folder changes its time
            shutil.copystat(src / folder if folder else src, dest / folder if folder else dest)
    return ok


def zip_template(archive: Path, templates: Path) -> Path:
    """The zip fixture ``archive`` extracted once into ``templates`` (a run's scratch folder),
    for every trial of the run to copy: extracted by the first trial that needs it while the
    others wait on a lock, reused as long as the archive's size and time are the same.

    A trial's workspace is then a copy of the template (never a link to it), and its snapshot
    reads the content the agent found from the template instead of keeping a copy of it. An
    archive that cannot be extracted (a corrupt entry, more than the cap) is tried once: the
    trials after are refused with the same sentence, without reading it again.
    """
    try:
        st = os.stat(archive)
    except OSError as exc:
        raise ZipFixtureError(f"{archive}: cannot be read ({exc.strerror or exc})") from exc
    name = hashlib.sha256(f"{os.path.realpath(archive)}|{st.st_size}|{st.st_mtime_ns}".encode())
    template = templates / name.hexdigest()[:32]
    done = templates / f"{template.name}.complete"
    failed = templates / f"{template.name}.failed"
    templates.mkdir(parents=True, exist_ok=True)
    with open(templates / f"{template.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            raise ZipFixtureError(failed.read_text(encoding="utf-8", errors="replace"))
        if not done.exists():
            if template.exists():
                remove_tree(template, strict=True)  # a trial died while extracting it
            partial = Path(tempfile.mkdtemp(dir=templates, prefix=f".{template.name}-"))
            try:
                (partial / "tree").mkdir()
                _extract_zip(archive, partial / "tree")
                (partial / "tree").rename(template)
            except ZipFixtureError as exc:  # the zip's own fault: the next trial's too
                with contextlib.suppress(OSError):  # the sentence still reaches this trial
                    failed.write_text(str(exc), encoding="utf-8", errors="replace")
                raise
            finally:
                remove_tree(partial)
            done.touch()
    return template


def materialise_fixture(fixture: Path | None, kind: str | None, dest: Path) -> FileStats | None:
    """Fill the empty directory ``dest`` with the fixture (nothing when there is none).

    Returns :func:`scan` of a folder fixture as it was copied (None for a zip or no fixture),
    for :func:`proctor.workspace.diff.take_snapshot`.
    """
    dest.mkdir(parents=True, exist_ok=True)
    if fixture is None:
        return None
    stats = None
    if kind == "zip":
        _extract_zip(fixture, dest)
    else:
        stats = _copy_dir(fixture, dest)
    for link in symlinks_under(dest):
        item = Path(link)
        if _escapes(dest, item):
            raise WorkspaceError(f"fixture entry '{item.relative_to(dest)}' escapes the workspace")
    return stats
