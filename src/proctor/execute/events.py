"""Events the run loop emits. The loop never prints; displays subscribe."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from proctor.models.trial import TrialRecord

log = logging.getLogger("proctor")


@dataclass(frozen=True)
class RunStarted:
    total: int
    scratch: str | None = None
    """The folder of the trials' workspaces and homes, removed when the run ends."""


@dataclass(frozen=True)
class TrialStarted:
    case: str
    agent: str
    condition: str
    repeat: int
    pid: int | None = None
    """The worker process running the trial, when it runs in one on this machine."""
    node: str | None = None
    """The Ray node running the trial (its address and the start of its id), on Ray."""


@dataclass(frozen=True)
class TrialFinished:
    record: TrialRecord
    cli: str | None = None
    """The CLI the trial's agent runs: a ``codingagents`` profile's own ``agent``, else the
    agent's id (None: not known, ``record.agent`` is taken)."""


@dataclass(frozen=True)
class RunFinished:
    finished: int
    interrupted: bool


@dataclass(frozen=True)
class Tick:
    """The run loop woke with no trial started or finished (about twice a second while trials
    run): a display may say what is still running."""


RunEvent = RunStarted | TrialStarted | TrialFinished | RunFinished | Tick
Subscriber = Callable[[RunEvent], None]


def emit(subscribers: list[Subscriber], event: RunEvent) -> None:
    """Deliver ``event``; a subscriber that raises is logged and dropped, never fatal."""
    for sub in list(subscribers):
        try:
            sub(event)
        except Exception as exc:
            log.warning("proctor: %s; the run goes on", _dropped(sub, exc))
            subscribers.remove(sub)


def _dropped(sub: Subscriber, exc: Exception) -> str:
    """Which subscriber raised what, where: ``a run subscriber, the plain function 'show',
    raised KeyError: 'case' (show.py, line 12), and is told no more events``."""
    import traceback

    from proctor.util.argtypes import given

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"a run subscriber, {given(sub)}, raised {said}{where}, and is told no more events"
