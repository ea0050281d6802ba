"""The checks of the arguments the event gates take (``event``, ``not_event``,
``event_order``): an event type proctor knows, a matcher of that type's keys, an
``event_order`` entry of a shape it reads. A misspelt type or key would match nothing, so a
gate that asks for no such event could never fail: they are refused, with the nearest name."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Sequence
from typing import Any, get_args

from proctor.models.trajectory import Event, EventType
from proctor.util import argtypes

EventMatcher = str | tuple[str, Any] | list[Any] | dict[str, Any]
"""An ``event_order`` entry: a type, a (type, matcher) pair, or a dict with ``type``."""

EVENT_TYPES = frozenset(get_args(EventType))


def _known_type(
    type_: str,
    matcher: Any = None,
    *,
    where: str = "event()",
    args: tuple[str, str] = ("type", "matcher"),
) -> None:
    """A type that is no string, or a matcher that is no dict, regex or predicate, is a
    TypeError naming the argument (``args``: the type's and the matcher's) of ``where``. A
    misspelt type, or a misspelt key of a matcher, would match nothing, so ``not_event``
    could never fail: refuse them too."""
    if not isinstance(type_, str):
        raise argtypes.wrong_type(where, args[0], "an event type (a string)", type_)
    if type_ not in EVENT_TYPES:
        raise ValueError(
            f"unknown event type {type_!r} (known: {', '.join(sorted(EVENT_TYPES))})"
            + _near(type_, sorted(EVENT_TYPES))
        )
    if (
        matcher is not None
        and not isinstance(matcher, (dict, re.Pattern))
        and not callable(matcher)
    ):
        # An event is a record, so a plain value equals no event and not_event could never fail.
        keys = ", ".join(k for k in _event_keys(type_) if k not in ("ts", "sidechain", "type"))
        raise argtypes.wrong_type(
            where,
            args[1],
            f"a dict of the {type_} event's keys ({keys}), a compiled regex or a predicate "
            "(a plain value matches no event)",
            matcher,
        )
    if isinstance(matcher, dict):
        known = _event_keys(type_)
        for key in matcher:
            if key not in known:
                raise ValueError(
                    f"{type_} events have no key {key!r} (they have: {', '.join(sorted(known))})"
                    + _near(str(key), known)
                )


def _near(value: str, known: Sequence[str]) -> str:
    """``; did you mean 'x'?`` for a misspelt value close to one of ``known``, else ''."""
    near = difflib.get_close_matches(value, known, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else ""


@functools.cache
def _event_keys(type_: str) -> tuple[str, ...]:
    """The keys of a ``type_`` event as matchers see them (camelCase, as in trajectory.jsonl)."""
    model = next(m for m in get_args(get_args(Event)[0]) if m.model_fields["type"].default == type_)
    return tuple(f.alias or name for name, f in model.model_fields.items())


ORDER_ENTRIES = "event types, (type, matcher) pairs or dicts with 'type'"
"""What ``event_order`` takes a list of."""


def _as_pair(matcher: EventMatcher, where: str, arg: str) -> tuple[str, Any, tuple[str, str]]:
    """An ``event_order`` entry (argument ``arg`` of ``where``) as (type, matcher, the names
    of their arguments): a type, a ``(type, matcher)`` pair (a list too), or a dict with
    ``type`` and the keys to match. An entry of another type is a TypeError; a pair of the
    wrong length, or a dict without ``type``, a ValueError."""
    if isinstance(matcher, str):
        return matcher, None, (arg, arg)
    if isinstance(matcher, (tuple, list)) and len(matcher) in (1, 2):
        return matcher[0], matcher[1] if len(matcher) > 1 else None, (f"{arg}[0]", f"{arg}[1]")
    if isinstance(matcher, dict) and "type" in matcher:
        rest = {k: v for k, v in matcher.items() if k != "type"}
        return matcher["type"], rest or None, (f"{arg}['type']", arg)
    if not isinstance(matcher, (tuple, list, dict)):
        raise argtypes.wrong_type(
            where, arg, "an event type, a (type, matcher) pair or a dict with 'type'", matcher
        )
    raise ValueError(
        f"{where}: argument '{arg}': expected an event type, a (type, matcher) pair or a dict "
        f"with 'type', got {argtypes.given(matcher)}"
    )
