"""A run subscriber that raises is dropped with a warning that says which one, what it raised
and where; the others go on receiving events, and the run goes on."""

from __future__ import annotations

import logging

import pytest

from proctor.execute.events import RunEvent, RunStarted, Subscriber, Tick, emit


def show(event: RunEvent) -> None:
    raise KeyError("case")


def test_a_subscriber_that_raises_is_named_with_what_it_raised_and_where(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """It was "display subscriber <function show at 0x7f…> failed and was removed: 'case'":
    a memory address, no exception type and no line to look at."""
    seen: list[RunEvent] = []
    subscribers: list[Subscriber] = [show, seen.append]
    with caplog.at_level(logging.WARNING, logger="proctor"):
        emit(subscribers, RunStarted(total=1))
        emit(subscribers, Tick())
    assert seen == [RunStarted(total=1), Tick()]
    assert subscribers == [seen.append]
    (record,) = caplog.records
    line = show.__code__.co_firstlineno + 1
    assert record.getMessage() == (
        "a run subscriber, a plain function 'show', raised KeyError: 'case' "
        f"({__file__}, line {line}), and is told no more events; the run goes on"
    )


def leave(event: RunEvent) -> None:
    raise SystemExit(3)


def test_a_subscriber_that_exits_stops_the_run_once_and_is_raised_after_it() -> None:
    """Its SystemExit went through the run loop as it was, cutting the run off half-written.
    It stops the run as Ctrl-C does (a KeyboardInterrupt the run's stop takes); the others
    are told on; it is raised again when the run is over."""
    from proctor.execute.events import SubscriberStop, subscriber_exits

    def leave_too(event: RunEvent) -> None:
        raise SystemExit(4)

    seen: list[RunEvent] = []
    subscribers: list[Subscriber] = [leave, seen.append, leave_too]
    with pytest.raises(SystemExit) as raised, subscriber_exits():
        with pytest.raises(SubscriberStop):
            emit(subscribers, RunStarted(total=1))
        assert subscribers == [seen.append]  # both dropped; the others told the event first
        # While the run stops, or once it ended, one that exits stops nothing more.
        subscribers.append(leave_too)
        emit(subscribers, Tick(), stopping=True)
        emit(subscribers, Tick())
        assert subscribers == [seen.append]
    assert raised.value.code == 3  # the first
    assert seen == [RunStarted(total=1), Tick(), Tick()]
