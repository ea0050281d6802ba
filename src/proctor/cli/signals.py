"""SIGTERM (a CI cancel, ``timeout``, a process manager) stops any command the way Ctrl-C does."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt, as Ctrl-C does: the command cleans
    up (finished trials are kept, the processes it started are stopped) and exits 130.

    An interrupted run ignores both signals while it stops cleanly, and they stay ignored until
    proctor exits: a second Ctrl-C must not cut the exit short. Otherwise SIGTERM's handler is
    given back when the block ends. Outside the main thread (where no handler can be set) the
    block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    hook = sys.unraisablehook
    sys.unraisablehook = _lost_interrupt
    try:
        yield
    finally:
        sys.unraisablehook = hook
        if signal.getsignal(signal.SIGTERM) != signal.SIG_IGN:
            signal.signal(signal.SIGTERM, previous)


def _lost_interrupt(unraisable: Any) -> None:
    """Ctrl-C or SIGTERM that arrived while Python ran a callback it can only print errors of
    (a weak reference's, a ``__del__``) would be lost, and the command would run on: it is
    sent again, a moment later and from another thread, and nothing is printed."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    sig = signal.SIGTERM if signal.getsignal(signal.SIGTERM) is _interrupt else signal.SIGINT
    while signal.getsignal(sig) is not signal.SIG_IGN:  # ignored: the command is stopping
        try:
            threading.Timer(0.01, os.kill, (os.getpid(), sig)).start()
        except KeyboardInterrupt:
            continue  # another signal landed while the timer's thread started: send again
        return
