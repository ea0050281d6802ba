"""A replay's pool workers end on the pool's SIGTERM and leave Ctrl-C to the parent, whatever
the parent's own handlers were (an interrupted run in the same process ignores both)."""

from __future__ import annotations

import gc
import signal
import time
from collections.abc import Iterator

import pytest

from proctor.history.replay import _start_worker


@pytest.fixture
def restored() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    collecting = gc.isenabled()
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)
    gc.unfreeze()  # a worker freezes what it inherited, and pauses the collector
    if collecting:
        gc.enable()


def test_a_worker_starts_with_sigterm_ending_it_and_sigint_ignored(restored: None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as an interrupted run leaves the parent
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _start_worker()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_a_command_gives_back_sigterm_and_leaves_an_interrupted_run_s_signals_ignored(
    restored: None,
) -> None:
    """After an interrupt, a second Ctrl-C must not cut proctor's exit short; the pool above
    copes with a parent that ignores both."""
    from proctor.cli.signals import terminate_as_interrupt

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with terminate_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    with pytest.raises(KeyboardInterrupt), terminate_as_interrupt():
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # what the executor does on Ctrl-C
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_a_worker_leaves_a_hang_up_to_the_parent(restored: None) -> None:
    """The terminal closed hangs up the whole group: the command stops the pool itself."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    _start_worker()
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


def test_a_hang_up_stops_a_command_as_sigterm_does(restored: None) -> None:
    """SIGHUP (the terminal closed, an ssh session dropped) raises KeyboardInterrupt, as
    SIGTERM does: ``proctor history`` and every other command stop cleanly, exit 130. Under
    ``nohup`` (SIGHUP ignored from the start) it stays ignored."""
    import os

    from proctor.cli.signals import terminate_as_interrupt

    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    with pytest.raises(KeyboardInterrupt), terminate_as_interrupt():
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(100):
            time.sleep(0.01)
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_DFL
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    with terminate_as_interrupt():
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


LATE_WORKER = """
import multiprocessing, signal, sys, tempfile, time
from pathlib import Path
from proctor.history import replay as replay_module
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions
from proctor.models.pricing import PriceTable
from tests.unit.history.planted import plant

home = Path(tempfile.mkdtemp())
plant(home / ".claude")
sessions, _ = find_sessions(["claude-code"], home, {})
started = multiprocessing.Value("i", 0)
real = replay_module._start_worker

def late_second() -> None:
    with started.get_lock():
        n, started.value = started.value, started.value + 1
    if n == 1:  # the second worker starts after the first has done all the work
        time.sleep(2)
    real()

replay_module._start_worker = late_second
replay_module.SERIAL_BELOW = 1
from proctor.util import pool as pool_module
pool_module.STOP_WAIT_SEC = 3600  # the workers end by the pool's own SIGTERM, never killed
import contextlib
if sys.argv[1] == "terminate":  # the pool's usual end, for the control
    @contextlib.contextmanager
    def terminated(count, initializer):
        with multiprocessing.get_context("fork").Pool(count, initializer) as pool:
            yield pool
    replay_module.forked_pool = terminated
if sys.argv[1] == "unheld":  # workers forked with SIGTERM as the parent has it, for the control
    import types
    unblocked = {**vars(signal), "pthread_sigmask": lambda how, mask: set()}
    pool_module.signal = types.SimpleNamespace(**unblocked)
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as an interrupted run leaves the parent
if sys.argv[2] == "whole":
    found = list(replay(sessions, Filters(), PriceTable(), workers=2))
    print(len(found), "replayed")
else:  # stopped after the first results (Ctrl-C), the second worker not started yet
    replayed = replay(sessions, Filters(), PriceTable(), workers=2)
    next(replayed)
    replayed.close()
    print("stopped")
"""


def replay_with_a_late_worker(end: str, timeout: float, *, stopped: bool = False) -> str | None:
    """The output of a replay whose second worker starts after the first did all the work,
    in a process that ignores SIGTERM (``stopped``: the replay stopped after its first
    results); None when it was still running after ``timeout``."""
    return run_script(LATE_WORKER, [end, "stopped" if stopped else "whole"], timeout)


def run_script(script: str, args: list[str], timeout: float) -> str | None:
    """The output of ``script`` run by Python in a session of its own (its workers are
    killed with it); None when it was still running after ``timeout``."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None
    assert proc.returncode == 0, out
    return out


def test_a_worker_that_starts_after_the_work_is_done_ends_with_the_pool() -> None:
    assert replay_with_a_late_worker("close", timeout=60) == "4 replayed\n"


def test_control_a_pool_that_only_sends_sigterm_waits_for_that_worker_forever() -> None:
    assert replay_with_a_late_worker("terminate", timeout=8) is None


def test_a_replay_stopped_before_a_worker_started_ends_that_worker_too() -> None:
    """The pool is terminated (SIGTERM) while its second worker has not run its initializer:
    the signal waits for it there, instead of being dropped by a worker that ignores it."""
    assert replay_with_a_late_worker("close", timeout=60, stopped=True) == "stopped\n"


def test_control_workers_forked_with_sigterm_ignored_miss_the_pool_s_sigterm() -> None:
    assert replay_with_a_late_worker("unheld", timeout=8, stopped=True) is None


KILLED_WORKERS = """
import os, signal, sys, time
from proctor.util import pool as pool_module
from proctor.util.pool import forked_pool, start_worker

pool_module.STOP_WAIT_SEC = 1.0
if sys.argv[1] == "terminate":  # the pool's own end alone, for the control
    pool_module.stop_pool = lambda pool, wait=None: (pool.terminate(), pool.join())
try:
    with forked_pool(2, start_worker) as pool:
        assert pool.map(abs, [-1, -2]) == [1, 2]
        # Both idle: one holds the task queue's lock while it waits for work.
        held, deadline = pool._inqueue._rlock, time.monotonic() + 5
        while held.acquire(block=False):
            held.release()
            assert time.monotonic() < deadline, "no idle worker took the task queue's lock"
            time.sleep(0.01)
        killed = {worker.pid for worker in list(pool._pool)}
        for pid in killed:  # as a SIGTERM to the whole process group does
            os.kill(pid, signal.SIGKILL)
        while len([w for w in list(pool._pool) if w.pid not in killed and w.is_alive()]) < 2:
            assert time.monotonic() < deadline + 30, "the pool started no workers in their place"
            time.sleep(0.01)  # the pool starts two others in their place
        raise KeyboardInterrupt  # the parent's own share of the signal
except KeyboardInterrupt:
    print("stopped")
"""


def stop_after_killed_workers(end: str, timeout: float) -> str | None:
    return run_script(KILLED_WORKERS, [end], timeout)


def test_a_pool_whose_workers_were_killed_from_outside_still_ends() -> None:
    """`timeout`, systemd or `docker stop` signal the whole process group: a worker that dies
    waiting for work holds the task queue's lock for good, and the pool's own terminate waits
    for it; the pool's end is bounded, its workers killed."""
    assert stop_after_killed_workers("stop", timeout=60) == "stopped\n"


def test_control_the_pool_s_own_terminate_waits_forever_after_killed_workers() -> None:
    assert stop_after_killed_workers("terminate", timeout=8) is None
