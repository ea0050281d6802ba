"""The calls of a Gemini CLI subagent, as its chat and the main chat that started it say them.

A subagent's chat records no ``toolCalls`` entry for a call to a tool that subagent is not
offered (or whose arguments do not parse), only the response: its call and result are read
from that (see :func:`unanswered`), the call with the response that made it (before its
usage), its arguments from the ``resultDisplay`` of the main chat's call that started the
subagent, when it lists them (see :func:`activity_args`; else the input is empty).
"""

from __future__ import annotations

import json
from collections.abc import Container
from typing import Any

Activity = dict[str, tuple[str, dict[str, Any]]]
"""The tool name and arguments of subagents' calls, by call id."""


def unanswered(content: Any, recorded: Container[str]) -> list[dict[str, Any]]:
    """A ``toolCalls`` entry for each function response in a user record's ``content`` whose
    call no entry recorded (ids in ``recorded``): a subagent's call to a tool it is not offered
    (``Unauthorized tool call: 'NAME' is not available to this agent.``) or with arguments that
    do not parse, which its chat records only as the response it sent back."""
    calls = []
    for part in content if isinstance(content, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict) or not isinstance(response.get("id"), str):
            continue
        if response["id"] in recorded:
            continue
        reply = response.get("response")
        calls.append(
            {
                "id": response["id"],
                "name": response.get("name") if isinstance(response.get("name"), str) else "",
                "status": "error" if isinstance(reply, dict) and "error" in reply else "success",
                "result": [part],
            }
        )
    return calls


def activity_args(display: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """(tool name, arguments) by call id of each call a subagent made, from the
    ``resultDisplay`` of the call that started it (``{isSubagentProgress, recentActivity:
    [{type: "tool_call", id, content: NAME, args: JSON}, …]}``, Gemini CLI 0.61, which lists
    every call of the run, with values that look like secrets ``[REDACTED]``)."""
    if not isinstance(display, dict) or display.get("isSubagentProgress") is not True:
        return {}
    found = {}
    activity = display.get("recentActivity")
    for item in activity if isinstance(activity, list) else []:
        if not (isinstance(item, dict) and item.get("type") == "tool_call"):
            continue
        call_id, name, raw = item.get("id"), item.get("content"), item.get("args")
        if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(raw, str)):
            continue
        try:
            args = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if isinstance(args, dict):
            found[call_id] = (name, args)
    return found


class SubagentCalls:
    """What a chat's parse keeps of subagents' calls: in a subagent's chat, the ids of the
    ``toolCalls`` entries read so far (a main chat, which may be long and streamed, keeps
    none); the name and arguments of the calls of the subagents a main chat started (by call
    id, see :func:`activity_args`), which a main chat fills and a subagent's reads."""

    def __init__(self, subagent: bool, activity: Activity | None) -> None:
        self.subagent = subagent
        """A subagent's chat: it records no ``toolCalls`` entry for a call it refused before
        scheduling it (a tool not offered to that agent), only the response it sent back."""
        self.recorded: set[str] = set()
        self.activity = activity

    def entry(self, call_id: str) -> None:
        """A ``toolCalls`` entry read."""
        if self.subagent:
            self.recorded.add(call_id)

    def unrecorded(self, content: Any) -> list[dict[str, Any]]:
        """The calls a subagent's record ``content`` answers that no entry recorded (see
        :func:`unanswered`), each with its arguments when the main chat's call that started
        the subagent lists them under the same id and name; otherwise its input is empty (a
        subagent's chat records neither the call nor its ``functionCall`` part)."""
        calls = []
        for call in unanswered(content, self.recorded):
            name, args = (self.activity or {}).get(call["id"], (None, None))
            calls.append({**call, "args": args} if name == call["name"] else call)
        return calls

    def started(self, display: Any) -> None:
        """A main chat's call that started a subagent, its ``resultDisplay`` ``display``."""
        if self.activity is not None:
            self.activity.update(activity_args(display))
