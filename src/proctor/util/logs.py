"""proctor's messages on the ``proctor`` logger, for a script as for the command line.

A message is logged as a sentence of its own (``findings: 1 new (…)``, ``findings ledger not
updated: …``): under a script's logging configuration it reads as any library's
(``WARNING:proctor:findings: 1 new (…)``). The command line prints it on stderr after the
words it has always carried (``proctor: findings: 1 new (…)``, ``proctor: warning: …``):
each call names them with ``extra=`` :func:`shown_as`, and :func:`cli_prefixes` puts them
in front while a command runs."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

LOGGER = "proctor"
"""The logger every message of proctor goes to (its add-ons': loggers below it)."""

_PREFIX = "proctor_cli_prefix"
"""The record attribute holding what the command line prints before the message."""


def shown_as(kind: str = "") -> dict[str, object]:
    """The ``extra`` of a message the command line prints after ``proctor: `` and, when given,
    ``kind: `` (``warning``, ``note``)."""
    return {_PREFIX: f"proctor: {kind}: " if kind else "proctor: "}


def say(kind: str, text: str) -> None:
    """``text``, a sentence of its own, as a warning on the ``proctor`` logger, which the
    command line prints after ``proctor: kind: `` (see :func:`shown_as`)."""
    logging.getLogger(LOGGER).warning("%s", text, extra=shown_as(kind))


class _CliPrefix(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        prefix = getattr(record, _PREFIX, None)
        if prefix:
            record.msg = prefix + record.getMessage()
            record.args = ()
            setattr(record, _PREFIX, None)  # once, whatever else handles the record
        return True


@contextmanager
def cli_prefixes() -> Iterator[None]:
    """Within the block (a command), the messages on the ``proctor`` logger read as the
    command line prints them: ``proctor: warning: …`` (see :func:`shown_as`)."""
    logger = logging.getLogger(LOGGER)
    prefix = _CliPrefix()
    logger.addFilter(prefix)
    try:
        yield
    finally:
        logger.removeFilter(prefix)


class _Once(logging.Filter):
    def __init__(self, marks: tuple[str, ...]) -> None:
        super().__init__()
        self.marks = marks
        self.seen: set[tuple[int, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if not any(mark in message for mark in self.marks):
            return True  # (a trial's or a run's own: each is said)
        key = (record.levelno, message)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


@contextmanager
def said_once(*marks: str) -> Iterator[None]:
    """Within the block, a message holding one of ``marks`` that the ``proctor`` logger was
    given already is not given again: a command that plans several runs of one source
    (``run --manifest``, a run per pair) says what each plan finds about it once. Any other
    message (a trial's, a run's: the same words may be of another file) is said each time."""
    with _filtered(_Once(marks)):
        yield


class _Never(logging.Filter):
    def __init__(self, marks: tuple[str, ...]) -> None:
        super().__init__()
        self.marks = marks

    def filter(self, record: logging.LogRecord) -> bool:
        return not any(mark in record.getMessage() for mark in self.marks)


@contextmanager
def unsaid(*marks: str) -> Iterator[None]:
    """Within the block, a message holding one of ``marks`` is not given on the ``proctor``
    logger: a resume plans its run again, and what the run said of its source when it started
    (a warning on a case its ``--case`` left out, which no resume runs) is not said again."""
    with _filtered(_Never(marks)):
        yield


@contextmanager
def _filtered(kept: logging.Filter) -> Iterator[None]:
    """The ``proctor`` logger with the filter ``kept`` on it within the block."""
    logger = logging.getLogger(LOGGER)
    logger.addFilter(kept)
    try:
        yield
    finally:
        logger.removeFilter(kept)


Said = tuple[str, int, str, str | None]
"""A message as :func:`said_here` keeps it: its logger's name, level, text and the words the
command line prints before it."""


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.said: list[Said] = []

    def emit(self, record: logging.LogRecord) -> None:
        prefix = getattr(record, _PREFIX, None)
        self.said.append((record.name, record.levelno, record.getMessage(), prefix))


@contextmanager
def said_here() -> Iterator[list[Said]]:
    """Within the block, every message on the ``proctor`` logger (and those below it), kept in
    the list it yields: a process whose stderr no one reads (a Ray worker's) hands them to the
    one that prints them (:func:`say_again`)."""
    logger = logging.getLogger(LOGGER)
    kept = _Kept()
    logger.addHandler(kept)
    try:
        yield kept.said
    finally:
        logger.removeHandler(kept)


def say_again(said: list[Said]) -> None:
    """The messages another process kept (:func:`said_here`), logged here as it logged them:
    the command line prints them with the same words before them (``proctor: warning: …``)."""
    for name, level, text, prefix in said:
        extra = {_PREFIX: prefix} if prefix else None
        logging.getLogger(name).log(level, "%s", text, extra=extra)
