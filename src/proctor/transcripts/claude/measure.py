"""Claude Code sessions read for a measure only: what a history replay needs, fast.

A history replay measures a session's tool calls and results, its time span and its tokens,
and keeps none of its events. :func:`parse_claude_for_measure` reads the same files as
:func:`~proctor.transcripts.claude.parser.parse_claude_session_plain` and gives the same
measure, but:

* each line is decoded into typed records (``msgspec``) that hold only the fields a measure
  reads, where it lies in the file: a text block's text or a tool's output is scanned, never
  made into objects. A block of lines (a megabyte or so) is decoded in one call; a block
  with a line that does not decode this way is decoded line by line;
* of the events, only tool calls and results are built (:class:`MeasuredCall`,
  :class:`MeasuredResult`), already conforming to their models; the other events a line would
  give leave their timestamp (:attr:`PlainTrajectory.stamps`), which is all a measure reads
  of them;
* usage rows and their response digests are kept as the full parse keeps them.

Every line whose record is not in the common shape is handed to the full parser's own code,
record by record: a field of another type than the full parse makes into a conforming event,
an API error, a compaction, a task's notification queued or in text blocks, a read of a task's
state, a question's answer that is not text, a subagent call whose label is not text, a system
line other than a turn's end, an invoked skill's attachment or a hook's with a field of another
type, a record type of its own, a line held back for its parent, a line that is not a JSON
object or not UTF-8. (A task's notification typed as the line's text, and a subagent's result
that names it in its text only, are read here with the full parser's own methods: a long
history holds thousands of them, and handing their lines on cost a tenth of its measure.)
So the two readers give the same measure of every session:
``tests/unit/transcripts/test_measure.py`` compares them on every Claude Code session of the
fixtures, on one line of each shape decided here, and on hundreds of damaged copies of the
sessions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec

from proctor.models.trajectory import HARNESS_TOOLS, event_conforms, is_harness_call
from proctor.transcripts.builder import (
    MAX_TOKENS,
    MeasuredCall,
    MeasuredResult,
    PlainTrajectory,
    result_text,
)
from proctor.transcripts.claude.background import (
    NOTIFICATION,
    POLLS,
    polled_task,
    started_in_background,
)
from proctor.transcripts.claude.parser import _Parser, plain_of
from proctor.transcripts.claude.records import (
    BOOKKEEPING,
    LOCAL_COMMAND,
    USER_REJECTED,
    hook_event,
    response_digest,
    usage_model,
)
from proctor.transcripts.kinds import (
    chosen_answers,
    claude_call_files,
    claude_kind,
    questions_of,
)
from proctor.transcripts.lines import SYNTHETIC_MODEL, decode_line, file_blocks

# The records as a measure reads them. A field the line does not have is None, as the full
# parse's ``dict.get`` gives. A field typed here must have that type for the line to be read
# the fast way (any other line is the full parser's): a number where an id or a name belongs
# (an integer too large for 64 bits is a float to the full parse and an int here) is read by
# the full parser, so the two readers can differ only where two tool inputs hold integers that
# large that differ past a float's precision. The records are never in a reference cycle, so
# the collector leaves them alone (``gc=False``).


_Tokens = Annotated[int, msgspec.Meta(ge=0, le=MAX_TOKENS)] | None
"""A count :func:`~proctor.transcripts.builder.token_count` takes as it is (any other value,
which it counts 0, is the full parser's)."""


class _Creation(msgspec.Struct, gc=False):
    ephemeral_1h_input_tokens: _Tokens = None


class _Usage(msgspec.Struct, gc=False):
    input_tokens: _Tokens = None
    output_tokens: _Tokens = None
    cache_read_input_tokens: _Tokens = None
    cache_creation_input_tokens: _Tokens = None
    cache_creation: _Creation | None = None
    speed: Any = None
    inference_geo: Any = None


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    text: str = ""
    thinking: str | None = ""
    id: str | None = None
    name: str = ""
    input: Any = None
    tool_use_id: str | None = None
    is_error: Any = None
    content: msgspec.Raw = msgspec.Raw(b"")
    """A result's content, as its line holds it (read only if a measure asks)."""


class _Message(msgspec.Struct, gc=False):
    id: str | None = None
    model: str | None = None
    content: str | list[_Block] | None = None
    usage: _Usage | None = None
    stop_reason: Any = None


class _Structured(msgspec.Struct, gc=False):
    """A tool result's ``toolUseResult`` object: only the subagent it names, the answers to a
    question, and the task a command goes on in the background as, are read."""

    agentId: Any = None
    answers: Any = None
    backgroundTaskId: Any = None
    isAsync: Any = None
    status: Any = None


class _Attachment(msgspec.Struct, gc=False):
    """An ``attachment`` record's object: its type, and what a hook's event holds."""

    type: Any = None
    hookName: Any = None
    hookEvent: Any = None
    command: Any = None
    exitCode: Any = None
    toolUseID: Any = None
    prompt: Any = None


class _Record(msgspec.Struct, gc=False):
    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    timestamp: str | None = None
    sessionId: Any = None
    version: Any = None
    cwd: str | None = None
    message: _Message | None = None
    isSidechain: Any = None
    requestId: str | None = None
    toolUseResult: bool | int | float | str | list[Any] | _Structured | None = None
    toolDenialKind: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    isApiErrorMessage: Any = None
    subtype: Any = None
    durationMs: Any = None
    attachment: _Attachment | None = None


_decode = msgspec.json.Decoder(_Record).decode
_SPECIAL_KINDS = frozenset({"question", "skill", "subagent"})
"""Tool kinds whose call also gives an event of its own (see :func:`_plain_special`)."""
_CALLS = ("tool_use", "server_tool_use")
_THINKING = ("thinking", "redacted_thinking")
_OTHER: Any = object()
"""A record type no method here reads."""
_META: Any = object()
"""A Codex ``session_meta`` record: another agent's, read by the full parser."""
_THE_PARSERS = (NOTIFICATION, *LOCAL_COMMAND)
"""How the text of a user line the full parser reads begins."""
_NAMING = b"agentId: "
"""How a subagent call's result's text names the subagent (see
:func:`~proctor.transcripts.claude.subagents.named_in`)."""
_EXACT = 2**53
"""The largest integer a ``turn_end`` event's ``durationMs`` (a float) holds exactly."""


_decode_lines = msgspec.json.Decoder(_Record).decode_lines


def _records(block: bytes) -> tuple[list[_Record] | list[_Record | None], list[bytes] | None]:
    """The records of a block of lines, with its lines when they were split to read it.

    The block is decoded in one call when every line in it is in the common shape (a line of
    whitespace is none); otherwise each line is decoded on its own, and a line that does not
    decode (not a JSON object, not in the common shape, not UTF-8) is None among the records,
    for the full parser to read from the lines."""
    try:
        if not block.isascii():
            str(block, "utf-8")  # bytes that are not UTF-8 leave their line unparsed
        return _decode_lines(block), None
    except (ValueError, RecursionError):  # RecursionError: nested past what it reads
        pass
    lines = _lines(block)
    records: list[_Record | None] = []
    for line in lines:
        try:
            if not line.isascii():
                str(line, "utf-8")
            records.append(_decode(line))
        except (ValueError, RecursionError):
            records.append(None)
    return records, lines


def _lines(block: bytes) -> list[bytes]:
    """A block's lines that are not blank (as the records of :func:`_records` are)."""
    return [line for line in block.split(b"\n") if line and not line.isspace()]


def _plain_special(block: _Block, kind: str) -> bool:
    """Whether the event a question, skill or subagent call also gives conforms to its model,
    so that its time is all a measure needs of it: a skill's name and a question's text and
    options are made strings, a subagent's label is taken as it is."""
    if kind != "subagent":
        return True
    tool_input = block.input if type(block.input) is dict else {}
    label = tool_input.get("subagent_type") or tool_input.get("description")
    return label is None or type(label) is str


def _named_subagent(structured: object, subagents: dict[str, Path]) -> str | None:
    """The subagent file still to place that a result's ``toolUseResult`` names, if any."""
    if type(structured) is not _Structured:
        return None
    agent = structured.agentId
    return agent if type(agent) is str and agent in subagents else None


def _result_text(content: msgspec.Raw) -> str | None:
    """The text of a tool result's ``content`` as its line holds it (see
    :func:`~proctor.transcripts.builder.result_text`); "" when it has none, and None when it
    does not read the way the full parser reads its line (which then reads it).
    A subagent is named by ``agentId: `` in the text: content without those bytes, and
    without an escape that could spell them, names none, and is not decoded."""
    raw = bytes(content)
    if not raw:
        return ""
    if _NAMING not in raw and b"\\u" not in raw:
        return ""
    value = decode_line(raw)
    if value is None and raw != b"null":
        return None
    return result_text(value)


def _plain_answer(record: _Record, asked: list[str]) -> bool:
    """Whether the answer events a question call's result also gives (one for each of the
    call's questions, ``asked``) conform to their model, so that their time is all a measure
    needs of them: each one's text is its question's answer when that is a string, else the
    result's output (a string too); any other answer is the full parser's."""
    structured = record.toolUseResult
    if type(structured) is not _Structured or record.toolDenialKind is not None:
        return True  # no answers read (a refused question's text is its output)
    return all(
        not given or type(given) is str for given in chosen_answers(asked, structured.answers)
    )


class _MeasureParser(_Parser):
    """The full parser, with the common lines of a session read the fast way (see the module
    docstring); every other line goes through the full parser's own handlers."""

    def __init__(self, subagents: Sequence[Path], inherited: frozenset[str]) -> None:
        super().__init__(None, subagents, inherited=inherited)
        self.stamps: dict[str, None] = {}

    def feed_file(self, path: str | Path) -> None:
        # One loop per file, with what every line needs at hand: a session is millions of them.
        # ``waiting`` stays this file's own (a subagent's parse sets its own, then puts this
        # one back); ``looking`` is read again after any line the full parser reads.
        builder, seen, stamps, fast = self.builder, self.seen_uuids, self.stamps, _FAST
        waiting, looking, inherited = self.waiting, self.looking, self.inherited
        need_ids = True
        count = 0
        for block in file_blocks(path):
            records, lines = _records(block)
            count += len(records)
            for index, record in enumerate(records):
                if record is None:  # not a JSON object, or not in the common shape
                    count -= 1
                    self.feed(lines[index])  # type: ignore[index]
                    looking = self.looking
                    continue
                handle = fast.get(record.type, _OTHER)
                if handle is _META:  # another agent's record: its folder is read there
                    count -= 1
                    lines = lines or _lines(block)
                    self.feed(lines[index])
                    looking = self.looking
                    continue
                if looking and record.cwd is not None and not builder.sidechain:
                    self.cwd, self.looking = record.cwd, False
                    looking = False
                uid = record.uuid
                if uid is not None:
                    mark = hash(uid)
                    if mark in seen:
                        continue  # a line written again: counted once (see _Parser.process)
                parent = record.parentUuid
                if parent is not None and hash(parent) not in seen:
                    # Held back until its parent comes, then processed by the full parser.
                    lines = lines or _lines(block)
                    waiting.setdefault(parent, []).append(decode_line(lines[index]))
                    continue
                if need_ids:
                    builder.ids(record.sessionId, record.version)
                    need_ids = builder.session_id is None or builder.version is None
                if handle is not None and not (inherited and record.uuid in inherited):
                    ts = record.timestamp
                    told = handle(self, record, ts) if handle is not _OTHER else None
                    if told is None:
                        lines = lines or _lines(block)
                        self.handle(decode_line(lines[index]))
                        looking = self.looking
                    elif told and ts is not None:
                        stamps[ts] = None
                if uid is not None:
                    seen.add(mark)
                    if waiting and uid in waiting:
                        for child in waiting.pop(uid):
                            self.process(child)
                        looking = self.looking
        self.lines += count

    # Each ``fast_`` method reads a line in the common shape and says whether it gave events
    # (stamped with the line's time); None, with nothing done, for a line of another shape,
    # which the full parser then reads.

    def fast_assistant(self, record: _Record, ts: str | None) -> bool | None:
        message = record.message
        if message is None or record.isApiErrorMessage:
            return None
        model, content = message.model, message.content
        if model == SYNTHETIC_MODEL or type(content) is not list or not content:
            return None
        if len(content) == 1:  # the common line: one block
            block = content[0]
            btype = block.type
            if btype in _CALLS:
                kind = claude_kind(block.name)
                if kind in _SPECIAL_KINDS and not _plain_special(block, kind):
                    return None
                self.call(block, kind, ts, record.cwd)
            elif btype != "text" and btype not in _THINKING:
                return None
        else:
            kinds = []
            for block in content:
                btype = block.type
                if btype in _CALLS:
                    kind = claude_kind(block.name)
                    if kind in _SPECIAL_KINDS and not _plain_special(block, kind):
                        return None
                    kinds.append(kind)
                elif btype != "text" and btype not in _THINKING:
                    return None
            if kinds:
                calls = [block for block in content if block.type in _CALLS]
                for block, kind in zip(calls, kinds, strict=True):
                    self.call(block, kind, ts, record.cwd)
        usage = message.usage
        if usage is not None and model:
            # The full parser's count (``counted``), without its frame: an assistant line is
            # most of a long session's lines, and each carries the usage of its response.
            inp, out = usage.input_tokens or 0, usage.output_tokens or 0
            read, write = usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0
            message_id, request_id = message.id, record.requestId
            if type(message_id) is not str:
                message_id = str(message_id)
            side = bool(record.isSidechain) or self.builder.sidechain
            final = message.stop_reason is not None
            total, speed = inp + out + read + write, usage.speed is not None
            key, keep, new = self.dedup.offer(message_id, request_id, final, total, side, speed)
            if new and self.ids is not None:
                self.ids[key] = response_digest(message_id, request_id)
            if keep:  # the row only: its usage event is left out
                creation = usage.cache_creation
                hour = min(creation.ephemeral_1h_input_tokens or 0, write) if creation else 0
                speed, geo = usage.speed, usage.inference_geo
                name = sys.intern(model if speed is geo is None else usage_model(model, speed, geo))
                self.builder.usage_rows[key] = (name, inp, out, read, write, hour)
        return True

    def call(self, block: _Block, kind: str, ts: str | None, cwd: str | None) -> None:
        if block.name in HARNESS_TOOLS and is_harness_call(block.name, kind):
            return  # no step (its event is the full parser's only: no measure reads it)
        tool_input = block.input if type(block.input) is dict else {}
        files = claude_call_files(kind, tool_input, cwd, self.cwd)
        moved = self.shell_call(block.id, cwd) if kind == "shell" else None
        self.pending.append(MeasuredCall(ts, block.id, kind, tool_input, files, moved))  # type: ignore[arg-type]
        if kind == "question":  # its result gives the answers (see _plain_answer)
            self.questions[str(block.id)] = [text for text, _ in questions_of(tool_input)]
        elif kind == "subagent" and self.subagents and block.id is not None:
            self.agent_calls.add(block.id)
        elif block.name in POLLS and block.id is not None:  # its result is the full parser's
            task = polled_task(block.name, tool_input)
            if task is not None:
                self.polls[block.id] = task

    def fast_user(self, record: _Record, ts: str | None) -> bool | None:
        message = record.message
        if message is None or record.isCompactSummary:
            return None
        content = message.content
        if type(content) is str:
            said = content.lstrip()
            if said.startswith(NOTIFICATION):
                # A task's end: its call's later result, an event with its own time (the full
                # parser's own reading of the text).
                self.queued(content, None, ts)
                return False
            if said.startswith(LOCAL_COMMAND):
                # A command the CLI ran itself (an event whose time is not the span's): the
                # full parser's.
                return None
            return not record.isMeta  # a message
        if type(content) is not list:
            return False
        questions, polls = self.questions, self.polls
        structured = record.toolUseResult
        results = False
        texts_of: dict[int, str] | None = None
        for index, block in enumerate(content):
            if block.type == "tool_result":
                asked = questions.get(block.tool_use_id) if questions else None  # type: ignore[arg-type]
                if asked is not None and not _plain_answer(record, asked):
                    return None
                if polls and block.tool_use_id in polls:  # a read of a background task
                    return None
                if (
                    self.agent_calls
                    and type(block.tool_use_id) is str
                    and block.tool_use_id in self.agent_calls
                ):
                    # The subagent it ran may be named in its text: read now, looked up below
                    # as the full parser looks (when the line's agentId names no subagent still
                    # to place: an earlier result of the line may have placed it).
                    text = _result_text(block.content)
                    if text is None:
                        return None
                    texts_of = texts_of or {}
                    texts_of[index] = text
                results = True
        if not results:
            # A message, or an interrupted turn; a command the CLI ran is the full parser's.
            texts = [block.text for block in content if block.type == "text"]
            if any(text.lstrip().startswith(_THE_PARSERS) for text in texts):
                return None  # a task's notification in text blocks, a command the CLI ran
            return not record.isMeta and bool(texts)
        denied = record.toolDenialKind is not None or structured == USER_REJECTED
        for index, block in enumerate(content):
            if block.type == "tool_result":
                agent = _named_subagent(structured, self.subagents)
                if agent is None and texts_of and index in texts_of:
                    agent = self.named_subagent(texts_of[index])
                if agent is not None:
                    self.placed(agent, structured, ts)  # its events go just before this result
                failed: bool | None = bool(block.is_error) and not denied
                task = structured.backgroundTaskId if type(structured) is _Structured else None
                if started_in_background(task, failed, denied):
                    failed = None  # how it ends is a later result's: its task notification
                    if block.tool_use_id is not None:
                        self.tasks[task] = block.tool_use_id  # type: ignore[index]
                # A shell's output, as the line holds it: read only if a measure asks (a
                # check's summary). A copy, so that the file's blocks are not kept with it.
                kept = block.content.copy() if block.tool_use_id in self.shells else None
                result = MeasuredResult(block.tool_use_id, failed, denied, ts, kept)
                self.pending.append(result)  # type: ignore[arg-type]
        return True

    def fast_system(self, record: _Record, ts: str | None) -> bool | None:
        if record.subtype != "turn_duration":
            return None
        duration = record.durationMs  # a float in the event
        if duration is None or type(duration) is float:
            return True
        return True if type(duration) is int and -_EXACT <= duration <= _EXACT else None

    def fast_attachment(self, record: _Record, ts: str | None) -> bool | None:
        """An attachment that gives no event (a skill listing, a file the CLI read in, a
        reminder): nothing to do; a hook's, whose event conforms to its model: its time. Any
        other (an invoked skill's, a hook's with a field of another type, a task's
        notification) is the full parser's."""
        attachment = record.attachment
        if attachment is None:
            return False
        kind = attachment.type
        if type(kind) is not str or kind == "invoked_skills":
            return None
        if kind == "queued_command":  # a task's end (its call's later result), or a prompt
            return None  # typed while a turn ran (a message): the full parser's
        if kind.startswith("hook_"):  # the full parser's event, when its model reads it as is
            event = hook_event(msgspec.structs.asdict(attachment), kind, ts)
            return True if event_conforms(event) else None
        return False


_FAST: dict[str | None, Callable[[_MeasureParser, _Record, str | None], bool | None] | None] = {
    "assistant": _MeasureParser.fast_assistant,
    "user": _MeasureParser.fast_user,
    "system": _MeasureParser.fast_system,
    "attachment": _MeasureParser.fast_attachment,
    **dict.fromkeys(BOOKKEEPING),
    "session_meta": _META,
}
"""What each record type needs: None for bookkeeping (nothing), a method for a record that
may be in the common shape; any other type is the full parser's."""


def parse_claude_for_measure(
    main: str | Path, subagents: Sequence[Path] = (), inherited: frozenset[str] = frozenset()
) -> PlainTrajectory:
    """A Claude Code session and its subagent files read for a measure: the plain trajectory
    of :func:`~proctor.transcripts.claude.parser.parse_claude_session_plain` with only its
    tool calls and results (results without their output), and the timestamps of the other
    events in :attr:`~proctor.transcripts.builder.PlainTrajectory.stamps`. Its usage,
    coverage, ids, folder and responses are the full parse's; so is what it leaves out of a
    fork (``inherited``)."""
    parser = _MeasureParser(subagents, inherited)
    plain = plain_of(parser, main)
    plain.stamps = list(parser.stamps)
    return plain
