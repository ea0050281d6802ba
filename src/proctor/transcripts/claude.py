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

:func:`claude_usage_totals` computes the same token totals without building events, for large
stores: it decodes only lines that can carry usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Event, ModelUsage, ParseCoverage, Trajectory
from proctor.transcripts.kinds import claude_kind, touched_files

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
UsageKey = tuple[str, str | None]


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


def _usage_total(usage: dict[str, Any]) -> int:
    return (
        int(usage.get("input_tokens") or 0)
        + int(usage.get("output_tokens") or 0)
        + int(usage.get("cache_creation_input_tokens") or 0)
        + int(usage.get("cache_read_input_tokens") or 0)
    )


def usage_by_model(rows: Iterable[tuple[str, int, int, int, int]]) -> dict[str, ModelUsage]:
    """Sum (model, input, output, cache read, cache write) rows, one row per response."""
    sums: dict[str, list[int]] = {}
    for model, inp, out, read, write in rows:
        acc = sums.setdefault(model, [0, 0, 0, 0, 0])
        acc[0] += inp
        acc[1] += out
        acc[2] += read
        acc[3] += write
        acc[4] += 1
    return {
        model: ModelUsage(
            input_tokens=inp,
            output_tokens=out,
            cache_read_tokens=read,
            cache_write_tokens=write,
            responses=responses,
        )
        for model, (inp, out, read, write, responses) in sums.items()
    }


_loads: Callable[[str | bytes], Any]
try:
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib is the fallback
    _loads = json.loads


def _decode(line: str | bytes) -> Any:
    """The JSON value of one line, or None when it is not JSON (bad bytes included)."""
    try:
        return _loads(line)
    except ValueError:
        pass
    try:  # the stdlib also accepts lone surrogates (an emoji cut in half), orjson does not
        return json.loads(line)
    except ValueError:
        return None


def _as_text(line: str | bytes) -> str:
    return line if isinstance(line, str) else line.decode("utf-8", errors="replace")


class UsageDedup:
    """One usage per model response across every file of a session (ccusage's rules).

    ``offer`` answers whether a line's usage should be kept, given what was kept before for the
    same response; it stores the state, callers store the numbers.
    """

    def __init__(self) -> None:
        self.state: dict[UsageKey, tuple[bool, int, bool]] = {}
        self.first_key: dict[str, UsageKey] = {}

    def key_for(self, message_id: str, request_id: str | None, side: bool) -> UsageKey:
        exact = (message_id, request_id)
        if exact in self.state:
            return exact
        other = self.first_key.get(message_id)
        if other is not None and (side or self.state[other][2]):
            return other
        return exact

    def offer(self, key: UsageKey, final: bool, total: int, side: bool) -> tuple[bool, bool]:
        """(keep, is_new) for a line: has it a ``stop_reason``, its total, is it a sidechain."""
        existing = self.state.get(key)
        if existing is not None:
            was_final, was_total, was_side = existing
            if side and not was_side:
                return False, False
            better = (
                (was_side and not side)
                or (not was_final and final)
                or (final == was_final and total > was_total)
            )
            if not better:
                return False, False
        self.state[key] = (final, total, side)
        self.first_key.setdefault(key[0], key)
        return True, existing is None


class _Parser:
    def __init__(self) -> None:
        self.lines = 0
        self.seen_uuids: set[str] = set()
        self.waiting: dict[str, list[dict[str, Any]]] = {}
        self.events: list[Event] = []
        self.coverage = ParseCoverage()
        self.dedup = UsageDedup()
        self.usage_events: dict[UsageKey, Event] = {}
        self.usage_slots: dict[UsageKey, tuple[list[Event], int]] = {}
        self.session_id: str | None = None
        self.version: str | None = None
        self.questions: dict[str, str] = {}
        self.force_sidechain = False
        self.agent_results: dict[str, Event] = {}
        """Result event of the Agent/Task call that ran subagent ``agentId``."""

    def unknown(self, record_type: str, raw: Any) -> None:
        counts = self.coverage.unknown_record_types
        counts[record_type] = counts.get(record_type, 0) + 1
        self.events.append(Event(type="other", record_type=record_type, raw=raw))

    def feed(self, line: str | bytes) -> None:
        self.lines += 1
        record = _decode(line)
        if not isinstance(record, dict):
            self.coverage.unparsed_lines += 1
            raw = _as_text(line)[:RAW_CAP]
            self.events.append(Event(type="other", record_type="unparsed", raw=raw))
            return
        parent = record.get("parentUuid")
        if isinstance(parent, str) and parent not in self.seen_uuids:
            # Written before its parent (the CLI appends asynchronously): hold it back.
            self.waiting.setdefault(parent, []).append(record)
            return
        self.process(record)

    def process(self, record: dict[str, Any]) -> None:
        self.dispatch(record)
        uid = record.get("uuid")
        if isinstance(uid, str):
            self.seen_uuids.add(uid)
            for child in self.waiting.pop(uid, []):
                self.process(child)

    def flush_waiting(self) -> None:
        """Records whose parent never appeared (a rewound branch, a truncated file) keep
        their file order at the end."""
        while self.waiting:
            parent = next(iter(self.waiting))
            for record in self.waiting.pop(parent):
                self.process(record)

    def dispatch(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if self.session_id is None:
            self.session_id = record.get("sessionId")
        if self.version is None:
            self.version = record.get("version")
        if kind == "assistant":
            self.assistant(record)
        elif kind == "user":
            self.user(record)
        elif kind == "system":
            self.system(record)
        elif kind == "attachment":
            self.attachment(record)
        elif kind in BOOKKEEPING:
            return
        else:
            self.unknown(str(kind), record)

    def user(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        content = message.get("content")
        if record.get("isCompactSummary"):
            self.events.append(Event(type="compaction", ts=ts, text=_text_of(content)[:RAW_CAP]))
            return
        if isinstance(content, str):
            if not record.get("isMeta"):
                self.events.append(Event(type="user_message", ts=ts, text=content))
            return
        if not isinstance(content, list):
            return
        denied = record.get("toolDenialKind") is not None
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                tool_id = block.get("tool_use_id")
                output = _text_of(block.get("content"))
                result = Event(
                    type="tool_result",
                    ts=ts,
                    id=tool_id,
                    output=output[:OUTPUT_CAP],
                    is_error=bool(block.get("is_error")) and not denied,
                    denied=denied,
                )
                self.events.append(result)
                structured = record.get("toolUseResult")
                if isinstance(structured, dict) and isinstance(structured.get("agentId"), str):
                    self.agent_results.setdefault(structured["agentId"], result)
                if tool_id in self.questions:
                    answers = (structured or {}) if not denied else {}
                    text = None
                    if isinstance(answers, dict) and isinstance(answers.get("answers"), dict):
                        text = next(iter(answers["answers"].values()), None)
                    self.events.append(Event(type="answer", ts=ts, id=tool_id, text=text or output))
            elif block.get("type") == "text" and not record.get("isMeta"):
                self.events.append(Event(type="user_message", ts=ts, text=block.get("text", "")))

    def assistant(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        message = record.get("message") or {}
        model = message.get("model")
        content = message.get("content") or []
        sidechain = bool(record.get("isSidechain")) or None
        if model == "<synthetic>" or record.get("isApiErrorMessage"):
            self.events.append(Event(type="api_error", ts=ts, text=_text_of(content)[:RAW_CAP]))
            return
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = block.get("text", "")
                self.events.append(Event(type="assistant_text", ts=ts, text=text, model=model))
            elif btype in ("thinking", "redacted_thinking"):
                self.events.append(Event(type="thinking", ts=ts, text=block.get("thinking", "")))
            elif btype in ("tool_use", "server_tool_use"):
                self.tool_call(block, ts, record.get("cwd"), sidechain)
            else:
                self.unknown(f"assistant/{btype}", block)
        usage = message.get("usage")
        if isinstance(usage, dict) and model:
            self.count_usage(record, message, usage, ts)

    def tool_call(self, block: dict[str, Any], ts: Any, cwd: str | None, side: bool | None) -> None:
        name = str(block.get("name", ""))
        raw_input = block.get("input")
        tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
        kind = claude_kind(name)
        self.events.append(
            Event(
                type="tool_call",
                ts=ts,
                id=block.get("id"),
                name=name,
                kind=kind,
                input=tool_input,
                files=touched_files(tool_input, cwd),
                sidechain=side,
            )
        )
        if kind == "question":
            questions = tool_input.get("questions") or [{}]
            first = questions[0] if isinstance(questions[0], dict) else {}
            options = [str(o.get("label", o)) for o in first.get("options", []) if o]
            text = str(first.get("question", ""))
            self.questions[str(block.get("id"))] = text
            self.events.append(
                Event(type="question", ts=ts, id=block.get("id"), text=text, options=options)
            )
        elif kind == "skill":
            skill = tool_input.get("skill") or tool_input.get("command") or tool_input.get("name")
            self.events.append(Event(type="skill", ts=ts, name=str(skill)))
        elif kind == "subagent":
            label = tool_input.get("subagent_type") or tool_input.get("description")
            self.events.append(Event(type="subagent", ts=ts, id=block.get("id"), name=label))

    def count_usage(
        self, record: dict[str, Any], message: dict[str, Any], usage: dict[str, Any], ts: Any
    ) -> None:
        side = self.force_sidechain or bool(record.get("isSidechain"))
        key = self.dedup.key_for(str(message.get("id")), record.get("requestId"), side)
        final = message.get("stop_reason") is not None
        keep, new = self.dedup.offer(key, final, _usage_total(usage), side)
        if not keep:
            return
        slot = None if new else self.usage_slots[key]
        event = Event(
            type="usage",
            ts=ts if slot is None else slot[0][slot[1]].ts,
            model=str(message.get("model")),
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        )
        if slot is None:
            self.usage_slots[key] = (self.events, len(self.events))
            self.events.append(event)
        else:
            # A better line for a response already counted: the event keeps its first place.
            slot[0][slot[1]] = event
        self.usage_events[key] = event

    def system(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        subtype = record.get("subtype")
        if subtype == "turn_duration":
            self.events.append(Event(type="turn_end", ts=ts, duration_ms=record.get("durationMs")))
        elif subtype == "compact_boundary":
            self.events.append(Event(type="compaction", ts=ts, text=record.get("content")))
        elif subtype == "api_error":
            error = record.get("error") or {}
            text = error.get("message") if isinstance(error, dict) else str(error)
            self.events.append(Event(type="api_error", ts=ts, text=str(text)))
        elif subtype == "stop_hook_summary":
            for info in record.get("hookInfos") or []:
                self.events.append(
                    Event(
                        type="hook",
                        ts=ts,
                        name="Stop",
                        hook_event="Stop",
                        command=info.get("command") if isinstance(info, dict) else None,
                    )
                )

    def attachment(self, record: dict[str, Any]) -> None:
        ts = record.get("timestamp")
        att = record.get("attachment") or {}
        atype = str(att.get("type", ""))
        if atype.startswith("hook_"):
            self.events.append(
                Event(
                    type="hook",
                    ts=ts,
                    name=att.get("hookName"),
                    hook_event=att.get("hookEvent"),
                    command=att.get("command"),
                    exit_code=att.get("exitCode"),
                    id=att.get("toolUseID"),
                    is_error=atype != "hook_success" or None,
                )
            )
        elif atype == "invoked_skills":
            for skill in att.get("skills") or []:
                if isinstance(skill, dict):
                    self.events.append(Event(type="skill", ts=ts, name=skill.get("name")))

    def result(self, fmt: str) -> Trajectory:
        self.flush_waiting()
        self.coverage.lines = self.lines
        usage = usage_by_model(
            (
                e.model or "unknown",
                e.input_tokens or 0,
                e.output_tokens or 0,
                e.cache_read_tokens or 0,
                e.cache_write_tokens or 0,
            )
            for e in self.usage_events.values()
        )
        return Trajectory(
            format=fmt,
            events=self.events,
            usage=usage,
            coverage=self.coverage,
            session_id=self.session_id,
            agent_version=self.version,
        )


def parse_claude_lines(lines: Iterable[str | bytes]) -> Trajectory:
    """Parse the lines of one Claude Code session file."""
    parser = _Parser()
    for line in lines:
        if line and not line.isspace():
            parser.feed(line)
    return parser.result("claude-code")


def parse_claude_transcript(path: Path) -> Trajectory:
    """Parse one Claude Code session file (JSONL), streaming it line by line."""
    return parse_claude_session(path, ())


def _feed_file(parser: _Parser, path: Path) -> None:
    with open(path, "rb") as fh:
        for line in fh:
            if line and not line.isspace():
                parser.feed(line)


def subagent_id(path: Path) -> str:
    """``abc`` for ``agent-abc.jsonl``."""
    stem = path.name.removesuffix(".jsonl")
    return stem.removeprefix("agent-")


def parse_claude_session(main: Path, subagents: Sequence[Path] = ()) -> Trajectory:
    """Parse a session file plus its subagent files into one trajectory.

    Subagent events carry ``sidechain=True`` and sit just before the result of the tool call
    that ran them (``toolUseResult.agentId``); a file whose caller is not found goes last.
    """
    parser = _Parser()
    _feed_file(parser, main)
    if not subagents:
        return parser.result("claude-code")
    main_events = parser.events
    blocks: dict[str, list[Event]] = {}
    order: list[str] = []
    parser.force_sidechain = True
    for path in subagents:
        parser.events = []
        _feed_file(parser, path)
        for event in parser.events:
            event.sidechain = True
        agent = subagent_id(path)
        blocks[agent] = parser.events
        order.append(agent)
    anchors = {id(event): agent for agent, event in parser.agent_results.items()}
    merged: list[Event] = []

    def emit(events: list[Event]) -> None:
        for event in events:
            agent = anchors.get(id(event))
            if agent is not None and agent in blocks:
                emit(blocks.pop(agent))
            merged.append(event)

    emit(main_events)
    for agent in order:
        if agent in blocks:
            emit(blocks.pop(agent))
    parser.events = merged
    return parser.result("claude-code")


def _lines_with_usage(path: Path) -> Iterable[bytes]:
    with open(path, "rb") as fh:
        for line in fh:
            if b'"usage"' in line and b'"assistant"' in line:
                yield line


def claude_usage_totals(*paths: Path) -> dict[str, ModelUsage]:
    """Token totals per model of one or more Claude Code files, without building events.

    Gives the same numbers as the ``usage`` of :func:`parse_claude_session` over the same files
    (the first path is the main file; the others are treated as sidechains), streaming each file
    and decoding only lines that contain both ``"usage"`` and ``"assistant"``. Memory grows with
    the number of distinct model responses, not with file size.
    """
    dedup = UsageDedup()
    kept: dict[UsageKey, tuple[str, int, int, int, int]] = {}
    for index, path in enumerate(paths):
        for line in _lines_with_usage(path):
            record = _decode(line)
            if not isinstance(record, dict) or record.get("type") != "assistant":
                continue
            message = record.get("message")
            if not isinstance(message, dict):
                continue
            usage = message.get("usage")
            model = message.get("model")
            if not isinstance(usage, dict) or not model:
                continue
            if model == "<synthetic>" or record.get("isApiErrorMessage"):
                continue
            side = index > 0 or bool(record.get("isSidechain"))
            key = dedup.key_for(str(message.get("id")), record.get("requestId"), side)
            final = message.get("stop_reason") is not None
            keep, _ = dedup.offer(key, final, _usage_total(usage), side)
            if keep:
                kept[key] = (
                    str(model),
                    int(usage.get("input_tokens") or 0),
                    int(usage.get("output_tokens") or 0),
                    int(usage.get("cache_read_input_tokens") or 0),
                    int(usage.get("cache_creation_input_tokens") or 0),
                )
    return usage_by_model(kept.values())
