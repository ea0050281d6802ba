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


class Clock:
    """A test's monotonic clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_plain_progress_beats_after_a_minute_without_a_line() -> None:
    """A long trial left a CI log silent until it ended (CircleCI stops a job after ten
    minutes without output): plain progress says what is running every minute of silence."""
    from proctor.execute.events import RunFinished, RunStarted, Tick, TrialFinished, TrialStarted
    from proctor.models.trial import TrialRecord

    out, clock = io.StringIO(), Clock()
    shown = PlainProgress(out, heartbeat=60, clock=clock)
    shown(RunStarted(3))
    shown(TrialStarted("slow", "scripted", "default", 1))
    clock.now += 5
    shown(TrialStarted("quick", "scripted", "default", 1))
    clock.now += 54
    shown(Tick())
    assert out.getvalue() == "proctor: running 3 trials\n"  # not yet a minute
    clock.now += 1
    shown(Tick())
    shown(Tick())  # once a minute, not at every tick
    assert out.getvalue().splitlines()[1:] == [
        "proctor: 2 trials running, the longest for 1m 00s: slow/scripted/default/1"
    ]
    clock.now += 30
    record = TrialRecord(case="quick", agent="scripted", repeat=1, status="passed", score=100)
    shown(TrialFinished(record))  # a line: the minute starts again
    clock.now += 59
    shown(Tick())
    assert len(out.getvalue().splitlines()) == 3
    clock.now += 1
    shown(Tick())
    assert out.getvalue().splitlines()[-1] == (
        "proctor: 1 trial running, the longest for 2m 30s: slow/scripted/default/1"
    )
    shown(TrialFinished(record.model_copy(update={"case": "slow"})))
    clock.now += 600
    shown(Tick())  # nothing running: nothing to say
    shown(RunFinished(2, False))
    assert len(out.getvalue().splitlines()) == 5


def test_no_heartbeat_in_a_bar_or_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from proctor.cli.display import HEARTBEAT_SEC, heartbeat_interval
    from proctor.errors import ConfigError
    from proctor.execute.events import RunStarted, Tick, TrialStarted

    monkeypatch.delenv("PROCTOR_HEARTBEAT_SEC", raising=False)
    assert make_display(False).heartbeat == HEARTBEAT_SEC == 60  # type: ignore[union-attr]
    # Beside --mirror the streamed terminal is the sign of life: a beat could split its line.
    assert make_display(True).heartbeat is None  # type: ignore[union-attr]
    assert heartbeat_interval({"PROCTOR_HEARTBEAT_SEC": "0.5"}) == 0.5
    assert heartbeat_interval({"PROCTOR_HEARTBEAT_SEC": "0"}) is None
    for wrong in ("soon", "-1", "nan", "inf"):
        with pytest.raises(ConfigError, match="PROCTOR_HEARTBEAT_SEC="):
            heartbeat_interval({"PROCTOR_HEARTBEAT_SEC": wrong})
    out, clock = io.StringIO(), Clock()
    silent = PlainProgress(out, heartbeat=None, clock=clock)
    silent(RunStarted(1))
    silent(TrialStarted("c", "a", "default", 1))
    clock.now += 3600
    silent(Tick())
    assert out.getvalue() == "proctor: running 1 trial\n"
    terminal(monkeypatch)
    bar = make_display(False)
    assert isinstance(bar, BarProgress)
    bar(RunStarted(1))
    bar(Tick())  # nothing is drawn for it
    bar.progress.stop()


def test_a_trial_that_runs_again_is_said_above_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bar says a trial runs again after a transient error (``--retry-errors``) on a line
    above it, as a warning is; a line break or escape sequence in the reason is shown."""
    from proctor.execute.events import RunStarted, TrialRetried
    from proctor.models.trial import TrialRecord

    terminal(monkeypatch)
    bar = make_display(False)
    assert isinstance(bar, BarProgress)
    bar(RunStarted(1))
    reason = "rate limited: 429\n\x1b[2Jtoo many requests"
    record = TrialRecord(case="c", agent="a", repeat=1, status="agent-error", reason=reason)
    bar(TrialRetried(record, 1, 3, "attempts/1"))
    bar.progress.stop()
    shown = sys.stderr.getvalue()
    assert "retrying c/a/default/1 (attempt 2 of 3): agent-error: rate limited: 429" in shown
    assert "\x1b[2J" not in shown


def test_a_stop_the_run_asked_for_is_not_said_as_an_interruption() -> None:
    """A run that stopped starting trials as a key was refused printed ``proctor:
    interrupted``, as for a Ctrl-C, before its reason; its exit line says why, once."""
    from proctor.execute.events import RunFinished

    out = io.StringIO()
    shown = PlainProgress(out, heartbeat=None)
    shown(RunFinished(1, True, requested=True))
    assert out.getvalue() == ""
    shown(RunFinished(1, True))  # a Ctrl-C, a SIGTERM
    assert out.getvalue() == "proctor: interrupted\n"
