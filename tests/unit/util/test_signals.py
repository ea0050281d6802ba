"""Ctrl-C and SIGTERM held while a block runs, and delivered after it, whichever thread the
system hands the signal to."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from proctor.util.signals import stop_signals_held


def test_ctrl_c_in_the_block_is_raised_after_it_with_another_thread_running() -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # a thread that could take it
    other.start()
    done = []
    try:
        with pytest.raises(KeyboardInterrupt), stop_signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a handler would have run by now
            done.append("the block finished")
    finally:
        stop.set()
    assert done == ["the block finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back


def test_a_block_without_a_signal_raises_nothing() -> None:
    with stop_signals_held():
        pass
    assert signal.getsignal(signal.SIGTERM) is not None


def test_control_a_mask_on_this_thread_alone_does_not_hold_it() -> None:
    """Blocking the signal on this thread only (what stop_signals_held does not do): with
    another thread running, the system may hand the signal to that one, and Python raises it
    in the block."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    raised = False
    try:
        os.kill(os.getpid(), signal.SIGINT)
        # Until the other thread has run the handler (late on a loaded machine: a fixed tenth
        # of a second left the interrupt to land in whatever ran next).
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            time.sleep(0.001)
    except KeyboardInterrupt:
        raised = True
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        stop.set()
    assert raised


def test_a_signal_between_two_swaps_leaves_no_handler_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGTERM handled (as an interrupt) right after Ctrl-C's handler was swapped, before
    SIGTERM's: Ctrl-C's handler is put back all the same."""
    real = signal.signal
    swaps = 0

    def swap_then_interrupt(number: int, handler: object) -> object:
        nonlocal swaps
        previous = real(number, handler)  # type: ignore[arg-type]
        swaps += 1
        if swaps == 1:
            raise KeyboardInterrupt  # what a SIGTERM landing here would raise
        return previous

    monkeypatch.setattr(signal, "signal", swap_then_interrupt)
    with pytest.raises(KeyboardInterrupt), stop_signals_held():
        pass
    monkeypatch.setattr(signal, "signal", real)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _second_signal_while_stopping(sig: signal.Signals) -> list[str]:
    """The first signal interrupts; a second comes while the stop runs, before the stop could
    set its handlers aside. What the stop got through."""
    done: list[str] = []
    try:
        os.kill(os.getpid(), sig)
        time.sleep(0.05)
        done.append("not interrupted")
    except KeyboardInterrupt:
        os.kill(os.getpid(), signal.SIGINT)  # pressed again, a moment later
        time.sleep(0.05)  # a handler would have run by now
        done.append("the stop went on")
    return done


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_only_the_first_stop_signal_interrupts(sig: signal.Signals) -> None:
    from proctor.util.signals import first_stop_only

    before = signal.getsignal(signal.SIGTERM)
    with first_stop_only():
        assert _second_signal_while_stopping(sig) == ["the stop went on"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    assert signal.getsignal(signal.SIGTERM) == before
    with first_stop_only():  # each block has its first signal
        assert _second_signal_while_stopping(signal.SIGINT) == ["the stop went on"]


def test_control_without_it_a_second_ctrl_c_cuts_the_stop_short() -> None:
    with pytest.raises(KeyboardInterrupt):
        _second_signal_while_stopping(signal.SIGINT)


def test_a_signal_ignored_before_stays_ignored() -> None:
    from proctor.util.signals import first_stop_only

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with first_stop_only():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
