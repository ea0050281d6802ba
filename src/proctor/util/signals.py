"""Holding Ctrl-C and SIGTERM while something that must not be cut in half is written.

:class:`HeldStops` notes them between two points of a run that are not one block of code:
from the moment its run folder is made to the moment its executor takes stops over, and from
the moment the executor returns to the moment the aggregate is written. A stop that lands in
either stretch is not lost, and does not cut the run short where nothing would record it: the
run acts on it at the next point (see :mod:`proctor.session.run`)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Ctrl-C, SIGTERM and SIGHUP (the terminal closed, an ssh session dropped): each stops a run."""


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the block runs: one that comes meanwhile is handled as
    usual (a KeyboardInterrupt, say) once the block is done. For short work whose files must
    be whole or absent (a run folder's first records, the aggregate and reports of a finished
    run). Python handles signals in the main thread only; from another nothing is held.

    The handlers are swapped, not the signal mask: a process with other threads (a progress
    display, a pool's) has the signal delivered to one of them, which a mask on this thread
    does not stop."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[signal.Signals] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        came.append(signal.Signals(signum))

    previous: dict[signal.Signals, Any] = {}
    try:
        for number in STOP_SIGNALS:  # one at a time, each known before it is swapped
            previous[number] = signal.getsignal(number)
            signal.signal(number, hold)
        yield
    finally:
        _restore(list(previous.items()))
        if came:
            _deliver(came[0], previous[came[0]])


@contextmanager
def first_stop_only() -> Iterator[None]:
    """Within the block, the first Ctrl-C or SIGTERM raises KeyboardInterrupt, and any that
    follows is swallowed until the block ends: a second Ctrl-C a moment after the first (a key
    pressed twice, a signal sent to a whole process group) must not cut short the clean stop
    the first one began, before its handler can ignore them. A signal ignored when the block
    begins (a shell's background job starts with Ctrl-C ignored) stays ignored. Without a
    stop, the handlers in force before are put back when the block ends; a stop that set its
    own (``SIG_IGN``) keeps them. From another thread than the main one, the block runs as it
    is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired = False

    def first(signum: int, _frame: FrameType | None) -> None:
        nonlocal fired
        if fired:
            return
        fired = True
        raise KeyboardInterrupt

    previous: dict[signal.Signals, Any] = {}
    try:
        for number in STOP_SIGNALS:
            handler = signal.getsignal(number)
            if handler is not signal.SIG_IGN:  # one ignored from the start stays ignored
                previous[number] = handler
                signal.signal(number, first)
        yield
    finally:
        _restore([(n, h) for n, h in previous.items() if signal.getsignal(n) is first])


@contextmanager
def stop_handlers_kept() -> Iterator[None]:
    """The handlers of Ctrl-C, SIGTERM and SIGHUP in force when the block begins are in force
    again when it ends, however it ends. For a run from Python (:func:`proctor.run`): a run
    that was stopped ignores them while it stops, and the command line leaves them ignored
    until it exits; the script or notebook that called it must get its own back, or its next
    Ctrl-C does nothing. A handler set outside Python cannot be put back and is left as it is.
    From another thread than the main one, nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: list[tuple[int, Any]] = [
        (n, h) for n in STOP_SIGNALS if (h := signal.getsignal(n)) is not None
    ]
    try:
        yield
    finally:
        _restore(previous)


def ignore_stops() -> None:
    """Ignore Ctrl-C and SIGTERM from now on, as a run that is stopping does (a second one
    must not cut its clean stop short; the command restores them). From another thread than
    the main one, nothing is changed."""
    if threading.current_thread() is threading.main_thread():
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)


class HeldStops:
    """Stop signals noted from :meth:`hold` on, until :meth:`release` (which delivers the first
    that came) or :meth:`ignore`. A signal ignored when the hold begins (a shell's background
    job starts with Ctrl-C ignored), or whose handler was set outside Python, is left as it is.
    From another thread than the main one nothing is held."""

    def __init__(self) -> None:
        self.came: list[int] = []
        self._previous: dict[int, Any] = {}

    def hold(self) -> HeldStops:
        if threading.current_thread() is not threading.main_thread():
            return self
        for number in STOP_SIGNALS:
            if number in self._previous:
                continue
            handler = signal.getsignal(number)
            if handler is None or handler is signal.SIG_IGN:
                continue
            self._previous[number] = handler
            signal.signal(number, self._note)
        return self

    def _note(self, signum: int, _frame: FrameType | None) -> None:
        self.came.append(signum)

    @property
    def holding(self) -> bool:
        return bool(self._previous)

    def release(self) -> None:
        """The handlers in force before put back, and the first stop that came delivered as
        they handle it (Ctrl-C's raises KeyboardInterrupt, from here). Once released, again
        does nothing."""
        previous, self._previous = self._previous, {}
        _restore(list(previous.items()))
        came, self.came = self.came, []
        if came and came[0] in previous:
            _deliver(came[0], previous[came[0]])

    def ignore(self) -> None:
        """Ctrl-C and SIGTERM ignored from now on, as a run that stopped ignores them (the
        command restores them); nothing is delivered."""
        self._previous = {}
        ignore_stops()


def _restore(handlers: list[tuple[int, Any]]) -> None:
    """Put each handler back, every one of them even if a signal lands between two (and its
    handler raises)."""
    if not handlers:
        return
    (number, handler), *rest = handlers
    try:
        signal.signal(number, handler)
    finally:
        _restore(rest)


def _deliver(number: int, handler: Any) -> None:
    """The signal ``number`` handled as ``handler`` (the one in force before it was held)
    would have handled it."""
    if callable(handler):
        handler(number, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), number)  # its default action, now that it is back
    elif handler is None and number == signal.SIGINT:  # set outside Python: as Ctrl-C
        raise KeyboardInterrupt
