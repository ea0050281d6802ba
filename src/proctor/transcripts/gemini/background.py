"""How a command Gemini CLI ran in the background ended.

``run_shell_command`` with ``is_background: true`` (or a command the user sends to the
background with Ctrl-B) answers at once, with success::

    Command moved to background (PID: 3931). Output hidden. Press Ctrl+B to view.

(inside ``<untrusted_context>`` in the releases that wrap tool output). That result does not
say whether the command failed: its ``isError`` is null. The chat records no end of its own
(checked against Gemini CLI 0.61.0); the model may list the background processes, though, and
``list_background_processes`` answers one line per process::

    - [PID 3931] EXITED: `make test` (Exit Code: 2)

A line with an exit code is the later result of the call that started that process (see
:func:`proctor.metrics.trace.paired`): 0 a pass, any other code a failure. A process still
running, or ended by a signal, says nothing: ``(Exit Code: 0) (Signal: 15)`` is how the
terminal UI's pseudo-terminal reports a process it killed. A command of several lines spans
as many lines of the listing.
"""

from __future__ import annotations

import re

MOVED = re.compile(r"\A\s*(?:<untrusted_context>\s*)?Command moved to background \(PID: (\d+)\)")
LISTING = "list_background_processes"
_LISTED = re.compile(r"^- \[PID (\d+)\] (\w+): (.*?)(?=\n- \[PID |\Z)", re.M | re.S)
_ENDED = re.compile(r"\(Exit Code: (-?\d{1,12})\)\s*\Z")
"""The end of a listed process that exited: its code, with no ``(Signal: …)`` after it."""


def moved_to_background(output: str) -> str | None:
    """The process id a shell result says its command went on as, in the background."""
    found = MOVED.match(output)
    return found.group(1) if found else None


def listed_ends(output: str, started: dict[str, str]) -> list[tuple[str, str, bool]]:
    """How the processes a listing shows ended with an exit code ended, for the calls in
    ``started`` (process id → the call that started it): each as the call's id, a summary,
    and whether it failed. Those are taken out of ``started`` (a later listing says nothing
    more of them)."""
    ends = []
    for pid, status, rest in _LISTED.findall(output):
        ended = _ENDED.search(rest)
        if ended is None or pid not in started:
            continue
        code = ended.group(1)
        summary = f"Background command {status.lower()} with exit code {code}"
        ends.append((started.pop(pid), summary, int(code) != 0))
    return ends
