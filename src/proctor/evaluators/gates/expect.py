"""Expectation builders: ``includes``, ``equals``, ``matches``, ``similarity``, ``satisfies``,
and ``normalized_similarity``. Each expectation checks one value and says why it failed; gates
(``t.check``, ``t.require``) record the outcome as a named assertion."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.util import argtypes
from proctor.util.cutting import masked_short


@dataclass(frozen=True)
class Outcome:
    passed: bool
    score: float
    """0-1."""
    message: str


@dataclass(frozen=True)
class Expectation:
    """A named check of one value."""

    label: str
    check: Callable[[Any], Outcome]

    def __call__(self, value: Any) -> Outcome:
        return self.check(value)


def _short(value: Any, limit: int = 80) -> str:
    """``value`` as Python writes it, every registered secret masked before it is shortened
    to ``limit`` characters (a key the cut would split shows no part of it)."""
    return masked_short(repr(value), limit)


def normalized_similarity(a: str, b: str) -> float:
    """How alike two texts are, 0-1, ignoring case, punctuation and runs of whitespace."""
    argtypes.text(a, "normalized_similarity()", "a")
    argtypes.text(b, "normalized_similarity()", "b")

    def norm(text: str) -> str:
        return " ".join(re.sub(r"[^\w\s]", " ", str(text).lower()).split())

    left, right = norm(a), norm(b)
    if not left and not right:
        return 1.0
    return round(difflib.SequenceMatcher(None, left, right, autojunk=False).ratio(), 4)


def includes(expected: Any) -> Expectation:
    """A text holding ``expected`` (a string or compiled regex), or a list, dict or set holding
    the item (for a dict: the key, or every pair of a dict given)."""

    def check(value: Any) -> Outcome:
        if isinstance(expected, re.Pattern):
            ok = isinstance(value, str) and expected.search(value) is not None
        elif isinstance(value, str):
            ok = isinstance(expected, str) and expected in value
        elif isinstance(value, Mapping) and isinstance(expected, Mapping):
            ok = all(k in value and value[k] == v for k, v in expected.items())
        elif isinstance(value, (Mapping, Sequence, set, frozenset)):
            ok = expected in value
        else:
            ok = False
        message = "" if ok else f"{_short(value)} does not include {_short(expected)}"
        return Outcome(ok, 1.0 if ok else 0.0, message)

    pattern = expected.pattern if isinstance(expected, re.Pattern) else expected
    return Expectation(f"includes {_short(pattern, 40)}", check)


def equals(expected: Any) -> Expectation:
    """Deep equality (lists, dicts, numbers, strings, and anything with ``==``)."""

    def check(value: Any) -> Outcome:
        ok = bool(value == expected)
        message = "" if ok else f"{_short(value)} != {_short(expected)}"
        return Outcome(ok, 1.0 if ok else 0.0, message)

    return Expectation(f"equals {_short(expected, 40)}", check)


def _validator(schema: Any) -> Callable[[Any], Any]:
    validate = getattr(schema, "model_validate", None)  # a pydantic model
    if callable(validate):
        return validate  # type: ignore[no-any-return]
    for name in ("parse", "validate"):
        found = getattr(schema, name, None)
        if callable(found):
            return found  # type: ignore[no-any-return]
    if callable(schema):
        return schema  # type: ignore[no-any-return]
    raise argtypes.wrong_type(
        "matches()",
        "schema",
        "a pydantic model, something with a validating parse or validate, or a callable",
        schema,
    )


def matches(schema: Any) -> Expectation:
    """A value that ``schema`` accepts: a pydantic model (``model_validate``), or anything with a
    validating ``parse``/``validate`` or callable that raises on a bad value. A JSON text is
    parsed first when the schema refuses the text itself."""
    validate = _validator(schema)
    name = getattr(schema, "__name__", type(schema).__name__)

    def accepts(value: Any) -> None:
        # A predicate that answers False refuses as surely as one that raises.
        if validate(value) is False:
            raise ValueError(f"{name} returned False")

    def check(value: Any) -> Outcome:
        try:
            accepts(value)
        except Exception as first:
            if isinstance(value, str):
                import json

                try:
                    accepts(json.loads(value))
                    return Outcome(True, 1.0, "")
                except Exception:
                    pass
            said = (str(first).splitlines() or [type(first).__name__])[0]
            return Outcome(False, 0.0, f"does not match {name}: {said}")
        return Outcome(True, 1.0, "")

    return Expectation(f"matches {name}", check)


def similarity(expected: str, threshold: float = 0.8) -> Expectation:
    """A text at least ``threshold`` alike to ``expected`` (:func:`normalized_similarity`)."""
    argtypes.text(expected, "similarity()", "expected")
    argtypes.number(threshold, "similarity()", "threshold")
    if not 0 <= threshold <= 1:  # NaN too
        raise argtypes.wrong_value("similarity()", "threshold", "a number from 0 to 1", threshold)

    def check(value: Any) -> Outcome:
        score = normalized_similarity(str(value), expected)
        ok = score >= threshold
        message = "" if ok else f"similarity {score:.2f} < {threshold:.2f}"
        return Outcome(ok, score, message)

    return Expectation(f"similar to {_short(expected, 40)}", check)


def satisfies(predicate: Callable[[Any], Any], label: str) -> Expectation:
    """A value for which ``predicate`` is true (an exception counts as false)."""
    if not callable(predicate):
        raise argtypes.wrong_type("satisfies()", "predicate", "a callable", predicate)
    argtypes.text(label, "satisfies()", "label")

    def check(value: Any) -> Outcome:
        try:
            ok = bool(predicate(value))
            message = "" if ok else f"{_short(value)} does not satisfy {label}"
        except Exception as exc:
            ok, message = False, f"{label} raised {type(exc).__name__}: {exc}"
        return Outcome(ok, 1.0 if ok else 0.0, message)

    return Expectation(label, check)


def as_expectation(expected: Any) -> Expectation:
    """An expectation as given, or ``equals`` of a plain value."""
    return expected if isinstance(expected, Expectation) else equals(expected)
