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

The model may also read the task's state itself: ``TaskOutput`` (``{"task_id": …, "block":
true}``), or ``BashOutput`` (``{"bash_id": …}``) in the releases before task notifications.
A read that finds the command ended says so at the head of its result, and in its
``toolUseResult``::

    <retrieval_status>success</retrieval_status>

    <task_id>bp5y3phg0</task_id>

    <task_type>local_bash</task_type>

    <status>failed</status>

    <exit_code>2</exit_code>

    <output>…</output>

(``BashOutput``: ``<status>completed</status>``, ``<exit_code>0</exit_code>``, ``<stdout>…``).
Such a read is a later result of the call that started the task too
(:func:`polled_result`); whichever of the read and the notification comes first settles it.

:class:`BackgroundEnds` is the session parser's part that gives those later results as it reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from proctor.transcripts.builder import EventDict, ev

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


POLLS = {"TaskOutput": "task_id", "BashOutput": "bash_id"}
"""The tools that read a background task's state, and the input field naming the task."""
_HEAD_END = re.compile(r"<(?:output|stdout|stderr)>")
_STATUS = re.compile(r"<status>\s*(\w+)\s*</status>")
_EXIT = re.compile(r"<exit_code>\s*(-?\d{1,12})\s*</exit_code>")


def polled_task(name: Any, tool_input: Any) -> str | None:
    """The task a ``TaskOutput`` or ``BashOutput`` call reads (None for any other call)."""
    field = POLLS.get(name) if type(name) is str else None
    if field is None or not isinstance(tool_input, dict):
        return None
    task = tool_input.get(field) or tool_input.get("shell_id") or tool_input.get("task_id")
    return task if isinstance(task, str) and task else None


def polled_result(call_id: str, text: Any, structured: Any, ts: Any) -> dict[str, Any] | None:
    """The result event a read of a task's state gives the call that started the task, when
    it found the task ended (None while it runs, or when it was stopped): its exit code says
    whether it failed, else its status. The ``toolUseResult`` is read first; the result's
    text, up to the command's own output, when that has neither."""
    task = structured.get("task") if isinstance(structured, dict) else None
    fields = task if isinstance(task, dict) else structured
    status = fields.get("status") if isinstance(fields, dict) else None
    code = fields.get("exitCode") if isinstance(fields, dict) else None
    if not isinstance(status, str) and isinstance(text, str):
        head = text[: m.start()] if (m := _HEAD_END.search(text)) else text
        found, exit_found = _STATUS.search(head), _EXIT.search(head)
        status = found.group(1) if found else None
        code = int(exit_found.group(1)) if exit_found else None
    if not isinstance(status, str) or status not in ENDED:
        return None
    if type(code) is int:
        failed = code != 0
        summary = f"Background command {'failed' if failed else 'completed'} with exit code {code}"
    else:
        failed = ENDED[status]
        summary = f"Background command {status}"
    event = {"type": "tool_result", "ts": ts, "id": call_id, "output": summary}
    event.update(isError=failed, denied=False)
    return event


def prompt_text(prompt: Any) -> str | None:
    """A queued command's or a user line's text, written as a string or as a list of text
    blocks (both are written); None for anything else."""
    if type(prompt) is str:
        return prompt
    if type(prompt) is not list:
        return None
    texts = [
        block["text"]
        for block in prompt
        if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str
    ]
    return "\n".join(texts) if texts else None


def notified_results(text: Any, ts: Any) -> list[dict[str, Any]]:
    """The result events the task notifications in ``text`` (a string, or a list of text
    blocks) give their calls: one per notification that names its call and says how the task
    ended (none for a task stopped by the user or the model). A notification's own fields are
    its first ones (a subagent's result quoted in it may hold tags of the same names)."""
    text = prompt_text(text)
    if text is None or NOTIFICATION not in text:
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


class BackgroundEnds:
    """The session parser's later results of the calls that started background tasks (a part
    of :class:`~proctor.transcripts.claude.parser._Parser`, which sets the state below): from
    a read of a task's state, or from a task's notification, once a call."""

    out: Callable[[EventDict], None]
    tasks: dict[str, str]
    """The call that started each background task, by the task's id."""
    polls: dict[str, str]
    """The task each ``TaskOutput``/``BashOutput`` call reads, by the call's id."""
    ended: set[str]
    """The calls given a later result (how their background command ended)."""

    if TYPE_CHECKING:

        def typed(self, text: str, ts: Any) -> None: ...

    def polled(self, poll_id: str, text: str, structured: Any, ts: Any) -> None:
        """A read of a background task's state: when it found the task ended, the later
        result of the call that started it (once)."""
        task = self.polls.pop(poll_id)
        started = self.tasks.get(task)
        result = polled_result(started, text, structured, ts) if started else None
        if result is not None:
            del self.tasks[task]
            self.later(result, ts)

    def later(self, result: dict[str, Any], ts: Any) -> None:
        """A call's later result (how its background command ended), unless it has one: a read
        and a notification of the same end give it one."""
        if result["id"] not in self.ended:
            self.ended.add(result["id"])
            self.out(result if ts is not None else ev(**result))

    def queued(self, text: str | None, mode: Any, ts: Any) -> None:
        """Task notifications, each the later result of the call that started the task when it
        says how the task ended, or a prompt typed while a turn ran."""
        if text and mode == "prompt" and NOTIFICATION not in text:
            self.typed(text, ts)
        for result in notified_results(text, ts):
            self.later(result, ts)
