"""A trial's step budget, enforced while the agent runs: the drivers poll a :class:`BudgetWatch`,
which reads the agent's native transcript as it grows and says when the session went over
``maxToolCalls`` (tool calls requested, a search of the agent's own tool list not counted:
:meth:`~proctor.models.trajectory.Trajectory.agent_calls`) or ``maxTurns`` (model
responses). The driver then ends the agent's process group, so a CLI without a limit of its
own stops there too.

The counts are the ones the trial's verdict uses afterwards (the parsed trajectory), so a trial
the watch stopped is over budget by the same rule as one judged after it ended.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch

POLL_SEC = 0.25
"""How often the transcript is looked at, at most; it is parsed again only when it grew."""


@dataclass(frozen=True)
class StepBudget:
    max_turns: int | None = None
    max_tool_calls: int | None = None

    def __bool__(self) -> bool:
        return self.max_turns is not None or self.max_tool_calls is not None

    def over(self, turns: int, tool_calls: int) -> str | None:
        """Why ``turns`` model responses and ``tool_calls`` tool calls are over budget, or None."""
        if self.max_tool_calls is not None and tool_calls > self.max_tool_calls:
            return f"{tool_calls} tool calls > maxToolCalls {self.max_tool_calls}"
        if self.max_turns is not None and turns > self.max_turns:
            return f"{turns} model turns > maxTurns {self.max_turns}"
        return None


@dataclass
class BudgetWatch:
    """Polled by a driver while a turn runs; :meth:`check` returns the reason to stop, once the
    transcript shows the session over its budget."""

    adapter: AgentAdapter[Any]
    launch: Launch[Any]
    budget: StepBudget
    poll_sec: float = POLL_SEC
    stopped: str | None = None
    _next: float = 0.0
    _seen: tuple[tuple[str, int], ...] | None = field(default=None, repr=False)

    def check(self, *, now: float | None = None) -> str | None:
        if self.stopped is not None:
            return self.stopped
        now = time.monotonic() if now is None else now
        if now < self._next:
            return None
        self._next = now + self.poll_sec
        files = self.adapter.transcript_files(self.launch)
        if not files:
            return None
        # Every file of the session: a subagent's may grow while the main one does not.
        sizes = tuple((str(f), _size(f)) for f in files)
        if self._seen == sizes:
            return None
        self._seen = sizes
        try:
            trajectory = self.adapter.parse(files[0])
        except Exception:  # a half-written transcript is read again next time
            self._seen = None
            return None
        turns = sum(u.responses for u in trajectory.usage.values())
        reason = self.budget.over(turns, len(trajectory.agent_calls()))
        if reason is not None:
            self.stopped = f"proctor stopped the agent: {reason}"
        return self.stopped


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1
