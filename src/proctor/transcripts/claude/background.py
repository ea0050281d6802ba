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

The notification is the call's later result (see :func:`proctor.metrics.trace.paired`): a check
started in the background has the outcome its command ended with, not the "started" answer's.
"""

from __future__ import annotations

import re
from typing import Any

NOTIFICATION = "<task-notification>"
_FIELD = re.compile(r"<(tool-use-id|status|summary)>(.*?)</\1>", re.DOTALL)
ENDED = {"completed": False, "failed": True}
"""The statuses that say how the command ended, and whether that is a failure (a task that
was stopped, ``killed``, ended neither way)."""


def notified_result(text: Any, ts: Any) -> dict[str, Any] | None:
    """The result event a task notification gives its call: None when ``text`` is not a
    notification, or one that names no call or no end (a task stopped by the user or the
    model)."""
    if type(text) is not str or not text.lstrip().startswith(NOTIFICATION):
        return None
    fields = dict(_FIELD.findall(text.partition("</task-notification>")[0]))
    tool_id, status = fields.get("tool-use-id", "").strip(), fields.get("status", "").strip()
    if not tool_id or status not in ENDED:
        return None
    summary = fields.get("summary", "").strip() or f"Background command {status}"
    event = {"type": "tool_result", "ts": ts, "id": tool_id, "output": summary}
    event.update(isError=ENDED[status], denied=False)
    return event
