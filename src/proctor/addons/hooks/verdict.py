"""A hook's result read as the CLI reads it, normalised into one decision, and the checks of
a case's expectations against it.

Decisions, strongest first (several hooks on one event: the strongest wins):

- ``block``: exit 2 (stderr fed back), ``decision: "block"``, or ``continue: false`` (on a
  Claude Code ``SessionStart``, ``SubagentStart`` or ``Setup`` none of them blocks: an exit 2 is
  an ``error``, the other two are dropped);
- ``deny``: ``hookSpecificOutput.permissionDecision: "deny"`` (Claude Code, Codex), or
  Gemini CLI's ``decision: "deny"``/``"block"`` on ``BeforeTool``;
- ``ask``: ``permissionDecision: "ask"`` (or ``"defer"``), Gemini's ``decision: "ask"``;
- ``stop``: ``continue: false`` on a Claude Code ``PreToolUse``: the tool runs, then the
  session ends;
- ``allow``: ``permissionDecision: "allow"``, Gemini's ``decision: "allow"``;
- ``nudge``: context or a message added without blocking (``additionalContext``,
  ``systemMessage``; Gemini CLI reads ``additionalContext`` on ``AfterTool``, ``BeforeAgent``
  and ``SessionStart`` only; plain stdout on Claude Code's ``UserPromptSubmit`` and
  ``SessionStart``, and on any Gemini CLI event, which shows it as a system message);
- ``error``: a non-blocking failure (another exit code, a timeout, a command not found, or an
  output the CLI refuses), which the CLI reports and carries on past;
- ``silent``: nothing reaches the model or the user.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proctor.addons.hooks.cases import Expect
from proctor.util.cutting import masked_short
from proctor.util.masking import mask

RANK = ("block", "deny", "ask", "stop", "allow", "nudge", "error", "silent")
CLAUDE_CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "UserPromptExpansion", "SessionStart"})
CLAUDE_UNBLOCKABLE_EVENTS = frozenset({"SessionStart", "SubagentStart", "Setup"})
"""Events whose blocking result Claude Code 2.1.197 ignores ("Blocking errors are ignored", its
own hook help says): an exit 2 is the hook's error, shown to the user only, and
``decision: "block"`` or ``continue: false`` stops nothing (the session goes on)."""
CODEX_PRE_UNSUPPORTED = {"allow", "ask"}
GEMINI_CONTEXT_EVENTS = frozenset({"AfterTool", "BeforeAgent", "SessionStart"})
"""Gemini CLI 0.61.0 reads ``additionalContext`` on these events only; on ``BeforeTool`` it
is dropped, so a guard that only adds context there says nothing."""


@dataclass(frozen=True)
class Reading:
    decision: str
    message: str
    updated_input: dict[str, Any] | None = None
    """The tool's input as the hook rewrote it, when it did (and the tool still runs)."""


def _json_object(text: str) -> dict[str, Any] | None:
    """A Claude Code hook's JSON output: only text that starts with ``{`` is read as JSON
    ("Hook output does not start with {, treating as plain text")."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, an integer too long, nested too deeply
        return None
    return value if isinstance(value, dict) else None


_NOT_AN_OBJECT: Any = object()
"""Gemini CLI's reading of valid JSON that is no object (``[]``, ``5``): the output dropped."""


def _gemini_json(text: str) -> Any:
    """Gemini CLI's reading of a hook's output: a JSON object (a JSON string holding one is
    read once more), :data:`_NOT_AN_OBJECT` for other JSON, None for text that is not JSON."""
    try:
        value = json.loads(text)
        if isinstance(value, str):
            value = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else _NOT_AN_OBJECT


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def read_claude(agent: str, event: str, code: int, stdout: str, stderr: str) -> Reading:
    """Claude Code's reading (Codex shares it, refusing what Codex 0.171.0 does not support)."""
    unblockable = agent == "claude-code" and event in CLAUDE_UNBLOCKABLE_EVENTS
    if code == 2 and unblockable:
        said = stderr.strip() or "no stderr output"
        return Reading("error", f"exit 2 does not block {event}, Claude Code ignores it: {said}")
    if code == 2:
        return Reading("block", stderr.strip())
    if code != 0:
        return Reading("error", stderr.strip() or f"exit code {code}")
    data = _json_object(stdout)
    if data is None:
        if stdout.strip() and event in CLAUDE_CONTEXT_EVENTS:
            return Reading("nudge", stdout.strip())
        return Reading("silent", "")
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if agent == "claude-code":
        refused = _claude_refuses(data, specific, event)
        if refused is not None:
            return Reading("error", refused)
    permission = specific.get("permissionDecision")
    codex_pre = agent == "codex" and event == "PreToolUse"
    if codex_pre and (permission in CODEX_PRE_UNSUPPORTED or data.get("continue") is False):
        what = f"permissionDecision:{permission}" if permission else "continue:false"
        return Reading("error", f"Codex does not support {what} in PreToolUse")
    if data.get("continue") is False and not unblockable:
        stop = _text(data.get("stopReason")) or _text(data.get("reason"))
        if agent == "claude-code" and event == "PreToolUse":
            # Claude Code runs the tool, then ends the session: nothing was blocked.
            return Reading("stop", stop)
        return Reading("block", stop)
    reason = _text(specific.get("permissionDecisionReason")) or _text(data.get("reason"))
    if unblockable:  # its decision and continue are dropped; its context and message stay
        return _context(data, specific)
    if agent == "claude-code" and data.get("decision") == "block":
        # Its blocking error stands whatever permissionDecision says after it.
        return Reading("deny" if event == "PreToolUse" else "block", _text(data.get("reason")))
    if permission in ("deny", "ask", "allow", "defer"):
        return Reading("ask" if permission == "defer" else str(permission), reason)
    behavior = specific.get("decision")
    if isinstance(behavior, dict) and behavior.get("behavior") in ("allow", "deny"):
        return Reading(str(behavior["behavior"]), _text(behavior.get("message")))
    decision = data.get("decision")
    if decision == "block":
        return Reading("deny" if event == "PreToolUse" else "block", reason)
    if decision == "approve" and event == "PreToolUse":
        return Reading("allow", reason)
    return _context(data, specific)


def _claude_refuses(data: dict[str, Any], specific: dict[str, Any], event: str) -> str | None:
    """Why Claude Code 2.1.197 refuses a hook's JSON output (it reports the hook's error and
    goes on: a guard written so denies nothing), or None: a ``decision`` other than
    ``approve`` or ``block``; a ``hookSpecificOutput`` whose ``hookEventName`` is not the
    event's (its ``permissionDecision`` is read only under ``"PreToolUse"``); a
    ``permissionDecision`` it does not know."""
    decision = data.get("decision")
    if decision and decision not in ("approve", "block"):
        return f"Unknown hook decision type: {decision}. Valid types are: approve, block"
    mistyped = _mistyped(data, specific)
    if mistyped is not None:
        return f"Hook JSON output validation failed: {mistyped}"
    if not data.get("hookSpecificOutput"):
        return None
    named = specific.get("hookEventName")
    if named != event:
        return f"Hook returned incorrect event name: expected '{event}' but got '{named}'"
    permission = specific.get("permissionDecision")
    if event == "PreToolUse" and permission and permission not in ("allow", "deny", "ask", "defer"):
        return (
            f"Unknown hook permissionDecision type: {permission}. Valid types are: allow, deny, "
            "ask, defer"
        )
    return None


_TYPES: dict[str, type] = {
    "continue": bool,
    "suppressOutput": bool,
    "stopReason": str,
    "reason": str,
    "systemMessage": str,
}
_SPECIFIC_TYPES: dict[str, type] = {
    "permissionDecisionReason": str,
    "additionalContext": str,
    "updatedInput": dict,
}


def _mistyped(data: dict[str, Any], specific: dict[str, Any]) -> str | None:
    """The first field of a Claude Code hook's output whose value is not of the type its
    schema gives (``"continue": "false"``, a number as ``permissionDecisionReason``)."""
    for fields, where, values in (
        (_TYPES, "", data),
        (_SPECIFIC_TYPES, "hookSpecificOutput.", specific),
    ):
        for name, kind in fields.items():
            value = values.get(name)
            if value is not None and type(value) is not kind:
                return f"{where}{name} is not a {'boolean' if kind is bool else kind.__name__}"
    return None


def _context(data: dict[str, Any], specific: dict[str, Any], context: bool = True) -> Reading:
    added = _text(specific.get("additionalContext")) if context else ""
    parts = [added, _text(data.get("systemMessage"))]
    message = "\n".join(p for p in parts if p)
    return Reading("nudge", message) if message else Reading("silent", "")


def read_gemini(event: str, code: int, stdout: str, stderr: str) -> Reading:
    """Gemini CLI 0.61.0's reading: stdout (or else stderr) parsed as JSON; plain text is a
    system message at exit 0, a warning at exit 1 and a denial at any other code."""
    text = stdout.strip() or stderr.strip()
    data = _gemini_json(text)
    if data is _NOT_AN_OBJECT:  # valid JSON, but no object: dropped, the tool runs
        return Reading("silent", "")
    if data is None:
        if not text:
            return Reading("silent", "") if code == 0 else Reading("error", f"exit code {code}")
        if code == 0:
            return Reading("nudge", text)
        if code == 1:
            return Reading("error", f"Warning: {text}")
        return Reading("block", text)
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    reason = _text(data.get("stopReason")) or _text(data.get("reason"))
    if data.get("continue") is False:
        return Reading("block", reason)
    decision = data.get("decision")
    if decision in ("deny", "block"):
        return Reading("deny" if event == "BeforeTool" else "block", reason)
    if decision == "ask":
        return Reading("ask", reason)
    found = _context(data, specific, event in GEMINI_CONTEXT_EVENTS)
    if found.decision == "silent" and decision == "allow":
        return Reading("allow", reason)
    if found.decision == "silent" and code != 0:
        return Reading("error", f"exit code {code}")
    return found


def read_result(agent: str, event: str, code: int, stdout: str, stderr: str) -> Reading:
    if agent == "gemini-cli":
        reading = read_gemini(event, code, stdout, stderr)
    else:
        reading = read_claude(agent, event, code, stdout, stderr)
    if reading.decision in ("block", "deny", "error"):  # the tool does not run, or the output
        return reading  # was refused whole
    updated = _rewritten_input(agent, event, code, stdout, stderr)
    if updated is None:
        return reading
    message = reading.message or "rewrote the tool's input"
    return Reading(reading.decision, message, updated)


def _rewritten_input(
    agent: str, event: str, code: int, stdout: str, stderr: str
) -> dict[str, Any] | None:
    """The tool's input a hook rewrote before the tool runs: Claude Code's
    ``hookSpecificOutput.updatedInput`` on ``PreToolUse``, Gemini CLI's
    ``hookSpecificOutput.tool_input`` on ``BeforeTool``."""
    if agent == "claude-code" and event == "PreToolUse" and code == 0:
        data, key = _json_object(stdout), "updatedInput"
    elif agent == "gemini-cli" and event == "BeforeTool":
        data, key = _gemini_json(stdout.strip() or stderr.strip()), "tool_input"
    else:
        return None
    specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    value = specific.get(key) if isinstance(specific, dict) else None
    return value if isinstance(value, dict) else None


def strongest(decisions: Sequence[str]) -> str:
    return min(decisions, key=RANK.index) if decisions else "silent"


def check(
    expect: Expect,
    decision: str,
    exit_code: int | None,
    output: str,
    ran: bool = True,
    updated: dict[str, Any] | None = None,
) -> list[str]:
    """Why the case fails (empty when every expectation holds); ``ran``: whether any hook
    was run (an exit code of None then means none finished); ``updated``: the tool's input as
    the hooks rewrote it."""
    problems = []
    if expect.updated_input is not None:
        if updated is None:
            problems.append("expected the tool's input rewritten, but no hook rewrote it")
        else:
            for key, value in expect.updated_input.items():
                if updated.get(key) != value:
                    problems.append(
                        f"expected the rewritten input's {key} {value!r}, got "
                        f"{snippet(repr(updated.get(key)))}"
                    )
    if expect.decision is not None and decision != expect.decision:
        problems.append(f"expected decision {expect.decision}, got {decision}")
    if expect.silent is not None and (decision == "silent") != expect.silent:
        wanted = "silent" if expect.silent else "not silent"
        problems.append(f"expected {wanted}, got {decision}")
    if expect.exit_code is not None and exit_code is None:
        why = "no hook finished" if ran else "no hook ran"
        problems.append(f"expected exit code {expect.exit_code}, but {why}")
    elif expect.exit_code is not None and exit_code != expect.exit_code:
        problems.append(f"expected exit code {expect.exit_code}, got {exit_code}")
    for needle in expect.includes:
        if needle not in output:
            problems.append(f"output lacks {needle!r} (got {snippet(output)!r})")
    if expect.output_matches is not None and not re.search(expect.output_matches, output):
        problems.append(
            f"output does not match /{expect.output_matches}/ (got {snippet(output)!r})"
        )
    return problems


def snippet(text: str, limit: int = 120) -> str:
    """``text`` on one line, every registered key masked before it is shortened to ``limit``
    characters."""
    return masked_short(" ".join(mask(text).split()), limit)
