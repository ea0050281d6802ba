"""Removing a folder whole, read-only folders in it included.

A trial's scratch folder can hold folders without write permission: a fixture copied with its
modes, a tool's cache (Go makes its module cache read-only), an agent that ran ``chmod``. For
anyone but root, ``shutil.rmtree`` cannot remove the entries of such a folder, and with
``ignore_errors`` it leaves them behind without a word, trial after trial.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def remove_tree(path: str | Path, *, strict: bool = False) -> bool:
    """Remove ``path`` and everything in it, giving its folders back their owner's
    permissions where that is what stands in the way. Symbolic links are removed, never
    followed. True when nothing is left (a missing ``path`` included); with ``strict`` what
    still stands in the way is raised instead of returning False."""
    try:
        _remove_opening_up(path)
    except OSError:
        if strict:
            raise
        shutil.rmtree(path, ignore_errors=True)  # what can go, goes
    return not os.path.lexists(path)


def missing_folders(path: str | Path) -> list[Path]:
    """``path`` and the folders above it that do not exist yet, nearest first: what a
    ``mkdir(parents=True)`` of it would make (see :func:`remove_empty_folders`)."""
    missing: list[Path] = []
    # Normalised first: ``typo/../results`` names ``results``, which may be there while
    # ``typo`` is not (and must then never be listed, to be removed).
    folder = Path(os.path.abspath(path))
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


def remove_empty_folders(folders: list[Path]) -> None:
    """Remove each of ``folders`` (nearest first, as :func:`missing_folders` lists them) that
    is empty: the folders a command made for its results, when it was refused before it wrote
    any. ``rmdir`` alone: a folder anything was written into since stays, with what is in it."""
    for folder in folders:
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def remove_temporary(folder: tempfile.TemporaryDirectory[str]) -> None:
    """Remove ``folder`` (what a run's trials left in it) with :func:`remove_tree`, then let
    it know. Its own ``cleanup`` gives an entry it may not remove mode 0o700 by ``chmod``
    through it, before Python 3.11.8 and 3.12.2: a link a trial left in a read-only folder
    (``ro/key -> ~/.ssh/id_ed25519``) would change the mode of the file outside it leads to.
    What :func:`remove_tree` could not remove (a link in a folder of another user's) is left
    where it is: ``cleanup`` would reach it the same way, and so would its finalizer."""
    if remove_tree(folder.name):
        folder.cleanup()  # nothing left: it only notes the folder gone
    else:
        folder._finalizer.detach()  # type: ignore[attr-defined]  # never cleaned up by it


@contextlib.contextmanager
def temporary_folder(prefix: str, dir: str | Path | None = None) -> Iterator[Path]:
    """A new folder in the temporary folder (or in ``dir``), removed with :func:`remove_tree`
    when the block ends, however it ends (an exception, Ctrl-C). For a folder other programs
    write into (an installer, a hook, a server): ``TemporaryDirectory`` would remove it
    following a link they left in a read-only folder (see :func:`remove_temporary`)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=dir))
    try:
        yield folder
    finally:
        remove_tree(folder)


def _remove_opening_up(path: str | Path) -> None:
    """``shutil.rmtree``, once more after :func:`_open_up` when permissions stood in the way."""
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
    except PermissionError:
        _open_up(os.fspath(path))
        try:
            shutil.rmtree(path)
        except FileNotFoundError:
            return


def _open_up(folder: str) -> None:
    """Give ``folder`` and the folders below it read, write and search permission for their
    owner (what this process may change; others are left as they are)."""
    try:
        mode = os.stat(folder, follow_symlinks=False).st_mode
    except OSError:
        return
    if not stat.S_ISDIR(mode):
        return
    if mode & stat.S_IRWXU != stat.S_IRWXU:
        try:  # a folder, not a link to one (lstat said so): chmod does not follow anything
            os.chmod(folder, stat.S_IMODE(mode) | stat.S_IRWXU)
        except OSError:
            return
    try:
        with os.scandir(folder) as entries:
            below = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for sub in below:
        _open_up(sub)


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file. Anything else (a named
    pipe, a device, a folder) raises OSError instead: opening a pipe would block until a writer
    came, and the reader (the viewer's index, a report) would hang with it."""
    # The descriptor is opened by ``open`` itself (through the opener), so that it is owned,
    # and closed on any failure, by the file object alone: closed here as well, after an
    # interrupt that came while the file object was being made, it was closed twice, and the
    # second close's EBADF took the interrupt's place.
    return open(path, "rb", opener=lambda name, _flags: _regular_fd(name))


def _regular_fd(path: str | Path) -> int:
    """A descriptor of ``path`` open for reading, when it is a regular file (see
    :func:`open_regular`)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, "a folder", os.fspath(path))
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_head(path: str | Path, size: int) -> bytes:
    """Up to ``size`` first bytes of the regular file ``path`` (see :func:`open_regular`), with
    the system's own calls: telling thousands of files apart by their first bytes, a buffered
    file object cost a third more."""
    fd = _regular_fd(path)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_regular(path: str | Path) -> bytes:
    """The bytes of the regular file ``path`` (see :func:`open_regular`)."""
    with open_regular(path) as fh:
        return fh.read()


def open_stream(path: str | Path, wait: float = 0.0) -> int:
    """A descriptor of ``path`` open for writing (blocking), when it is a named pipe or a
    character device (a terminal, ``/dev/null``): written to as it is, never created, emptied
    nor replaced. A pipe no process reads yet is waited for up to ``wait`` seconds, then
    OSError (ENXIO): opened as ``> PIPE`` opens it, the writer would block until a reader
    came, for ever if none does. Anything else (a regular file, a folder) raises OSError."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline or not _is_fifo(path):
                raise  # (a terminal that is not there, /dev/tty without one, is ENXIO too)
            time.sleep(0.05)
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
            raise OSError(errno.EINVAL, "not a pipe or a device", os.fspath(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_fifo(path: str | Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the descriptor ``fd``, however few bytes each write takes."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
