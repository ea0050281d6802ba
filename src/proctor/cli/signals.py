"""SIGTERM (a CI cancel, ``timeout``, a process manager) stops any command the way Ctrl-C does."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


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
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) != signal.SIG_IGN:
            signal.signal(signal.SIGTERM, previous)
