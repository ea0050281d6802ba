"""The progress bar of ``proctor history``. Apart from the run displays
(:mod:`proctor.cli.display`), whose event types would cost the history command a third of a
second of imports."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

PROGRESS_FROM = 500
"""Sessions from which a replay shows a progress bar (on a terminal only)."""


class ReplayProgress:
    """A bar of the sessions replayed so far, on stderr when it is a terminal and the history
    is large enough to take a while; it is cleared at the end. Sessions the filters leave out
    are never counted, so the bar may stop short of the total."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.shown = 0.0
        self.bar: Any = None
        if total >= PROGRESS_FROM and self.stream.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]sessions"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=Console(file=self.stream),
                auto_refresh=False,
                transient=True,
            )
            self.task = self.bar.add_task("sessions", total=total)

    def __enter__(self) -> ReplayProgress:
        if self.bar is not None:
            self.bar.start()
        return self

    def advance(self) -> None:
        self.done += 1
        if self.bar is None:
            return
        now = time.monotonic()
        if now - self.shown >= 0.1 or self.done == self.total:
            self.shown = now
            self.bar.update(self.task, completed=self.done)
            self.bar.refresh()

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
