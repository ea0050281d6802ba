"""Secrets held in memory and masked in everything proctor writes.

Provider keys and forwarded credentials are registered once; :func:`mask` replaces each with
``***`` in a text, :func:`scrub_tree` in the files of a folder, and :class:`MaskingFilter` in log
records. Nothing here reads a key: :mod:`proctor.llm.secrets` finds them.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

MASK = "***"
MIN_SECRET_CHARS = 6
"""Shorter values are not secrets worth masking (and masking them would garble ordinary text)."""
_SECRETS: set[str] = set()


def register_secret(value: str) -> None:
    """Remember ``value`` as a secret of this process (its forked workers inherit it)."""
    if len(value) >= MIN_SECRET_CHARS:
        _SECRETS.add(value)


def longest_secret() -> int:
    """The length of the longest registered secret (0 with none)."""
    return max((len(s) for s in _SECRETS), default=0)


def mask(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class MaskingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = mask(str(record.getMessage()))
        record.args = ()
        return True


def install_log_masking() -> None:
    logger = logging.getLogger("proctor")
    if not any(isinstance(f, MaskingFilter) for f in logger.filters):
        logger.addFilter(MaskingFilter())


def scrub_tree(root: Path) -> list[str]:
    """Replace every registered secret in the files under ``root`` (relative paths returned).

    Byte-for-byte copies (a raw transcript, the terminal stream) lose their exactness only when
    they held a secret: keys never stay on disk. Folders are opened one name at a time from
    ``root``, never by a whole path, so a tree nested past the system's path limit (which an
    agent can make in its workspace) is read like any other; symlinks are never followed.
    """
    if not _SECRETS or not root.is_dir():
        return []
    needles = [s.encode() for s in _SECRETS]
    touched: list[str] = []
    folders: list[tuple[str, ...]] = [()]
    while folders:  # depth first, iterative: no nesting is too deep for it
        parts = folders.pop()
        try:
            fd = _open_folder(root, parts)
        except OSError:
            continue  # gone, or not a folder any more
        try:
            with os.scandir(fd) as listing:
                entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in listing]
            for name, is_dir in sorted(entries, reverse=True):
                if is_dir:
                    folders.append((*parts, name))
                elif _scrub_file(fd, name, needles):
                    touched.append("/".join((*parts, name)))
        except OSError:
            pass
        finally:
            os.close(fd)
    return sorted(touched)


def _open_folder(root: Path, parts: tuple[str, ...]) -> int:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for part in parts:
        try:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        finally:
            os.close(fd)
        fd = inner
    return fd


def _scrub_file(folder: int, name: str, needles: list[bytes]) -> bool:
    """Mask the secrets in the regular file ``name`` of the open folder; whether it held one."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    finally:
        os.close(fd)
    if not any(n in data for n in needles):
        return False
    for needle in needles:
        data = data.replace(needle, MASK.encode())
    _replace(folder, name, data, stat.S_IMODE(info.st_mode))
    return True


def _replace(folder: int, name: str, data: bytes, mode: int) -> None:
    """Put ``data`` in a new file that takes ``name``'s place: a file the agent hard-linked to
    one outside its workspace keeps that one untouched (writing in place would mask the
    user's own file through the link). A file that cannot be replaced is removed: the secret
    it holds must not stay."""
    temp = f".{name[:200]}.{os.getpid()}.mask"
    try:
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode, dir_fd=folder)
        try:
            with os.fdopen(os.dup(fd), "wb") as out:
                out.write(data)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)
