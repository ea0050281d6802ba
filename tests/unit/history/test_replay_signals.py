"""A replay's pool workers end on the pool's SIGTERM and leave Ctrl-C to the parent, whatever
the parent's own handlers were (an interrupted run in the same process ignores both)."""

from __future__ import annotations

import gc
import signal
from collections.abc import Iterator

import pytest

from proctor.history.replay import _start_worker


@pytest.fixture
def restored() -> Iterator[None]:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
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
