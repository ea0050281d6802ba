"""The raw material of every metric: tool calls paired with their results, paths and times."""

from __future__ import annotations

import functools
import operator
import posixpath
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import msgspec

from proctor.metrics.writes import written_files
from proctor.models.process import CheckOutcome
from proctor.models.trajectory import (
    HARNESS_TOOLS,
    UNTIMED,
    Event,
    ToolCall,
    ToolResult,
    is_harness_call,
)
from proctor.util.shellwords import looking_kind, shell_folder

READ_KINDS = frozenset({"read"})
SEARCH_KINDS = frozenset({"search"})
EDIT_KINDS = frozenset({"write", "edit"})
EXPLORE_KINDS = READ_KINDS | SEARCH_KINDS | EDIT_KINDS
LOOKING_KINDS = READ_KINDS | SEARCH_KINDS
"""What orientation counts before the first edit."""

#: Files whose edits alone do not change code (see :func:`is_code_edit`).
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".adoc")
DOC_NAMES = frozenset(
    {"authors", "changelog", "changes", "contributors", "copying", "licence", "license"}
    | {"news", "notes", "notice", "readme", "todo"}
)
"""Documentation without a suffix (``LICENSE``, ``AUTHORS``), by its name in lower case."""
_BUILD_TEXT = re.compile(
    r"cmakelists\.txt|(?:.*[-_.])?(?:requirements|constraints)(?:[-_.].*)?\.txt"
)
"""Text files that are a build's or an environment's input (``CMakeLists.txt``,
``requirements-dev.txt``, ``constraints.txt``): code, not documentation."""


class CallView(Protocol):
    """What the metrics read of a tool call: a :class:`ToolCall`, or a :class:`PlainCall`."""

    @property
    def type(self) -> str: ...
    @property
    def ts(self) -> str | None: ...
    @property
    def id(self) -> str | None: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def input(self) -> dict[str, Any] | None: ...
    @property
    def files(self) -> list[str] | None: ...
    @property
    def cwd(self) -> str | None: ...


class ResultView(Protocol):
    """What the metrics read of a tool result: a :class:`ToolResult`, or a
    :class:`PlainResult`."""

    @property
    def type(self) -> str: ...
    @property
    def id(self) -> str | None: ...
    @property
    def output(self) -> str | None: ...
    @property
    def is_error(self) -> bool | None: ...
    @property
    def denied(self) -> bool | None: ...


class PlainCall:
    """A tool call read from its ``trajectory.jsonl`` object (one the schema reads as it
    stands: see :func:`~proctor.models.trajectory.event_conforms`)."""

    __slots__ = ("cwd", "files", "id", "input", "kind", "ts")
    type = "tool_call"

    def __init__(self, event: dict[str, Any]) -> None:
        get = event.get
        self.ts: str | None = get("ts")
        self.id: str | None = get("id")
        self.kind: str | None = get("kind")
        self.input: dict[str, Any] | None = get("input")
        self.files: list[str] | None = get("files")
        self.cwd: str | None = get("cwd")


class PlainResult:
    """A tool result read from its ``trajectory.jsonl`` object (see :class:`PlainCall`)."""

    __slots__ = ("denied", "id", "is_error", "output")
    type = "tool_result"

    def __init__(self, event: dict[str, Any]) -> None:
        get = event.get
        self.id: str | None = get("id")
        self.output: str | None = get("output")
        self.is_error: bool | None = get("isError")
        self.denied: bool | None = get("denied")


class Step(msgspec.Struct, gc=False):
    """One tool call (``index`` counts tool calls from 0) with its paired result, if any.
    A struct made in C: a history replay builds millions, where a dataclass's ``__init__``
    cost a third of a microsecond more each. Not frozen (that costs more again); nothing
    changes a step once it is built. Never in a reference cycle, so the collector leaves it
    alone."""

    index: int
    call: CallView
    result: ResultView | None
    files: tuple[str, ...]
    outcome: CheckOutcome
    kind: str
    """The call's kind (``other`` when it has none): read by every metric, so kept here."""
    settled: bool = False
    """Whether the result is a later one that says how a call ended whose first result did
    not (Claude Code's task notification of a command run in the background)."""


def outcome(result: ResultView | None) -> CheckOutcome:
    """``pass``/``fail`` from the result's ``isError``; ``unknown`` when missing, None or denied."""
    if result is None or result.is_error is None or result.denied:
        return "unknown"
    return "fail" if result.is_error else "pass"


def is_code_edit(step: Step) -> bool:
    """An edit or write touching a file that is not documentation, or naming no file.

    Editing only ``CHANGELOG.md`` or notes does not change code: such an edit neither makes a
    trial a task nor needs a check after it. A code edit may still have failed or been
    denied: :func:`changes_code` says whether it changed code.
    """
    return step.kind in EDIT_KINDS and (not step.files or not all(map(is_doc, step.files)))


@functools.lru_cache(maxsize=4096)
def is_doc(path: str) -> bool:
    """Whether a file is documentation: its suffix is one of :data:`DOC_SUFFIXES` (but for a
    build's or an environment's text input, ``CMakeLists.txt``, ``requirements.txt``), or it
    has none and its name is one of :data:`DOC_NAMES` (``LICENSE``)."""
    name = path.rpartition("/")[2].lower()
    if name.endswith(DOC_SUFFIXES):
        return not _BUILD_TEXT.fullmatch(name)
    return name in DOC_NAMES


def took_effect(step: Step) -> bool:
    """The call's result is neither a failure nor a denial (one without a result counts: a
    transcript cut short may have lost it). A rejected or failed edit changed nothing."""
    return step.outcome != "fail" and (step.result is None or not step.result.denied)


def changes_code(step: Step) -> bool:
    """A code edit (:func:`is_code_edit`) that took effect (:func:`took_effect`): one that
    changed code. Only such an edit makes a trial a task and needs a check after it; its files
    (and those of documentation edits that took effect) are the edited files.
    """
    return is_code_edit(step) and took_effect(step)


def _posix(path: str) -> str:
    """POSIX ``normpath``, also collapsing the leading ``//`` that it keeps."""
    p = posixpath.normpath(path)
    return "/" + p.lstrip("/") if p.startswith("//") else p


@functools.lru_cache(maxsize=16_384)
def normalise_path(path: str, workspace: str | None = None) -> str:
    """Workspace-relative POSIX form: no ``./``, ``..``, ``//`` or trailing ``/``.

    Path and workspace are both normalised before the workspace prefix is removed, so
    ``/ws/../ws/src/a.py`` and a workspace given as ``/ws/./`` still compare. Returns ``""``
    for a blank path.
    """
    p = path.strip().replace("\\", "/")
    if not p:
        return ""
    p = _posix(p)
    ws = (workspace or "").strip().replace("\\", "/")
    if not ws:
        return p
    ws = _posix(ws)
    prefix = ws if ws.endswith("/") else ws + "/"
    if p == ws:
        return "."
    return p[len(prefix) :] if p.startswith(prefix) else p


def normalise_paths(paths: Iterable[str] | None, workspace: str | None) -> tuple[str, ...]:
    """Normalised, de-duplicated, non-blank paths in first-seen order."""
    if not paths:
        return ()
    if type(paths) is list and len(paths) == 1:  # most calls name one file
        one = normalise_path(paths[0], workspace)
        return (one,) if one else ()
    out = dict.fromkeys(normalise_path(p, workspace) for p in paths)
    out.pop("", None)
    return tuple(out)


def build_steps(events: Sequence[Event], workspace: str | None = None) -> list[Step]:
    """Tool calls in order, each paired with the first later result carrying its id.

    When calls reuse an id, a result goes to the most recent call of that id still without one,
    so an earlier call is not left unanswered while a later one takes its result. A call of a
    harness tool (:func:`~proctor.models.trajectory.is_harness_call`) is no step, and its result
    pairs with nothing.
    """
    items = [
        e
        for e in events
        if isinstance(e, ToolResult)
        or (isinstance(e, ToolCall) and not is_harness_call(e.name, e.kind))
    ]
    return paired(items, workspace)


def plain_steps(events: Iterable[Any], workspace: str | None = None) -> list[Step]:
    """:func:`build_steps` of events given as their ``trajectory.jsonl`` objects, each one
    the schema reads as it stands (what
    :meth:`~proctor.transcripts.builder.TrajectoryBuilder.finish_plain` gives). An event that
    is not a dict is a call or a result already (a :class:`CallView` or :class:`ResultView`
    whose ``type`` says which), as a reader for a measure gives them."""
    items: list[CallView | ResultView] = []
    for event in events:
        if type(event) is not dict:
            items.append(event)
            continue
        kind = event["type"]
        if kind == "tool_call":
            name = event.get("name")
            # (The name first: a call of another tool, nearly every one, is told by it alone.)
            if not (
                type(name) is str
                and name in HARNESS_TOOLS
                and is_harness_call(name, event.get("kind"))
            ):
                items.append(PlainCall(event))
        elif kind == "tool_result":
            items.append(PlainResult(event))
    return paired(items, workspace)


def paired(items: Iterable[CallView | ResultView], workspace: str | None) -> list[Step]:
    """Steps from calls and results in trajectory order (each item's ``type`` says which)."""
    calls: list[CallView] = []
    results: dict[int, ResultView] = {}
    # The open call of each id: the latest in ``latest``; those it hides, for ids used again
    # before a result came, in ``hidden`` (most calls have an id of their own).
    latest: dict[str, int] = {}
    hidden: dict[str, list[int]] = {}
    # The calls whose result did not say whether they failed (a command that went on in the
    # background): a later result of theirs says how they ended.
    started: dict[str, int] = {}
    settled: set[int] = set()
    for item in items:
        if item.type == "tool_call":
            key = item.id
            if key is not None:
                if key in latest:
                    hidden.setdefault(key, []).append(latest[key])
                latest[key] = len(calls)
            calls.append(item)  # type: ignore[arg-type]
            continue
        key = item.id
        if key is not None and (index := latest.pop(key, None)) is not None:
            results[index] = item  # type: ignore[assignment]
            below = hidden.get(key)
            if below:
                latest[key] = below.pop()
            elif item.is_error is None and not item.denied:  # type: ignore[union-attr]
                started[key] = index
        elif key is not None and (began := started.pop(key, -1)) >= 0:
            # A call answered again when it ended (a task notification): that is its result.
            results[began] = item  # type: ignore[assignment]
            settled.add(began)
    steps = []
    for i, call in enumerate(calls):  # positional: a history replay builds millions of steps
        result = results.get(i)
        files = normalise_paths(call.files, workspace)
        kind = call.kind or "other"
        if kind == "shell" and call.input:  # a command that reads, searches or writes is that
            command = call.input.get("command", call.input.get("cmd"))
            kind = looking_kind(command) or kind
            as_edit = _written_step(command, call, workspace) if kind == "shell" else None
            if as_edit:
                kind, files = as_edit
        steps.append(Step(i, call, result, files, outcome(result), kind, i in settled))
    return steps


def _written_step(
    command: Any, call: CallView, workspace: str | None
) -> tuple[str, tuple[str, ...]] | None:
    """The kind and files of a shell call that only writes files (see
    :func:`~proctor.metrics.writes.written_files`): an edit of files it changes in place, a
    write of files it writes whole; its files joined to the folder it ran in (its input's, or
    the transcript's: :attr:`~proctor.models.trajectory.ToolCall.cwd`). Only files in
    the workspace count: a scratch file in ``/tmp`` is no edit of the project. None for any
    other call, and one whose every file written is elsewhere."""
    written = written_files(command)
    if written is None:
        return None
    files, in_place = written
    folder = shell_folder(call.input or {}) or call.cwd
    if isinstance(folder, str):
        files = tuple(posixpath.join(folder, file) for file in files)
    inside = tuple(
        file
        for file in normalise_paths(list(files), workspace)
        if not file.startswith(("/", "../")) and file != ".."
    )
    return (("edit" if in_place else "write"), inside) if inside else None


def shell_command(step: Step) -> str | None:
    """The command of a shell call (``input["command"]``, or ``cmd``). A list is an argv
    (Codex's ``["bash", "-lc", "cd app && pytest"]``): its words are quoted where the shell
    would read them otherwise, so that ``["git", "commit", "-m", "x; make test"]`` runs no
    ``make``."""
    if step.call.kind != "shell" or not step.call.input or step.kind in EDIT_KINDS:
        return None  # (a shell call that only writes files is an edit)
    raw = step.call.input.get("command", step.call.input.get("cmd"))
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list) and all(isinstance(part, str) for part in raw):
        return shlex.join(raw)
    return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def step_texts(step: Step) -> list[str]:
    """The string values of a call's input, and its result's output: where symbols are sought.

    Values rather than the input's JSON, so that keys never match and non-ASCII text is not
    escaped.
    """
    output = step.result.output if step.result else None
    return [*_strings(step.call.input), *([output] if output else [])]


def normalise_command(command: str) -> str:
    """A command with runs of whitespace collapsed to one space and the ends stripped."""
    return " ".join(command.split())


def parse_ts(ts: str | None) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (naive means UTC); None when absent or bad."""
    if not ts:
        return None
    try:
        parsed = datetime.fromisoformat(ts)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def event_stamps(events: Iterable[Any], counted: Iterable[str] = ()) -> list[str | None]:
    """The times a session's span is read from: each event's (a model, or a dict of a plain
    parse) but the context a CLI writes into the session when it opens (see
    :data:`~proctor.models.trajectory.HARNESS_MESSAGE`), which may be long before the first
    prompt, and the commands the CLI ran itself (see
    :data:`~proctor.models.trajectory.COMMAND_RECORD`); with ``counted``, times known to be
    of other events (a reader for a measure's). A session of nothing else (``/model``, then
    ``/exit``) is dated by those."""
    stamps: list[str | None] = list(counted)
    untimed: list[str | None] = []
    for event in events:
        if type(event) is dict:
            # (Only an `other` event has a record type.)
            (untimed if event.get("recordType") in UNTIMED else stamps).append(event.get("ts"))
        else:
            kind = getattr(event, "record_type", None)
            (untimed if kind in UNTIMED else stamps).append(event.ts)
    if untimed and not any(stamps):
        return untimed
    return stamps


def trial_start(events: Sequence[Event]) -> datetime | None:
    """The earliest time of the events (see :func:`event_stamps`); None when none has one."""
    return time_span(event_stamps(events))[0]


_TZINFO = operator.attrgetter("tzinfo")


def time_span(stamps: Iterable[str | None]) -> tuple[datetime | None, datetime | None]:
    """The earliest and the latest of the timestamps (see :func:`parse_ts`); None, None when
    none is given or readable. Events share their line's timestamp: each text is read once."""
    distinct = dict.fromkeys(stamps)
    distinct.pop(None, None)  # an event without a time
    try:  # every one a time: read in one pass at C speed (a history reads millions)
        moments = list(map(datetime.fromisoformat, distinct))  # type: ignore[arg-type]
        if None in map(_TZINFO, moments):  # (a scan in C: a session has hundreds of times)
            moments = [m if m.tzinfo else m.replace(tzinfo=UTC) for m in moments]
    except (ValueError, TypeError):  # "" or a text that is not a time among them
        moments = [t for t in map(parse_ts, distinct) if t is not None]
    return (min(moments), max(moments)) if moments else (None, None)


def seconds_since(start: datetime | None, ts: str | None) -> float | None:
    """Seconds from ``start`` to ``ts``; None when either is missing."""
    moment = parse_ts(ts)
    if start is None or moment is None:
        return None
    return (moment - start).total_seconds()
