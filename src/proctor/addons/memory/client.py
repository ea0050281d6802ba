"""Talking to a memory server through the official MCP Python client.

A server is a URL (streamable HTTP, with the ``--header`` headers on every request) or a
command line (stdio, started with a scratch working folder and home, its stderr kept in a
log). Every call has a timeout; a tool that answers with an error, a result the adapter cannot
read, a server that cannot start or that stops answering is a :class:`MemoryServerError`
(exit 3). What a server wrote to its stderr is read in
:mod:`.server_stderr`; the note ids of its search results in :mod:`.search_results`.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, PaginatedRequestParams, TextContent
from pydantic import ValidationError

from proctor.addons.memory.process import SPAWNING, exit_said
from proctor.addons.memory.server_stderr import STDERR_TAIL_CHARS, _unboxed, server_log_tail
from proctor.addons.memory.stray import StrayNote, stray_stdout_said
from proctor.errors import ProctorError
from proctor.util.cutting import masked_head


class MemoryServerError(ProctorError):
    """The memory server could not be started, or a tool call failed (exit 3)."""

    stderr_tail: str = ""
    """The end of what a server started by command wrote to its stderr (at most
    :data:`STDERR_TAIL_CHARS`, from a line's start, masked); "" when it wrote nothing."""
    tool_error: str = ""
    """The whole text of a tool's error of more than one line (masked, at most
    :data:`STDERR_TAIL_CHARS`), whose first meaningful line the sentence quotes; else ""."""


@dataclass(frozen=True)
class ServerTarget:
    """Either ``url`` or ``argv``: where the memory server is."""

    url: str | None = None
    argv: tuple[str, ...] = ()
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    """The HTTP headers sent on every request to a server at a URL (``--header``): each name
    and value, the values secrets (registered for masking, never in the repr)."""

    @property
    def is_url(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        return self.url if self.url is not None else " ".join(self.argv)


@dataclass
class MemorySession:
    """One open MCP session; :meth:`call` raises MemoryServerError instead of returning errors."""

    session: ClientSession
    timeout: float
    log: Path | None
    spawned: list[Any] | None = None
    """The server's process, when it was started by command (see :func:`exit_said`); None
    for a server at a URL."""
    url: str | None = None
    """The server's URL, for a server at a URL (not masked: the sentences that show it are)."""
    http: HttpFailure | None = None
    """What the MCP SDK's HTTP client logged as its connection to a server at a URL failed."""

    async def call(
        self, tool: str, arguments: dict[str, Any], what: str, field: str = ""
    ) -> CallToolResult:
        """Call ``tool`` (named by the adapter's ``field``, ``search.tool`` say)."""
        try:
            with anyio.fail_after(self.timeout):
                result = await self.session.call_tool(tool, arguments)
        except TimeoutError as exc:
            raise MemoryServerError(
                f"tool '{tool}' did not answer within {self.timeout:g}s ({what}){self._tail()}"
            ) from exc
        except Exception as exc:
            if str(exc) == CLOSED and self.url is not None:  # no process: its connection
                raise MemoryServerError(
                    connection_closed(self.url, f"during tool '{tool}' ({what})", self.http)
                ) from exc
            if str(exc) == CLOSED:  # the server process ended (crashed) under the call
                status = await exit_said(self.spawned)
                raise MemoryServerError(
                    f"the memory server {status}during tool '{tool}' ({what}){self._tail()}"
                ) from exc
            detail = malformed(exc) if isinstance(exc, ValidationError) else str(exc)
            raise MemoryServerError(
                f"tool '{tool}' failed ({what}): {detail}{self._tail()}"
            ) from exc
        if result.is_error:
            names = await self._tool_names()
            if names is not None and tool not in names:  # "Unknown tool", however it is said
                raise MemoryServerError(
                    f"the memory server has no tool '{tool}' (adapter field '{field}'); its "
                    f"tools: {_listed(names)}{_near(tool, names)}"
                )
            text = _text(result).strip()
            line = first_meaningful_line(text)
            more = line != text
            error = MemoryServerError(
                f"tool '{tool}' returned an error ({what}): {masked_head(line, 300)}"
                + (" (the whole error follows)" if more else "")
            )
            if more:
                error.tool_error = masked_head(text, STDERR_TAIL_CHARS)
            raise error
        return result

    async def _tool_names(self) -> list[str] | None:
        """The names of the tools the server lists; None when it cannot list them (not a
        server that keeps to the protocol there: its call's own error is all there is)."""
        names: list[str] = []
        cursor: str | None = None
        try:
            with anyio.fail_after(self.timeout):
                for _ in range(100):  # pages; a server that pages forever is not believed
                    listed = await self.session.list_tools(
                        params=PaginatedRequestParams(cursor=cursor)
                    )
                    names += [tool.name for tool in listed.tools]
                    if not (cursor := listed.next_cursor):
                        return names
        except Exception:
            return None
        return None

    def _tail(self) -> str:
        return server_log_tail(self.log)


def _near(name: str, names: list[str]) -> str:
    close = difflib.get_close_matches(name, names, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _listed(names: list[str]) -> str:
    """The server's tool names, 20 at most, as a sentence shows them."""
    if not names:
        return "none"
    shown = ", ".join(masked_head(n, 60) for n in names[:20])
    return shown + (f" and {len(names) - 20} more" if len(names) > 20 else "")


_PYDANTIC_HEAD = re.compile(r"\d+ validation errors? for \S+$")
"""The head of pydantic's report of a tool's arguments, which an MCP SDK server returns as
the tool's error: the field and what is wrong with it follow on lines of their own."""

_PYDANTIC_TYPE = re.compile(r"\s*\[type=.*$")
"""The end of pydantic's line saying what is wrong (``[type=missing, input_value=…]``)."""


def first_meaningful_line(text: str) -> str:
    """The first line of a tool's error that says something (blank lines and a frame's edges
    left out); for pydantic's report of the tool's arguments, its head with the first field
    and what is wrong with it (``… for rememberArguments: text: Field required``), rather
    than the head alone. The text itself when it is one line."""
    lines = [line for raw in text.splitlines() if (line := _unboxed(raw))]
    if len(lines) <= 1:
        return lines[0] if lines else text
    head = lines[0]
    if _PYDANTIC_HEAD.search(head) and len(lines) >= 3:
        return f"{head}: {lines[1]}: {_PYDANTIC_TYPE.sub('', lines[2])}"
    return head


def malformed(exc: ValidationError) -> str:
    """One sentence for a reply the MCP client could not read as the protocol's message (a
    ``CallToolResult`` without ``content``, an ``InitializeResult`` without ``serverInfo``):
    the first field at fault, rather than pydantic's lines and links."""
    problems = exc.errors()
    first = problems[0] if problems else None
    if first is None:
        return f"its reply is not a valid MCP {exc.title}"
    field = ".".join(str(part) for part in first["loc"]) or "(the whole reply)"
    more = len(problems) - 1
    rest = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return (
        f"its reply is not a valid MCP {exc.title}: field '{field}': "
        f"{first['msg'][:1].lower()}{first['msg'][1:]}{rest}"
    )


CLOSED = "Connection closed"
"""What the MCP client says of a stdio server whose process has ended, or of a server at a URL
whose connection its HTTP client closed (a request it sent failed: see :class:`HttpFailure`)."""


class HttpFailure(logging.Filter):
    """The MCP SDK's HTTP client, when a message it sends fails (the server disconnected
    without an answer, say), logs the error with its traceback and closes the session's
    connection: every request still waiting then fails with :data:`CLOSED` alone. The error
    is kept here, said at the end of the sentence of the closing; its traceback (one on
    stderr above that sentence) is left out. The client's other records pass."""

    def __init__(self) -> None:
        super().__init__()
        self.cause = ""
        """The last such error's words, or its type's name when it has none; "" before one."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None or record.levelno < logging.ERROR:
            return True
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        self.cause = str(error).strip().rstrip(".") or type(error).__name__
        return False


HTTP_LOGGER = "mcp.client.streamable_http"
"""The logger of the MCP SDK's streamable HTTP client (its module's name)."""


@contextmanager
def http_failure_kept() -> Iterator[HttpFailure]:
    """An :class:`HttpFailure` on the SDK's HTTP client's logger, for the block."""
    logger = logging.getLogger(HTTP_LOGGER)
    kept = HttpFailure()
    logger.addFilter(kept)
    try:
        yield kept
    finally:
        logger.removeFilter(kept)


def connection_closed(url: str, when: str, http: HttpFailure | None = None) -> str:
    """The sentence of a server at ``url`` whose connection closed ``when`` (``before it
    answered``, ``during tool 'remember' (seeding note n1)``): a server at a URL is no process
    proctor started, so it has no exit status; what the HTTP client said ends it, when it
    said something."""
    cause = http.cause if http is not None else ""
    said = f"; the HTTP client: {cause}" if cause else ""
    return f"the connection to the memory server at {url} closed {when}{said}"


@asynccontextmanager
async def open_session(
    target: ServerTarget,
    *,
    env: dict[str, str],
    cwd: Path,
    log: Path,
    timeout: float,
    note: StrayNote | None = None,
) -> AsyncIterator[MemorySession]:
    """Start (or connect to) the server, initialise the session, close everything on exit.
    ``note``: the run's note of stray stdout lines, shared by its sessions and said once as
    the run ends (one server process per project says it once, not once each); without
    one, the session's own, said as it closes."""
    # the process started by command: how it ended is said of a crash (None: a URL)
    spawned: list[Any] | None = None if target.url is not None else []
    http: HttpFailure | None = None
    refusal = Refusal()
    async with AsyncExitStack() as stack:
        if target.url is not None:
            http = stack.enter_context(http_failure_kept())
            # The headers go on every request of the session (its POSTs, its GET stream, its
            # closing DELETE); the timeouts are the SDK's own client's.
            client = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=dict(target.headers),
                    timeout=httpx2.Timeout(30.0, read=300.0),
                    event_hooks={"response": [refusal.keep]},
                )
            )
            read, write = await stack.enter_async_context(
                streamable_http_client(target.url, http_client=client)
            )
            errlog: Path | None = None
        else:
            params = StdioServerParameters(
                command=target.argv[0], args=list(target.argv[1:]), env=env, cwd=cwd
            )
            handle = stack.enter_context(log.open("a", encoding="utf-8"))
            stack.enter_context(stray_stdout_said(handle, note))
            token = SPAWNING.set(spawned)
            try:
                read, write = await stack.enter_async_context(stdio_client(params, errlog=handle))
            finally:
                SPAWNING.reset(token)
            errlog = log
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=timeout)
        )
        try:
            with anyio.fail_after(timeout):
                await session.initialize()
        except TimeoutError as exc:
            raise MemoryServerError(
                f"the memory server did not answer within {timeout:g}s of being started "
                f"({target.describe()}); raise --timeout if it is slow to start"
                f"{server_log_tail(errlog)}"
            ) from exc
        except Exception as exc:
            if target.url is not None and str(exc) == CLOSED:  # no process: its connection
                raise MemoryServerError(
                    connection_closed(target.url, "before it answered", http)
                ) from exc
            if target.url is None and str(exc) == CLOSED:  # it ended (or closed its stdout)
                said = server_log_tail(errlog) or "; it wrote nothing to stderr"
                raise MemoryServerError(
                    f"the memory server {await exit_said(spawned)}before it answered{said}"
                ) from exc
            if target.url is None or not isinstance(exc, MCPError):
                raise
            if refusal.status:
                raise MemoryServerError(refused(target, refusal.status)) from exc
            # The SDK's words for an HTTP error status ("Not Found", "Server returned an
            # error response"): the URL answers, but is not an MCP endpoint.
            raise MemoryServerError(
                f"the memory server at {target.url} answered but started no MCP session "
                f"({exc.error.message}); is the URL its streamable HTTP endpoint (often "
                "http://HOST:PORT/mcp)?"
            ) from exc
        yield MemorySession(session, timeout, errlog, spawned, target.url, http)


class Refusal:
    """The HTTP client's response hook: the status of the first response that refused a
    credential (401, 403), whose status the MCP SDK's error leaves out ("Server returned an
    error response")."""

    def __init__(self) -> None:
        self.status = ""
        """``401 Unauthorized``, say; "" before one."""

    async def keep(self, response: Any) -> None:
        if response.status_code in (401, 403) and not self.status:
            self.status = f"{response.status_code} {response.reason_phrase}".strip()


def refused(target: ServerTarget, status: str) -> str:
    """The sentence of a server at a URL that refused the session for want of a credential:
    what to send, or which headers were sent (their names: the values are secrets)."""
    if not target.headers:
        return (
            f"the memory server at {target.url} refused the session ({status}): it asks for a "
            "credential; send one with --header (e.g. --header 'Authorization: Bearer ${TOKEN}')"
        )
    names = ", ".join(name for name, _ in target.headers)
    return (
        f"the memory server at {target.url} refused the session ({status}) with the headers "
        f"given ({names}): is the credential right, and the header the one it reads?"
    )


def _text(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))
