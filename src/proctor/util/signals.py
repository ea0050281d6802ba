"""Holding Ctrl-C and SIGTERM while something that must not be cut in half is written."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the block runs (in the main thread, where Python handles
    them; elsewhere nothing is held): one that comes meanwhile is delivered, as usual, once
    the block is done. For short work whose files must be whole or absent (a run folder's
    first records, the aggregate and reports of a finished run)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
