"""Gemini CLI chat recording → normalised trajectory.

The chat file is ``~/.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl`` (Gemini CLI 0.61):
line 1 is a session header ``{sessionId, projectHash, startTime, lastUpdated, kind}``, then one
message record per line ``{id, timestamp, type: user|gemini|info|error|warning, content, …}``.
A record whose ``id`` was seen before replaces it in place (last write wins, position of first
appearance), ``{"$set": {...}}`` updates metadata (a ``messages`` list replaces the messages so
far) and ``{"$rewindTo": id}`` drops that message and every later one, as Gemini CLI's own loader
does. The older single-document ``session-*.json`` (``{sessionId, …, messages: [...]}``) is read
too.

A ``gemini`` message gives ``thinking`` (from ``thoughts``), ``assistant_text``, one
``tool_call`` per ``toolCalls`` entry followed by its ``tool_result`` (the call and its result
share the entry; a call still pending has no result) and one ``usage`` event from ``tokens``.
``isError`` is ``status == "error"``, or a shell output whose ``Exit Code:`` is not 0 (the
status stays ``success`` then). ``cancelled`` (the user refused) and policy refusals are
denials. ``error`` messages are ``api_error``; ``info`` and ``warning`` are known ``other``
events.

Tokens: Gemini's ``input`` (promptTokenCount) includes ``cached`` and excludes ``tool``
(toolUsePromptTokenCount); ``output`` (candidates) excludes ``thoughts``. So ``inputTokens =
input - cached + tool``, ``cacheReadTokens = cached``, ``outputTokens = output + thoughts``,
``cacheWriteTokens = 0`` (as ccusage counts them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Event, ModelUsage, ParseCoverage, Trajectory
from proctor.transcripts.codex_shapes import MALFORMED
from proctor.transcripts.kinds import gemini_kind, relativise, shell_files, touched_files

OUTPUT_CAP = 20_000
TEXT_CAP = 2000
MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)", re.M)
DENIAL_MARKERS = (
    "denied by policy",
    "user did not allow tool call",
    "requires user confirmation",
    "user cancelled",
)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parts_text(content: Any) -> str:
    """Text of a ``PartListUnion``: a string, one part or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    texts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
        ):
            texts.append(part["text"])
    return "\n".join(texts)


def result_text(result: Any, display: Any) -> str:
    """What the tool returned: ``functionResponse.response`` output/error, else the display."""
    texts = []
    parts = [result] if isinstance(result, dict) else result
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        response = (part.get("functionResponse") or {}).get("response")
        if isinstance(response, dict):
            value = response.get("output", response.get("error", response.get("llmContent")))
            texts.append(value if isinstance(value, str) else json.dumps(response))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    if not texts and isinstance(display, str):
        texts.append(display)
    return "\n".join(texts)


def gemini_usage(tokens: dict[str, Any]) -> tuple[int, int, int]:
    """(input, output, cache read) with cached tokens taken out of the input."""
    cached = _int(tokens.get("cached"))
    prompt = _int(tokens.get("input"))
    inputs = prompt - min(cached, prompt) + _int(tokens.get("tool"))
    return inputs, _int(tokens.get("output")) + _int(tokens.get("thoughts")), cached


#: User records the CLI injects itself (context, reminders), not typed by the user.
HARNESS_PREFIXES = ("<session_context>", "<system-reminder>", "<environment_context>")


class _Parser:
    def __init__(self, cwd: str | None = None) -> None:
        self.coverage = ParseCoverage()
        self.slots: dict[str, dict[str, Any]] = {}
        """Records in order: ``m:<id>`` for messages, ``#<n>`` for unknown or broken lines."""
        self.session_id: str | None = None
        self.cwd = cwd
        self.extra = 0

    def slot(self, record: dict[str, Any]) -> None:
        self.extra += 1
        self.slots[f"#{self.extra}"] = record

    def feed(self, line: str | bytes) -> None:
        self.coverage.lines += 1
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            self.coverage.unparsed_lines += 1
            text = line if isinstance(line, str) else line.decode("utf-8", errors="replace")
            self.slot({"#unparsed": text[:TEXT_CAP]})
            return
        self.record(record)

    def record(self, record: dict[str, Any]) -> None:
        if isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("$set"), dict):
            self.metadata(record["$set"])
        elif isinstance(record.get("id"), str):
            self.slots["m:" + record["id"]] = record
        elif isinstance(record.get("sessionId"), str) and "projectHash" in record:
            self.metadata(record)
        else:
            rtype = str(record.get("type", "unknown-record"))
            counts = self.coverage.unknown_record_types
            counts[rtype] = counts.get(rtype, 0) + 1
            self.slot({"#unknown": rtype, "raw": record})

    def metadata(self, meta: dict[str, Any]) -> None:
        if isinstance(meta.get("sessionId"), str):
            self.session_id = self.session_id or meta["sessionId"]
        directories = meta.get("directories")
        if self.cwd is None and isinstance(directories, list) and directories:
            self.cwd = str(directories[0])
        messages = meta.get("messages")
        if isinstance(messages, list):
            for key in [k for k in self.slots if not k.startswith("#")]:
                del self.slots[key]
            for message in messages:
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    self.slots["m:" + message["id"]] = message

    def rewind(self, message_id: str) -> None:
        keys = list(self.slots)
        target = "m:" + message_id
        start = keys.index(target) if target in self.slots else 0
        for key in keys[start:]:
            if not key.startswith("#"):
                del self.slots[key]

    # -- events -----------------------------------------------------------------------------

    def result(self) -> Trajectory:
        events: list[Event] = []
        usage: dict[str, ModelUsage] = {}
        for record in self.slots.values():
            if "#unparsed" in record:
                raw, record_type = record["#unparsed"], "unparsed"
                events.append(Event(type="other", record_type=record_type, raw=raw))
            elif "#unknown" in record:
                raw, record_type = record["raw"], record["#unknown"]
                events.append(Event(type="other", record_type=record_type, raw=raw))
            else:
                try:
                    self.message(record, events, usage)
                except MALFORMED as exc:
                    self.malformed(record, exc, events)
        return Trajectory(
            format="gemini-cli",
            events=events,
            usage=usage,
            coverage=self.coverage,
            session_id=self.session_id,
        )

    def malformed(self, record: dict[str, Any], exc: Exception, events: list[Event]) -> None:
        """A message whose fields have types the parser did not expect: counted, kept raw."""
        rtype = f"malformed/{record.get('type')}"
        counts = self.coverage.unknown_record_types
        counts[rtype] = counts.get(rtype, 0) + 1
        events.append(Event(type="other", record_type=rtype, text=str(exc)[:200], raw=record))

    def message(
        self, record: dict[str, Any], events: list[Event], usage: dict[str, ModelUsage]
    ) -> None:
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        mtype = record.get("type")
        text = parts_text(record.get("content"))
        if mtype == "user":
            if not text.strip():
                return  # a user record that only carries function responses
            if text.lstrip().startswith(HARNESS_PREFIXES):
                events.append(Event(type="other", ts=ts, record_type="harness-message", text=text))
            else:
                events.append(Event(type="user_message", ts=ts, text=text))
        elif mtype == "error":
            events.append(Event(type="api_error", ts=ts, text=text[:TEXT_CAP]))
        elif mtype in ("info", "warning"):
            events.append(Event(type="other", ts=ts, record_type=f"gemini/{mtype}", text=text))
        elif mtype == "gemini":
            self.gemini(record, ts, text, events, usage)
        else:
            rtype = f"message/{mtype}"
            counts = self.coverage.unknown_record_types
            counts[rtype] = counts.get(rtype, 0) + 1
            events.append(Event(type="other", ts=ts, record_type=rtype, raw=record))

    def gemini(
        self,
        record: dict[str, Any],
        ts: str | None,
        text: str,
        events: list[Event],
        usage: dict[str, ModelUsage],
    ) -> None:
        model = record.get("model") if isinstance(record.get("model"), str) else None
        for thought in record.get("thoughts") or []:
            if isinstance(thought, dict):
                parts = [thought.get("subject"), thought.get("description")]
                thinking = "\n".join(str(p) for p in parts if p)
                stamp = thought.get("timestamp") or ts
                events.append(Event(type="thinking", ts=stamp, text=thinking))
        if text:
            events.append(Event(type="assistant_text", ts=ts, text=text, model=model))
        for call in record.get("toolCalls") or []:
            if isinstance(call, dict):
                self.tool_call(call, ts, events)
        tokens = record.get("tokens")
        if isinstance(tokens, dict):
            inputs, outputs, cached = gemini_usage(tokens)
            name = model or "unknown"
            events.append(
                Event(
                    type="usage",
                    ts=ts,
                    model=name,
                    input_tokens=inputs,
                    output_tokens=outputs,
                    cache_read_tokens=cached,
                    cache_write_tokens=0,
                )
            )
            usage.setdefault(name, ModelUsage()).add(
                ModelUsage(
                    input_tokens=inputs,
                    output_tokens=outputs,
                    cache_read_tokens=cached,
                    responses=1,
                )
            )

    def tool_call(self, call: dict[str, Any], ts: str | None, events: list[Event]) -> None:
        name = str(call.get("name") or "")
        raw_args = call.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        call_id = str(call.get("id") or f"{name}-{len(events)}")
        call_ts = call.get("timestamp") if isinstance(call.get("timestamp"), str) else ts
        kind = gemini_kind(name)
        events.append(
            Event(
                type="tool_call",
                ts=call_ts,
                id=call_id,
                name=name,
                kind=kind,
                input=args,
                files=self.files_of(kind, args),
            )
        )
        if kind == "question":
            self.question(call_id, args, call_ts, events)
        elif kind == "skill":
            events.append(Event(type="skill", ts=call_ts, name=str(args.get("name", ""))))
        elif kind == "subagent":
            label = args.get("agent_name") or args.get("name") or name
            events.append(Event(type="subagent", ts=call_ts, id=call_id, name=str(label)))
        status = call.get("status")
        if status not in ("success", "error", "cancelled"):
            return
        output = result_text(call.get("result"), call.get("resultDisplay"))
        lowered = output[:TEXT_CAP].lower()
        denied = status == "cancelled" or (
            status == "error" and any(marker in lowered for marker in DENIAL_MARKERS)
        )
        is_error = status == "error" and not denied
        if not denied and kind == "shell":
            # The shell tool's trailer comes last; an earlier "Exit Code:" is the command's output.
            codes = EXIT_CODE.findall(output)
            if codes and int(codes[-1]) != 0:
                is_error = True
        events.append(
            Event(
                type="tool_result",
                ts=call_ts,
                id=call_id,
                output=output[:OUTPUT_CAP],
                is_error=is_error,
                denied=denied,
            )
        )
        if kind == "question" and status == "success":
            events.append(Event(type="answer", ts=call_ts, id=call_id, text=output[:TEXT_CAP]))

    def question(
        self, call_id: str, args: dict[str, Any], ts: str | None, events: list[Event]
    ) -> None:
        questions = args.get("questions")
        first = questions[0] if isinstance(questions, list) and questions else args
        if not isinstance(first, dict):
            first = {}
        options = [
            str(o.get("label", o)) if isinstance(o, dict) else str(o)
            for o in first.get("options") or []
        ]
        text = str(first.get("question", ""))
        events.append(Event(type="question", ts=ts, id=call_id, text=text, options=options))

    def files_of(self, kind: str, args: dict[str, Any]) -> list[str]:
        if kind == "shell":
            directory = args.get("dir_path") or args.get("directory")
            files = shell_files(args.get("command"), None)
            base = directory.rstrip("/") if isinstance(directory, str) and directory else None
            joined = [f"{base}/{f}" if base and not f.startswith("/") else f for f in files]
            return [relativise(f, self.cwd) for f in joined]
        files = touched_files(args, self.cwd)
        for key in ("dir_path", "paths"):
            value = args.get(key)
            values = value if isinstance(value, list) else [value]
            files += [relativise(v, self.cwd) for v in values if isinstance(v, str) and v]
        return list(dict.fromkeys(files))


def parse_gemini_lines(lines: Iterable[str | bytes], cwd: str | None = None) -> Trajectory:
    """Parse the lines of one Gemini CLI chat recording (JSONL)."""
    parser = _Parser(cwd)
    for line in lines:
        if line and not line.isspace():
            parser.feed(line)
    return parser.result()


def project_root(path: Path) -> str | None:
    """The project directory Gemini CLI recorded for a chat, from ``<project>/.project_root``."""
    marker = path.parent.parent / ".project_root"
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def parse_gemini_chat(path: Path, cwd: str | None = None) -> Trajectory:
    """Parse a Gemini CLI chat file: ``session-*.jsonl``, or the older whole-JSON ``.json``."""
    cwd = cwd or project_root(path)
    with open(path, "rb") as fh:
        head = fh.read(1 << 16)
        fh.seek(0)
        first = head.split(b"\n", 1)[0].strip()
        if head.lstrip().startswith(b"{") and not _is_json(first):
            whole = fh.read()
            try:
                document = json.loads(whole)
            except ValueError:
                document = None
            if isinstance(document, dict):
                parser = _Parser(cwd)
                parser.coverage.lines = 1
                parser.metadata(document)
                return parser.result()
            fh.seek(0)
        return parse_gemini_lines(fh, cwd)


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
