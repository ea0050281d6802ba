"""Telling a Ctrl-C from a ``KeyboardInterrupt`` an eval file raises itself while it is imported.

A stop (Ctrl-C's SIGINT, or the SIGTERM and SIGHUP ``proctor`` turns into one) raises
``KeyboardInterrupt`` from whatever line runs when it lands, an eval file's too: the exception
alone cannot say where it came from. So while a file is imported, each stop signal is noted
before its own handler runs: a ``KeyboardInterrupt`` with no stop noted is the file's."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stops:
    """What :func:`stops_noted` saw: whether it could note stops at all (only the main thread
    sets signal handlers) and whether one came."""

    def __init__(self, watched: bool) -> None:
        self.watched = watched
        self.came = False

    def raised_by_code(self) -> bool:
        """Whether a ``KeyboardInterrupt`` caught within the block was raised by the code it
        ran, and not by a stop (never, when stops could not be noted: it is taken as one)."""
        return self.watched and not self.came


@contextmanager
def stops_noted() -> Iterator[Stops]:
    """Within the block, each stop signal that arrives is noted (then handled as before)."""
    if threading.current_thread() is not threading.main_thread():
        yield Stops(watched=False)
        return
    stops = Stops(watched=True)
    wrapped: dict[signal.Signals, tuple[Any, Callable[[int, FrameType | None], Any]]] = {}
    for number in _STOPS:
        previous = signal.getsignal(number)
        if not callable(previous):  # ignored, or the default (which ends the process)
            continue

        def noting(signum: int, frame: FrameType | None, previous: Any = previous) -> Any:
            stops.came = True
            return previous(signum, frame)

        signal.signal(number, noting)
        wrapped[number] = (previous, noting)
    try:
        yield stops
    finally:
        for stop, (handler, ours) in wrapped.items():
            if signal.getsignal(stop) is ours:  # (a handler the file set stays)
                signal.signal(stop, handler)
