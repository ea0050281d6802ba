"""Python's cyclic garbage collector paused while many long-lived objects are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused(*, freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic collector for the block (reference counting still frees everything).

    Building tens of thousands of objects that live on (a history's session summaries) makes
    the collector walk all of them again and again, which cost more than building them: a
    20,000-session history's summaries took 1.0 s to read with it running and 0.2 s without.
    The objects built here hold no cycles. Nested use is fine; the state before is restored.

    With ``freeze``, every object alive when the collector is turned back on is left out of its
    later walks (``gc.freeze``): the first collection after a history's replay took a tenth of
    a second walking its summaries. Reference counting still frees them, but a cycle among them
    is never collected, so this is for a command's process, not for a library call.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze:
                gc.freeze()
            gc.enable()
