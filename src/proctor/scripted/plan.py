"""The plan format shared by the ``scripted`` agent (and, later, the scripted model server).

A plan is ``{"turns": [step, ...]}`` or ``{"variants": [[step, ...], ...]}``; repeat ``r``
(1-based) plays variant ``(r - 1) mod len(variants)``. ``{"conditions": {NAME: plan, ...}}``
gives one plan per A/B condition. Steps:

``{"say": TEXT}``                         assistant text
``{"shell": COMMAND, "timeoutSec": N}``   run a shell command in the workspace
``{"read": PATH}``                        read a file (of the workspace)
``{"search": PATTERN, "path": DIR}``      search file contents for a regular expression (in a
                                          folder of the workspace, by default all of it)
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

from proctor.util.json_shown import WHOLE, json_kind, json_text
from proctor.util.text import did_you_mean, unknown_keys

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
    """The plan is malformed; the message names the file, the field and what it expected."""


def _field(path: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``path``: ``turns[0]``, ``turns[0].sleep``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _error(where: str, path: str, message: str) -> PlanError:
    """``<file>: field 'turns[0].sleep': <message>`` (the file alone for the whole plan), as
    a config.json error is worded."""
    field = f"field '{path}': " if path else ""
    return PlanError(f"{where}: {field}{message}")


def _require(cond: bool, where: str, path: str, message: str) -> None:
    if not cond:
        raise _error(where, path, message)


def _expect(cond: bool, where: str, path: str, expected: str, value: Any) -> None:
    """Unless ``cond``: ``field 'PATH': expected EXPECTED, got VALUE``."""
    if not cond:
        raise _error(where, path, f"expected {expected}, got {json_kind(value)}")


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
    return did_you_mean(str(name), known)


def _is_flag(value: Any) -> bool:
    return isinstance(value, bool)


def validate_step(step: Any, where: str, path: str) -> None:
    """Raise PlanError unless ``step`` (at ``path`` of the plan in ``where``) is one valid
    step."""
    _expect(isinstance(step, dict), where, path, "an object with one action key", step)
    actions = [k for k in step if k in ACTIONS]
    near = next((_near(key, ACTIONS) for key in sorted(step) if _near(key, ACTIONS)), "")
    hint = f" ({near.rstrip()})" if not actions and near else ""
    _require(
        len(actions) == 1,
        where,
        path,
        f"expected exactly one action among {', '.join(ACTIONS)}, got "
        f"{json_text(sorted(step), WHOLE) if step else 'none'}{hint}",
    )
    action = actions[0]
    extra = set(step) - {action} - ACTIONS[action]
    other = [m for key in sorted(extra) for m in difflib.get_close_matches(key, ACTIONS, n=1)]
    also = (  # {"say": "a", "endturn": true}: the slip is an action, not one of say's keys
        f"; '{other[0]}' is an action of its own: give it a step of its own" if other else ""
    )
    if not other and action in FILE_STEP_KEYS and _file_fields(action, extra):
        also = _file_fields_hint(action, step[action], extra)
    elif (
        not other
        and action == "tool"
        and not any(difflib.get_close_matches(key, ACTIONS["tool"], n=1) for key in extra)
    ):
        # {"tool": "Bash", "command": "ls"}: the call's arguments laid beside its name
        also = '; the call\'s arguments go under \'input\': {"tool": NAME, "input": {…}}'
    _require(
        not extra,
        where,
        path,
        f"{unknown_keys(extra, {action, *ACTIONS[action]})}, for action '{action}'{also}",
    )
    value, here = step[action], _field(path, action)
    if action in ("say", "shell", "read", "search", "ask", "tool"):
        _expect(isinstance(value, str) and value != "", where, here, "a non-empty string", value)
    if action == "read":
        _expect_inside(value, where, here, INSIDE)
    if action == "search" and "path" in step:
        folder = step["path"]
        _expect(
            isinstance(folder, str) and folder != "",
            where,
            _field(path, "path"),
            "a non-empty string (a folder of the workspace)",
            folder,
        )
        _expect_inside(
            folder,
            where,
            _field(path, "path"),
            "a folder of the workspace (relative, not climbing out with '..')",
            itself=True,
        )
    if action == "tool" and "output" in step:
        _expect(
            isinstance(step["output"], str),
            where,
            _field(path, "output"),
            "a string",
            step["output"],
        )
    if action in ("edit", "write"):
        _validate_file_step(action, value, where, here)
    if action == "ask" and "options" in step:
        opts = step["options"]
        _expect(
            isinstance(opts, list) and all(isinstance(o, str) for o in opts),
            where,
            _field(path, "options"),
            "a list of strings",
            opts,
        )
    if action == "tool" and "input" in step:
        _expect(
            isinstance(step["input"], dict),
            where,
            _field(path, "input"),
            "an object",
            step["input"],
        )
    if action == "tool" and "fromResults" in step:
        _validate_from_results(step["fromResults"], where, _field(path, "fromResults"))
    if action == "tool" and "isError" in step:
        _expect(
            _is_flag(step["isError"]),
            where,
            _field(path, "isError"),
            "true or false",
            step["isError"],
        )
    if action == "sleep":
        _expect(
            _is_number(value) and 0 <= value <= MAX_SECONDS,
            where,
            here,
            f"a number of seconds from 0 to {MAX_SECONDS}",
            value,
        )
    if action == "exit":
        _expect(
            isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 255,
            where,
            here,
            "an integer from 0 to 255",
            value,
        )
    if action == "endTurn":
        _expect(value is True, where, here, "true", value)
    if action == "shell" and "timeoutSec" in step:
        _expect(
            _is_number(step["timeoutSec"]) and 0 < step["timeoutSec"] <= MAX_SECONDS,
            where,
            _field(path, "timeoutSec"),
            f"a number of seconds above 0, at most {MAX_SECONDS}",
            step["timeoutSec"],
        )


FILE_STEP_KEYS = {"edit": ("path", "old", "new"), "write": ("path", "content")}
"""The string fields of an ``edit`` and a ``write`` step."""


def _inside(action: str) -> tuple[str, ...]:
    """The keys of an ``edit`` or ``write`` step's object: its string fields, and for
    ``edit`` its ``replaceAll`` flag."""
    return (*FILE_STEP_KEYS[action], *(("replaceAll",) if action == "edit" else ()))


def _file_fields(action: str, extra: set[str]) -> dict[str, str] | None:
    """Each of ``extra``, keys beside a file step's action, as the field of its object it is
    or is near (``contents``: ``content``); None unless every one is one."""
    inside = _inside(action)
    fields = {key: next(iter(difflib.get_close_matches(key, inside, n=1)), "") for key in extra}
    return fields if all(fields.values()) else None


def _file_fields_hint(action: str, value: Any, extra: set[str]) -> str:
    """What to do of a file step's fields laid beside its action, as ``extra`` is: put them
    inside it (``{"write": "f.txt", "content": "x"}``), or, its object holding them already,
    leave out those beside it."""
    fields = _file_fields(action, extra) or {}
    named = ", ".join(f"'{key}'" for key in sorted(extra))
    if isinstance(value, dict):
        if all(field in value for field in fields.values()):
            held = ", ".join(f"'{field}'" for field in sorted(set(fields.values())))
            return f"; '{action}' holds {held} already: leave out {named} beside it"
        return f"; put {named} inside '{action}', with its other fields"
    shape = ", ".join(f'"{key}": …' for key in _inside(action))
    optional = " ('replaceAll' is optional)" if action == "edit" else ""
    article = "an" if action == "edit" else "a"
    return (
        f'; {article} {action} step\'s fields go inside it: {{"{action}": {{{shape}}}}}{optional}'
    )


def _validate_file_step(action: str, value: Any, where: str, here: str) -> None:
    """An ``edit`` or ``write`` step's object: its string fields, and for ``edit`` its
    ``replaceAll`` flag."""
    keys = FILE_STEP_KEYS[action]
    listed = ", ".join(f"'{k}'" for k in keys[:-1]) + f" and '{keys[-1]}'"
    _expect(isinstance(value, dict), where, here, f"an object with string {listed}", value)
    known = set(_inside(action))
    extra = set(value) - known
    _require(not extra, where, here, unknown_keys(extra, known))
    for key in keys:
        if key not in value:
            raise PlanError(f"{where}: field '{_field(here, key)}' is required but missing")
        _expect(isinstance(value[key], str), where, _field(here, key), "a string", value[key])
    if "replaceAll" in value:
        flag = value["replaceAll"]
        _expect(_is_flag(flag), where, _field(here, "replaceAll"), "true or false", flag)
    _expect_inside(value["path"], where, _field(here, "path"), INSIDE)


INSIDE = "a path inside the workspace (relative, not climbing out with '..')"
"""What a ``read``, ``edit`` or ``write`` step's path must be."""


def _expect_inside(path: str, where: str, here: str, expected: str, itself: bool = False) -> None:
    """Unless ``path`` is inside the workspace (:func:`inside_workspace`): ``field 'HERE':
    expected EXPECTED, got …``; a NUL character is named as such (no file name holds one)."""
    _expect("\0" not in path, where, here, "a path without a NUL character", path)
    _expect(inside_workspace(path, itself), where, here, expected, path)


def inside_workspace(path: str, itself: bool = False) -> bool:
    """Whether a plan's file path names a file inside the workspace (with ``itself``, the
    workspace itself too: ``.``, a search's folder): relative, never above it by ``..``
    (``../../x`` or ``/etc/x`` would be written, or read, outside the trial's workspace), and
    holding no NUL character (no file name can: the agent's path calls would raise)."""
    if not path or path.startswith(("/", "\\")) or "\0" in path:
        return False
    depth = 0
    for part in re.split(r"[/\\]", path):
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part not in ("", "."):
            depth += 1
    return depth > 0 or itself


def _validate_from_results(spec: Any, where: str, path: str) -> None:
    _expect(
        isinstance(spec, dict) and len(spec) > 0,
        where,
        path,
        "an object of input field → regular expression",
        spec,
    )
    for field, pattern in spec.items():
        here = _field(path, field)
        _expect(isinstance(pattern, str), where, here, "a regular expression (a string)", pattern)
        try:
            groups = re.compile(pattern).groups
        except re.error as exc:
            raise _error(where, here, f"not a regular expression ({exc})") from None
        _require(groups >= 1, where, here, "the expression needs a group: its first is the value")


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


def validate_roles(roles: Any, where: str, path: str = "roles") -> None:
    _expect(isinstance(roles, dict), where, path, "an object of role → list of replies", roles)
    for role, replies in roles.items():
        at = _field(path, role)
        _require(
            role in HARNESS_ROLES,
            where,
            at,
            f"unknown role ({_near(role, HARNESS_ROLES)}known: {', '.join(HARNESS_ROLES)})",
        )
        _expect(
            isinstance(replies, list) and len(replies) > 0,
            where,
            at,
            "a non-empty list of replies",
            replies,
        )
        for i, reply in enumerate(replies):
            here = _field(at, i)
            _expect(isinstance(reply, dict), where, here, "an object", reply)
            kinds = [k for k in ("text", "json", "status") if k in reply]
            _require(len(kinds) == 1, where, here, "give exactly one of 'text', 'json' or 'status'")
            extra = set(reply) - REPLY_KEYS
            _require(not extra, where, here, unknown_keys(extra, REPLY_KEYS))
            if "text" in reply:
                _expect(
                    isinstance(reply["text"], str),
                    where,
                    _field(here, "text"),
                    "a string",
                    reply["text"],
                )
            if "status" in reply:
                status = reply["status"]
                _expect(
                    isinstance(status, int)
                    and not isinstance(status, bool)
                    and 400 <= status <= 599,
                    where,
                    _field(here, "status"),
                    "an HTTP error code (400-599)",
                    status,
                )
            _check_error_fields(reply, where, here)
            probs = reply.get("logprobs")
            _expect(
                probs is None or isinstance(probs, list),
                where,
                _field(here, "logprobs"),
                "a list",
                probs,
            )
            for n, value in enumerate(probs or []):
                _expect(
                    _is_logprob(value),
                    where,
                    _field(_field(here, "logprobs"), n),
                    "a finite number <= 0 (a log-probability)",
                    value,
                )


ERROR_KEYS = {"status", "message", "body"}
"""The keys of one injected error."""


def _check_error_fields(spec: dict[str, Any], where: str, here: str) -> None:
    """An error's ``message`` (a string) and ``body`` (a JSON object), when given."""
    if "message" in spec:
        message = spec["message"]
        _expect(isinstance(message, str), where, _field(here, "message"), "a string", message)
    if "body" in spec:
        body = spec["body"]
        _expect(isinstance(body, dict), where, _field(here, "body"), "a JSON object", body)


def validate_errors(errors: Any, where: str, path: str = "errors") -> None:
    _expect(isinstance(errors, dict), where, path, "an object of request index → error", errors)
    for index, spec in errors.items():
        here = _field(path, index)
        _require(str(index).isdigit(), where, here, "the key must be a request index (0, 1, ...)")
        _expect(isinstance(spec, dict), where, here, "an object with 'status'", spec)
        extra = set(spec) - ERROR_KEYS
        _require(not extra, where, here, unknown_keys(extra, ERROR_KEYS))
        status = spec.get("status")
        _expect(
            isinstance(status, int) and not isinstance(status, bool) and 400 <= status <= 599,
            where,
            _field(here, "status"),
            "an HTTP error code (400-599)",
            status,
        )
        _check_error_fields(spec, where, here)


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


def validate_plan(data: Any, where: str = "plan.json", path: str = "") -> None:
    """Raise PlanError with one sentence when ``data`` is not a valid plan: ``where`` names
    the file (``case/plan.json``), ``path`` the plan's place in it (empty for the whole file)
    and each message the field (``field 'turns[0].sleep': expected …, got …``)."""
    _expect(isinstance(data, dict), where, path, "a JSON object with 'turns' or 'variants'", data)
    if "errors" in data:
        validate_errors(data["errors"], where, _field(path, "errors"))
    if "roles" in data or "errors" in data:
        if "roles" in data:
            validate_roles(data["roles"], where, _field(path, "roles"))
        rest = {k: v for k, v in data.items() if k not in ("roles", "errors")}
        if rest:
            validate_plan(rest, where, path)
        return
    if "conditions" in data:
        _require(set(data) == {"conditions"}, where, path, "'conditions' must be the only key")
        per = data["conditions"]
        at = _field(path, "conditions")
        _expect(
            isinstance(per, dict) and len(per) > 0,
            where,
            at,
            "an object mapping condition names to plans",
            per,
        )
        for name, plan in per.items():
            here = _field(at, name)
            _require(
                not (isinstance(plan, dict) and "conditions" in plan),
                where,
                here,
                "a condition's plan cannot be split by 'conditions' again",
            )
            validate_plan(plan, where, here)
        return
    keys = {"turns", "variants", "model"}
    extra = set(data) - keys
    _require(not extra, where, path, unknown_keys(extra, keys | {"conditions", "errors", "roles"}))
    has_turns, has_variants = "turns" in data, "variants" in data
    _require(has_turns != has_variants, where, path, "give exactly one of 'turns' or 'variants'")
    if "model" in data:
        _expect(
            isinstance(data["model"], str), where, _field(path, "model"), "a string", data["model"]
        )
    if has_turns:
        turns = _field(path, "turns")
        _expect(isinstance(data["turns"], list), where, turns, "a list of steps", data["turns"])
        for i, step in enumerate(data["turns"]):
            validate_step(step, where, _field(turns, i))
    else:
        variants, at = data["variants"], _field(path, "variants")
        _expect(
            isinstance(variants, list) and len(variants) > 0,
            where,
            at,
            "a non-empty list of step lists",
            variants,
        )
        for v, steps in enumerate(variants):
            here = _field(at, v)
            _expect(isinstance(steps, list), where, here, "a list of steps", steps)
            for i, step in enumerate(steps):
                validate_step(step, where, _field(here, i))


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


NOTHING_LEFT = "I have nothing left in my plan."
"""What the scripted agent (and the scripted model) replies to a message that comes after the
plan's last turn: the turn plays no step."""
