"""SIGTERM (a CI cancel, ``timeout``, a process manager) and SIGHUP (the terminal closed, an
ssh session dropped) stop any command the way Ctrl-C does."""

from __future__ import annotations

import errno
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Interrupted(BaseException):
    """A stop (Ctrl-C, SIGTERM, SIGHUP) that reached the command's invocation, raised in place
    of KeyboardInterrupt so that Click does not catch it: Click prints a blank line first (to
    close a terminal's ``^C`` echo), a stray one after SIGTERM or where stderr is no terminal."""


_signalled: list[int] = []
"""The signals :func:`terminate_as_interrupt` turned into KeyboardInterrupt, in turn."""


def _interrupt(signum: int, frame: object) -> None:
    _signalled.append(signum)
    raise KeyboardInterrupt


def echoed_ctrl_c() -> bool:
    """Whether the last stop may have left the terminal's ``^C`` echo on stderr's line: it was
    Ctrl-C (no SIGTERM or SIGHUP turned into one) and stderr is a terminal."""
    try:
        return not _signalled and sys.stderr.isatty()
    except (OSError, ValueError, AttributeError):
        return False


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise KeyboardInterrupt, as Ctrl-C does: the
    command cleans up (finished trials are kept, the processes it started are stopped) and
    exits 130. A SIGHUP ignored when the block begins (``nohup proctor …``) stays ignored.

    An interrupted run ignores both signals while it stops cleanly, and they stay ignored until
    proctor exits: a second Ctrl-C must not cut the exit short. Otherwise SIGTERM's handler is
    given back when the block ends. Outside the main thread (where no handler can be set) the
    block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _signalled.clear()
    previous = {signal.SIGTERM: signal.signal(signal.SIGTERM, _interrupt)}
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # under nohup it stays ignored
        previous[signal.SIGHUP] = signal.signal(signal.SIGHUP, _interrupt)
    hook = sys.unraisablehook
    sys.unraisablehook = _lost_interrupt
    try:
        yield
    finally:
        sys.unraisablehook = hook
        for number, handler in previous.items():
            if signal.getsignal(number) != signal.SIG_IGN:
                signal.signal(number, handler)


def _lost_interrupt(unraisable: Any) -> None:
    """Ctrl-C or SIGTERM that arrived while Python ran a callback it can only print errors of
    (a weak reference's, a ``__del__``) would be lost, and the command would run on: it is
    sent again, a moment later and from another thread, and nothing is printed."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    sig = signal.SIGTERM if signal.getsignal(signal.SIGTERM) is _interrupt else signal.SIGINT
    while signal.getsignal(sig) is not signal.SIG_IGN:  # ignored: the command is stopping
        try:
            threading.Timer(0.01, os.kill, (os.getpid(), sig)).start()
        except KeyboardInterrupt:
            continue  # another signal landed while the timer's thread started: send again
        return


_GONE = frozenset({errno.EPIPE, errno.EIO})
"""A pipe's reader that left, a terminal that was closed (after SIGHUP its writes fail)."""


def echo_unless_gone(message: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo``, save that a stream that is gone (the terminal closed, the reader of a
    pipe left) stops nothing: what is written to it from here on is dropped, and the command
    ends as it would have (a run stopped by SIGHUP: exit 130, its records written)."""
    import click

    try:
        click.echo(message, err=err, nl=nl)
    except OSError as exc:
        if exc.errno not in _GONE:
            raise
        drop_gone_output(exc)  # both, when they are one pipe (``proctor … 2>&1 | head``)
        drop_output(sys.stderr if err else sys.stdout)


def drop_output(stream: Any) -> None:
    """Send what is written to ``stream`` from here on (and what its buffer holds) nowhere."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError):
        return
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def drop_gone_output(exc: OSError) -> bool:
    """Whether ``exc`` is a write to stdout or stderr whose reader went away (``proctor … |
    head``): each such stream is then sent nowhere (see :func:`drop_output`), so that what is
    still written, and the interpreter's last flush, fail no more. A broken pipe of anything
    else (an agent's stdin, a socket) is not this: False, and nothing is dropped."""
    if exc.errno != errno.EPIPE:
        return False
    gone = [stream for stream in (sys.stdout, sys.stderr) if _reader_gone(stream)]
    for stream in gone:
        drop_output(stream)
    return bool(gone)


def _reader_gone(stream: Any) -> bool:
    """Whether ``stream`` is a pipe or socket no one reads any more (polled: an error or a
    hang-up, at once)."""
    try:
        fd = stream.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        events = poller.poll(0)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's capture)
        return False
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in events)
