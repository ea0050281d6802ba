"""Ctrl-C and SIGTERM noted, not acted on, between two points of a run that are not one block of
code: from the moment its run folder is made to the moment its executor takes stops over, and
from the moment the executor returns to the moment the aggregate is written. A stop that lands
in either stretch is not lost, and does not cut the run short where nothing would record it:
the run acts on it at the next point (see :mod:`proctor.session.run`)."""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


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
        if threading.current_thread() is threading.main_thread():
            for number in STOP_SIGNALS:
                signal.signal(number, signal.SIG_IGN)


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
    """The signal ``number`` handled as ``handler`` would have handled it."""
    if callable(handler):
        handler(number, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), number)  # its default action, now that it is back
