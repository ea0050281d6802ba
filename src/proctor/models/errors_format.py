"""Turn pydantic validation errors into one sentence naming the file and the field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ValidationError


def format_loc(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def describe_validation_error(
    where: str, exc: ValidationError, model: type[BaseModel] | None = None, prefix: str = ""
) -> str:
    """One sentence for the first error: ``<file>: field 'x.y': expected ..., got ...``."""
    return _describe(where, exc.errors()[0], model, prefix)


def describe_validation_errors(
    where: str, exc: ValidationError, model: type[BaseModel] | None = None
) -> list[str]:
    """One sentence per error (see :func:`describe_validation_error`), each field once."""
    return list(dict.fromkeys(_describe(where, err, model, "") for err in exc.errors()))


def _describe(where: str, err: Any, model: type[BaseModel] | None, prefix: str) -> str:
    parts = list(err["loc"])
    if parts[-1:] == ["[key]"] and len(parts) >= 2:  # a map's key: name the map, not the key
        parts = parts[:-2]
    loc = format_loc([*([prefix] if prefix else []), *parts])
    kind = err["type"]
    value: Any = err.get("input")
    if kind == "extra_forbidden":
        known = ""
        if model is not None and len(err["loc"]) == 1:
            names = sorted(f.alias or n for n, f in model.model_fields.items())
            known = f" (known keys: {', '.join(names)})"
        return f"{where}: unknown key '{loc}'{known}"
    if kind == "missing":
        return f"{where}: field '{loc}' is required but missing"
    if kind in EXPECTED_TYPE:  # "repeats": "3" - the JSON type is wrong: say both types
        return f"{where}: field '{loc}': expected {EXPECTED_TYPE[kind]}, got {_json_kind(value)}"
    got = _short(value)
    msg = err["msg"]
    if msg.startswith("Input should be "):
        msg = "expected " + msg[len("Input should be ") :]
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
        if isinstance(value, dict | list) or list(err["loc"])[-1:] == ["[key]"]:  # says it all
            return f"{where}: field '{loc}': {msg}"
    return f"{where}: field '{loc}': {msg}, got {got}"


EXPECTED_TYPE = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}
"""What a field of the wrong JSON type expected, in JSON's words, by pydantic error type."""


def _json_kind(value: Any) -> str:
    """``value`` as JSON names it: ``true``, ``null``, ``the string "3"``, ``3.5``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return "the string " + (text if len(text) <= 60 else text[:56] + '..."')
    if isinstance(value, int | float):
        return _short(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return _short(value)


def _short(value: Any) -> str:
    text = repr(value)
    if isinstance(value, dict):
        text = "an object"
    elif isinstance(value, list):
        text = "a list"
    return text if len(text) <= 60 else text[:57] + "..."
