"""How a command Claude Code ran in the background ended: its task notification.

A ``Bash`` call with ``run_in_background`` (or one the user sent to the background) returns at
once ("Command running in background with ID: …"); when the command ends, Claude Code tells the
model with a notification, which the session file records as an ``attachment`` of type
``queued_command`` (``commandMode: "task-notification"``) while a turn is running, or as a user
line's text::

    <task-notification>
    <task-id>bksphbzsp</task-id>
    <tool-use-id>toolu_…</tool-use-id>
    <output-file>…/tasks/bksphbzsp.output</output-file>
    <status>failed</status>
    <summary>Background command "run tests" failed with exit code 3</summary>
    </task-notification>

The call's first result, that the command started, does not say whether it failed (its
``isError`` is null); the notification is the call's later result (see
:func:`proctor.metrics.trace.paired`): a check started in the background has the outcome its
command ended with. A user line may hold several notifications.
"""

from __future__ import annotations

import re
from typing import Any

NOTIFICATION = "<task-notification>"
_BLOCK = re.compile(r"<task-notification>(.*?)(?:</task-notification>|$)", re.DOTALL)
_FIELD = re.compile(r"<(tool-use-id|status|summary)>(.*?)</\1>", re.DOTALL)
ENDED = {"completed": False, "failed": True}
"""The statuses that say how the command ended, and whether that is a failure (a task that
was stopped, ``killed``, ended neither way)."""


def started_in_background(task: Any, is_error: Any, denied: bool) -> bool:
    """Whether a ``Bash`` result only says that its command goes on in the background (its
    ``toolUseResult`` names the task, ``task``: ``run_in_background``, or the user's Ctrl-B):
    then it does not say whether the command failed, and its ``isError`` is null."""
    return not is_error and not denied and isinstance(task, str) and bool(task)


def notified_results(text: Any, ts: Any) -> list[dict[str, Any]]:
    """The result events the task notifications in ``text`` give their calls: one per
    notification that names its call and says how the task ended (none for a task stopped by
    the user or the model). A notification's own fields are its first ones (a subagent's
    result quoted in it may hold tags of the same names)."""
    if type(text) is not str or NOTIFICATION not in text:
        return []
    events = []
    for block in _BLOCK.findall(text):
        fields: dict[str, str] = {}
        for name, value in _FIELD.findall(block):
            fields.setdefault(name, value.strip())
        tool_id, status = fields.get("tool-use-id", ""), fields.get("status", "")
        if not tool_id or status not in ENDED:
            continue
        summary = fields.get("summary") or f"Background command {status}"
        event = {"type": "tool_result", "ts": ts, "id": tool_id, "output": summary}
        event.update(isError=ENDED[status], denied=False)
        events.append(event)
    return events
