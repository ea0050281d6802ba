"""A pool of forked worker processes that ends, whatever the parent does with SIGTERM."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.pool import Pool


class QuietPool(Pool):
    """A pool whose thread that looks after the workers wakes only when one ends, or when the
    pool's state or its work changes.

    The standard pool wakes it as well whenever results wait in the pipe: while the thread
    that reads them is at work (a chunk of results is larger than the pipe holds), it woke
    again and again, to find nothing to do. On a history of 12,000 short sessions that was a
    tenth of a second of the parent's CPU, taken from the workers on a machine of two cores.
    It is woken without the results' pipe: a worker's end (its process's sentinel), and the
    notes the pool sends it when it is closed or ended and when its last task is done."""

    def _get_sentinels(self) -> list[object]:
        return [self._change_notifier._reader]  # type: ignore[attr-defined]


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
        pool = QuietPool(
            processes=processes,
            initializer=initializer,
            context=multiprocessing.get_context("fork"),
        )
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        raise
    try:
        # A SIGTERM held meanwhile is handled here, where it stops the pool like any other.
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        yield pool
        pool.close()
        pool.join()  # a signal may come while the workers finish, too
    except BaseException:
        stop_pool(pool)
        raise


STOP_WAIT_SEC = 5.0
"""How long a pool's own end may take before its workers are killed instead (it takes
milliseconds, unless a worker died holding the lock of the pool's task queue)."""


def stop_pool(pool: Pool, wait: float | None = None) -> None:
    """End ``pool`` at once: its own ``terminate``, given ``wait`` seconds (default
    :data:`STOP_WAIT_SEC`).

    A worker killed from outside while it waited for work (a SIGTERM or SIGKILL sent to the
    whole process group: ``timeout``, systemd, ``docker stop``) dies holding the lock of the
    task queue, and ``terminate`` then waits for that lock forever. Past ``wait``, every
    worker is killed, and the pool's threads, left waiting on that lock, are left to the
    process's end (they are daemon threads, and the pool's exit hook has been used up)."""
    wait = STOP_WAIT_SEC if wait is None else wait
    ended = threading.Thread(target=_terminate, args=(pool,), name="pool-stop", daemon=True)
    ended.start()
    ended.join(wait)
    if not ended.is_alive():
        return
    workers = list(getattr(pool, "_pool", ()))  # the pool keeps its processes there alone
    for worker in workers:
        if worker.pid is not None and worker.exitcode is None:
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    for worker in workers:
        worker.join(wait)


def _terminate(pool: Pool) -> None:
    pool.terminate()
    pool.join()


def start_worker() -> None:
    """What a worker of such a pool sets first (it is forked from the command's process):
    the pool stops its workers with SIGTERM, which must end them, whatever the parent had
    (one sent since the fork ends the worker here); and Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a hang-up too: the parent stops the pool
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
