"""Reading the JSON files users write: one sentence naming the file (and line) when they are
wrong, and the top-level configuration (``proctor.json``)."""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from proctor.errors import ConfigError, DiscoveryError, Problems
from proctor.models.errors_format import describe_validation_errors, format_loc, json_error
from proctor.paths import names_stdin, stdin_file

if TYPE_CHECKING:
    from proctor.models.config import TopConfig

DEFAULT_CONFIG_NAME = "proctor.json"
TOO_LONG_NUMBER = "a number has more than 4300 digits, too long to read"
"""What a user file holding an integer of more digits than Python converts is told."""

_PIPED: dict[tuple[str, int, int], str] = {}
"""The text of each configuration read from a pipe (``--config <(…)``, ``/dev/stdin`` of
``… |``), by the path it was given as and the pipe's device and inode: a pipe is read once,
and a command that reads its configuration more than once (``proctor run``: its options, then
its plan) reads the same text again rather than an emptied pipe. Forgotten by
:func:`forget_piped` (each command line starts without them)."""


def forget_piped() -> None:
    """Forget the configurations read from pipes (see :data:`_PIPED`)."""
    _PIPED.clear()


class TopConfigProblems(Problems):
    """Every field of the top-level configuration file ``found`` that is wrong (``problems``),
    one sentence each; ``proctor validate --config FILE`` lists them (a bare ``validate``
    reads ./proctor.json, which may be another file)."""

    def __init__(self, problems: list[str], found: Path) -> None:
        super().__init__(problems, "this file", f"proctor validate --config {found}")


class _TwiceGiven(Exception):
    """A key given twice in one JSON object."""


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _TwiceGiven(key)
        found[key] = value
    return found


def parse_json_text(text: str, path: Path, *, unique: bool = False, line: int | None = None) -> Any:
    """Parse a user-written JSON text; a syntax error is a ConfigError naming line and column.
    With ``unique`` (a file written for proctor), a key given twice in one object is one too:
    JSON keeps the last silently, and the first would never apply. Files another program
    reads as well (an agent CLI's settings) leave ``unique`` off, to read as that program
    does. With ``line`` (the text is that line of ``path``, one of a JSON Lines file), a
    message names the line once, at its start (``path: line 4: malformed JSON at column 7``),
    and no line within the text."""
    where = f"{path}: line {line}" if line is not None else str(path)
    try:
        if not unique:
            return json.loads(text)
        data = json.loads(text, object_pairs_hook=_one_of_each)
        _refuse_surrogates(data, where, [])
        return data
    except _TwiceGiven as exc:
        found = _twice_where(text)
        key, lines = (exc.args[0], "") if found is None else found
        if line is not None:  # (the text's one line is the file's, named at the start)
            lines = ""
        raise ConfigError(
            f"{where}: key {key!r} is given twice in one object{lines}; keep one (JSON would "
            "take the last and ignore the first)"
        ) from None
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if line is None else f"column {exc.colno}"
        raise ConfigError(f"{where}: malformed JSON at {at}: {json_error(exc)}") from exc
    except RecursionError:
        raise ConfigError(f"{where}: JSON nested too deeply to read") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise ConfigError(f"{where}: {TOO_LONG_NUMBER}") from None


_BLANK = re.compile(r"[ \t\n\r]*")


def _skip(text: str, pos: int) -> int:
    """The position of the first character from ``pos`` on that is no JSON white space."""
    return _BLANK.match(text, pos).end()  # type: ignore[union-attr]  # (`*` matches anywhere)


def _twice_where(text: str) -> tuple[str, str] | None:
    """The key :func:`_one_of_each` refused in ``text`` (the first key given again in the
    first object to close that gives one twice, as the JSON reader meets them) by its place
    (``conditions.with-skill``), and the lines of both (``", at lines 3 and 7"``); None when
    it is not found (the text read otherwise than :func:`json.loads` reads it)."""
    try:
        _walk(text, _skip(text, 0), [])
    except _TwiceAt as at:
        first, again = (text.count("\n", 0, pos) + 1 for pos in (at.first, at.again))
        lines = f"line {first}" if first == again else f"lines {first} and {again}"
        return format_loc(at.loc), f", at {lines}"
    except (ValueError, IndexError, RecursionError):
        return None
    return None


class _TwiceAt(Exception):
    """A key given twice: its place, and where each of the two starts in the text."""

    def __init__(self, loc: list[int | str], first: int, again: int) -> None:
        super().__init__(loc)
        self.loc, self.first, self.again = loc, first, again


_SCALAR = json.JSONDecoder().raw_decode


def _walk(text: str, pos: int, loc: list[int | str]) -> int:
    """Read the JSON value at ``pos`` (white space skipped before it), of place ``loc``; the
    position after it. Raises :class:`_TwiceAt` at the close of an object giving a key twice."""
    if text[pos] == "{":
        seen: dict[str, int] = {}
        twice: tuple[str, int] | None = None
        pos = _skip(text, pos + 1)
        while text[pos] != "}":
            start = pos
            if text[pos] != '"':
                raise ValueError(pos)
            key, pos = _SCALAR(text, pos)
            pos = _skip(text, pos)
            if text[pos] != ":":
                raise ValueError(pos)
            pos = _skip(text, pos + 1)
            pos = _skip(text, _walk(text, pos, [*loc, key]))
            if key in seen and twice is None:
                twice = key, start
            seen.setdefault(key, start)
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
        if twice is not None:
            raise _TwiceAt([*loc, twice[0]], seen[twice[0]], twice[1])
        return pos + 1
    if text[pos] == "[":
        pos = _skip(text, pos + 1)
        index = 0
        while text[pos] != "]":
            pos = _skip(text, _walk(text, pos, [*loc, index]))
            index += 1
            if text[pos] == ",":
                pos = _skip(text, pos + 1)
        return pos + 1
    return _SCALAR(text, pos)[1]


def _refuse_surrogates(value: Any, where: str, loc: list[int | str]) -> None:
    """A string holding a lone surrogate escape (``"\\ud800"``: half of a pair, which JSON
    reads but no UTF-8 text can hold) is a ConfigError naming its field (after ``where``, the
    file): passed on to an agent, a program or a file, it failed every trial with a misleading
    error."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not _encodable(key):
                what = f"a key of field '{format_loc(loc)}'" if loc else "a key"
                raise ConfigError(f"{where}: {what} {_SURROGATE}")
            _refuse_surrogates(item, where, [*loc, key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_surrogates(item, where, [*loc, i])
    elif isinstance(value, str) and not _encodable(value):
        raise ConfigError(f"{where}: field '{format_loc(loc)}' {_SURROGATE}")


_SURROGATE = (
    "holds a lone surrogate escape (such as \\ud800), which is not a character and cannot be "
    "written as UTF-8: write the character itself, or both escapes of its pair"
)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_toml_text(text: str, path: Path) -> Any:
    """Parse a user-written TOML text: nested too deeply or holding an integer too long to
    read is a ConfigError naming ``path``; a syntax error stays a ``tomllib.TOMLDecodeError``
    for the caller to word."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except RecursionError:
        raise ConfigError(f"{path}: TOML nested too deeply to read") from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise ConfigError(f"{path}: {TOO_LONG_NUMBER}") from None


def read_json_file(path: Path, *, unique: bool = False) -> Any:
    """Parse a user-written JSON file; unreadable or malformed is a ConfigError (``unique``:
    see :func:`parse_json_text`)."""
    return parse_json_text(read_text_file(path), path, unique=unique)


def read_text_file(path: Path, named: str | None = None) -> str:
    """A user-written text file; one that cannot be read, or is not UTF-8, is a ConfigError
    naming it (as ``named`` says, ``--qna FILE`` say; else by its path)."""
    name = named or str(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(f"{name}: cannot be read ({exc.strerror or exc})") from exc


def top_config_path(path: Path | None, cwd: Path | None) -> Path | None:
    """The top-level configuration file :func:`load_top_config` reads: ``path``, else
    ``./proctor.json`` when present (``cwd`` None: the current folder is gone, and holds
    none); None when neither. Errors as :func:`load_top_config`."""
    if path is None:
        if cwd is None:
            return None
        candidate = cwd / DEFAULT_CONFIG_NAME
        if candidate.is_dir():
            raise ConfigError(
                f"{candidate}: a folder, where proctor expects its configuration file"
            )
        if not candidate.is_file():
            return None
        path = candidate
    if _stdin_key(path) is not None:
        return path  # (standard input read once, from its descriptor: see _config_text)
    if path.is_dir():
        raise ConfigError(
            f"--config {path}: a folder, where proctor expects its configuration file"
        )
    if not path.is_file() and _pipe_key(path) is None:
        raise DiscoveryError(f"--config {path}: no such file")
    return path


def _pipe_key(path: Path) -> tuple[str, int, int] | None:
    """``path``, its device and inode when it is a pipe (``/dev/fd/63`` of ``<(…)``, a FIFO),
    read as a file is; None when it is not."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (str(path), found.st_dev, found.st_ino) if stat.S_ISFIFO(found.st_mode) else None


def _stdin_key(path: Path) -> tuple[str, int, int] | None:
    """``path``, and standard input's device and inode, when ``path`` names standard input
    (``/dev/stdin``, ``/dev/fd/0``) and it is a stream to read once from its descriptor: a
    pipe or a FIFO (opened again by name, a FIFO whose writer is done waits for another for
    ever), a socket (which cannot be opened by name), or a file unlinked since it was opened
    (a long here-document); None otherwise (a file still linked is read by its name)."""
    if not names_stdin(path) or os.fspath(path) == "-":
        return None
    try:
        held = os.fstat(0)
    except OSError:
        return None
    mode = held.st_mode
    stream = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    if not (stream or (stat.S_ISREG(mode) and stdin_file() is None)):
        return None
    return (os.fspath(path), held.st_dev, held.st_ino)


def _stdin_text(path: Path) -> str:
    """Standard input, read to its end from file descriptor 0 (never opened again by name);
    one that cannot be read, or is not UTF-8, is a ConfigError naming ``path``."""
    try:
        with open(0, "rb", closefd=False) as stream:
            raw = stream.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from exc


def _config_text(path: Path) -> str:
    """The text of the configuration file ``path``; a pipe's, or standard input's when it is
    a stream, read once (see :data:`_PIPED`)."""
    key = _stdin_key(path)
    if key is not None:
        if key not in _PIPED:
            _PIPED[key] = _stdin_text(path)
        return _PIPED[key]
    key = _pipe_key(path)
    if key is None:
        return read_text_file(path)
    if key not in _PIPED:
        _PIPED[key] = read_text_file(path)
    return _PIPED[key]


def load_top_config(path: Path | None, cwd: Path | None) -> tuple[TopConfig, Path | None]:
    """The top-level configuration: ``path``, else ``./proctor.json`` when present (``cwd``:
    the current folder, None when it is gone), else empty; with the file it came from. Keys
    the file did not set stay unset in the model."""
    # Imported here: a command that reads no configuration file (a history replay, most
    # often) starts without building the configuration's models.
    from proctor.models.config import TopConfig

    found = top_config_path(path, cwd)
    if found is None:
        return TopConfig(), None
    raw = parse_json_text(_config_text(found), found, unique=True)
    if not isinstance(raw, dict):
        raise ConfigError(f"{found}: expected a JSON object at the top level")
    try:
        return TopConfig.model_validate(raw), found
    except ValidationError as exc:  # every field that is wrong, not only the first
        problems = describe_validation_errors(str(found), exc, TopConfig)
        raise TopConfigProblems(problems, found) from exc
