"""What the result of a Gemini CLI call says: whether the call failed or was refused.

A ``toolCalls`` entry's result comes at the entry's own ``timestamp``, which is when the call
completed (a call still pending, whose status is neither ``success``, ``error`` nor
``cancelled``, has none). ``isError`` is ``status == "error"``, or a shell output whose ``Exit
Code:`` is not 0 (the status stays ``success`` then); null for a command moved to the
background, whose end a later process listing may tell (see :mod:`.background`).
``cancelled`` (the user refused), policy refusals and calls a ``BeforeTool`` hook refused are
denials (see :func:`.records.refused`).
"""

from __future__ import annotations

import re
from typing import Any

from proctor.transcripts.gemini.background import moved_to_background
from proctor.transcripts.gemini.records import TEXT_CAP, refused

DONE = ("success", "error", "cancelled")
"""The statuses of a call that completed."""
EXIT_CODE = re.compile(r"^Exit Code: (-?\d{1,12})", re.M)


def entry_time(call: dict[str, Any]) -> str | None:
    """A ``toolCalls`` entry's own time: when the call completed."""
    stamp = call.get("timestamp")
    return stamp if isinstance(stamp, str) else None


def verdict(kind: str, status: Any, output: str) -> tuple[bool | None, bool, str | None]:
    """``(isError, denied, pid)`` of a completed call of ``kind`` with ``status`` and
    ``output``: ``pid`` the process a shell command moved to the background, whose end is a
    later result's (see :mod:`.background`)."""
    denied = status == "cancelled" or (status == "error" and refused(output[:TEXT_CAP]))
    is_error: bool | None = status == "error" and not denied
    pid = moved_to_background(output) if kind == "shell" and status == "success" else None
    if pid is not None:
        is_error = None
    elif not denied and kind == "shell":
        # The shell tool's trailer comes last; an earlier "Exit Code:" is the command's output.
        codes = EXIT_CODE.findall(output)
        if codes and int(codes[-1]) != 0:
            is_error = True
    return is_error, denied, pid
