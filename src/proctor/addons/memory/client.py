"""Talking to a memory server through the official MCP Python client.

A server is a URL (streamable HTTP) or a command line (stdio, started with a scratch working
folder and home, its stderr kept in a log). Every call has a timeout; a tool that answers with
an error, a result the adapter cannot read, a server that cannot start or that stops answering
is a :class:`MemoryServerError` (exit 3).
"""

from __future__ import annotations

import difflib
import json
import logging
import re
from collections.abc import AsyncIterator, Collection, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, PaginatedRequestParams, TextContent
from pydantic import ValidationError

from proctor.addons.memory.adapter import ResultMapping, follow
from proctor.addons.memory.process import SPAWNING, exit_said
from proctor.addons.memory.stray import OWN_NOTE, StrayNote, stray_stdout_said
from proctor.errors import ProctorError
from proctor.util.cutting import masked_head
from proctor.util.masking import MASK, alone, mask, registered_secrets, stands_alone


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


def server_log_tail(log: Path | None) -> str:
    """The last line the server wrote to its stderr (for a crash, the exception itself rather
    than its traceback), cut and masked, as the end of a sentence; "" when it wrote none. The
    text is masked before its last line is taken: a key its logger wrapped over two lines is
    no longer whole in either."""
    lines = _masked_stderr(log, STDERR_TAIL_CHARS).splitlines()
    last = next((text for line in reversed(lines) if (text := _unboxed(line))), "")
    if _NODE_VERSION.fullmatch(last):  # Node.js ends an uncaught error so: say the error
        error = next((line for line in reversed(lines) if _NODE_ERROR.match(line)), None)
        if error is not None:
            return f"; the error on its stderr: {masked_head(error, 300)}"
    if last.startswith(OWN_NOTE):  # proctor's own sentence in the log, not the server's
        return f"; {masked_head(last.removeprefix(OWN_NOTE), 300)}"
    return f"; the last line of its stderr: {masked_head(last, 300)}" if last else ""


_NODE_VERSION = re.compile(r"Node\.js v\d+(?:\.\d+)*")
"""The line Node.js writes last for an uncaught error, under the error and its stack."""
_NODE_ERROR = re.compile(r"[A-Za-z_$][\w$.]*(?: \[\w+\])?: \S")
"""An error's line in Node.js's report (``Error: Cannot find module 'x'``, ``TypeError
[ERR_X]: …``), at a line's start, unlike its stack and properties (indented)."""


_BOX = re.compile(r"^[\s\u2500-\u257f]+|[\s\u2500-\u257f]+$")
"""Box-drawing characters and blanks at either end of a line: the frames ``rich`` (the MCP
SDK's logger) draws around a traceback, nested ones included."""


def _unboxed(line: str) -> str:
    """``line`` without the frame a boxed traceback draws around it ("" for a line that is
    nothing but frame): such a traceback ends with the exception inside its frames."""
    return _BOX.sub("", line)


STDERR_TAIL_CHARS = 4096
"""How much of the end of a failed server's stderr is shown (the scratch folder holding all
of it is removed)."""


def server_stderr_tail(log: Path | None, limit: int = STDERR_TAIL_CHARS) -> str:
    """The last ``limit`` characters of the server's stderr, masked whole before the cut (a key
    its logger wrapped over two lines too), from a line's start (but for a last line longer
    than ``limit``, whose end is all it shows); "" when it wrote nothing or left no log."""
    lines = _frames_left_out(_masked_stderr(log, limit).split("\n"))
    masked = "\n".join(line for line in lines if not line.startswith(OWN_NOTE))  # the server's
    tail = masked[-limit:]
    if len(tail) < len(masked) and "\n" in tail:
        tail = tail.partition("\n")[2]
    return tail.strip("\n")


def _frames_left_out(lines: list[str]) -> list[str]:
    """``lines`` with the frames of each traceback ``rich`` (the MCP SDK's logger) drew in a box
    left out, one line saying how many: the innermost box titled "Traceback" holds source
    excerpts of the SDK, many lines wide, that would push what failed (an output's
    ``ValidationError``, printed above the box of the exception it caused) out of the tail.
    The exception itself, after the box or in an outer one, stays."""
    spans: list[tuple[int, int]] = []
    opened: list[tuple[int, int, bool]] = []  # (line, column, holds another box)
    for n, line in enumerate(lines):
        if (col := line.find("\u256d")) >= 0:  # ╭
            if opened:
                opened[-1] = (*opened[-1][:2], True)
            opened.append((n, col, False))
        elif (col := line.find("\u2570")) >= 0 and opened and opened[-1][1] == col:  # ╰
            start, _, nested = opened.pop()
            if not nested and "Traceback" in lines[start] and n - start > 1:
                spans.append((start, n))
    for start, end in reversed(spans):
        indent = lines[start][: lines[start].find("\u256d")]
        note = f"{indent}\u2502 \u2026 {end - start - 1} lines of the traceback's frames left out"
        lines[start + 1 : end] = [note]
    return lines


def _masked_stderr(log: Path | None, limit: int) -> str:
    """The end of the server's stderr (``16 * limit`` characters at most, from a line's
    start), every registered key masked, one a logger wrapped over two lines too; "" when
    there is no log."""
    if log is None:
        return ""
    try:
        with log.open("rb") as fh:
            size = fh.seek(0, 2)
            start = max(size - 16 * limit, 0)  # ample for masking, bounded however large
            fh.seek(start)
            data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if start:  # the first line read may be cut: begin at the next one
        text = text.partition("\n")[2]
    return _wrapped_masked(mask(text.rstrip()))


_WRAP = r"(?:[ \t]*\r?\n[ \t]*)?"
"""What a logger that wraps its lines into columns (``rich``'s, the MCP SDK's) may put
between two characters of a key: blanks, a line break, the next line's indent."""


def _wrapped_masked(text: str) -> str:
    """``text`` with every registered key that a line break splits masked; the mask keeps
    the line breaks, so the lines stay lines."""
    for secret in sorted(registered_secrets(), key=len, reverse=True):
        pattern = _WRAP.join(re.escape(c) for c in secret)
        pattern = alone(pattern) if stands_alone(secret) else pattern
        text = re.sub(pattern, lambda m: MASK + "\n" * m.group().count("\n"), text)
    return text


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
    async with AsyncExitStack() as stack:
        if target.url is not None:
            http = stack.enter_context(http_failure_kept())
            read, write = await stack.enter_async_context(streamable_http_client(target.url))
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
            # The SDK's words for an HTTP error status ("Not Found", "Server returned an
            # error response"): the URL answers, but is not an MCP endpoint.
            raise MemoryServerError(
                f"the memory server at {target.url} answered but started no MCP session "
                f"({exc.error.message}); is the URL its streamable HTTP endpoint (often "
                "http://HOST:PORT/mcp)?"
            ) from exc
        yield MemorySession(session, timeout, errlog, spawned, target.url, http)


def result_ids(
    result: CallToolResult, mapping: ResultMapping, what: str, known: Collection[str] = ()
) -> list[str]:
    """The note ids of a search result, in the server's order, as the adapter maps them.

    ``known`` is the dataset's note ids: a text block that is exactly one of them is that id
    when each item is the id itself, though it reads as another JSON value (``true``,
    ``null``, ``1.0``, ``[]``): the MCP SDK sends a string item as its bare text."""
    data, one = _payload(result, mapping, what, known)
    if data is None:
        return []
    from_text = mapping.source == "text" or result.structured_content is None
    try:
        items = follow(data, mapping.path)
    except KeyError as exc:
        raise MemoryServerError(
            f"the result of {what} has no '{mapping.path}' (adapter field 'results.path')"
            f"{_found_instead(data, mapping, from_text)}"
        ) from exc
    if not isinstance(items, list):
        raise MemoryServerError(
            f"the result of {what} at '{mapping.path}' is not a list (adapter 'results.path')"
        )
    ids: list[str] = []
    label = f"'{mapping.id}'" if mapping.id else "the id (the item itself)"
    for n, item in enumerate(items):
        try:
            value = follow(item, mapping.id)
        except KeyError as exc:
            if one:  # (the MCP SDK sends a list of one item as that item alone)
                raise MemoryServerError(
                    f"the text result of {what} is {_one(item, mapping)}, not a list of items "
                    f"with '{mapping.id}' (adapter fields 'results.path' and 'results.id')"
                ) from exc
            lacks = (
                f"has no '{mapping.id}'"
                if isinstance(item, dict | list)
                else f"is {_json_kind(item)}, not an object with '{mapping.id}'"
            )
            raise MemoryServerError(
                f"result item {n} of {what} {lacks} (adapter field 'results.id')"
            ) from exc
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise MemoryServerError(
                f"result item {n} of {what}: {label} is {_json_kind(value)}, expected a string "
                "or an integer (adapter 'results.id')"
            )
        ids.append(str(value))
    return ids


def _found_instead(data: Any, mapping: ResultMapping, from_text: bool = False) -> str:
    """What the result holds where ``mapping.path`` stops being there, as the end of a
    sentence: the keys of the object it reached (the MCP SDK's wrapping of a tool that returns
    a plain value, ``{"result": …}``, said as such), else what the value is; a path through
    ``result`` in a text result (``from_text``), said to be that wrapping's, which only the
    structured content has."""
    parts = [p for p in mapping.path.split(".") if p]
    said = _reached(data, parts, mapping)
    if from_text and parts[:1] == ["result"] and not _has(data, "result"):
        said += (
            " (only the MCP SDK's structured content wraps a tool's returned value in "
            "'result'; the text content is the value itself: adapter 'results.path' "
            f'"{".".join(parts[1:])}" reads it)'
        )
    return said


def _has(data: Any, part: str) -> bool:
    try:
        follow(data, part)
    except KeyError:
        return False
    return True


def _reached(data: Any, parts: list[str], mapping: ResultMapping) -> str:
    """What the result holds where ``parts`` (the path) stops being there (see
    :func:`_found_instead`)."""
    reached, where = data, "it"
    for n, part in enumerate(parts):
        try:
            reached = follow(reached, part)
        except KeyError:
            break
        where = f"'{'.'.join(parts[: n + 1])}'"
    if not isinstance(reached, dict):
        return f": {where} is {_json_kind(reached)}"
    if not reached:
        return f": {where} is an empty object"
    keys = [masked_head(str(key), 40) for key in list(reached)[:10]]
    shown = ", ".join(f"'{key}'" for key in keys) + (", …" if len(reached) > 10 else "")
    said = f": {where} has the key{'s' if len(reached) > 1 else ''} {shown}"
    if where == "it" and list(reached) == ["result"] and mapping.source != "text":
        said += (
            " (the MCP SDK's structured content for a tool that returns a plain value; "
            "adapter 'results.source' \"text\" reads the text content instead)"
        )
    return said


def _json_kind(value: Any) -> str:
    """What a JSON value is, as a sentence names it: ``null``, ``true``, ``a number (1.5)``."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return f"a string ({masked_head(value, 40)!r})"
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    return f"a number ({value!r})"


def _one(item: Any, mapping: ResultMapping) -> str:
    """What the one value a text result holds is, for a sentence: ``one object with no 'id'
    (it has the key 'error')``, ``a number (5)``."""
    if not isinstance(item, dict):
        return _json_kind(item)
    return f"one object with no '{mapping.id}' ({_reached(item, [], mapping)[2:]})"


def _payload(
    result: CallToolResult, mapping: ResultMapping, what: str, known: Collection[str] = ()
) -> tuple[Any, bool]:
    """The result as JSON, and whether it is one text value taken as a list of that one item.

    The MCP SDK (``_convert_to_content``) sends a tool's returned list as one text block per
    item: a string as its text, any other value as JSON; so a list of one item is that item
    alone, and a list of one string is its bare text."""
    if mapping.source != "text" and result.structured_content is not None:
        return result.structured_content, False
    if mapping.source == "structured":
        raise MemoryServerError(f"the result of {what} has no structured content")
    blocks = [block.text for block in result.content if isinstance(block, TextContent)]
    text = "".join(blocks)
    if not text.strip():
        return None, False
    if not mapping.path and not mapping.id and any(_known(b, known) for b in blocks):
        # a string id that reads as another JSON value ("true", "1.0", "[]"), sent bare
        return [_known(b, known) or _json_or_text(b) for b in blocks], len(blocks) == 1
    if len(blocks) > 1 and (items := _each_json(blocks)) is not None:
        return items, False
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if len(blocks) > 1:  # a list holding strings: each sent as its text
            return [_json_or_text(block) for block in blocks], False
        if not mapping.path and not mapping.id:  # a list of one id, sent as its text
            return [text], True
        shown = masked_head(text, 120)
        raise MemoryServerError(f"the text result of {what} is not JSON: {shown!r}") from exc
    if len(blocks) == 1 and not mapping.path and not isinstance(value, list):
        return [value], True
    return value, False


def _known(block: str, known: Collection[str]) -> str | None:
    """The note id ``block`` is, its text or that text stripped; None when it is none."""
    for text in (block, block.strip()):
        if text in known:
            return text
    return None


def _each_json(blocks: list[str]) -> list[Any] | None:
    """Each text block read as JSON, in turn; None when one is not JSON."""
    try:
        return [json.loads(block) for block in blocks]
    except json.JSONDecodeError:
        return None


def _json_or_text(block: str) -> Any:
    try:
        return json.loads(block)
    except json.JSONDecodeError:
        return block


def _text(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))
