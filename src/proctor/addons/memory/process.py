"""How a memory server started by command ended: the MCP SDK's stdio client keeps the process
it starts to itself, so the one it starts for :func:`~proctor.addons.memory.client.open_session`
is kept here too, and its exit status (or the signal that killed it) said of a crash."""

from __future__ import annotations

import signal
from contextvars import ContextVar
from typing import Any

import anyio
import mcp.client.stdio as _sdk_stdio

SPAWNING: ContextVar[list[Any] | None] = ContextVar("proctor_memory_spawning", default=None)
"""Where the MCP SDK's stdio client, started by
:func:`~proctor.addons.memory.client.open_session`, leaves the process it
starts (it keeps it to itself): its exit status is part of what a crash says."""


def _keep_spawned() -> None:
    """Have the MCP SDK's stdio client hand the process it starts to :data:`SPAWNING`; a
    version of the SDK that spawns otherwise leaves the exit status unsaid, nothing more."""
    spawn = getattr(_sdk_stdio, "_create_platform_compatible_process", None)
    if spawn is None or getattr(spawn, "proctor_keeps", False):
        return

    async def kept(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        if (spawned := SPAWNING.get()) is not None:
            spawned.append(process)
        return process

    kept.proctor_keeps = True  # type: ignore[attr-defined]
    _sdk_stdio._create_platform_compatible_process = kept


_keep_spawned()


async def exit_said(spawned: list[Any], wait: float = 2.0) -> str:
    """How the last process in ``spawned`` ended, read as its stdout closes (before anything
    stops it), as the start of a sentence's verb phrase: ``exited with status 3 ``, ``was
    killed by signal 9 (SIGKILL) ``; ``closed its stdout `` when it is still running after
    ``wait`` seconds; ``exited `` when there is no process (a URL)."""
    process = spawned[-1] if spawned else None
    if process is None:
        return "exited "
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
