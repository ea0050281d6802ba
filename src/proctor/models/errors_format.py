"""Turn pydantic validation errors into one sentence naming the file and the field."""

from __future__ import annotations

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
    got = _short(value)
    msg = err["msg"]
    if msg.startswith("Input should be "):
        msg = "expected " + msg[len("Input should be ") :]
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
        if isinstance(value, dict | list) or list(err["loc"])[-1:] == ["[key]"]:  # says it all
            return f"{where}: field '{loc}': {msg}"
    return f"{where}: field '{loc}': {msg}, got {got}"


def _short(value: Any) -> str:
    text = repr(value)
    if isinstance(value, dict):
        text = "an object"
    elif isinstance(value, list):
        text = "a list"
    return text if len(text) <= 60 else text[:57] + "..."
