"""``open_regular`` under interrupts: Ctrl-C (or the SIGTERM proctor turns into one) that
lands while the file is being opened comes out as the interrupt, never as an error of the file
(a second close of its descriptor, EBADF, which a reader then reported as an unreadable file)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from types import FrameType

import pytest

from proctor.util.files import open_regular


# An interrupt between ``open`` returning and ``with`` taking the file leaves the file to the
# collector, which closes it (once) and warns that it was not closed by hand.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_while_opening_is_the_interrupt(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text('{"a": 1}')
    armed = False

    def interrupt(_signum: int, _frame: FrameType | None) -> None:
        nonlocal armed
        if armed:
            armed = False
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, interrupt)
    stop = threading.Event()

    def pester() -> None:  # signals at every moment of the open, again and again
        while not stop.is_set():
            time.sleep(0.0001)
            os.kill(os.getpid(), signal.SIGUSR1)

    thread = threading.Thread(target=pester, daemon=True)
    thread.start()
    delivered, errors = 0, []
    deadline = time.monotonic() + 10
    try:
        while delivered < 300 and time.monotonic() < deadline:
            try:
                armed = True
                with open_regular(path) as fh:
                    fh.read()
                armed = False
            except KeyboardInterrupt:
                delivered += 1
            except OSError as exc:
                armed = False
                errors.append(exc)
    finally:
        stop.set()
        thread.join()
        signal.signal(signal.SIGUSR1, previous)
    assert errors == []
    if delivered < 300:
        pytest.skip(f"only {delivered} interrupts came in time on this host")
