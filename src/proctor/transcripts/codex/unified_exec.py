"""Unified exec: a command that outlives its first wait, and the polls that follow it.

``exec_command`` answers "Process running with session ID N" when its command is still running
after Codex's first wait; the model then polls it (or types into it) with ``write_stdin`` calls
to session N, until one answers that the process exited. The command and its polls are one
step: the polls give no event of their own, and the command's result is the poll's answer that
says the process exited (its exit code) or that the user aborted it, given under the command's
``call_id``. A structured status of the command (``exec_command_end``, ``item_completed``),
which Codex writes when the command ends (just before that poll's answer), gives its result
there instead: at the time the command ended, with the output it wrote, whether or not a poll
asked. A command whose end the rollout never records has no result, nor does one Codex killed
when it exited (exit code -1: how it would have gone is unknown); a ``write_stdin`` to a session
no command of the rollout started is a step of its own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from proctor.transcripts.codex.facts import Status
from proctor.transcripts.codex.shapes import _is_denial

_RUNNING = re.compile(r"Process running with session ID (\d+)")
"""A command still running after its first wait, and its session."""

Statuses = Callable[[str], "tuple[Status | None, list[Status]]"]
"""A call's structured statuses, before and after the line being read (see
:meth:`~proctor.transcripts.codex.facts.CodexFacts.status_at`)."""


def _settled(before: Status | None, after: list[Status]) -> bool:
    """Whether a call's structured statuses say how it ended (failed or not, or declined)."""
    return any(s[1] is not None or s[2] for s in (*([before] if before else []), *after))


class UnifiedExec:
    """The running commands of one rollout, and the polls of each."""

    def __init__(self) -> None:
        self.running: dict[str, str] = {}
        """The command still running in each session (its ``call_id``)."""
        self.polls: dict[str, str] = {}
        """Each ``write_stdin`` call, and the command it polls or types into."""
        self.settled: set[str] = set()
        """The running commands whose result their structured status gave at their first
        answer (a status written before it)."""
        self.ending: set[str] = set()
        """The running commands whose structured status, written later, gives their result."""
        self.ended: set[str] = set()
        """Those of :attr:`ending` whose status has given it."""

    def folds(self, call_id: str, name: str, arguments: dict[str, Any]) -> bool:
        """Whether the call ``call_id`` polls (or types into) a running command: then it is
        that command's step, and gives no event of its own."""
        command = self.running.get(str(arguments.get("session_id")))
        if name != "write_stdin" or command is None:
            return False
        self.polls[call_id] = command
        return True

    def result_of(
        self, call_id: str, text: str, code: int | None, statuses: Statuses
    ) -> str | None:
        """The call whose result an output of call ``call_id`` gives (``text``, with the exit
        code ``code`` it states): its own, the command a poll polls, or None when it gives none
        yet (a command still running, a poll of it)."""
        polled = self.polls.pop(call_id, None)
        if polled is not None:  # a poll's answer: the command's result once it exited
            if code is None and not _is_denial(text):  # still running
                return None
            self.running = {k: v for k, v in self.running.items() if v != polled}
            self.ending.discard(polled)  # (its status, if still to come, gives nothing)
            return None if polled in self.settled or polled in self.ended else polled
        if code is None:
            running = _RUNNING.search(text.partition("Output:")[0])
            if running is not None:  # the command goes on
                self.running[running.group(1)] = call_id
                before, after = statuses(call_id)
                if before is not None and _settled(before, []):
                    self.settled.add(call_id)  # its outcome is the status already written
                    return call_id
                if _settled(None, after):
                    self.ending.add(call_id)  # its result is its status's, when it ended
                return None  # or a later poll's
        return call_id

    def ends(self, call_id: Any) -> bool:
        """Whether a structured status of call ``call_id`` (read at its line) gives the result
        of a running command: once, and only when no poll's answer gave it first."""
        if type(call_id) is not str or call_id not in self.ending:
            return False
        self.ending.discard(call_id)
        self.ended.add(call_id)
        return True
