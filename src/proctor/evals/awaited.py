"""What ``t.send(...)`` and the judges return: a coroutine that remembers where the test made
it, so one the test forgot to await is an error naming that line of the eval file (the turn it
meant to send never ran, and the gates after it would read a conversation without it), and
one used as its result (``turn = t.send(...)``, then ``turn.called_tool``) says so."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import traceback
import weakref
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


def caller_line() -> traceback.FrameSummary | None:
    """The innermost frame of an eval file (``*.eval.py``) on the stack, else None."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.endswith(".eval.py"):
            return traceback.FrameSummary(
                frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
            )
        frame = frame.f_back  # type: ignore[assignment]
    return None


class NotAwaited(RuntimeError):
    """A ``t.send`` or judge the test made and never awaited, or one still running (a task
    the test started and left) when the test returned."""

    def __init__(self, call: Tracked[Any]) -> None:
        if call.awaited:
            why = (
                f"{call.what} was still running when the test returned, so no gate saw what "
                f"it did; await it before the test ends"
            )
        else:
            why = f"{call.what} was never awaited, so it never ran; write: await {call.what}"
        super().__init__(why)
        self.where = call.where


class Tracked(Coroutine[Any, Any, T]):
    """A coroutine that knows the call that made it (``t.send('hi')``) and its line."""

    def __init__(
        self,
        coro: Coroutine[Any, Any, T],
        what: str,
        made: list[Tracked[Any]],
        where: traceback.FrameSummary | None = None,
    ):
        self._coro = coro
        self.what = what
        self.where = where or caller_line()
        self.awaited = False
        self.finished = False
        made.append(self)

    def __await__(self) -> Generator[Any, None, T]:
        self.awaited = True
        try:
            return (yield from self._coro.__await__())
        finally:
            self.finished = True

    def send(self, value: Any) -> Any:
        self.awaited = True
        try:
            return self._coro.send(value)
        except BaseException:  # StopIteration (its result) or its error: it is done
            self.finished = True
            raise

    def throw(self, *args: Any) -> Any:
        self.awaited = True
        try:
            return self._coro.throw(*args)
        except BaseException:
            self.finished = True
            raise

    def close(self) -> None:
        self._coro.close()

    def __getattr__(self, name: str) -> Any:
        # Only what a coroutine does not have: the test used the call as its result.
        at = f" (line {self.where.lineno})" if self.where is not None else ""
        raise AttributeError(
            f"{self.what}{at} was not awaited: it gives an awaitable, not its result, so it has "
            f"no '{name}'; write: await {self.what}"
        )

    def __repr__(self) -> str:
        return f"<{self.what}, {'awaited' if self.awaited else 'not awaited'}>"


def unawaited(made: list[Tracked[Any]]) -> Tracked[Any] | None:
    """The first of ``made`` never awaited (each such one is closed, so Python does not warn
    of it again on stderr), else the first still running (a task the test left), or None."""
    left = [c for c in made if not c.awaited]
    for call in left:
        call.close()
    running = [c for c in made if c.awaited and not c.finished]
    return left[0] if left else running[0] if running else None


class LeftRunning(RuntimeError):
    """A task the test started (``asyncio.create_task``) and left running when it returned:
    the loop cancels it as it closes, so the gates after the line it waited at never ran."""

    def __init__(
        self, task: asyncio.Task[Any], started: traceback.FrameSummary | None = None
    ) -> None:
        coro = task.get_coro()
        name = getattr(coro, "__qualname__", None) or task.get_name()
        frames = task.get_stack()
        self.where: traceback.FrameSummary | None = None
        waiting = begun = ""
        if frames and frames[-1].f_code.co_filename.endswith(".eval.py"):
            frame = frames[-1]
            self.where = traceback.FrameSummary(
                frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
            )
            waiting = f" at line {frame.f_lineno}"
        elif started is not None:  # waiting in asyncio's code (a sleep): the line it started
            self.where = started
            begun = f" at line {started.lineno}"
        super().__init__(
            f"the task {name}() the test started{begun} was still running{waiting} when the test "
            "returned, so it was cancelled and no gate after that line ever ran; await the "
            "task (or cancel it) before the test returns"
        )


_ASYNCIO = os.path.dirname(asyncio.__file__) + os.sep


def _started_by_test(coro: object) -> tuple[bool, traceback.FrameSummary | None]:
    """Whether the task of ``coro`` is the test's own, and the line of the eval file that
    asked for it, when one did: its coroutine is defined in an eval file, or the code that
    asked for the task (the first frame outside asyncio, which ``gather``, ``ensure_future``
    and a ``TaskGroup`` pass through) is in one."""
    code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
    own = code is not None and code.co_filename.endswith(".eval.py")
    frame = sys._getframe(2)  # (past the task factory)
    while frame is not None and frame.f_code.co_filename.startswith(_ASYNCIO):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is not None and frame.f_code.co_filename.endswith(".eval.py"):
        code = frame.f_code
        return True, traceback.FrameSummary(code.co_filename, frame.f_lineno, code.co_name)
    return own, None


Started = weakref.WeakKeyDictionary[asyncio.Future[Any], traceback.FrameSummary | None]


def tasks_of_the_test() -> Started:
    """The tasks of the running loop the test's own code starts from now on (see
    :func:`_started_by_test`), each with the line that started it: a library's task it calls
    starts (a client's keep-alive) is not one, and is the library's to end (the loop cancels
    it as it closes)."""
    loop = asyncio.get_running_loop()
    own: Started = weakref.WeakKeyDictionary()
    before = loop.get_task_factory()

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        task = before(loop, coro, **kwargs) if before else asyncio.Task(coro, loop=loop, **kwargs)
        ours, line = _started_by_test(coro)
        if ours:
            own[task] = line
        return task

    loop.set_task_factory(factory)
    return own


def quiet_cancelled_futures() -> None:
    """Keep asyncio from logging, with a traceback on stderr, the cancellation of a future
    the test left (an ``asyncio.gather``'s, cancelled with its tasks as the loop closes) as
    an "exception never retrieved": the case's error has said the test left it."""
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), asyncio.CancelledError) and isinstance(
            context.get("future"), asyncio.Future
        ):
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def left_running(own: Started) -> asyncio.Task[Any] | None:
    """A task the test started (of ``own``, see :func:`tasks_of_the_test`), other than the
    current one, that is neither done nor being cancelled: one the test left."""
    here = asyncio.current_task()
    for task in asyncio.all_tasks():
        if task is not here and task in own and not task.done() and not task.cancelling():
            return task
    return None


def left_thread() -> threading.Thread | None:
    """A thread running a function of an eval file, still alive: one the test started and
    left running (a gate it records would come after the case's verdict). A daemon one too:
    a thread the test starts is a daemon as the test's own thread is."""
    for thread in threading.enumerate():
        run = getattr(thread, "_target", None) or type(thread).run
        code = getattr(run, "__code__", None)
        if thread.is_alive() and code is not None and code.co_filename.endswith(".eval.py"):
            return thread
    return None


class ThreadLeftRunning(RuntimeError):
    """A thread the test started was still running when it returned."""

    def __init__(self, thread: threading.Thread) -> None:
        frame = sys._current_frames().get(thread.ident or 0)
        own = [f for f in traceback.extract_stack(frame) if f.filename.endswith(".eval.py")]
        self.where: traceback.FrameSummary | None = own[-1] if own else None
        at = f" at line {own[-1].lineno}" if own else ""
        super().__init__(
            f"the thread {thread.name!r} the test started was still running{at} when the test "
            "returned, so a gate it records could not decide the case; join it (or stop it) "
            "before the test returns"
        )
