"""Where a Claude Code subagent's events go among its session's.

A subagent file (``<session>/subagents/agent-<id>.jsonl``) is parsed just before the result of
the ``Agent``/``Task`` call that ran it: the result names it in its ``toolUseResult``
(``agentId``), or, in a subagent's own file, where Claude Code writes no ``toolUseResult`` for
a call that succeeded, in its text (``agentId: <id> (use SendMessage …``; see
:func:`named_in`). A subagent that works on after that result is merged with the session's
events in time order once every file is read: one launched in the background (see
:func:`launched`), the part of a file written after its call's result (a subagent resumed by
``SendMessage``; see :func:`cut_after`), and a file no call names. Times are compared as
:func:`~proctor.transcripts.builder.time_key` writes them, whatever offset or precision the
file gives.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from proctor.transcripts.builder import WINDOW, in_time_order, time_key, time_of

_NAMED = re.compile(r"\bagentId: ([\w-]+)")
"""How an ``Agent`` call's result names the subagent that ran (its file is ``agent-<id>``)."""


def subagent_id(path: Path) -> str:
    """``abc`` for ``agent-abc.jsonl``."""
    stem = path.name.removesuffix(".jsonl")
    return stem.removeprefix("agent-")


def launched(structured: Any) -> bool:
    """Whether an ``Agent`` call's result says the subagent was launched in the background
    (``run_in_background``: "Async agent launched"): it works on after that result, beside the
    session."""
    if isinstance(structured, dict):
        return structured.get("isAsync") is True or structured.get("status") == "async_launched"
    return getattr(structured, "isAsync", None) is True or (
        getattr(structured, "status", None) == "async_launched"
    )


def named_in(output: str, waiting: Collection[str], merged: Collection[str]) -> str | None:
    """The first subagent a result's text names that is still to place (``waiting``), and
    not one merged by time (``merged``, launched in the background)."""
    if "agentId: " not in output:
        return None
    return next((a for a in _NAMED.findall(output) if a in waiting and a not in merged), None)


def placing_time(ts: Any, before: Sequence[Any]) -> str | None:
    """The time a subagent is placed at: its call's result's (``ts``), or, for a result
    without one, the last time among the events ``before`` it."""
    at = time_key(ts) if isinstance(ts, str) else None
    if at is None:
        at = next((t for e in reversed(before[-WINDOW:]) if (t := time_of(e))), None)
    return at


def cut_after(pending: list[Any], start: int, at: str) -> list[Any] | None:
    """The events from ``start`` on (a subagent's, just parsed) that came after time ``at``,
    taken out of ``pending``; None when there are none."""
    cut = next(
        (i for i in range(start, len(pending)) if (t := time_of(pending[i])) and t > at), None
    )
    if cut is None:
        return None
    later = pending[cut:]
    del pending[cut:]
    return later


def merge_by_time(pending: list[Any], starts: Sequence[int], later: Sequence[list[Any]]) -> None:
    """``pending`` in time order: its events up to the first of ``starts``, each file parsed
    from a start on, and the ``later`` parts, each run in its own order."""
    bounds = [0, *starts, len(pending)]
    runs = [pending[a:b] for a, b in itertools.pairwise(bounds)]
    pending[:] = in_time_order([*runs, *later])
