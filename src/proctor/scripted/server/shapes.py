"""Why a request body could not be read: the first field whose JSON type is wrong.

The dialects parse bodies with no more than a type test per field they read (:func:`listed`,
:func:`mapped`, :func:`typed`), which keeps the normal path fast: a wrong type makes the parse
fail, even one Python would take as empty (``"messages": 0``). Only when a parse fails does
the handler walk the body against its dialect's :data:`Shape` to name the field and what it
should be (``messages[0].content: expected a string or a list of content blocks, got 5``). A
shape checks the fields its dialect type-tests (those it reads, and the conversation's own
content: a block's text, a call's input, a result's content); a field that is absent or null
is left alone, as the dialects treat it as missing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn

SHOWN = 60
"""Longest rendering of a wrong value in a message."""


class Mismatch(Exception):
    """A field of the body has the wrong type; the message names its path."""


class Shape:
    """What one JSON value should be; :meth:`check` raises :class:`Mismatch` when it is not."""

    def __init__(self, expected: str) -> None:
        self.expected = expected

    def check(self, value: Any, path: str) -> None:
        raise NotImplementedError

    def fail(self, value: Any, path: str) -> NoReturn:
        raise Mismatch(f"{path or 'the body'}: expected {self.expected}, got {show(value)}")


class Anything(Shape):
    def check(self, value: Any, path: str) -> None:
        pass


class Scalar(Shape):
    """A value of one of ``types`` (``bool`` is not taken for a number)."""

    def __init__(self, expected: str, *types: type) -> None:
        super().__init__(expected)
        self.types = types

    def check(self, value: Any, path: str) -> None:
        if type(value) not in self.types:
            self.fail(value, path)


class Obj(Shape):
    """A JSON object; the named fields, when present and not null, are checked in turn."""

    def __init__(
        self, expected: str = "an object", required: tuple[str, ...] = (), **fields: Shape
    ) -> None:
        super().__init__(expected)
        self.fields, self.required = fields, required

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.fail(value, path)
        for name, shape in self.fields.items():
            where = f"{path}.{name}" if path else name
            if value.get(name) is not None:
                shape.check(value[name], where)
            elif name in self.required:
                raise Mismatch(f"{where}: expected {shape.expected}, but it is missing")


class Tagged(Obj):
    """A JSON object whose fields depend on its ``key`` field (a content block's ``type``, a
    string): the common fields are checked, then those of the variant its ``key`` names (the
    variant of None when it has none), if any."""

    def __init__(
        self, expected: str, key: str, variants: Mapping[str | None, Obj], **fields: Shape
    ) -> None:
        super().__init__(expected)
        self.fields = {key: STRING, **fields}
        self.key, self.variants = key, variants

    def check(self, value: Any, path: str) -> None:
        super().check(value, path)
        variant = self.variants.get(value.get(self.key))
        if variant is not None:
            variant.check(value, path)


class Array(Shape):
    """A JSON array whose every item has the shape ``item``."""

    def __init__(self, item: Shape, expected: str = "a list") -> None:
        super().__init__(expected)
        self.item = item

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            self.fail(value, path)
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]")


class Either(Shape):
    """One of several shapes, chosen by the value's JSON type (``str``, ``list`` or ``dict``)."""

    def __init__(self, expected: str, by_type: Mapping[type, Shape]) -> None:
        super().__init__(expected)
        self.by_type = by_type

    def check(self, value: Any, path: str) -> None:
        shape = self.by_type.get(type(value))
        if shape is None:
            self.fail(value, path)
        shape.check(value, path)


ANY = Anything("anything")
STRING = Scalar("a string", str)
BOOLEAN = Scalar("true or false", bool)
OBJECT = Obj()
SCHEMA = Obj("a JSON schema object", properties=Obj("an object of properties"))
"""A tool's parameter schema: only its ``properties`` are read (their names)."""


def listed(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, ``[]`` when it is absent (None); any other value
    raises TypeError (the handler then names the field from the dialect's shape)."""
    if type(value) is list:
        return value
    if value is None:
        return []
    raise TypeError(f"expected a list, got {show(value)}")


def mapped(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, ``{}`` when it is absent (None); any other value
    raises TypeError."""
    if type(value) is dict:
        return value
    if value is None:
        return {}
    raise TypeError(f"expected an object, got {show(value)}")


def typed(value: Any, *types: type) -> Any:
    """``value`` when it is absent (None) or of one of ``types``; else TypeError."""
    if value is None or type(value) in types:
        return value
    raise TypeError(f"expected {' or '.join(t.__name__ for t in types)}, got {show(value)}")


def show(value: Any) -> str:
    """``value`` as the JSON the client sent, cut to :data:`SHOWN` characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def explain(shape: Shape | None, body: dict[str, Any]) -> str | None:
    """The first wrong field of ``body`` by ``shape``, or None when none is found."""
    if shape is None:
        return None
    try:
        shape.check(body, "")
    except Mismatch as exc:
        return str(exc)
    except RecursionError:
        return None
    return None
