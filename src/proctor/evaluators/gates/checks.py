"""The gate vocabulary written as JSON, for the ``expect`` evaluator of case folders: each check is
an object with one camelCase key naming a gate (``{"calledTool": "shell", "status":
"completed"}``), read into a call of the same :class:`~proctor.evaluators.gates.vocabulary.Gates`
method that evals written as code use. A malformed check raises ValueError with one sentence."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from proctor.evaluators.gates.assertions import Handle
from proctor.evaluators.gates.patches import check_globs
from proctor.evaluators.gates.vocabulary import Gates
from proctor.models.errors_format import json_text
from proctor.models.trajectory import EventType
from proctor.util.text import unknown_keys

STATUSES = ("completed", "failed", "denied", "pending")
EVENT_TYPES: tuple[str, ...] = get_args(EventType)


@dataclass(frozen=True)
class Check:
    """One parsed check: its key as written and the gate it runs."""

    key: str
    run: Callable[[Gates], Handle]


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{what}' expects a non-empty text, got {json_text(value)}")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"'{what}' expects a whole number >= 0, got {json_text(value)}")
    return value


def _true(value: Any, what: str) -> None:
    if value is not True:
        raise ValueError(f"'{what}' expects true (leave the check out to not check it)")


def _globs(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"'{what}.globs' expects a non-empty list of globs such as ['tests/**']")
    return check_globs(value)


def matcher(value: Any, what: str) -> Any:
    """A JSON matcher as the gates take it: ``{"regex": "…"}`` becomes a compiled regex (at any
    depth of an object), anything else is a literal."""
    if isinstance(value, dict):
        if set(value) == {"regex"}:
            try:
                return re.compile(_text(value["regex"], f"{what}.regex"))
            except re.error as exc:
                raise ValueError(f"'{what}.regex' is not a valid regular expression ({exc})")
        return {k: matcher(v, f"{what}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [matcher(v, what) for v in value]
    return value


def _called_tool(entry: dict[str, Any]) -> Callable[[Gates], Handle]:
    name = _text(entry["calledTool"], "calledTool")
    tool_input = matcher(entry["input"], "input") if "input" in entry else None
    output = matcher(entry["output"], "output") if "output" in entry else None
    count = _count(entry["count"], "count") if "count" in entry else None
    status = entry.get("status")
    if status is not None and status not in STATUSES:
        raise ValueError(f"'status' expects one of {', '.join(STATUSES)}, got {json_text(status)}")
    return lambda g: g.called_tool(name, tool_input, output, count, status)


def _event(entry: dict[str, Any], key: str) -> Callable[[Gates], Handle]:
    spec = entry[key]
    if isinstance(spec, str):
        spec = {"type": spec}
    if not isinstance(spec, dict) or not set(spec) <= {"type", "match"}:
        raise ValueError(f'\'{key}\' expects {{"type": …, "match": {{…}}}}, got {json_text(spec)}')
    type_ = spec.get("type")
    if type_ not in EVENT_TYPES:
        raise ValueError(
            f"'{key}.type' expects one of {', '.join(EVENT_TYPES)}, got {json_text(type_)}"
        )
    found = matcher(spec["match"], f"{key}.match") if "match" in spec else None
    if found is not None and not isinstance(found, dict | re.Pattern):
        raise ValueError(f"'{key}.match' expects an object of fields, or {{\"regex\": …}}")
    if key == "event":
        return lambda g: g.event(type_, found)
    return lambda g: g.not_event(type_, found)


def _tampering(value: Any) -> Callable[[Gates], Handle]:
    if value is True:
        return lambda g: g.no_test_tampering()
    if isinstance(value, dict) and not set(value) <= {"globs", "allowEdits"}:
        extra = set(value) - {"globs", "allowEdits"}
        raise ValueError(f"{unknown_keys(extra, {'globs', 'allowEdits'})}, for 'noTestTampering'")
    if not isinstance(value, dict):
        raise ValueError(
            '\'noTestTampering\' expects true or {"globs": […], "allowEdits": true}, '
            f"got {json_text(value)}"
        )
    globs = _globs(value["globs"], "noTestTampering") if "globs" in value else None
    allow = value.get("allowEdits", False)
    if not isinstance(allow, bool):
        raise ValueError(
            f"'noTestTampering.allowEdits' expects true or false, got {json_text(allow)}"
        )
    return lambda g: g.no_test_tampering(globs, allow_edits=allow)


def _hidden(value: Any, default_globs: list[str]) -> Callable[[Gates], Handle]:
    if value is True:
        return lambda g: g.no_hidden_reads(default_globs)
    if not isinstance(value, dict) or set(value) != {"globs"}:
        raise ValueError(
            f"'noHiddenReads' expects true or {{\"globs\": […]}}, got {json_text(value)}"
        )
    globs = _globs(value["globs"], "noHiddenReads")
    return lambda g: g.no_hidden_reads(globs)


def _tool_order(value: Any) -> Callable[[Gates], Handle]:
    if not isinstance(value, list) or not value:
        raise ValueError(
            f"'toolOrder' expects a non-empty list of tool names, got {json_text(value)}"
        )
    names = [_text(v, "toolOrder[]") for v in value]
    return lambda g: g.tool_order(names)


def _message(value: Any) -> Callable[[Gates], Handle]:
    found = matcher(value, "messageIncludes")
    if not isinstance(found, str | re.Pattern) or found == "":
        raise ValueError(
            f"'messageIncludes' expects a text or {{\"regex\": …}}, got {json_text(value)}"
        )
    return lambda g: g.message_includes(found)


Builder = Callable[[Any], Callable[[Gates], Handle]]


def _flag(key: str, gate: Callable[[Gates], Handle]) -> Builder:
    """A check written ``{key: true}``."""

    def build(value: Any) -> Callable[[Gates], Handle]:
        _true(value, key)
        return gate

    return build


def _named(key: str, gate: Callable[[Gates, str], Handle]) -> Builder:
    """A check written ``{key: "name"}``."""

    def build(value: Any) -> Callable[[Gates], Handle]:
        name = _text(value, key)
        return lambda g: gate(g, name)

    return build


def _max_calls(value: Any) -> Callable[[Gates], Handle]:
    limit = _count(value, "maxToolCalls")
    return lambda g: g.max_tool_calls(limit)


SIMPLE: dict[str, Builder] = {
    "notCalledTool": _named("notCalledTool", Gates.not_called_tool),
    "toolOrder": _tool_order,
    "messageIncludes": _message,
    "noFailedActions": _flag("noFailedActions", Gates.no_failed_actions),
    "maxToolCalls": _max_calls,
    "usedNoTools": _flag("usedNoTools", Gates.used_no_tools),
    "loadedSkill": _named("loadedSkill", Gates.loaded_skill),
    "noTestTampering": _tampering,
    "noHistoryPeeking": _flag("noHistoryPeeking", Gates.no_history_peeking),
}
WITH_OPTIONS = {"calledTool": {"input", "output", "count", "status"}, "calledSubagent": {"input"}}
KNOWN = sorted([*SIMPLE, *WITH_OPTIONS, "event", "notEvent", "noHiddenReads"])


def parse_check(entry: Any, hidden_globs: list[str] | None = None) -> Check:
    """One check from its JSON object; ValueError naming the key and what it expects.
    ``hidden_globs`` is what ``"noHiddenReads": true`` hides (the case's ``copyIn`` paths)."""
    if not isinstance(entry, dict) or not entry:
        raise ValueError('expected an object with one check key, such as {"calledTool": "shell"}')
    keys = [k for k in entry if k in KNOWN]
    if len(keys) != 1:
        unknown = [k for k in entry if k not in KNOWN and not _option(k, entry)]
        near = difflib.get_close_matches(unknown[0], KNOWN, n=1) if unknown else []
        hint = f"did you mean '{near[0]}'? " if near else ""
        raise ValueError(
            f"unknown check {unknown[0]!r} ({hint}known: {', '.join(KNOWN)})"
            if unknown and not keys
            else f"expected exactly one check key, got {sorted(keys) or sorted(entry)}"
        )
    key = keys[0]
    extra = set(entry) - {key} - WITH_OPTIONS.get(key, set())
    if extra:
        known = {key, *WITH_OPTIONS.get(key, set())}
        raise ValueError(f"{unknown_keys(extra, known)}, for check '{key}'")
    if key == "calledTool":
        return Check(key, _called_tool(entry))
    if key == "calledSubagent":
        name = _text(entry[key], key)
        sub_input = matcher(entry["input"], "input") if "input" in entry else None
        return Check(key, lambda g: g.called_subagent(name, sub_input))
    if key in ("event", "notEvent"):
        return Check(key, _event(entry, key))
    if key == "noHiddenReads":
        return Check(key, _hidden(entry[key], hidden_globs or []))
    return Check(key, SIMPLE[key](entry[key]))


def _option(key: str, entry: dict[str, Any]) -> bool:
    return any(key in WITH_OPTIONS[k] for k in entry if k in WITH_OPTIONS)
