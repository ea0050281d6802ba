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
import tempfile
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
    they held a secret: keys never stay on disk.
    """
    if not _SECRETS or not root.is_dir():
        return []
    needles = [s.encode() for s in _SECRETS]
    touched = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if any(n in data for n in needles):
            for needle in needles:
                data = data.replace(needle, MASK.encode())
            _replace(path, data)
            touched.append(path.relative_to(root).as_posix())
    return touched


def _replace(path: Path, data: bytes) -> None:
    """Put ``data`` in a new file that takes ``path``'s place: a file the agent hard-linked to
    one outside its workspace keeps that one untouched (writing in place would mask the
    user's own file through the link). A file that cannot be replaced is removed: the secret
    it holds must not stay."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".mask")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(temp, stat.S_IMODE(path.stat().st_mode))
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        with contextlib.suppress(OSError):
            path.unlink()
