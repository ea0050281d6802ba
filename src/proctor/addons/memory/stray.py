"""A line of a memory server's stdout that is not JSON-RPC: the MCP SDK logs a traceback for
each; proctor says it in one sentence instead."""

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


class StrayStdout(logging.Handler):
    """The MCP SDK logs a traceback for each stdout line of the server that is not JSON-RPC;
    said here in one sentence instead: once on stderr, and in the server's log (whose tail a
    failure quotes). Until the server has answered, the note is held: a failure to start that
    quotes it (the server exited, its log ending with it) says it, and the note is not said
    above it as well."""

    def __init__(self, log: TextIO, noted: set[str]) -> None:
        super().__init__(logging.ERROR)
        self.log = log
        self.said = False
        self.noted = noted
        self.held: str | None = None
        """The note not yet said on stderr."""
        self.holding = True

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        line: Any = None
        with contextlib.suppress(Exception):  # a pydantic ValidationError names the line
            line = error.errors()[0].get("input")  # type: ignore[union-attr]
        shown = f" ({masked_head(str(line), 80)!r})" if line is not None else ""
        sentence = (
            f"the memory server wrote a line to stdout that is not JSON-RPC{shown}; stdout "
            "carries the protocol, a server logs to stderr"
        )
        if self.said:
            return
        self.said = True
        with contextlib.suppress(OSError, ValueError):
            self.log.write(f"{OWN_NOTE}{sentence}\n")
            self.log.flush()
        self.held = sentence
        if not self.holding:
            self.say_held()

    def say_held(self, failure: str = "") -> None:
        """Say the held note on stderr, unless ``failure`` (what stopped the server's start)
        says it already, or another process of the same server did."""
        self.holding = False
        sentence, self.held = self.held, None
        if sentence is None or sentence in failure or "stray-stdout" in self.noted:
            return
        self.noted.add("stray-stdout")
        print(f"proctor: note: {sentence}", file=sys.stderr)


def _told(exc: BaseException) -> str:
    """What an error says, each of a group's (the stdio client's task group wraps the error
    that ends the server's start)."""
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_told(e) for e in exc.exceptions)
    return str(exc)


@contextmanager
def stray_stdout_said(log: TextIO, noted: set[str]) -> Iterator[StrayStdout]:
    """The server's stray stdout lines said by a :class:`StrayStdout` (held until its
    :meth:`~StrayStdout.say_held`, or the end of this block: with the error that ends it)."""
    logger = logging.getLogger("mcp.client.stdio")
    handler = StrayStdout(log, noted)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield handler
    except BaseException as exc:
        handler.say_held(_told(exc))
        raise
    finally:
        handler.say_held()
        logger.removeHandler(handler)
        logger.propagate = propagate
