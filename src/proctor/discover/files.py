"""Reading a case's files: a required file that cannot be read skips the case (with a reason);
an optional one that is there but cannot be read, or malformed JSON, is a configuration error."""

from __future__ import annotations

from pathlib import Path

from proctor.errors import ConfigError


class Unreadable(Exception):
    """A required file of a case cannot be read: the case is skipped, with this reason."""


BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
"""The byte-order marks of text in another encoding than UTF-8 (UTF-32's first, as its
little-endian mark starts with UTF-16's)."""


def read_text(path: Path) -> str:
    """A case file's text. One that starts with a UTF-16 or UTF-32 byte-order mark is text the
    user meant, saved in another encoding (PowerShell's ``>`` writes UTF-16): a ConfigError
    naming the encoding, as a UTF-8 byte-order mark in a JSON file is, not a skip."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        encoding = next((name for bom, name in BOMS if exc.object.startswith(bom)), None)
        if encoding is not None and not _decodes(path, encoding):
            encoding = None  # a binary file that happens to start so
        if encoding is not None:
            raise ConfigError(
                f"{path}: the file is {encoding} text (it starts with a {encoding} byte-order "
                "mark): save it as UTF-8"
            ) from exc
        raise Unreadable(f"{path.name} is not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise Unreadable(f"{path.name} cannot be read ({exc.strerror})") from exc


def read_optional(path: Path) -> str:
    """An optional file the case has: unlike a missing required one (the case is skipped), an
    unreadable one is a ConfigError, since the case would otherwise run without it."""
    try:
        return read_text(path)
    except Unreadable as exc:
        raise ConfigError(f"{path.parent}/{exc}") from exc


def _decodes(path: Path, encoding: str) -> bool:
    try:
        path.read_bytes().decode(encoding.lower())  # the mark tells the byte order
    except (OSError, UnicodeDecodeError):
        return False
    return True
