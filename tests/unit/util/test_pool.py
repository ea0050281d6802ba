"""The forked pool's thread that looks after its workers sleeps while results stream back."""

from __future__ import annotations

import multiprocessing
import os
import threading
from multiprocessing.pool import Pool

import pytest

from proctor.util.pool import QuietPool, forked_pool, start_worker, stop_pool

_RESULT = b"x" * 200_000
"""Larger than a pipe holds: the parent's thread reads it back in many reads."""


def _large(_: int) -> bytes:
    return _RESULT


def test_the_workers_thread_is_not_woken_by_each_result(monkeypatch: pytest.MonkeyPatch) -> None:
    # The standard pool wakes that thread whenever results wait in the pipe: it looped, with
    # nothing to do, all the while the results were read (hundreds of times here).
    wakes: list[str] = []
    wait = Pool._wait_for_updates  # type: ignore[attr-defined]

    def counted(*args: object, **kwargs: object) -> None:
        wakes.append(threading.current_thread().name)
        wait(*args, **kwargs)

    monkeypatch.setattr(Pool, "_wait_for_updates", staticmethod(counted))
    with forked_pool(2, start_worker) as pool:
        results = list(pool.imap_unordered(_large, range(200)))
    assert len(results) == 200 and all(result == _RESULT for result in results)
    # Its start, the last task done, the pool's close, a worker's end or two.
    assert len(wakes) <= 8, f"woken {len(wakes)} times"


def test_a_worker_that_dies_is_still_replaced() -> None:
    # The thread still wakes when a worker ends: the pool starts another in its place.
    pool = QuietPool(1, start_worker, context=multiprocessing.get_context("fork"))
    try:
        first = pool.apply_async(os.getpid).get(timeout=30)
        pool.apply_async(os._exit, (0,))  # its task is lost with it
        assert pool.apply_async(os.getpid).get(timeout=30) != first
    finally:
        stop_pool(pool)
