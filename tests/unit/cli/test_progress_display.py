"""A run's progress in a CI log is one plain line per trial, never a bar redrawn in place,
even when the CI job has a terminal."""

from __future__ import annotations

import io
import sys

import pytest

from proctor.cli.display import BarProgress, PlainProgress, make_display
from proctor.cli.progress import shows_a_bar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """stderr a terminal, outside CI, on a terminal that redraws (set in the test itself:
    pytest's capture sets stderr again after a fixture's setup)."""
    monkeypatch.setattr(sys, "stderr", Terminal())
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


def test_a_person_s_terminal_shows_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal(monkeypatch)
    assert shows_a_bar(sys.stderr)
    assert isinstance(make_display(False), BarProgress)
    assert isinstance(make_display(True), PlainProgress)  # beside --mirror


@pytest.mark.parametrize(("name", "value"), [("CI", "true"), ("CI", "1"), ("TERM", "dumb")])
def test_a_ci_job_or_a_dumb_terminal_gets_plain_lines(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    terminal(monkeypatch)
    monkeypatch.setenv(name, value)
    assert not shows_a_bar(sys.stderr)
    assert isinstance(make_display(False), PlainProgress)


@pytest.mark.parametrize("value", ["", "false", "0"])
def test_ci_said_false_is_not_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    terminal(monkeypatch)
    monkeypatch.setenv("CI", value)
    assert shows_a_bar(sys.stderr)


def test_no_terminal_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    assert not shows_a_bar(io.StringIO())
