"""Trial records held small, for the aggregate and the reports of runs of many trials.

A :class:`~proctor.models.trial.TrialRecord` read into pydantic takes about 23 KB of memory for
a 4 KB ``trial.json`` (every model carries a ``__dict__`` and a set of the fields it was given),
so the end of a 10,000-trial run held 250 MB of records. :func:`compact` turns a record into a
read-only stand-in with the same attributes, nested the same way, built from classes with
``__slots__`` and with its short strings shared: about a fifth of the memory. The aggregate,
the reporters and the templates read it exactly as they read the record; nothing may change
it, and nothing may call pydantic's methods on it (``model_dump``, ``model_copy``): a caller
that needs the model reads the record itself.

Properties are carried over (``ModelUsage.total_tokens``); other methods are not. Labels, which
the aggregate dumps with pydantic, stay pydantic models, shared between stand-ins when equal
(they are identical across the trials of a case).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, cast

from pydantic import BaseModel

from proctor.models.trial import CaseLabels, TrialRecord

_SHARED: tuple[type[BaseModel], ...] = (CaseLabels,)
"""Models kept as they are and shared between stand-ins when equal (never changed)."""
_INTERNED_UP_TO = 256
"""Strings up to this length are interned: rule names, statuses, messages repeat across trials."""

_classes: dict[type[BaseModel], type] = {}


class Compact:
    """Base of the stand-in classes; ``_stands_for`` is the model a class stands for."""

    __slots__ = ()
    _stands_for: type[BaseModel]

    def __repr__(self) -> str:
        return f"compact {self._stands_for.__name__}"


def _stand_in_class(model: type[BaseModel]) -> type:
    known = _classes.get(model)
    if known is not None:
        return known
    namespace: dict[str, Any] = {"__slots__": tuple(model.model_fields), "_stands_for": model}
    for base in reversed(model.__mro__):
        if base is BaseModel or not issubclass(base, BaseModel):
            continue
        for name, value in vars(base).items():
            if isinstance(value, property):
                namespace[name] = value  # derived values read the same fields
    made = type(f"Compact{model.__name__}", (Compact,), namespace)
    _classes[model] = made
    return made


_PLAIN = frozenset({int, float, bool, type(None)})
"""Values taken as they are."""

Build = Callable[[Any, Callable[[Any], Any]], Any]
_builders: dict[type[BaseModel], Build] = {}


def _builder(model: type[BaseModel]) -> Build:
    """A function that makes the stand-in of a ``model`` instance, one straight line per field
    (plain values taken as they are, short strings interned, the rest through ``convert``):
    about four times faster than a loop over the fields."""
    known = _builders.get(model)
    if known is not None:
        return known
    lines = ["def build(src, convert):", "    out = new(cls)"]
    for name in model.model_fields:  # field names are identifiers: safe to write out
        lines += [
            f"    v = src.{name}",
            "    t = type(v)",
            f"    out.{name} = v if t in plain else intern(v) if t is str and len(v) <= limit "
            "else convert(v)",
        ]
    lines.append("    return out")
    namespace: dict[str, Any] = {
        "new": object.__new__,
        "cls": _stand_in_class(model),
        "plain": _PLAIN,
        "intern": sys.intern,
        "limit": _INTERNED_UP_TO,
    }
    exec("\n".join(lines), namespace)
    made: Build = namespace["build"]
    _builders[model] = made
    return made


class _Compactor:
    def __init__(self) -> None:
        self.shared: dict[tuple[type, str], BaseModel] = {}

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        if kind is str:
            return sys.intern(value) if len(value) <= _INTERNED_UP_TO else value
        if isinstance(value, BaseModel):
            return self.model(value)
        if kind is list:
            return [self.value(item) for item in value]
        if kind is dict:
            return {self.value(key): self.value(item) for key, item in value.items()}
        if kind is tuple:
            return tuple(self.value(item) for item in value)
        return value

    def model(self, value: BaseModel) -> Any:
        if isinstance(value, _SHARED):
            key = (type(value), value.model_dump_json())
            return self.shared.setdefault(key, value)
        return _builder(type(value))(value, self.value)


_COMPACTOR = _Compactor()


def compact(record: TrialRecord) -> TrialRecord:
    """A read-only stand-in for ``record`` (see the module's description), typed as the record
    it reads like."""
    return cast(TrialRecord, _COMPACTOR.model(record))


def is_compact(record: object) -> bool:
    return isinstance(record, Compact)


def with_repeat(record: TrialRecord, repeat: int) -> TrialRecord:
    """A copy of a compact stand-in with another ``repeat`` (runs pooled into one sample set
    number their repeats on), the rest shared with ``record``."""
    kind: Any = type(record)
    out = object.__new__(kind)
    for name in kind.__slots__:
        setattr(out, name, getattr(record, name))
    out.repeat = repeat
    return cast(TrialRecord, out)
