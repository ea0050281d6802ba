"""Claude Code's native JSONL transcript → normalised trajectory.

Rules followed (see the transcript reference): assistant lines carry one content block each and
repeat ``message.id``/``requestId``/``usage``; usage is counted once per (message.id, requestId),
from the line with a ``stop_reason`` or else the largest total. Tool results ride on user lines;
a result with ``toolDenialKind`` is a denial, not an error. ``<synthetic>`` assistant messages
are API errors. Unknown record types and unparseable lines become ``other`` events and are
counted in the parse coverage.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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
    return sum(
        int(usage.get(k) or 0)
        for k in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        )
    )


class _Parser:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.coverage = ParseCoverage()
        self.usage_events: dict[tuple[str, str | None], tuple[Event, bool, int, bool]] = {}
        self.session_id: str | None = None
        self.version: str | None = None
        self.questions: dict[str, str] = {}

    def unknown(self, record_type: str, raw: Any) -> None:
        counts = self.coverage.unknown_record_types
        counts[record_type] = counts.get(record_type, 0) + 1
        self.events.append(Event(type="other", record_type=record_type, raw=raw))

    def feed(self, line: str) -> None:
        self.coverage.lines += 1
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            self.coverage.unparsed_lines += 1
            self.events.append(Event(type="other", record_type="unparsed", raw=line[:2000]))
            return
        if not isinstance(record, dict):
            self.coverage.unparsed_lines += 1
            self.events.append(Event(type="other", record_type="unparsed", raw=line[:2000]))
            return
        kind = record.get("type")
        self.session_id = self.session_id or record.get("sessionId")
        self.version = self.version or record.get("version")
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
            self.events.append(Event(type="compaction", ts=ts, text=_text_of(content)[:2000]))
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
                self.events.append(
                    Event(
                        type="tool_result",
                        ts=ts,
                        id=tool_id,
                        output=output[:OUTPUT_CAP],
                        is_error=bool(block.get("is_error")) and not denied,
                        denied=denied,
                    )
                )
                if tool_id in self.questions:
                    answers = (record.get("toolUseResult") or {}) if not denied else {}
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
            self.events.append(Event(type="api_error", ts=ts, text=_text_of(content)[:2000]))
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
        tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
        assert isinstance(tool_input, dict)
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
        key = (str(message.get("id")), record.get("requestId"))
        final = message.get("stop_reason") is not None
        total = _usage_total(usage)
        side = bool(record.get("isSidechain"))
        existing = self.usage_events.get(key)
        if existing is not None:
            event, was_final, was_total, was_side = existing
            better = (
                (was_side and not side)
                or (not was_final and final)
                or (final == was_final and total > was_total)
            )
            if not better:
                return
        else:
            event = Event(type="usage", ts=ts)
            self.events.append(event)
        event.model = str(message.get("model"))
        event.input_tokens = int(usage.get("input_tokens") or 0)
        event.output_tokens = int(usage.get("output_tokens") or 0)
        event.cache_read_tokens = int(usage.get("cache_read_input_tokens") or 0)
        event.cache_write_tokens = int(usage.get("cache_creation_input_tokens") or 0)
        self.usage_events[key] = (event, final, total, side)

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
        usage: dict[str, ModelUsage] = {}
        for event, *_ in self.usage_events.values():
            model = event.model or "unknown"
            usage.setdefault(model, ModelUsage()).add(
                ModelUsage(
                    input_tokens=event.input_tokens or 0,
                    output_tokens=event.output_tokens or 0,
                    cache_read_tokens=event.cache_read_tokens or 0,
                    cache_write_tokens=event.cache_write_tokens or 0,
                    responses=1,
                )
            )
        return Trajectory(
            format=fmt,
            events=self.events,
            usage=usage,
            coverage=self.coverage,
            session_id=self.session_id,
            agent_version=self.version,
        )


def parse_claude_lines(lines: Iterable[str]) -> Trajectory:
    parser = _Parser()
    for line in lines:
        if line.strip():
            parser.feed(line)
    return parser.result("claude-code")


def parse_claude_transcript(path: Path) -> Trajectory:
    """Parse one Claude Code session file (JSONL)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        return parse_claude_lines(fh)
