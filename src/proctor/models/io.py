"""Atomic writes and version-checked reads of on-disk records."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from proctor.errors import ConfigError, SchemaVersionError
from proctor.llm.secrets import mask
from proctor.models.base import RecordModel
from proctor.models.errors_format import describe_validation_error

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
        code = ord(match.group())
        shown = f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
        return "\\" + shown if json_string else shown

    return _LONE_SURROGATE.sub(escape, text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temp file and a rename, so readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(escape_surrogates(mask(text)))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dump_json(data: Any) -> str:
    text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False)
    return escape_surrogates(text, json_string=True) + "\n"


def model_to_json(model: BaseModel) -> str:
    return dump_json(model.model_dump(mode="json", by_alias=True))


def write_record(path: Path, model: BaseModel) -> None:
    write_text_atomic(path, model_to_json(model))


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


def read_record(path: Path, model: type[R]) -> R:
    """Read a record, refusing one written by a newer schema version with a clear sentence."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: file not found") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not a readable JSON file ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    version = data.get("schemaVersion", 1)
    if not isinstance(version, int) or version > model.current_schema_version:
        raise SchemaVersionError(
            f"{path}: schemaVersion {version!r} is newer than this proctor understands "
            f"({model.current_schema_version}); upgrade proctor to read it"
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(f"{path} (a {model.__name__})", exc)) from exc
