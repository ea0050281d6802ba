"""An interrupt Python could only print (raised in a ``__del__`` or a thread's internals) is
sent again, and a second one landing while that resend is armed is neither printed nor lost."""

from __future__ import annotations

import os
import signal
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from proctor.cli import signals as cli_signals
from proctor.execute import executor
from proctor.execute.context import Interrupted


class FlakyStart:
    """``threading.Timer`` whose first ``start`` is cut short by a signal's exception, as when
    a stop signal lands while the timer's thread starts."""

    def __init__(self, exc: type[BaseException]) -> None:
        self.exc = exc
        self.calls = 0
        self.started: list[tuple[Any, ...]] = []

    def timer(self, interval: float, function: Any, args: tuple[Any, ...]) -> Any:
        def start() -> None:
            self.calls += 1
            if self.calls == 1:
                raise self.exc()
            self.started.append((function, args))

        return SimpleNamespace(start=start)


@pytest.fixture
def restore_handlers() -> Any:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def test_a_worker_s_lost_interrupt_is_armed_again_when_a_second_one_lands(
    monkeypatch: pytest.MonkeyPatch, restore_handlers: Any
) -> None:
    flaky = FlakyStart(Interrupted)
    monkeypatch.setattr(threading, "Timer", flaky.timer)
    monkeypatch.setitem(executor._FORK, "worker", os.getpid())
    executor._lost_interrupt(SimpleNamespace(exc_value=Interrupted()))
    assert flaky.calls == 2 and flaky.started == [(os.kill, (os.getpid(), signal.SIGTERM))]


def test_the_command_s_lost_ctrl_c_is_sent_again_when_a_second_one_lands(
    monkeypatch: pytest.MonkeyPatch, restore_handlers: Any
) -> None:
    flaky = FlakyStart(KeyboardInterrupt)
    monkeypatch.setattr(threading, "Timer", flaky.timer)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cli_signals._lost_interrupt(SimpleNamespace(exc_value=KeyboardInterrupt()))
    assert flaky.calls == 2 and len(flaky.started) == 1
