"""Claude Code's native JSONL transcript → normalised trajectory.

Rules followed (see the transcript reference): assistant lines carry one content block each and
repeat ``message.id``/``requestId``/``usage``; usage is counted once per (message.id, requestId),
from the line with a ``stop_reason`` or else the largest total. Tool results ride on user lines;
a result with ``toolDenialKind``, or whose ``toolUseResult`` is ``"User rejected tool use"`` (the
TUI's refusal), is a denial, not an error. ``<synthetic>`` assistant messages
are API errors. An ``AskUserQuestion`` call gives a ``question`` event for each question it
asks, and its result an ``answer`` event for each, in the same order: the answer its
``toolUseResult.answers`` holds under the question's text. Unknown record types and
unparseable lines become ``other`` events and are counted in the parse coverage.

A session may have subagent files (``<session>/subagents/agent-<id>.jsonl``):
:func:`parse_claude_session` merges them, marking their events ``sidechain`` and placing each
file's events just before the result of the ``Agent``/``Task`` call that ran it. Usage is
deduplicated across all files: the exact (message.id, requestId) key first, then message.id alone
when either copy is a sidechain (``/btw`` asides replay parent messages under a new requestId),
and a main-file copy always wins over a sidechain copy.

The parser's parts that are their own matter are in their modules, as classes it is made of:
the placing of subagent files (:class:`~.subagents.SubagentPlacing`), the later results of
background tasks (:class:`~.background.BackgroundEnds`), and token usage counted once per
response (:class:`~.usage.UsageCounting`; :mod:`.usage` also has :func:`claude_usage_totals`,
the same totals without building events). Events, coverage and usage rows go through the
shared :class:`~proctor.transcripts.builder.TrajectoryBuilder`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from pathlib import Path
from typing import Any

from proctor.models.trajectory import COMMAND_RECORD, OUTPUT_CAP, Trajectory
from proctor.transcripts.builder import (
    MALFORMED,
    RAW_CAP,
    UNTYPED,
    WINDOW,
    EventDict,
    EventSink,
    PlainTrajectory,
    StartHook,
    TrajectoryBuilder,
    ev,
    result_text,
)
from proctor.transcripts.claude.background import (
    NOTIFICATION,
    BackgroundEnds,
    polled_task,
    prompt_text,
    started_in_background,
)
from proctor.transcripts.claude.records import (
    BOOKKEEPING,
    INTERRUPTED,
    LOCAL_COMMAND,
    NO_RESPONSE,
    USER_REJECTED,
    hook_event,
)
from proctor.transcripts.claude.subagents import SubagentPlacing, subagent_id
from proctor.transcripts.claude.usage import UsageCounting, UsageDedup
from proctor.transcripts.kinds import (
    chosen_answers,
    claude_call_files,
    claude_kind,
    questions_of,
)
from proctor.transcripts.lines import (
    SYNTHETIC_MODEL,
    decode_line,
    fast_loads,
    file_lines,
    head_cwd,
    line_text,
)


class _Parser(SubagentPlacing, BackgroundEnds, UsageCounting):
    """One pass over a session's records, emitting event dicts in trajectory order into a
    :class:`TrajectoryBuilder` (which, given a sink, hands them on as the parse goes)."""

    def __init__(
        self,
        sink: EventSink | None = None,
        subagents: Sequence[Path] = (),
        on_start: StartHook | None = None,
        inherited: frozenset[str] = frozenset(),
    ) -> None:
        self.builder = TrajectoryBuilder("claude-code", sink, on_start)
        self.inherited = inherited
        """The uuids of the lines a fork copied from the session it forked (see
        :func:`parse_claude_session_plain`): those lines give no events and count no tokens."""
        self.pending = self.builder.pending
        self.out: Callable[[EventDict], None] = self.builder.add
        self.lines = 0
        self.cwd: str | None = None
        """The folder the session ran in, as its first record naming one says (see
        :func:`head_cwd`)."""
        self.looking = True
        """Whether that folder is still looked for (in the main file's records, the first
        that names one, as :func:`~proctor.history.projects.session_project` finds it)."""
        self.seen_uuids: set[int] = set()
        """Hashes of the uuids of the records processed (a few dozen bytes each)."""
        self.waiting: dict[str, list[dict[str, Any]]] = {}
        """Records held back until their parent comes, by the parent's uuid."""
        self.questions: dict[str, list[str]] = {}
        """The question calls' questions' texts, in order, by the call's id (each question
        has its own ``question`` and ``answer`` events)."""
        self.shells: set[Any] = set()
        """The shell calls' ids: a reader for a measure keeps their results' output."""
        # The state of the parser's parts, documented in each part's class.
        self.dedup = UsageDedup()  # UsageCounting's
        self.ids = None
        self.tasks = {}  # BackgroundEnds'
        self.polls = {}
        self.ended = set()
        self.subagents = {subagent_id(p): p for p in subagents}  # SubagentPlacing's
        self.held_sink = None
        if self.subagents and sink is not None:
            self.held_sink, self.builder.sink = sink, None
        self.agent_calls = set()
        self.launched = set()
        self.resumed = []
        # The methods as functions (called with the parser): bound methods would hold the
        # parser in a reference cycle, and a replay's thousands of parsers, each with its
        # session's records, would then wait for the collector instead of going at once.
        kind = type(self)
        self.handlers: dict[str, Callable[[_Parser, dict[str, Any]], None]] = dict(
            assistant=kind.assistant, user=kind.user, system=kind.system, attachment=kind.attachment
        )

    def unknown(self, record_type: str, raw: Any) -> None:
        self.builder.unknown(record_type, raw)

    def feed_file(self, path: str | Path) -> None:
        feed, pending, builder = self.feed, self.pending, self.builder
        if builder.sink is None:
            for line in file_lines(path):
                if line and not line.isspace():
                    feed(line)
            return
        for line in file_lines(path):
            if line and not line.isspace():
                feed(line)
                if len(pending) >= 2 * WINDOW:
                    builder.drain(len(pending) - WINDOW)

    def feed(self, line: str | bytes) -> None:
        self.lines += 1
        try:
            record = fast_loads(line)
        except ValueError:
            record = decode_line(line)
        if self.looking and not self.builder.sidechain and type(record) is dict:
            found, cwd = head_cwd(record, claude=True)
            if found:
                self.cwd, self.looking = cwd, False
        if type(record) is not dict:
            self.builder.unparsed(line_text(line))
            return
        parent = record.get("parentUuid")
        if isinstance(parent, str) and hash(parent) not in self.seen_uuids:
            # Written before its parent (the CLI appends asynchronously): hold it back.
            self.waiting.setdefault(parent, []).append(record)
            return
        self.process(record)

    def process(self, record: dict[str, Any]) -> None:
        uid = record.get("uuid")
        if isinstance(uid, str) and hash(uid) in self.seen_uuids:
            # A line written again (Claude Code writes each uuid once a session; a copy, a
            # sync or a hand edit may repeat one): its calls and results count once.
            return
        builder = self.builder
        if builder.version is None or builder.session_id is None:
            builder.ids(record.get("sessionId"), record.get("version"))
        if not (self.inherited and isinstance(uid, str) and uid in self.inherited):
            self.handle(record)
        self.processed(uid)

    def handle(self, record: dict[str, Any]) -> None:
        """The events of one record, by its type."""
        kind = record.get("type")
        if not isinstance(kind, str | None):  # an object or a list: an unknown type, named
            kind = str(kind)
        handler = self.handlers.get(kind)  # type: ignore[arg-type]
        stamp = record.get("timestamp")
        if stamp is not None and type(stamp) is not str:
            # A time that is not text (an export's epoch number): the line's events are kept,
            # without a time, and the time is counted as malformed.
            problem = TypeError(f"a timestamp that is not text: {stamp!r}"[:200])
            self.builder.malformed("timestamp", problem, stamp)
            record = {**record, "timestamp": None}
        if handler is not None:
            try:  # what builder.guarded does, without its call: this runs for every line
                handler(self, record)
            except MALFORMED as exc:
                self.builder.malformed(kind, exc, record)
        elif kind not in BOOKKEEPING:
            self.unknown(UNTYPED if kind is None else kind, record)

    def processed(self, uid: Any) -> None:
        """A record with this ``uuid`` is done: the records held back for it are processed."""
        if isinstance(uid, str):
            self.seen_uuids.add(hash(uid))
            if self.waiting and uid in self.waiting:
                for child in self.waiting.pop(uid):
                    self.process(child)

    def flush_waiting(self) -> None:
        """Records whose parent never appeared (a rewound branch, a truncated file) keep
        their file order at the end."""
        while self.waiting:
            parent = next(iter(self.waiting))
            for record in self.waiting.pop(parent):
                self.process(record)
                self.builder.maybe_drain()

    def user(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        content = message.get("content")
        if record.get("isCompactSummary"):
            self.out(ev(type="compaction", ts=ts, text=result_text(content)[:RAW_CAP]))
            return
        if isinstance(content, str):
            if not record.get("isMeta") or content.lstrip().startswith(NOTIFICATION):
                self.typed(content, ts)
            return
        if not isinstance(content, list):
            return
        denied = (
            record.get("toolDenialKind") is not None or record.get("toolUseResult") == USER_REJECTED
        )
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "tool_result":
                tool_id = block.get("tool_use_id")
                output = result_text(block.get("content"))
                structured = record.get("toolUseResult")
                agent = structured.get("agentId") if isinstance(structured, dict) else None
                if (
                    self.agent_calls
                    and isinstance(tool_id, str)
                    and tool_id in self.agent_calls
                    and not (isinstance(agent, str) and agent in self.subagents)
                ):
                    agent = self.named_subagent(output)
                if isinstance(agent, str) and agent in self.subagents:
                    # The subagent's events go just before the result of the call that ran it
                    # (one launched in the background goes on after it: merged by time).
                    self.placed(agent, structured, ts)
                failed: bool | None = bool(block.get("is_error")) and not denied
                task = structured.get("backgroundTaskId") if isinstance(structured, dict) else None
                if started_in_background(task, failed, denied):
                    failed = None  # how it ends is a later result's: its task notification
                    if isinstance(tool_id, str) and isinstance(task, str):
                        self.tasks[task] = tool_id
                result = {
                    "type": "tool_result",
                    "ts": ts,
                    "id": tool_id,
                    "output": output[:OUTPUT_CAP],
                    "isError": failed,
                    "denied": denied,
                }
                self.out(result if ts is not None and tool_id is not None else ev(**result))
                if isinstance(tool_id, str) and tool_id in self.polls and not failed and not denied:
                    self.polled(tool_id, output, structured, ts)
                if tool_id in self.questions:
                    self.answered(tool_id, structured if not denied else None, output, ts)
            elif btype == "text" and not record.get("isMeta"):
                text = str(block.get("text", ""))
                if text.startswith(INTERRUPTED):  # written by the CLI, not typed: the turn ended
                    self.out(ev(type="turn_end", ts=ts, text="aborted (interrupted by user)"))
                else:
                    self.typed(text, ts)

    def answered(self, tool_id: str, structured: Any, output: str, ts: Any) -> None:
        """An ``answer`` event for each question of a question call, in the order asked: the
        answer the result's ``answers`` holds for it (see :func:`chosen_answers`), else the
        result's text (a refused call's: ``structured`` None)."""
        asked = self.questions[tool_id]
        answers = structured.get("answers") if isinstance(structured, dict) else None
        for given in chosen_answers(asked, answers):
            self.out(ev(type="answer", ts=ts, id=tool_id, text=given or output))

    def typed(self, text: str, ts: Any) -> None:
        """A user line's text: a message, a command the CLI ran itself (``LOCAL_COMMAND``), or
        a task's notification (written by the CLI, as a string or as text blocks)."""
        if text.lstrip().startswith(NOTIFICATION):
            self.queued(text, None, ts)
        elif text.lstrip().startswith(LOCAL_COMMAND):
            self.out(ev(type="other", ts=ts, recordType=COMMAND_RECORD, text=text[:RAW_CAP]))
        else:
            self.out(ev(type="user_message", ts=ts, text=text))

    def assistant(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        model = message.get("model")
        content = message.get("content") or []
        if model == SYNTHETIC_MODEL or record.get("isApiErrorMessage"):
            said = result_text(content)
            if said.strip() == NO_RESPONSE and not record.get("isApiErrorMessage"):
                # The CLI's filler after a command that asks the model nothing: no error.
                self.out(ev(type="other", ts=ts, recordType="synthetic-reply", text=said))
                return
            self.out(ev(type="api_error", ts=ts, text=said[:RAW_CAP]))
            return
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = {
                    "type": "assistant_text",
                    "ts": ts,
                    "text": block.get("text", ""),
                    "model": model,
                }
                self.out(text if ts is not None and model is not None else ev(**text))
            elif btype in ("thinking", "redacted_thinking"):
                self.out(ev(type="thinking", ts=ts, text=block.get("thinking", "")))
            elif btype in ("tool_use", "server_tool_use"):
                self.tool_call(block, ts, record.get("cwd"), bool(record.get("isSidechain")))
            else:
                self.unknown(f"assistant/{btype}", block)
        usage = message.get("usage")
        if isinstance(usage, dict) and model:
            self.count_usage(record, message, usage, ts)

    def tool_call(self, block: dict[str, Any], ts: Any, cwd: str | None, side: bool) -> None:
        name = str(block.get("name", ""))
        raw_input = block.get("input")
        tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
        kind = claude_kind(name)
        tool_id = block.get("id")
        call = {
            "type": "tool_call",
            "ts": ts,
            "id": tool_id,
            "name": name,
            "kind": kind,
            "input": tool_input,
            "files": claude_call_files(kind, tool_input, cwd, self.cwd),
        }
        if kind == "shell" and (folder := self.shell_call(tool_id, cwd)) is not None:
            call["cwd"] = folder
        if side:
            call["sidechain"] = True
        self.out(call if ts is not None and tool_id is not None else ev(**call))
        if isinstance(tool_id, str) and (task := polled_task(name, tool_input)) is not None:
            self.polls[tool_id] = task
        if kind == "question":  # an event for each question the call asks
            asked = questions_of(tool_input)
            self.questions[str(tool_id)] = [text for text, _ in asked]
            for text, options in asked:
                self.out(ev(type="question", ts=ts, id=tool_id, text=text, options=options))
        elif kind == "skill":
            skill = tool_input.get("skill") or tool_input.get("command") or tool_input.get("name")
            self.out(ev(type="skill", ts=ts, name=str(skill)))
        elif kind == "subagent":
            label = tool_input.get("subagent_type") or tool_input.get("description")
            self.out(ev(type="subagent", ts=ts, id=tool_id, name=label))
            if self.subagents and isinstance(tool_id, str):
                self.agent_calls.add(tool_id)

    def shell_call(self, tool_id: Any, cwd: Any) -> str | None:
        """Note a shell call; the folder its line records when that is not the session's own
        (a ``cd`` of an earlier call: see ToolCall.cwd), else None."""
        self.shells.add(tool_id)
        return cwd if cwd != self.cwd and isinstance(cwd, str) and cwd else None

    def system(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        subtype = record.get("subtype")
        if subtype == "turn_duration":
            self.out(ev(type="turn_end", ts=ts, durationMs=record.get("durationMs")))
        elif subtype == "compact_boundary":
            self.out(ev(type="compaction", ts=ts, text=record.get("content")))
        elif subtype == "api_error":
            error = record.get("error") or {}
            text = error.get("message") if isinstance(error, dict) else str(error)
            self.out(ev(type="api_error", ts=ts, text=str(text)))
        elif subtype == "local_command":  # newer CLIs: the same housekeeping as a system line
            content = record.get("content")
            text = content[:RAW_CAP] if isinstance(content, str) else None
            self.out(ev(type="other", ts=ts, recordType=COMMAND_RECORD, text=text))
        elif subtype == "stop_hook_summary":
            for info in record.get("hookInfos") or []:
                command = info.get("command") if isinstance(info, dict) else None
                self.out(ev(type="hook", ts=ts, name="Stop", hookEvent="Stop", command=command))

    def attachment(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        att = record.get("attachment") or {}
        atype = str(att.get("type", ""))
        if atype.startswith("hook_"):
            self.out(hook_event(att, atype, ts))
        elif atype == "invoked_skills":
            for skill in att.get("skills") or []:
                if isinstance(skill, dict):
                    self.out(ev(type="skill", ts=ts, name=skill.get("name")))
        elif atype == "queued_command":  # a task's end, or a prompt typed while a turn ran
            self.queued(prompt_text(att.get("prompt")), att.get("commandMode"), ts)

    def finish(self) -> Trajectory:
        """Everything after the last line: held-back records, subagent files no call named,
        the rest of the window; the trajectory's events are the ones not given to a sink."""
        return self.close().finish()

    def close(self) -> TrajectoryBuilder:
        """The records held back and the subagent files no call named, parsed: the builder,
        ready to finish."""
        self.flush_waiting()
        self.place_rest()
        self.builder.coverage.lines = self.lines
        return self.builder


def parse_claude_lines(lines: Iterable[str | bytes]) -> Trajectory:
    """Parse the lines of one Claude Code session file."""
    parser = _Parser()
    for line in lines:
        if line and not line.isspace():
            parser.feed(line)
    return parser.finish()


def parse_claude_transcript(path: Path) -> Trajectory:
    """Parse one Claude Code session file (JSONL), streaming it line by line."""
    return parse_claude_session(path, ())


def parse_claude_session(
    main: Path,
    subagents: Sequence[Path] = (),
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
) -> Trajectory:
    """Parse a session file plus its subagent files into one trajectory.

    Subagent events carry ``sidechain=True`` and sit just before the result of the tool call
    that ran them (``toolUseResult.agentId``, or the ``agentId: …`` its result's text names).
    A subagent launched in the background, the events of one resumed after that result (by a
    ``SendMessage``), and a file whose caller is not found are merged in time order.

    With a ``sink``, events are handed to it in order as the files are read (holding back at
    most :data:`WINDOW` of them; all of them, for a session with subagent files, until the
    end) and the trajectory returned has no events, only usage, coverage and ids: memory then
    grows with the number of records and responses (their ids), never with the size of what
    they say. ``on_start`` is called just before the first event is handed on (the session
    id and version are known by then).
    """
    parser = _Parser(sink, subagents, on_start)
    parser.feed_file(main)
    return parser.finish()


def parse_claude_session_plain(
    main: Path, subagents: Sequence[Path] = (), inherited: frozenset[str] = frozenset()
) -> PlainTrajectory:
    """:func:`parse_claude_session` with the events left as objects (see
    :meth:`~proctor.transcripts.builder.TrajectoryBuilder.finish_plain`).

    ``inherited``: the uuids of the lines of the sessions a fork (``claude --resume
    --fork-session``) copied its history from. Claude Code copies them into the fork's file
    as they were, uuids and times included, but for the session id: they are the earlier
    session's work, so they give no events here and count no tokens (they still count as
    lines read)."""
    return plain_of(_Parser(None, subagents, inherited=inherited), main)


def plain_of(parser: _Parser, main: str | Path) -> PlainTrajectory:
    """The plain trajectory of session file ``main`` read by ``parser``, with the session's
    folder and each response counted (see :attr:`PlainTrajectory.responses`)."""
    ids: dict[Hashable, int] = {}
    parser.ids = ids
    parser.feed_file(main)
    builder = parser.close()
    plain = builder.finish_plain()
    plain.cwd = parser.cwd
    state = parser.dedup.state
    plain.responses = [
        (ids[key], bool(state[key][2]) if key in state else False, *row)
        for key, row in builder.usage_rows.items()
        if key in ids
    ]
    return plain
