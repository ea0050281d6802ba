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

:class:`SubagentPlacing` is the session parser's part that does this as it reads; the functions
here are what it (and the measure's reader) decide with.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor.transcripts.builder import (
    WINDOW,
    EventDict,
    EventSink,
    TrajectoryBuilder,
    in_time_order,
    time_key,
    time_of,
)

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


class SubagentPlacing:
    """The session parser's placing of its subagent files (a part of
    :class:`~proctor.transcripts.claude.parser._Parser`, which sets the state below): each
    file parsed just before the result that names it, or merged by time at the end."""

    builder: TrajectoryBuilder
    pending: list[EventDict]
    waiting: dict[str, list[dict[str, Any]]]
    subagents: dict[str, Path]
    """Subagent files not parsed yet, by agent id."""
    held_sink: EventSink | None
    """The sink, held back while a session with subagent files is parsed: a subagent
    that ran in the background is merged by time at the end (see :meth:`place_rest`)."""
    agent_calls: set[str]
    """The ``Agent`` calls made while a subagent file was still to place: only a result of
    one is read for the subagent its text names (see :meth:`named_subagent`)."""
    launched: set[str]
    """The subagents launched in the background: merged by time, never placed."""
    resumed: list[list[Any]]
    """The events of subagents that went on after the result of the call that ran them
    (resumed by a ``SendMessage``), merged by time at the end (see :meth:`placed`)."""

    if TYPE_CHECKING:

        def feed_file(self, path: str | Path) -> None: ...

        def flush_waiting(self) -> None: ...

    def subagent(self, agent: str) -> None:
        """Parse subagent file ``agent`` here, its events marked as a sidechain."""
        path = self.subagents.pop(agent)
        builder = self.builder
        outer, outer_waiting = builder.sidechain, self.waiting
        builder.sidechain, self.waiting = True, {}
        try:
            self.feed_file(path)
            self.flush_waiting()  # its records whose parent never came: still the subagent's
        finally:
            builder.sidechain, self.waiting = outer, outer_waiting

    def placed(self, agent: str, structured: Any, ts: Any) -> None:
        """Subagent file ``agent``, which the result (at time ``ts``) of the call that ran it
        names, parsed just before that result; its events after that time are merged by time
        at the end, and all of one launched in the background."""
        if agent in self.launched or launched(structured):
            self.launched.add(agent)
            return
        start = len(self.pending)
        at = placing_time(ts, self.pending)
        self.subagent(agent)
        later = cut_after(self.pending, start, at) if at is not None else None
        if later:
            self.resumed.append(later)

    def named_subagent(self, output: str) -> str | None:
        """The subagent file that a result's text names (see :func:`named_in`)."""
        return named_in(output, self.subagents, self.launched)

    def place_rest(self) -> None:
        """The subagent files no call named, parsed, and they and the events merged by time
        put in time order among the session's; the sink held back given back."""
        starts = []
        while self.subagents:  # a nested one may be parsed (and removed) by its caller
            starts.append(len(self.pending))
            self.subagent(next(iter(self.subagents)))
        if starts or self.resumed:  # each in time order among the session's events
            merge_by_time(self.pending, starts, self.resumed)
            self.resumed = []
        if self.held_sink is not None:
            self.builder.sink, self.held_sink = self.held_sink, None
