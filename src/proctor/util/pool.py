"""A pool of forked worker processes that ends, whatever the parent does with SIGTERM."""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool


@contextmanager
def forked_pool(processes: int, initializer: Callable[[], None]) -> Iterator[Pool]:
    """A pool of ``processes`` forked workers, each set up by ``initializer``, which must call
    :func:`start_worker`.

    When the block is done the pool is closed and waited for: each worker is handed the end
    of the work and exits on its own. A pool's usual end (``terminate``) sends SIGTERM
    instead, and a worker forked while the parent ignored SIGTERM (as it does while an
    interrupted run stops) ignores it too until its initializer has run: one that started
    late, after the others had done all the work, then waited for work forever, and so did
    the parent. An exception in the block (Ctrl-C) still terminates the pool; for that end,
    the workers are forked with SIGTERM blocked, so that one sent before a worker's
    initializer has run waits (it is not dropped) and ends the worker as soon as
    :func:`start_worker` unblocks it. The parent's own SIGTERM is held for the few
    milliseconds of the forks, then handled as it would have been.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        pool = multiprocessing.get_context("fork").Pool(
            processes=processes, initializer=initializer
        )
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    else:
        pool.close()
    finally:
        pool.join()


def start_worker() -> None:
    """What a worker of such a pool sets first (it is forked from the command's process):
    the pool stops its workers with SIGTERM, which must end them, whatever the parent had
    (one sent since the fork ends the worker here); and Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
