"""Claude Code's native JSONL transcript → normalised trajectory.

Rules followed (see the transcript reference): assistant lines carry one content block each and
repeat ``message.id``/``requestId``/``usage``; usage is counted once per (message.id, requestId),
from the line with a ``stop_reason`` or else the largest total. Tool results ride on user lines;
a result with ``toolDenialKind`` is a denial, not an error. ``<synthetic>`` assistant messages
are API errors. Unknown record types and unparseable lines become ``other`` events and are
counted in the parse coverage.

A session may have subagent files (``<session>/subagents/agent-<id>.jsonl``):
:func:`parse_claude_session` merges them, marking their events ``sidechain`` and placing each
file's events just before the result of the ``Agent``/``Task`` call that ran it. Usage is
deduplicated across all files: the exact (message.id, requestId) key first, then message.id alone
when either copy is a sidechain (``/btw`` asides replay parent messages under a new requestId),
and a main-file copy always wins over a sidechain copy.

Token usage is counted by :mod:`proctor.transcripts.claude_usage`, which also has
:func:`claude_usage_totals`, the same totals without building events.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.trajectory import ParseCoverage, Trajectory
from proctor.transcripts.claude_usage import (
    UsageDedup,
    UsageKey,
    claude_usage_totals,
    decode_line,
    fast_loads,
    line_text,
    usage_by_model,
)
from proctor.transcripts.kinds import claude_kind, touched_files

__all__ = [
    "EventDict",
    "EventSink",
    "StartHook",
    "claude_usage_totals",
    "parse_claude_lines",
    "parse_claude_session",
    "parse_claude_transcript",
]

BOOKKEEPING = frozenset(
    {
        "summary",
        "queue-operation",
        "file-history-snapshot",
        "file-history-delta",
        "custom-title",
        "ai-title",
        "agent-name",
        "tag",
        "last-prompt",
        "mode",
        "permission-mode",
        "agent-setting",
        "pr-link",
        "worktree-state",
        "relocated",
        "bridge-session",
        "atis-latch",
        "progress",
    }
)
OUTPUT_CAP = 20_000
RAW_CAP = 2000


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


EventDict = dict[str, Any]
"""One event as the JSON object written to ``trajectory.jsonl`` (camelCase keys, no nulls)."""
EventSink = Callable[[EventDict], None]
StartHook = Callable[[str | None, str | None], None]
"""Called once, before a streaming parse's first event, with the session id and CLI version."""
WINDOW = 256
"""Events a streaming parse holds back, so that a usage event can still take a better line."""
CHUNK = 1 << 20


def _ev(**fields: Any) -> EventDict:
    return {k: v for k, v in fields.items() if v is not None}


class _Parser:
    """One pass over a session's records, emitting event dicts in trajectory order.

    Without a sink every event is kept in ``pending`` (the in-memory parse). With a sink, all
    but the last :data:`WINDOW` events are handed to it as the parse goes, so memory stays flat
    however large the file is.
    """

    def __init__(
        self,
        sink: EventSink | None = None,
        subagents: Sequence[Path] = (),
        on_start: StartHook | None = None,
    ) -> None:
        self.sink = sink
        self.on_start = on_start
        self.pending: list[EventDict] = []
        self.out: Callable[[EventDict], None] = self.pending.append
        """Where an event goes: appended to ``pending`` (marked as a sidechain inside a
        subagent file); the feeding loops hand the oldest on to the sink."""
        self.lines = 0
        self.seen_uuids: set[int] = set()
        """Hashes of the uuids of the records processed (a few dozen bytes each)."""
        self.waiting: dict[str, list[dict[str, Any]]] = {}
        self.coverage = ParseCoverage()
        self.dedup = UsageDedup()
        self.usage_rows: dict[UsageKey, tuple[str, int, int, int, int]] = {}
        """The kept numbers of every response, for the totals."""
        self.usage_events: dict[UsageKey, EventDict] = {}
        """The usage event of each response not handed on yet."""
        self.handed_on = 0
        self.open_usage: deque[tuple[int, UsageKey]] = deque()
        """(place, key) of the usage events not handed on yet, oldest first."""
        """Events given to the sink so far; those are never changed afterwards."""
        self.session_id: str | None = None
        self.version: str | None = None
        self.questions: dict[str, str] = {}
        self.force_sidechain = False
        self.subagents: dict[str, Path] = {subagent_id(p): p for p in subagents}
        """Subagent files not parsed yet, by agent id."""
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "assistant": self.assistant,
            "user": self.user,
            "system": self.system,
            "attachment": self.attachment,
        }

    def out_sidechain(self, event: EventDict) -> None:
        event["sidechain"] = True
        self.pending.append(event)

    def maybe_drain(self) -> None:
        """Hand on all but the last :data:`WINDOW` events once twice that many are held."""
        if self.sink is not None and len(self.pending) >= 2 * WINDOW:
            self.drain(len(self.pending) - WINDOW)

    def drain(self, count: int) -> None:
        sink = self.sink
        assert sink is not None
        if self.on_start is not None:
            self.on_start(self.session_id, self.version)
            self.on_start = None
        for event in self.pending[:count]:
            sink(event)
        del self.pending[:count]
        self.handed_on += count
        open_usage = self.open_usage
        while open_usage and open_usage[0][0] < self.handed_on:
            del self.usage_events[open_usage.popleft()[1]]

    def unknown(self, record_type: str, raw: Any) -> None:
        counts = self.coverage.unknown_record_types
        counts[record_type] = counts.get(record_type, 0) + 1
        self.out({"type": "other", "recordType": record_type, "raw": raw})

    def feed_file(self, path: Path) -> None:
        feed, pending, streaming = self.feed, self.pending, self.sink is not None
        for line in _file_lines(path):
            if line and not line.isspace():
                feed(line)
                if streaming and len(pending) >= 2 * WINDOW:
                    self.drain(len(pending) - WINDOW)

    def feed(self, line: str | bytes) -> None:
        self.lines += 1
        try:
            record = fast_loads(line)
        except ValueError:
            record = decode_line(line)
        if type(record) is not dict:
            self.coverage.unparsed_lines += 1
            raw = line_text(line)[:RAW_CAP]
            self.out({"type": "other", "recordType": "unparsed", "raw": raw})
            return
        parent = record.get("parentUuid")
        if isinstance(parent, str) and hash(parent) not in self.seen_uuids:
            # Written before its parent (the CLI appends asynchronously): hold it back.
            self.waiting.setdefault(parent, []).append(record)
            return
        self.process(record)

    def process(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.version is None or self.session_id is None:
            self.session_id = self.session_id or record.get("sessionId")
            self.version = self.version or record.get("version")
        handler = self.handlers.get(kind)  # type: ignore[arg-type]
        if handler is not None:
            handler(record)
        elif kind not in BOOKKEEPING:
            self.unknown(str(kind), record)
        uid = record.get("uuid")
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
                self.maybe_drain()

    def subagent(self, agent: str) -> None:
        """Parse subagent file ``agent`` here, its events marked as a sidechain."""
        path = self.subagents.pop(agent)
        outer, outer_out, outer_waiting = self.force_sidechain, self.out, self.waiting
        self.force_sidechain, self.out, self.waiting = True, self.out_sidechain, {}
        try:
            self.feed_file(path)
            self.flush_waiting()  # its records whose parent never came: still the subagent's
        finally:
            self.force_sidechain, self.out, self.waiting = outer, outer_out, outer_waiting

    def user(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        content = message.get("content")
        if record.get("isCompactSummary"):
            self.out(_ev(type="compaction", ts=ts, text=_text_of(content)[:RAW_CAP]))
            return
        if isinstance(content, str):
            if not record.get("isMeta"):
                self.out(_ev(type="user_message", ts=ts, text=content))
            return
        if not isinstance(content, list):
            return
        denied = record.get("toolDenialKind") is not None
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "tool_result":
                tool_id = block.get("tool_use_id")
                output = _text_of(block.get("content"))
                structured = record.get("toolUseResult")
                if isinstance(structured, dict):
                    agent = structured.get("agentId")
                    if isinstance(agent, str) and agent in self.subagents:
                        # The subagent's events go just before the result of the call that ran it.
                        self.subagent(agent)
                result = {
                    "type": "tool_result",
                    "ts": ts,
                    "id": tool_id,
                    "output": output[:OUTPUT_CAP],
                    "isError": bool(block.get("is_error")) and not denied,
                    "denied": denied,
                }
                self.out(result if ts is not None and tool_id is not None else _ev(**result))
                if tool_id in self.questions:
                    answers = (structured or {}) if not denied else {}
                    text = None
                    if isinstance(answers, dict) and isinstance(answers.get("answers"), dict):
                        text = next(iter(answers["answers"].values()), None)
                    self.out(_ev(type="answer", ts=ts, id=tool_id, text=text or output))
            elif btype == "text" and not record.get("isMeta"):
                self.out(_ev(type="user_message", ts=ts, text=block.get("text", "")))

    def assistant(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        model = message.get("model")
        content = message.get("content") or []
        if model == "<synthetic>" or record.get("isApiErrorMessage"):
            self.out(_ev(type="api_error", ts=ts, text=_text_of(content)[:RAW_CAP]))
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
                self.out(text if ts is not None and model is not None else _ev(**text))
            elif btype in ("thinking", "redacted_thinking"):
                self.out(_ev(type="thinking", ts=ts, text=block.get("thinking", "")))
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
            "files": touched_files(tool_input, cwd),
        }
        if side:
            call["sidechain"] = True
        self.out(call if ts is not None and tool_id is not None else _ev(**call))
        if kind == "question":
            questions = tool_input.get("questions") or [{}]
            first = questions[0] if isinstance(questions[0], dict) else {}
            options = [str(o.get("label", o)) for o in first.get("options", []) if o]
            text = str(first.get("question", ""))
            self.questions[str(tool_id)] = text
            self.out(_ev(type="question", ts=ts, id=tool_id, text=text, options=options))
        elif kind == "skill":
            skill = tool_input.get("skill") or tool_input.get("command") or tool_input.get("name")
            self.out(_ev(type="skill", ts=ts, name=str(skill)))
        elif kind == "subagent":
            label = tool_input.get("subagent_type") or tool_input.get("description")
            self.out(_ev(type="subagent", ts=ts, id=tool_id, name=label))

    def count_usage(
        self, record: dict[str, Any], message: dict[str, Any], usage: dict[str, Any], ts: Any
    ) -> None:
        side = self.force_sidechain or bool(record.get("isSidechain"))
        final = message.get("stop_reason") is not None
        inp = int(usage.get("input_tokens") or 0)
        out = int(usage.get("output_tokens") or 0)
        read = int(usage.get("cache_read_input_tokens") or 0)
        write = int(usage.get("cache_creation_input_tokens") or 0)
        key, keep, new = self.dedup.offer(
            str(message.get("id")), record.get("requestId"), final, inp + out + read + write, side
        )
        if not keep:
            return
        model = sys.intern(str(message.get("model")))
        tokens: EventDict = {
            "model": model,
            "inputTokens": inp,
            "outputTokens": out,
            "cacheReadTokens": read,
            "cacheWriteTokens": write,
        }
        if new:
            event = (
                {"type": "usage", "ts": ts, **tokens}
                if ts is not None
                else {"type": "usage", **tokens}
            )
            place = self.handed_on + len(self.pending)
            self.usage_events[key] = event
            if self.sink is not None:
                self.open_usage.append((place, key))
            self.out(event)
        else:
            # A better line for a response already counted: the event keeps its first place
            # (and, once a streaming parse has handed it on, its first numbers; the totals
            # always take the better line).
            held = self.usage_events.get(key)
            if held is not None:
                held.update(tokens)
        self.usage_rows[key] = (model, inp, out, read, write)

    def system(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        subtype = record.get("subtype")
        if subtype == "turn_duration":
            self.out(_ev(type="turn_end", ts=ts, durationMs=record.get("durationMs")))
        elif subtype == "compact_boundary":
            self.out(_ev(type="compaction", ts=ts, text=record.get("content")))
        elif subtype == "api_error":
            error = record.get("error") or {}
            text = error.get("message") if isinstance(error, dict) else str(error)
            self.out(_ev(type="api_error", ts=ts, text=str(text)))
        elif subtype == "stop_hook_summary":
            for info in record.get("hookInfos") or []:
                command = info.get("command") if isinstance(info, dict) else None
                self.out(_ev(type="hook", ts=ts, name="Stop", hookEvent="Stop", command=command))

    def attachment(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        att = record.get("attachment") or {}
        atype = str(att.get("type", ""))
        if atype.startswith("hook_"):
            self.out(
                _ev(
                    type="hook",
                    ts=ts,
                    name=att.get("hookName"),
                    hookEvent=att.get("hookEvent"),
                    command=att.get("command"),
                    exitCode=att.get("exitCode"),
                    id=att.get("toolUseID"),
                    isError=atype != "hook_success" or None,
                )
            )
        elif atype == "invoked_skills":
            for skill in att.get("skills") or []:
                if isinstance(skill, dict):
                    self.out(_ev(type="skill", ts=ts, name=skill.get("name")))

    def finish(self) -> Trajectory:
        """Everything after the last line: held-back records, subagent files no call named,
        the rest of the window; the trajectory's events are the ones not given to a sink."""
        self.flush_waiting()
        while self.subagents:  # a nested one may be parsed (and removed) by its caller
            self.subagent(next(iter(self.subagents)))
        if self.sink is not None:
            self.drain(len(self.pending))
        self.coverage.lines = self.lines
        usage = usage_by_model(self.usage_rows.values())
        return Trajectory.model_validate(
            {
                "format": "claude-code",
                "events": self.pending,
                "usage": usage,
                "coverage": self.coverage,
                "sessionId": self.session_id,
                "agentVersion": self.version,
            }
        )


def _file_lines(path: Path) -> Iterator[bytes]:
    """The lines of a file, read a megabyte at a time (a line may span many chunks).

    A file that cannot be opened or read is a :class:`~proctor.errors.ConfigError` naming it;
    errors of whoever consumes the lines pass through untouched.
    """
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size <= CHUNK:
                yield from fh.read().split(b"\n")
                return
            parts: list[bytes] = []
            while chunk := fh.read(CHUNK):
                if b"\n" not in chunk:
                    parts.append(chunk)
                    continue
                if parts:
                    parts.append(chunk)
                    chunk = b"".join(parts)
                lines = chunk.split(b"\n")
                tail = lines.pop()
                parts = [tail] if tail else []
                yield from lines
            if parts:
                yield b"".join(parts)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


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


def subagent_id(path: Path) -> str:
    """``abc`` for ``agent-abc.jsonl``."""
    stem = path.name.removesuffix(".jsonl")
    return stem.removeprefix("agent-")


def parse_claude_session(
    main: Path,
    subagents: Sequence[Path] = (),
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
) -> Trajectory:
    """Parse a session file plus its subagent files into one trajectory.

    Subagent events carry ``sidechain=True`` and sit just before the result of the tool call
    that ran them (``toolUseResult.agentId``); a file whose caller is not found goes last.

    With a ``sink``, events are handed to it in order as the files are read (holding back at
    most :data:`WINDOW` of them) and the trajectory returned has no events, only usage,
    coverage and ids: memory then grows with the number of records and responses (their ids),
    never with the size of what they say. ``on_start`` is called just before the first event
    is handed on (the session id and version are known by then).
    """
    parser = _Parser(sink, subagents, on_start)
    parser.feed_file(main)
    return parser.finish()
