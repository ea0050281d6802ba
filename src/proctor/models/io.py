"""Atomic writes and version-checked reads of on-disk records."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.base import OWN_RECORD, RecordModel
from proctor.models.errors_format import describe_validation_error, json_error
from proctor.models.trajectory import EVENT_ADAPTER, Event, event_json
from proctor.util.files import read_regular
from proctor.util.masking import MASK, mask
from proctor.util.text import surrogate_shown

if TYPE_CHECKING:
    from proctor.models.trial import TrialRecord

R = TypeVar("R", bound=RecordModel)


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_MODE = _file_mode()

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str, *, json_string: bool = False) -> str:
    """``text`` with each lone surrogate written as a visible escape, so it encodes as UTF-8.

    Python decodes the undecodable bytes of a file name to lone surrogates (``surrogateescape``),
    which no UTF-8 file can hold; one such name must not make a trial's record unwritable. A byte
    comes back as ``\\xff`` (``bad\\xffname``), any other surrogate as ``\\udc00``. With
    ``json_string`` the backslash is doubled, for text that is already JSON.
    """

    def escape(match: re.Match[str]) -> str:
        shown = surrogate_shown(ord(match.group()))
        return "\\" + shown if json_string else shown

    return _LONE_SURROGATE.sub(escape, text)


_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def unescape_bytes(text: str) -> str:
    """``text`` with each ``\\xe9`` that :func:`escape_surrogates` wrote for a byte of a file
    name that is not UTF-8 made that byte again (as Python decodes a file name): the name a
    record gives a case folder, as the folder is named on disk."""
    return _ESCAPED_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)


PARTIAL_WRITE = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp")
"""The name of the temp file :func:`write_text_atomic` writes first (``.suite.json.k2x9ab_q.tmp``,
its group ``name`` the file being written): one that is still there was cut off by a killed
process."""


def write_text_atomic(
    path: Path,
    text: str,
    *,
    durable: bool = False,
    placing: Callable[[os.stat_result], None] | None = None,
) -> None:
    """Write ``text`` to ``path`` through a temp file and a rename, so readers never see half.
    ``durable``: the file and the rename are also flushed to the disk before this returns, so
    that a power loss leaves the old file or the new one (the findings ledger, which holds what
    a user wrote); records a run can write again need not pay for it. ``placing`` is called
    with the written file's ``stat`` (its inode and size are those ``path`` will have) just
    before the rename puts it in place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(escape_surrogates(masked_text(text, path.suffix)))
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
            if placing is not None:
                fh.flush()
                placing(os.fstat(fh.fileno()))
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.errno is not None and exc.filename in (None, tmp):
            # A write to the open file, or its rename (a folder where ``path`` goes): named by
            # ``path``, the file being written, not by the temp file, which is gone.
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temp file and a rename (a byte-for-byte copy such as
    ``terminal.raw``), so that a process killed meanwhile leaves no half file under its name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def copy_file_atomic(source: Path, path: Path) -> None:
    """Copy ``source`` to ``path`` byte for byte through a temp file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        shutil.copyfile(source, tmp)
        os.chmod(tmp, _MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def masked_text(text: str, suffix: str) -> str:
    """``text`` with every registered secret masked; a JSON record (``.json``, ``.jsonl``) is
    still JSON. A secret of digits (a value the user named a secret with ``--env``) masked in
    the text would take part of a figure (``0.123456`` with ``123456``: ``0.***``) and leave
    a record no reader can read: there, the record's strings are masked one by one, and a
    figure that holds the secret is written ``"***"``."""
    masked = mask(text)
    if masked == text or suffix not in (".json", ".jsonl"):
        return masked
    if suffix == ".jsonl":
        lines = text.splitlines(keepends=True)
        return "".join(masked_text(line, ".json") for line in lines)
    try:
        orjson.loads(masked)
        return masked
    except orjson.JSONDecodeError:
        pass
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return masked  # (not JSON before masking either)
    shown = dump_json(_masked_values(data), indent="\n " in text)
    return shown if text.endswith("\n") else shown.rstrip("\n")


def _masked_values(data: Any) -> Any:
    """``data`` with every string masked, and a figure that holds a secret made ``"***"``."""
    if isinstance(data, str):
        return mask(data)
    if isinstance(data, dict):
        return {mask(key): _masked_values(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_masked_values(value) for value in data]
    if isinstance(data, int | float) and not isinstance(data, bool):
        figure = json.dumps(data)
        return data if mask(figure) == figure else MASK
    return data


def remove_partial_writes(root: Path, skip: frozenset[str] = frozenset()) -> list[Path]:
    """Remove the temp files that killed writes left under ``root`` (see
    :data:`PARTIAL_WRITE`), not looking into a folder named in ``skip`` that sits in a trial's
    folder (one named by its repeat or attempt number); the files removed."""
    removed = []
    for folder, dirs, files in os.walk(root):
        if os.path.basename(folder).isdecimal():
            dirs[:] = [d for d in dirs if d not in skip]
        for name in files:
            if PARTIAL_WRITE.fullmatch(name):
                path = Path(folder, name)
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def dump_json(data: Any, *, indent: bool = True) -> str:
    """``data`` as indented JSON text (UTF-8 characters as they are, a newline at the end);
    on one line with ``indent=False``.

    orjson writes it; a lone surrogate (from an undecodable file name), a key that is not a
    string or an integer beyond 64 bits makes orjson refuse, and then the standard library
    writes it instead, with each surrogate escaped (see :func:`escape_surrogates`). The two read
    back the same, except that orjson writes a float that is not a number (NaN, infinity) as
    ``null``, where the standard library would write a token that is not JSON. On one line,
    the standard library's encoder is its C one, which leaves no reference cycle behind (its
    indenting one does: a history replay's workers run without the cyclic collector).
    """
    option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(data, option=option).decode()
    except TypeError:
        text = json.dumps(data, indent=2 if indent else None, ensure_ascii=False)
        return escape_surrogates(text, json_string=True) + "\n"


def model_to_json(model: BaseModel) -> str:
    """``model`` as indented JSON text with camelCase keys: pydantic writes it in one pass,
    and :func:`dump_json` takes over when it refuses a lone surrogate."""
    try:
        return model.model_dump_json(by_alias=True, indent=2) + "\n"
    except PydanticSerializationError:
        return dump_json(model.model_dump(mode="json", by_alias=True))


def write_record(path: Path, model: BaseModel, *, durable: bool = False) -> None:
    write_text_atomic(path, model_to_json(model), durable=durable)


def write_json(path: Path, data: Any) -> None:
    write_text_atomic(path, dump_json(data))


def write_jsonl(path: Path, rows: Iterable[BaseModel | dict[str, Any]]) -> None:
    lines = []
    for row in rows:
        if isinstance(row, BaseModel):
            row = row.model_dump(mode="json", by_alias=True, exclude_none=True)
        lines.append(json.dumps(row, ensure_ascii=False))
    text = "".join(line + "\n" for line in lines)
    write_text_atomic(path, escape_surrogates(text, json_string=True))


def write_trajectory(path: Path, events: Iterable[Event]) -> None:
    """``trajectory.jsonl``: one event per line (camelCase keys, empty fields left out)."""
    write_jsonl(path, (event_json(e) for e in events))


def read_trajectory(path: Path) -> list[Event]:
    """The events of a ``trajectory.jsonl`` (any schema version: the lines' keys did not
    change); a line that is not an event is a ConfigError naming the file and line."""
    events = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc})") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            events.append(EVENT_ADAPTER.validate_json(line))
        except ValidationError as exc:
            raise ConfigError(describe_validation_error(f"{path}: line {number}", exc)) from exc
    return events


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = read_regular(path)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: not a readable JSON file ({exc.strerror or exc})") from exc
    return _decoded(path, raw)


def _decoded(path: Path | str, raw: bytes) -> dict[str, Any]:
    """The JSON object ``raw`` (the bytes read from ``path``) holds."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise ConfigError(f"{path}: not a readable JSON file ({where}: {json_error(exc)})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a readable JSON file ({exc})") from exc
    except RecursionError as exc:  # nesting deeper than any record proctor writes
        raise ConfigError(f"{path}: not a readable JSON file (nested too deeply)") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return data


def upgraded(path: Path | str, data: dict[str, Any], model: type[R]) -> dict[str, Any]:
    """``data`` in the current schema: an older version upgraded, a newer one refused with a
    clear sentence (a :class:`SchemaVersionError`)."""
    version = data.get("schemaVersion", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        shown = json.dumps(version, default=repr)  # as the file spells it: true, "2"
        raise ConfigError(f"{path}: schemaVersion {shown} is not a version number")
    if version < model.first_schema_version:
        if "schemaVersion" not in data:  # the model says so, after any key it does not know
            return data
        raise ConfigError(
            f"{path}: schemaVersion {version} is older than any proctor wrote for this file "
            f"({model.first_schema_version})"
        )
    if version > model.current_schema_version:
        raise SchemaVersionError(
            f"{path}: schemaVersion {version!r} is newer than this proctor understands "
            f"({model.current_schema_version}); upgrade proctor to read it"
        )
    if version < model.current_schema_version:
        data = model.upgrade(dict(data), version)
        data["schemaVersion"] = model.current_schema_version
    return data


def read_record(path: Path, model: type[R]) -> R:
    """Read a record, upgrading an older schema version and refusing a newer one.

    A record is read leniently, user configuration embedded in it included (``config.json``'s
    ``config``, ``resolved.json``'s ``gate``): it is proctor's own output, and schema 1 kept the
    configuration file as the user wrote it, before user configuration was read strictly
    (:class:`~proctor.models.base.UserModel`). A record that is strict itself (the findings
    ledger, rewritten whole) stays strict."""
    return _validated(path, _load(path), model)


def record_from_bytes(name: str, raw: bytes, model: type[R]) -> R:
    """The record ``raw`` holds, read as :func:`read_record` reads a file: bytes read once from
    a stream (a pipe, standard input), which no second read could find again. ``name`` is
    what the messages call it."""
    return _validated(name, _decoded(name, raw), model)


def _validated(path: Path | str, loaded: dict[str, Any], model: type[R]) -> R:
    data = upgraded(path, loaded, model)
    lenient = not model.model_config.get("strict", False)
    try:
        return model.model_validate(
            data, strict=False if lenient else None, context={OWN_RECORD: True}
        )
    except ValidationError as exc:
        # The file names what it is; the model's class name would only be noise to a person
        # mending a file such as annotations.json by hand.
        raise ConfigError(describe_validation_error(str(path), exc, model)) from exc


ANALYSIS_SECTIONS = ("process", "rules", "usageCheck", "harnessCalls")
"""Parts of ``trial.json`` computed from the rest; a malformed one does not lose the trial."""


def read_trial(path: Path) -> tuple[TrialRecord, list[str]]:
    """A ``trial.json``, and the names of the analysis sections left out because they were
    malformed (a hand-edited file); the verdict itself must be valid."""
    from proctor.models.trial import TrialRecord  # here: a history replay never reads a trial

    data = upgraded(path, _load(path), TrialRecord)
    try:
        return TrialRecord.model_validate(data), []
    except ValidationError as exc:
        bad = sorted({str(e["loc"][0]) for e in exc.errors() if e["loc"]})
        dropped = [name for name in bad if name in ANALYSIS_SECTIONS]
        if not dropped or len(dropped) < len(bad):
            raise ConfigError(describe_validation_error(f"{path} (a trial)", exc)) from exc
    try:
        kept = {k: v for k, v in data.items() if k not in dropped}
        return TrialRecord.model_validate(kept), dropped
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(f"{path} (a trial)", exc)) from exc
