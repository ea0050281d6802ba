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
        "proctor: a run subscriber, a plain function 'show', raised KeyError: 'case' "
        f"({__file__}, line {line}), and is told no more events; the run goes on"
    )
