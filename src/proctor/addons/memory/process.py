"""How a memory server started by command ended: the MCP SDK's stdio client keeps the process
it starts to itself, so the one it starts for :func:`~proctor.addons.memory.client.open_session`
is kept here too, and its exit status (or the signal that killed it) said of a crash.

The SDK has no public way to it: ``stdio_client`` yields the two message streams only, its
process a local variable. So its private ``_create_platform_compatible_process`` is wrapped;
an SDK that spawns otherwise (the function renamed, gone, or not called) hands proctor no
process, and a crash says so (:data:`UNKNOWN_EXIT`) rather than guess how the server ended.
"""

from __future__ import annotations

import functools
import signal
from contextvars import ContextVar
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import anyio
import mcp.client.stdio as _sdk_stdio

SPAWNING: ContextVar[list[Any] | None] = ContextVar("proctor_memory_spawning", default=None)
"""Where the MCP SDK's stdio client, started by
:func:`~proctor.addons.memory.client.open_session`, leaves the process it
starts (it keeps it to itself): its exit status is part of what a crash says."""

SPAWN = "_create_platform_compatible_process"
"""The MCP SDK's private function (in ``mcp.client.stdio``) that starts a stdio server."""


def keep_spawned() -> bool:
    """Have the MCP SDK's stdio client hand the process it starts to :data:`SPAWNING`
    (again: a no-op); False when its module has no :data:`SPAWN` to wrap."""
    spawn = getattr(_sdk_stdio, SPAWN, None)
    if spawn is None:
        return False
    if getattr(spawn, "proctor_keeps", False):
        return True

    @functools.wraps(spawn)
    async def kept(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        if (spawned := SPAWNING.get()) is not None:
            spawned.append(process)
        return process

    kept.proctor_keeps = True  # type: ignore[attr-defined]
    setattr(_sdk_stdio, SPAWN, kept)
    return True


keep_spawned()


def _sdk_version() -> str:
    try:
        return f"mcp {version('mcp')}"
    except PackageNotFoundError:
        return "the MCP SDK"


UNKNOWN_EXIT = (
    "closed its stdout (its exit status unknown: {sdk} did not hand proctor its process) "
)
"""What :func:`exit_said` says of a server started by command whose process the SDK did not
hand over (see the module's docstring): its stdout closing is all that is known."""


async def exit_said(spawned: list[Any] | None, wait: float = 2.0) -> str:
    """How the last process in ``spawned`` ended, read as its stdout closes (before anything
    stops it), as the start of a sentence's verb phrase: ``exited with status 3 ``, ``was
    killed by signal 9 (SIGKILL) ``; ``closed its stdout `` when it is still running after
    ``wait`` seconds; :data:`UNKNOWN_EXIT` when the SDK handed over no process (``spawned``
    empty or None). A server at a URL has no process: its connection closing is said by
    :func:`~proctor.addons.memory.client.connection_closed` instead."""
    if not spawned:
        return UNKNOWN_EXIT.format(sdk=_sdk_version())
    process = spawned[-1]
    code = process.returncode
    with anyio.move_on_after(wait):
        while code is None:
            await anyio.sleep(0.02)
            code = process.returncode
    return "closed its stdout " if code is None else ended_said(code)


def ended_said(code: int) -> str:
    """See :func:`exit_said`: for an exit status (a negative one: the signal)."""
    if code < 0:
        try:
            name = f" ({signal.Signals(-code).name})"
        except ValueError:
            name = ""
        return f"was killed by signal {-code}{name} "
    return f"exited with status {code} "
