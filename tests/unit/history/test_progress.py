"""`proctor history`'s progress bar: on a terminal, for a history large enough to wait for,
and gone when the replay ends; never in a pipe or a log."""

from __future__ import annotations

import io

import pytest

from proctor.cli.progress import PROGRESS_FROM, ReplayProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def replay_with(stream: io.StringIO, total: int) -> str:
    with ReplayProgress(total, stream) as progress:
        for _ in range(total):
            progress.advance()
    return stream.getvalue()


def test_a_large_replay_on_a_terminal_shows_a_bar_that_is_cleared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")  # a terminal that redraws, whatever runs this
    shown = replay_with(Terminal(), PROGRESS_FROM)
    assert f"{PROGRESS_FROM}/{PROGRESS_FROM}" in shown
    assert "sessions" in shown
    assert "\x1b[2K" in shown  # the bar's line is erased at the end


def test_control_no_bar_in_a_pipe_or_for_a_small_history() -> None:
    assert replay_with(io.StringIO(), PROGRESS_FROM) == ""
    assert replay_with(Terminal(), PROGRESS_FROM - 1) == ""
