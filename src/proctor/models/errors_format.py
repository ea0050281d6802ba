"""Turn pydantic validation errors into one sentence naming the file and the field."""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from proctor.util.json_shown import json_kind, json_text, short

__all__ = ["json_kind", "json_text"]

BRANCH = "|"
"""The start of a tag that names a branch of a union (``Tag("|object")``): pydantic puts it in
an error's place, and a sentence leaves it out, since the user wrote no such key."""


def without_branches(loc: Sequence[int | str]) -> list[int | str]:
    """An error's place without the union branches it went through (see :data:`BRANCH`)."""
    return [part for part in loc if not (isinstance(part, str) and part.startswith(BRANCH))]


def format_loc(loc: Sequence[int | str]) -> str:
    out = ""
    for part in without_branches(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def describe_validation_error(
    where: str,
    exc: ValidationError,
    model: type[BaseModel] | None = None,
    prefix: str = "",
    also: Collection[str] = (),
) -> str:
    """One sentence for the first error: ``<file>: field 'x.y': expected ..., got ...``.

    ``also`` names the keys the object ``model`` reads is written with beside its own fields
    (an evaluator entry's ``use``, ``gate``, ``weight``…, read apart from its parameters): an
    unknown key at its top level is matched against them too, and they are listed as known."""
    return _describe(where, exc.errors()[0], model, prefix, also)


def describe_validation_errors(
    where: str, exc: ValidationError, model: type[BaseModel] | None = None
) -> list[str]:
    """One sentence per error (see :func:`describe_validation_error`), each field once."""
    return list(dict.fromkeys(_describe(where, err, model, "") for err in exc.errors()))


def _describe(
    where: str, err: Any, model: type[BaseModel] | None, prefix: str, also: Collection[str] = ()
) -> str:
    parts = list(err["loc"])
    if parts[-1:] == ["[key]"] and len(parts) >= 2:  # a map's key: name the map, not the key
        parts = parts[:-2]
    loc = format_loc([*([prefix] if prefix else []), *parts])
    kind = err["type"]
    value: Any = err.get("input")
    if kind == "extra_forbidden":
        known = ""
        inner = without_branches(err["loc"])[:-1]
        owner = _model_at(model, inner) if model else None
        key = err["loc"][-1]
        named = next(
            (f.alias for n, f in (owner.model_fields.items() if owner else ()) if n == key), None
        )
        # A model that takes a field by its Python name (``timeout_sec``) refuses that name
        # only when the key is given too: one field set twice, not an unknown key.
        by_name = owner is not None and owner.model_config.get("populate_by_name")
        if by_name and named and named != key:
            field = format_loc([*([prefix] if prefix else []), *parts[:-1], named])
            return (
                f"{where}: keys '{named}' and '{key}' both set field '{field}' ('{key}' is "
                f"its Python name); keep '{named}' alone"
            )
        if owner is not None:
            names = sorted(
                {f.alias or n for n, f in owner.model_fields.items()}
                | (set(also) if not inner else set())
            )
            near = difflib.get_close_matches(str(err["loc"][-1]), names, n=1)
            hint = f"did you mean '{near[0]}'? " if near else ""
            known = f" ({hint}known keys: {', '.join(names)})"
        return f"{where}: unknown key '{loc}'{known}"
    if kind == "missing":
        return f"{where}: field '{loc}' is required but missing{_given_instead(err, value)}"
    if kind in EXPECTED_TYPE:  # "repeats": "3" - the JSON type is wrong: say both types
        field = f"field '{loc}': " if loc else ""  # no field: the whole document (a list)
        return f"{where}: {field}expected {EXPECTED_TYPE[kind]}, got {json_kind(value)}"
    got = short(value)
    if kind in LENGTH_LIMITS:  # pydantic's "String should have at least 1 character", said anew
        return f"{where}: field '{loc}': {_length(kind, err.get('ctx') or {}, value)}"
    msg = err["msg"]
    if msg.startswith("Input should be "):
        msg = "expected " + msg[len("Input should be ") :]
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
        if not loc:  # a check of the whole document, which names its fields itself
            return f"{where}: {msg}"
        if isinstance(value, dict | list) or list(err["loc"])[-1:] == ["[key]"]:  # says it all
            return f"{where}: field '{loc}': {msg}"
    return f"{where}: field '{loc}': {msg}, got {got}"


def _given_instead(err: Any, value: Any) -> str:
    """For a required key that is missing: the key given beside it that is close to its name
    (``checkpoint`` for ``checkpoints``), said as the likely slip; else nothing."""
    name = err["loc"][-1] if err["loc"] else None
    if not isinstance(name, str) or not isinstance(value, dict):
        return ""
    near = difflib.get_close_matches(name, [k for k in value if isinstance(k, str)], n=1)
    return f" ('{near[0]}' is given: did you mean '{name}'?)" if near and near[0] != name else ""


EXPECTED_TYPE = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "int_parsing": "an integer",
    "float_parsing": "a number",
    "bool_parsing": "true or false",
    "tuple_type": "a list",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}
"""What a field of the wrong JSON type expected, in JSON's words, by pydantic error type."""


LENGTH_LIMITS = ("string_too_short", "string_too_long", "too_short", "too_long")
"""Pydantic's error types for a string, list or object of too few or too many items."""


def _length(kind: str, ctx: dict[str, Any], value: Any) -> str:
    """What a value of the wrong length expected, and what it had, in JSON's words."""
    text = kind.startswith("string")
    one, many = (
        ("character", "characters")
        if text
        else ("entry", "entries")
        if isinstance(value, dict)
        else ("item", "items")
    )
    if kind.endswith("short"):
        least = int(ctx.get("min_length", 1))
        if least == 1:
            if text:
                return "expected a non-empty string, got an empty one"
            return f"expected at least one {one}, got none"
        bound = f"at least {least}"
    else:
        bound = f"at most {int(ctx.get('max_length', 0))}"
    had = len(value) if isinstance(value, str | list | dict) else ctx.get("actual_length")
    return f"expected {bound} {many}, got {had}"


def _model_at(model: type[BaseModel], loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The model whose fields are found at ``loc`` under ``model`` (through fields, list items
    and map values), or None where the path leads to no single model."""
    current: Any = model
    for part in loc:
        current = _one_model(current) if isinstance(part, str) else current
        if isinstance(part, str) and isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for n, f in current.model_fields.items() if part in (n, f.alias)), None)
            if field is None:
                return None
            current = field.annotation
            continue
        inner = _container_item(current)  # a list's index or a map's key
        if inner is None:
            return None
        current = inner
        if isinstance(part, str):  # a map's key: its value's model, looked up next
            continue
    found = _one_model(current)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def _one_model(annotation: Any) -> Any:
    """``annotation`` with ``Annotated`` and ``X | None`` taken away, and of a union, its one
    model when one branch is a model (``str | RoleModel``); another union of several types is
    left as it is."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        rest = [_one_model(a) for a in typing.get_args(annotation) if a is not type(None)]
        models = [a for a in rest if isinstance(a, type) and issubclass(a, BaseModel)]
        if len(rest) == 1 or len(models) == 1:
            return (models or rest)[0]
    return annotation


def _container_item(annotation: Any) -> Any:
    """A list's item type or a map's value type, or None for anything else."""
    annotation = _one_model(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (list, tuple, set, frozenset) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def json_error(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text, said as a person would fix it: a comma before a closing
    ``}`` or ``]`` (which JavaScript allows and JSON does not) and an empty text are named, as
    the parser's own words (``Expecting property name enclosed in double quotes``) are not."""
    text, pos = exc.doc, exc.pos
    if not text.strip():
        return "it is empty (expected a JSON value)"
    before = text[:pos].rstrip()
    if before.endswith(",") and text[pos : pos + 1] in ("}", "]"):
        return f"a comma before the closing '{text[pos]}' (JSON allows no trailing comma)"
    if exc.msg.startswith("Unexpected UTF-8 BOM"):
        return (
            "it starts with a byte-order mark (BOM), which JSON does not allow: save it as "
            "UTF-8 without a BOM"
        )
    ahead = text[pos:]
    if ahead.startswith(("//", "/*", "#")):
        return f"a comment ('{ahead[: 1 if ahead[0] == '#' else 2]}'): JSON allows no comments"
    if not before and _YAML_START.match(ahead):
        return 'it reads as YAML, not JSON: write it as a JSON object ({"key": value, …})'
    if ahead.startswith("'"):
        return "a string in single quotes: JSON strings take double quotes"
    if exc.msg == "Extra data":
        return "more text after the end of the JSON value (a file holds one value)"
    # Cut short: nothing but blanks from where the parser stopped (a string cut at a line
    # break, `{"broken` and a newline, stops at that line break as at a control character).
    if exc.msg.startswith("Unterminated string") or pos >= len(text.rstrip()):
        # (the parser's "Unterminated string starting at" names a place it leaves out)
        return "it ends before its JSON value does: the file is cut short"
    if exc.msg.startswith("Invalid control character"):
        return "a control character (a line break or a tab) inside a string: write it as \\n or \\t"
    return exc.msg


_YAML_START = re.compile(r"(---\s*$|- |[A-Za-z_][\w.-]*:(\s|$))", re.MULTILINE)
"""How a YAML file starts: a document marker, a list item or a ``key:`` line."""
