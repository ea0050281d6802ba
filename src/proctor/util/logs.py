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
