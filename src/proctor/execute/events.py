"""Events the run loop emits. The loop never prints; displays subscribe."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from proctor.models.trial import TrialRecord
from proctor.util.logs import shown_as

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
class TrialRetried:
    """A trial ended in a transient error and runs again (``--retry-errors``): its files were
    kept as an earlier attempt, and its ``TrialStarted`` comes again when the next attempt
    starts; only its last attempt gets a ``TrialFinished``."""

    record: TrialRecord
    """The record of the attempt that ended (its status and reason say why it runs again)."""
    attempt: int
    """That attempt's number: 1 for the trial's first."""
    attempts: int
    """How many attempts the trial may make in all (``--retry-errors N``: N + 1)."""
    folder: str
    """Where its files went, relative to the trial's folder (``attempts/<attempt>``)."""


@dataclass(frozen=True)
class RunFinished:
    finished: int
    interrupted: bool
    requested: bool = False
    """The run left trials not started as its caller asked (``held_back``: a key a provider
    refused), not on a signal: the caller says why."""


@dataclass(frozen=True)
class Tick:
    """The run loop woke with no trial started or finished (about twice a second while trials
    run): a display may say what is still running."""


RunEvent = RunStarted | TrialStarted | TrialRetried | TrialFinished | RunFinished | Tick
Subscriber = Callable[[RunEvent], None]


def emit(subscribers: list[Subscriber], event: RunEvent, *, stopping: bool = False) -> None:
    """Deliver ``event``; a subscriber that raises is logged and dropped, never fatal. One
    that raises SystemExit (or another BaseException that is no Exception, as a test
    framework's failure is) asks the run to stop: it is dropped, and the first such stops the
    run as Ctrl-C does (:class:`SubscriberStop`, unless the run is ``stopping`` already or has
    ended); :func:`subscriber_exits` raises it again once the run is written."""
    stop: BaseException | None = None
    for sub in list(subscribers):
        try:
            sub(event)
        except Exception as exc:
            log.warning("%s; the run goes on", _dropped(sub, exc), extra=shown_as())
            subscribers.remove(sub)
        except KeyboardInterrupt:
            raise  # as a Ctrl-C: the run's stop takes it
        except BaseException as exc:
            subscribers.remove(sub)
            if _exits.raised is None and not stopping:
                stop = exc
            _exits.raised = _exits.raised or exc
            then = "" if stop is None else "the run stops as at Ctrl-C, and "
            log.warning("%s; %s%s", _dropped(sub, exc), then, _RAISED, extra=shown_as())
    if stop is not None:  # the others told of the event first
        raise SubscriberStop from stop


_RAISED = "proctor.run() raises it again once the run is written"


class SubscriberStop(KeyboardInterrupt):
    """A subscriber raised SystemExit (or another BaseException that is no Exception): the run
    stops as at Ctrl-C, its finished trials kept and its aggregate written as interrupted."""


class _Exits(threading.local):
    raised: BaseException | None = None


_exits = _Exits()
"""The first SystemExit (or the like) a subscriber raised during the run of this thread."""


@contextmanager
def subscriber_exits() -> Iterator[None]:
    """Within the block (a run), a SystemExit or the like that a subscriber raised stops the
    run (see :func:`emit`); it is raised again when the block ends, the run written whole."""
    outer, _exits.raised = _exits.raised, None
    try:
        yield
    except SubscriberStop as stop:  # not taken by the run's stop: the subscriber's own
        raise (_exits.raised or stop) from None
    finally:
        raised, _exits.raised = _exits.raised, outer
    if raised is not None:
        raise raised


def _dropped(sub: Subscriber, exc: BaseException) -> str:
    """Which subscriber raised what, where: ``a run subscriber, the plain function 'show',
    raised KeyError: 'case' (show.py, line 12), and is told no more events``."""
    import traceback

    from proctor.util.argtypes import given

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
    said = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return f"a run subscriber, {given(sub)}, raised {said}{where}, and is told no more events"
