"""Reading a case's files: a required file that cannot be read skips the case (with a reason);
an optional one that is there but cannot be read, or malformed JSON, is a configuration error."""

from __future__ import annotations

from pathlib import Path

from proctor.errors import ConfigError


class Unreadable(Exception):
    """A required file of a case cannot be read: the case is skipped, with this reason."""


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
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
