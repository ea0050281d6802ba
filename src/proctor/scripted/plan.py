"""The plan format shared by the ``scripted`` agent (and, later, the scripted model server).

A plan is ``{"turns": [step, ...]}`` or ``{"variants": [[step, ...], ...]}``; repeat ``r``
(1-based) plays variant ``(r - 1) mod len(variants)``. ``{"conditions": {NAME: plan, ...}}``
gives one plan per A/B condition. Steps:

``{"say": TEXT}``                         assistant text
``{"shell": COMMAND, "timeoutSec": N}``   run a shell command in the workspace
``{"read": PATH}``                        read a file
``{"search": PATTERN, "path": DIR}``      search file contents for a regular expression
``{"edit": {"path", "old", "new"}}``      replace one occurrence of ``old`` with ``new``
``{"write": {"path", "content"}}``        create or overwrite a file
``{"ask": QUESTION, "options": [...]}``   ask the user and wait for the answer
``{"tool": NAME, "input": {...}, "output": TEXT, "isError": BOOL}``  a raw tool call, recorded as is
``{"tool": NAME, "input": {...}, "fromResults": {FIELD: REGEX}}``  with input fields taken from
                                          earlier tool results (see :func:`filled_input`)
``{"sleep": SECONDS}``                    pause
``{"endTurn": true}``                     end this turn and wait for the next user message
``{"exit": CODE}``                        exit immediately with CODE (a crash)

``"roles"`` (beside ``turns``/``variants``/``conditions``) scripts proctor's own model roles when
they run on the scripted model (``scripted/<name>`` in ``models``): ``{"judge": [reply, ...],
"workhorse": [...], "fast": [...]}``, the n-th request of a role getting the n-th reply (the last
one repeats). A reply is ``{"text": STR}``, ``{"json": VALUE}`` (sent as JSON text) or
``{"status": CODE, "message": STR, "body": {...}}`` (an HTTP error), with optional
``"logprobs": [numbers]`` (each finite and <= 0) for the generated tokens.

``"errors"`` makes the scripted model fail chosen agent requests, to exercise how failures are
classified: ``{"0": {"status": 401, "message": "invalid x-api-key"}}`` fails the first request.

A condition's plan under ``conditions`` may give its own ``roles`` and ``errors``: each role it
scripts, and its ``errors``, replace the top-level ones in that condition's trials.

This module uses the standard library and proctor.util only: the scripted agent imports nothing
else.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from proctor.util.text import unknown_keys

ACTIONS: dict[str, set[str]] = {
    "say": set(),
    "shell": {"timeoutSec"},
    "read": set(),
    "search": {"path"},
    "edit": set(),
    "write": set(),
    "ask": {"options"},
    "tool": {"input", "output", "isError", "fromResults"},
    "sleep": set(),
    "endTurn": set(),
    "exit": set(),
}


class PlanError(ValueError):
    """The plan is malformed; the message names the step and field."""


def _require(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise PlanError(f"{where}: {message}")


MAX_SECONDS = 86_400
"""The longest pause or command limit a plan takes (a day)."""


def _is_number(value: Any) -> bool:
    """A finite number (a plan's ``Infinity`` or ``1e400`` crashed the scripted agent)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_logprob(value: Any) -> bool:
    """A token's natural-log probability: finite and at most 0 (a probability of at most 1)."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value) and value <= 0
    except OverflowError:  # an integer too large for a float
        return False


def _near(name: Any, known: Iterable[str]) -> str:
    """``did you mean 'say'? `` for a name close to one of ``known``, else nothing."""
    near = difflib.get_close_matches(str(name), list(known), n=1)
    return f"did you mean '{near[0]}'? " if near else ""


def validate_step(step: Any, where: str) -> None:
    _require(isinstance(step, dict), where, "expected an object with one action key")
    actions = [k for k in step if k in ACTIONS]
    near = next((_near(key, ACTIONS) for key in sorted(step) if _near(key, ACTIONS)), "")
    hint = f" ({near.rstrip()})" if not actions and near else ""
    _require(
        len(actions) == 1,
        where,
        f"expected exactly one action among {', '.join(ACTIONS)}, got "
        f"{sorted(step) or 'none'}{hint}",
    )
    action = actions[0]
    extra = set(step) - {action} - ACTIONS[action]
    _require(
        not extra,
        where,
        f"{unknown_keys(extra, {action, *ACTIONS[action]})}, for action '{action}'",
    )
    value = step[action]
    if action in ("say", "shell", "read", "search", "ask", "tool"):
        _require(
            isinstance(value, str) and value != "", where, f"'{action}' must be a non-empty string"
        )
    if action == "search" and "path" in step:
        _require(
            isinstance(step["path"], str) and step["path"] != "",
            where,
            "'path' must be a non-empty string (a folder of the workspace)",
        )
    if action == "tool" and "output" in step:
        _require(isinstance(step["output"], str), where, "'output' must be a string")
    if action == "edit":
        _require(
            isinstance(value, dict)
            and isinstance(value.get("path"), str)
            and isinstance(value.get("old"), str)
            and isinstance(value.get("new"), str)
            and set(value) <= {"path", "old", "new", "replaceAll"},
            where,
            "'edit' must be an object with string 'path', 'old' and 'new'",
        )
        _require(
            isinstance(value.get("replaceAll", False), bool),
            where,
            "'edit.replaceAll' must be true or false",
        )
    if action == "write":
        _require(
            isinstance(value, dict)
            and isinstance(value.get("path"), str)
            and isinstance(value.get("content"), str)
            and set(value) <= {"path", "content"},
            where,
            "'write' must be an object with string 'path' and 'content'",
        )
    if action == "ask" and "options" in step:
        opts = step["options"]
        _require(
            isinstance(opts, list) and all(isinstance(o, str) for o in opts),
            where,
            "'options' must be a list of strings",
        )
    if action == "tool" and "input" in step:
        _require(isinstance(step["input"], dict), where, "'input' must be an object")
    if action == "tool" and "fromResults" in step:
        _validate_from_results(step["fromResults"], where)
    if action == "tool" and "isError" in step:
        _require(isinstance(step["isError"], bool), where, "'isError' must be true or false")
    if action == "sleep":
        _require(
            _is_number(value) and 0 <= value <= MAX_SECONDS,
            where,
            f"'sleep' must be a number of seconds from 0 to {MAX_SECONDS}",
        )
    if action == "exit":
        _require(
            isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255,
            where,
            "'exit' must be an integer from 0 to 255",
        )
    if action == "endTurn":
        _require(value is True, where, "'endTurn' must be true")
    if action == "shell" and "timeoutSec" in step:
        _require(
            _is_number(step["timeoutSec"]) and 0 < step["timeoutSec"] <= MAX_SECONDS,
            where,
            f"'timeoutSec' must be a number of seconds above 0, at most {MAX_SECONDS}",
        )


def _validate_from_results(spec: Any, where: str) -> None:
    _require(
        isinstance(spec, dict) and len(spec) > 0,
        where,
        "'fromResults' must be an object of input field → regular expression",
    )
    for field, pattern in spec.items():
        here = f"{where}: fromResults.{field}"
        _require(isinstance(pattern, str), here, "expected a regular expression (a string)")
        try:
            groups = re.compile(pattern).groups
        except re.error as exc:
            raise PlanError(f"{here}: not a regular expression ({exc})") from None
        _require(groups >= 1, here, "the expression needs a group: its first is the value")


def filled_input(step: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """A ``tool`` step's input with its ``fromResults`` fields filled in: each field (a
    top-level key of the input) takes the first group of its expression's first match in the
    latest of ``results`` (the texts of the tool results so far, oldest first) that gives it
    one. A field whose ``input`` value is a number takes the match as a number (Codex's
    ``write_stdin`` wants its ``session_id`` so). An empty group, or text that is not a
    number where one is wanted, is no value; a field no result gives one keeps the input's
    own value (or stays out). This lets a plan name what only a run tells, such as the id of
    a task a command started in the background."""
    tool_input = dict(step.get("input", {}))
    for field, pattern in (step.get("fromResults") or {}).items():
        compiled, default = re.compile(pattern), tool_input.get(field)
        for text in reversed(results):
            match = compiled.search(text)
            value = _typed(match.group(1), default) if match is not None else None
            if value is not None:
                tool_input[field] = value
                break
    return tool_input


def _typed(text: str | None, default: Any) -> Any:
    """A matched value as the type of the field's own value (text, or a number); None for
    no value."""
    if not text:
        return None
    if isinstance(default, bool) or not isinstance(default, int | float):
        return text
    try:
        number = int(text) if isinstance(default, int) else float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


HARNESS_ROLES = ("judge", "workhorse", "fast")


REPLY_KEYS = {"text", "json", "status", "message", "body", "logprobs"}
"""The keys of one scripted reply of a harness role."""


def validate_roles(roles: Any, where: str) -> None:
    _require(isinstance(roles, dict), where, "expected an object of role → list of replies")
    for role, replies in roles.items():
        _require(
            role in HARNESS_ROLES,
            f"{where}.{role}",
            f"unknown role ({_near(role, HARNESS_ROLES)}known: {', '.join(HARNESS_ROLES)})",
        )
        _require(
            isinstance(replies, list) and len(replies) > 0, f"{where}.{role}", "expected replies"
        )
        for i, reply in enumerate(replies):
            here = f"{where}.{role}[{i}]"
            _require(isinstance(reply, dict), here, "expected an object")
            kinds = [k for k in ("text", "json", "status") if k in reply]
            _require(len(kinds) == 1, here, "give exactly one of 'text', 'json' or 'status'")
            extra = set(reply) - REPLY_KEYS
            _require(not extra, here, unknown_keys(extra, REPLY_KEYS))
            if "text" in reply:
                _require(isinstance(reply["text"], str), here, "'text' must be a string")
            if "status" in reply:
                status = reply["status"]
                _require(
                    isinstance(status, int) and 400 <= status <= 599,
                    here,
                    "'status' must be an HTTP error code",
                )
            _check_error_fields(reply, here)
            probs = reply.get("logprobs")
            _require(probs is None or isinstance(probs, list), here, "'logprobs' must be a list")
            for n, value in enumerate(probs or []):
                _require(
                    _is_logprob(value),
                    here,
                    f"'logprobs'[{n}] must be a finite number <= 0 (a log-probability)",
                )


ERROR_KEYS = {"status", "message", "body"}
"""The keys of one injected error."""


def _check_error_fields(spec: dict[str, Any], here: str) -> None:
    """An error's ``message`` (a string) and ``body`` (a JSON object), when given."""
    if "message" in spec:
        _require(isinstance(spec["message"], str), here, "'message' must be a string")
    if "body" in spec:
        _require(isinstance(spec["body"], dict), here, "'body' must be a JSON object")


def validate_errors(errors: Any, where: str) -> None:
    _require(isinstance(errors, dict), where, "expected an object of request index → error")
    for index, spec in errors.items():
        here = f"{where}.{index}"
        _require(str(index).isdigit(), here, "the key must be a request index (0, 1, ...)")
        _require(isinstance(spec, dict), here, "expected an object with 'status'")
        extra = set(spec) - ERROR_KEYS
        _require(not extra, here, unknown_keys(extra, ERROR_KEYS))
        status = spec.get("status")
        _require(isinstance(status, int) and 400 <= status <= 599, here, "'status' must be 400-599")
        _check_error_fields(spec, here)


def _own(data: dict[str, Any], condition: str | None) -> dict[str, Any]:
    """A split plan's entry for ``condition`` (empty when the plan is not split or has none)."""
    if condition is None or not isinstance(data.get("conditions"), dict):
        return {}
    entry = data["conditions"].get(condition)
    return entry if isinstance(entry, dict) else {}


def plan_errors(data: dict[str, Any], condition: str | None = None) -> dict[int, dict[str, Any]]:
    """A validated plan's ``errors``, keyed by request index, for the scripted model server:
    the condition's own ``errors`` when its entry under ``conditions`` gives them, else the
    top-level ones."""
    own = _own(data, condition)
    errors = own["errors"] if "errors" in own else data.get("errors")
    return {int(k): v for k, v in (errors or {}).items()}


def plan_roles(data: dict[str, Any], condition: str | None = None) -> dict[str, list[Any]]:
    """A validated plan's scripted ``roles`` replies for ``condition``: the top-level ones,
    each role the condition's entry under ``conditions`` scripts replaced by its own."""
    return {**(data.get("roles") or {}), **(_own(data, condition).get("roles") or {})}


def validate_plan(data: Any, where: str = "plan.json") -> None:
    """Raise PlanError with one sentence when ``data`` is not a valid plan."""
    _require(isinstance(data, dict), where, "expected a JSON object with 'turns' or 'variants'")
    if "errors" in data:
        validate_errors(data["errors"], f"{where}: errors")
    if "roles" in data or "errors" in data:
        if "roles" in data:
            validate_roles(data["roles"], f"{where}: roles")
        rest = {k: v for k, v in data.items() if k not in ("roles", "errors")}
        if rest:
            validate_plan(rest, where)
        return
    if "conditions" in data:
        _require(set(data) == {"conditions"}, where, "'conditions' must be the only key")
        per = data["conditions"]
        _require(
            isinstance(per, dict) and len(per) > 0,
            f"{where}: conditions",
            "expected an object mapping condition names to plans",
        )
        for name, plan in per.items():
            here = f"{where}: conditions.{name}"
            _require(
                not (isinstance(plan, dict) and "conditions" in plan),
                here,
                "a condition's plan cannot be split by 'conditions' again",
            )
            validate_plan(plan, here)
        return
    keys = {"turns", "variants", "model"}
    extra = set(data) - keys
    _require(not extra, where, unknown_keys(extra, keys | {"conditions", "errors", "roles"}))
    has_turns, has_variants = "turns" in data, "variants" in data
    _require(has_turns != has_variants, where, "give exactly one of 'turns' or 'variants'")
    if "model" in data:
        _require(isinstance(data["model"], str), f"{where}: model", "expected a string")
    if has_turns:
        _require(isinstance(data["turns"], list), f"{where}: turns", "expected a list of steps")
        for i, step in enumerate(data["turns"]):
            validate_step(step, f"{where}: turns[{i}]")
    else:
        variants = data["variants"]
        _require(
            isinstance(variants, list) and len(variants) > 0,
            f"{where}: variants",
            "expected a non-empty list of step lists",
        )
        for v, steps in enumerate(variants):
            _require(isinstance(steps, list), f"{where}: variants[{v}]", "expected a list of steps")
            for i, step in enumerate(steps):
                validate_step(step, f"{where}: variants[{v}][{i}]")


def plan_for_condition(data: dict[str, Any], condition: str) -> dict[str, Any] | None:
    """The plan a condition plays: its own entry under ``conditions``, else the whole plan.

    None when the plan is split by condition and has no entry for ``condition``.
    """
    if "conditions" not in data:
        return {k: v for k, v in data.items() if k not in ("roles", "errors")}
    per: dict[str, Any] = data["conditions"]
    return per.get(condition)


def steps_for_repeat(data: dict[str, Any], repeat: int) -> list[dict[str, Any]]:
    """The steps repeat ``repeat`` (1-based) plays: variant ``(repeat - 1) mod len(variants)``;
    none for a plan that only scripts roles."""
    if "turns" not in data and "variants" not in data:
        return []
    if "turns" in data:
        return list(data["turns"])
    variants = data["variants"]
    return list(variants[(repeat - 1) % len(variants)])


def unplayed(
    data: dict[str, Any], condition: str, repeat: int, sent: int, sender: str
) -> str | None:
    """A warning naming the steps no message reached, when ``sent`` messages (each a turn the
    agent completed) left turns to spare in the plan (an ``endTurn`` no message followed):
    those steps never ran, and nothing else would say so. ``sender`` says who sent them
    (``the test``). Counted by ``endTurn``, so a turn an ``ask`` split in two is one turn here
    (no false warning; a miss at worst)."""
    steps = steps_for_repeat(plan_for_condition(data, condition) or {"turns": []}, repeat)
    turns: list[list[int]] = [[]]
    for i, step in enumerate(steps):
        if "endTurn" in step:
            turns.append([])
        else:
            turns[-1].append(i)
    while turns and not turns[-1]:
        turns.pop()  # a plan that ends with endTurn has no turn after it
    left = [i for turn in turns[sent:] for i in turn]
    if not left:
        return None
    named = ", ".join(f"turns[{i}] ({next(iter(steps[i]))})" for i in left[:5])
    more = f" and {len(left) - 5} more" if len(left) > 5 else ""
    return (
        f"the plan has {len(turns)} turn(s) (split by endTurn) and {sender} sent "
        f"{sent} message(s), so these steps never played: {named}{more}"
    )
