"""A line of a memory server's stdout that is not JSON-RPC: the MCP SDK logs a traceback for
each; proctor says it in one sentence instead, once a run."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from proctor.util.cutting import masked_head

OWN_NOTE = "proctor: "
"""How a line proctor writes into a server's stderr log begins (see :class:`StrayStdout`)."""

STRAY = "the memory server wrote a line to stdout that is not JSON-RPC"
"""How the sentence of a stray stdout line begins, whichever line it quotes."""


class StrayNote:
    """The note on stderr of a run's stray stdout lines: the first one's sentence, held until
    the run ends (however many server processes it starts), then said once, unless the error
    that ended the run says a stray line already (the last thing in a crashed server's log,
    quoted at the end of its error)."""

    def __init__(self) -> None:
        self.sentence: str | None = None
        """The sentence held, not yet said."""

    def hold(self, sentence: str) -> None:
        if self.sentence is None:
            self.sentence = sentence

    def say(self, failure: str = "") -> None:
        """Say the held sentence on stderr, unless ``failure`` (what ended the run) says it."""
        sentence, self.sentence = self.sentence, None
        if sentence is None or STRAY in failure:
            return
        print(f"proctor: note: {sentence}", file=sys.stderr)


class StrayStdout(logging.Handler):
    """The MCP SDK logs a traceback for each stdout line of the server that is not JSON-RPC;
    said here in one sentence instead: once in the server's log (whose tail a failure quotes)
    and held in the run's :class:`StrayNote`."""

    def __init__(self, log: TextIO, note: StrayNote) -> None:
        super().__init__(logging.ERROR)
        self.log = log
        self.said = False
        self.note = note

    def emit(self, record: logging.LogRecord) -> None:
        if self.said:
            return
        self.said = True
        error = record.exc_info[1] if record.exc_info else None
        line: Any = None
        with contextlib.suppress(Exception):  # a pydantic ValidationError names the line
            line = error.errors()[0].get("input")  # type: ignore[union-attr]
        shown = f" ({masked_head(str(line), 80)!r})" if line is not None else ""
        sentence = f"{STRAY}{shown}; stdout carries the protocol, a server logs to stderr"
        with contextlib.suppress(OSError, ValueError):
            self.log.write(f"{OWN_NOTE}{sentence}\n")
            self.log.flush()
        self.note.hold(sentence)


def _told(exc: BaseException) -> str:
    """What an error says, each of a group's (the stdio client's task group wraps the error
    that ends the server's start)."""
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_told(e) for e in exc.exceptions)
    return str(exc)


@contextmanager
def stray_stdout_said(log: TextIO, note: StrayNote | None = None) -> Iterator[StrayStdout]:
    """The server's stray stdout lines said by a :class:`StrayStdout` into ``note`` (the
    run's); without one, into a note of this block's own, said as it ends (unless the error
    that ends it says it)."""
    logger = logging.getLogger("mcp.client.stdio")
    own = note is None
    handler = StrayStdout(log, StrayNote() if note is None else note)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    failure = ""
    try:
        yield handler
    except BaseException as exc:
        failure = _told(exc)
        raise
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
        if own:
            handler.note.say(failure)
