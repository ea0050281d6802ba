"""The progress bar of ``proctor history``. Apart from the run displays
(:mod:`proctor.cli.display`), whose event types would cost the history command a third of a
second of imports."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, TextIO

PROGRESS_FROM = 500
"""Sessions from which a replay shows a progress bar (on a terminal only)."""


def shows_a_bar(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal a person watches, where a bar redrawn in place reads
    well: not a CI job's log, even one given a terminal (``CI`` set, as GitHub Actions, GitLab
    CI and most others set it, to anything but ``false`` or ``0``), nor a terminal that cannot
    redraw (``TERM=dumb``). Elsewhere a command prints plain lines instead."""
    if not stream.isatty():
        return False
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    return os.environ.get("TERM", "") != "dumb"


class ReplayProgress:
    """A bar of the sessions replayed so far, on stderr when it is a terminal (see
    :func:`shows_a_bar`) and the history is large enough to take a while; it is cleared at the
    end. Sessions the filters leave out are never counted, so the bar may stop short of the
    total."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.shown = 0.0
        self.bar: Any = None
        if total >= PROGRESS_FROM and shows_a_bar(self.stream):
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
