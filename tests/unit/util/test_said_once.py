"""``said_once``: a command planning several runs of one source (``run --manifest``) says a
warning on that source once; any other message (a trial's, a run's) each time it is given,
though its words may repeat (the same sentence of another pair's file)."""

from __future__ import annotations

import logging

import pytest

from proctor.plan.choosing import LEFT_UNREAD
from proctor.util.logs import LOGGER, said_once, unsaid


def test_only_the_marked_messages_are_said_once(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger(LOGGER)
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with said_once(LEFT_UNREAD):
        for _ in range(2):  # two pairs
            logger.warning(f"case 'bad', which --case {LEFT_UNREAD} bad/config.json: …")
            logger.warning("a secret could not be masked or removed in trial.json")
    said = [r.getMessage() for r in caplog.records]
    assert said.count("a secret could not be masked or removed in trial.json") == 2
    assert sum(LEFT_UNREAD in m for m in said) == 1
    logger.warning(f"case 'bad', which --case {LEFT_UNREAD} bad/config.json: …")
    assert sum(LEFT_UNREAD in r.getMessage() for r in caplog.records) == 2  # outside: said


def test_the_marked_messages_are_unsaid_only_within_the_block(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger(LOGGER)
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with unsaid(LEFT_UNREAD):  # a resume planning its run again
        logger.warning(f"case 'bad', which --case {LEFT_UNREAD} bad/config.json: …")
        logger.warning("a secret could not be masked or removed in trial.json")
    logger.warning(f"case 'bad', which --case {LEFT_UNREAD} bad/config.json: …")
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "a secret could not be masked or removed in trial.json",
        f"case 'bad', which --case {LEFT_UNREAD} bad/config.json: …",
    ]
