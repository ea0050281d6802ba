"""Noting the stop signals while an eval file is imported, to tell a Ctrl-C from the file's own
``raise KeyboardInterrupt``."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from proctor.evals.stops import Stops, stops_noted


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def test_a_stop_is_noted_and_then_handled_as_before() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    with pytest.raises(KeyboardInterrupt), stops_noted() as stops:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler runs before this ends
    assert stops.came and not stops.raised_by_code()
    assert signal.getsignal(signal.SIGTERM) is _interrupt  # given back


def test_a_keyboard_interrupt_raised_by_the_code_is_told_apart() -> None:
    with pytest.raises(KeyboardInterrupt), stops_noted() as stops:
        raise KeyboardInterrupt
    assert stops.raised_by_code()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_outside_the_main_thread_every_keyboard_interrupt_is_a_stop() -> None:
    seen: list[Stops] = []

    def imported() -> None:
        with stops_noted() as stops:
            seen.append(stops)

    thread = threading.Thread(target=imported)
    thread.start()
    thread.join()
    assert not seen[0].watched and not seen[0].raised_by_code()
