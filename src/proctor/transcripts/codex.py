"""Codex CLI rollout JSONL → normalised trajectory.

A rollout line is ``{"timestamp", "ordinal"?, "type", "payload"}`` (Codex 0.171 writes
``ordinal``; early rollouts had a flat header and bare response items, also accepted). Rules
followed (see the transcript reference, §2):

* ``response_item`` is the model-visible history and the source of messages, tool calls and
  results. User-role text that the harness injected (``<environment_context>``, AGENTS.md,
  ``<turn_aborted>`` …) and developer/system messages become ``other`` events with record type
  ``harness-message``, known, not counted as unknown. ``event_msg`` user/agent messages and
  reasoning mirror response items and are dropped when a matching item exists.
* Calls pair with results by ``call_id``. ``isError`` comes from the structured status of the
  same call when the rollout has one (``item_completed`` CommandExecution/FileChange/McpToolCall,
  older ``exec_command_end``/``patch_apply_end``/``mcp_tool_call_end``), else from the output text
  ("Process exited with code N", "Exit code: N", JSON ``metadata.exit_code``), else it is None
  (unknown). "approval policy is Never; reject command", "aborted by user" and "rejected by user"
  outputs, and ``declined`` statuses, are denials (``denied`` true, ``isError`` false).
* Usage, one ``usage`` event per model response: from ``token_usage_record`` when the rollout has
  any (deduplicated by ``response_id``), else from ``token_count.info.last_token_usage``, skipping
  a token_count whose ``total_token_usage`` equals the previous one (a repeat) and all-zero
  deltas. ``total_token_usage`` is cumulative and never summed. OpenAI counts cached and
  cache-write tokens inside ``input_tokens`` and reasoning inside ``output_tokens``, so
  ``inputTokens = input - cached - cache_write``, ``cacheReadTokens = cached``,
  ``cacheWriteTokens = cache_write``, ``outputTokens = output`` (reasoning included).
  :func:`codex_usage_check` compares the sum with the last ``total_token_usage``.
* ``task_complete`` → ``turn_end`` (plus ``api_error`` when it carries an error);
  ``turn_aborted`` → ``turn_end`` with text ``aborted (<reason>)``; ``compacted`` and
  response-item compaction markers → ``compaction``. Unknown record and payload types become
  ``other`` events counted as ``<type>`` or ``<type>/<payload type>``.

Not done: unified-exec ``write_stdin`` polls are not folded into their command, and the
inherited history prefix of forked or subagent rollouts is not stripped.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Event, ModelUsage, ParseCoverage, Trajectory
from proctor.transcripts.codex_shapes import (
    HARNESS_PREFIXES,
    MALFORMED,
    OUTPUT_CAP,
    QUIET_EVENT_PREFIXES,
    QUIET_EVENT_SUFFIXES,
    QUIET_EVENTS,
    QUIET_ITEMS,
    QUIET_RECORDS,
    RESPONSE_TYPES,
    TEXT_CAP,
    _content_text,
    _dict,
    _exit_code,
    _is_denial,
    _unwrap_output,
    normalise_usage,
)
from proctor.transcripts.codex_usage import CodexUsage
from proctor.transcripts.kinds import (
    codex_kind,
    patch_files,
    relativise,
    shell_files,
    touched_files,
)

UNSUPPORTED_CALL = "unsupported call: "


def _text(value: Any) -> str | None:
    """A string field, or None when the record holds something else there."""
    return value if isinstance(value, str) and value else None


class _Parser:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.coverage = ParseCoverage()
        self.session_id: str | None = None
        self.version: str | None = None
        self.model: str | None = None
        self.cwd: str | None = None
        self.ts: str | None = None
        self.calls: dict[str, Event] = {}
        self.results: dict[str, Event] = {}
        self.status: dict[str, tuple[bool | None, bool]] = {}
        self.questions: set[str] = set()
        self.item_texts: Counter[tuple[str, str]] = Counter()
        self.mirrors: list[tuple[Event, str, str]] = []
        self.usage = CodexUsage(self.usage_event)
        self.turn_errors: set[str] = set()
        self.synthetic_ids = 0

    # -- plumbing ---------------------------------------------------------------------------

    def add(self, event_type: Any, **fields: Any) -> Event:
        event = Event(type=event_type, ts=self.ts, **fields)
        self.events.append(event)
        return event

    def unknown(self, record_type: str, raw: Any) -> None:
        counts = self.coverage.unknown_record_types
        counts[record_type] = counts.get(record_type, 0) + 1
        self.add("other", record_type=record_type, raw=raw)

    def feed(self, line: str | bytes) -> None:
        self.coverage.lines += 1
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            self.coverage.unparsed_lines += 1
            text = line if isinstance(line, str) else line.decode("utf-8", errors="replace")
            self.events.append(Event(type="other", record_type="unparsed", raw=text[:TEXT_CAP]))
            return
        ts = record.get("timestamp")
        self.ts = ts if isinstance(ts, str) else None
        try:
            self.dispatch(record)
        except MALFORMED as exc:
            # Fields of types the parser did not expect: counted and kept, never fatal.
            rtype = f"malformed/{record.get('type')}"
            counts = self.coverage.unknown_record_types
            counts[rtype] = counts.get(rtype, 0) + 1
            self.events.append(
                Event(type="other", record_type=rtype, text=str(exc)[:200], raw=record)
            )

    def dispatch(self, record: dict[str, Any]) -> None:
        rtype = record.get("type")
        if not isinstance(rtype, str | None):
            rtype = str(rtype)
        payload = record.get("payload")
        if "payload" not in record:
            self.legacy(record)
        elif not isinstance(payload, dict):
            self.unknown(str(rtype), record)
        elif rtype == "response_item":
            self.response_item(payload)
        elif rtype == "event_msg":
            self.event_msg(payload)
        elif rtype == "session_meta":
            self.session_meta(payload)
        elif rtype == "turn_context":
            self.model = _text(payload.get("model")) or self.model
            self.cwd = _text(payload.get("cwd")) or self.cwd
        elif rtype == "token_usage_record":
            self.usage.record(payload)
        elif rtype == "compacted":
            message = payload.get("message")
            self.add("compaction", text=message[:TEXT_CAP] if isinstance(message, str) else None)
        elif rtype in QUIET_RECORDS:
            return
        else:
            self.unknown(str(rtype), record)

    def legacy(self, record: dict[str, Any]) -> None:
        """Pre-envelope rollouts: a flat header, then bare response items."""
        rtype = record.get("type")
        if rtype in RESPONSE_TYPES:
            self.response_item(record)
        elif "record_type" in record:
            return
        elif rtype is None and "id" in record and self.session_id is None:
            self.session_meta(record)
        else:
            self.unknown(str(rtype), record)

    def session_meta(self, payload: dict[str, Any]) -> None:
        meta = _dict(payload.get("meta")) or payload
        self.session_id = self.session_id or _text(meta.get("id") or meta.get("session_id"))
        self.version = self.version or _text(meta.get("cli_version"))
        self.cwd = self.cwd or _text(meta.get("cwd"))
        self.model = self.model or _text(meta.get("model"))

    # -- response items ---------------------------------------------------------------------

    def response_item(self, item: dict[str, Any]) -> None:
        itype = item.get("type")
        if itype == "message":
            self.message(item)
        elif itype == "reasoning":
            self.reasoning(item)
        elif itype == "function_call":
            self.function_call(item)
        elif itype == "custom_tool_call":
            raw = item.get("input")
            self.tool_call(item, {"input": raw if isinstance(raw, str) else json.dumps(raw)})
        elif itype == "local_shell_call":
            self.tool_call({**item, "name": "local_shell"}, _dict(item.get("action")))
        elif itype in ("function_call_output", "custom_tool_call_output"):
            self.tool_output(item)
        elif itype == "tool_search_call":
            arguments = _dict(item.get("arguments"))
            self.tool_call({**item, "name": "tool_search"}, arguments)
        elif itype == "tool_search_output":
            self.tool_search_output(item)
        elif itype in ("web_search_call", "image_generation_call"):
            self.server_call(item)
        elif itype in ("compaction", "compaction_summary", "context_compaction"):
            self.add("compaction")
        elif itype in ("ghost_snapshot", "additional_tools"):
            return
        else:
            self.unknown(f"response_item/{itype}", item)

    def message(self, item: dict[str, Any]) -> None:
        role = item.get("role")
        text = _content_text(item.get("content"))
        if role == "assistant":
            self.item_texts[("assistant", text.strip())] += 1
            self.add("assistant_text", text=text, model=self.model)
        elif role == "user" and not text.lstrip().startswith(HARNESS_PREFIXES):
            self.item_texts[("user", text.strip())] += 1
            self.add("user_message", text=text)
        else:
            self.add("other", record_type="harness-message", text=text[:TEXT_CAP])

    def reasoning(self, item: dict[str, Any]) -> None:
        texts = [_content_text(item.get("summary")), _content_text(item.get("content"))]
        text = "\n".join(t for t in texts if t)
        self.item_texts[("reasoning", text.strip())] += 1
        self.add("thinking", text=text)

    def function_call(self, item: dict[str, Any]) -> None:
        raw = item.get("arguments")
        arguments: Any = raw
        if isinstance(raw, str):
            try:
                arguments = json.loads(raw) if raw.strip() else {}
            except ValueError:
                arguments = {"arguments": raw}
        if not isinstance(arguments, dict):
            arguments = {"arguments": arguments}
        self.tool_call(item, arguments)

    def call_id(self, item: dict[str, Any]) -> str:
        value = item.get("call_id") or item.get("id")
        if isinstance(value, str) and value:
            return value
        self.synthetic_ids += 1
        return f"codex-call-{self.synthetic_ids}"

    def tool_call(self, item: dict[str, Any], arguments: dict[str, Any]) -> None:
        name = str(item.get("name") or "")
        namespace = item.get("namespace") if isinstance(item.get("namespace"), str) else None
        kind = codex_kind(name, namespace)
        call_id = self.call_id(item)
        files = self.files_of(name, kind, arguments)
        if kind == "shell" and self.is_shell_patch(arguments):
            kind = "edit"
        label = f"{namespace}.{name}" if namespace and kind == "mcp" else name
        event = self.add(
            "tool_call", id=call_id, name=label, kind=kind, input=arguments, files=files
        )
        self.calls[call_id] = event
        if kind == "question":
            self.question(call_id, arguments)
        elif kind == "subagent" and "spawn" in name:
            agent = arguments.get("agent_type") or arguments.get("name") or name
            self.add("subagent", id=call_id, name=str(agent))

    def question(self, call_id: str, arguments: dict[str, Any]) -> None:
        questions = arguments.get("questions")
        first = _dict(questions[0] if isinstance(questions, list) and questions else arguments)
        options = [
            str(o.get("label", o)) if isinstance(o, dict) else str(o)
            for o in first.get("options") or []
        ]
        self.questions.add(call_id)
        self.add("question", id=call_id, text=str(first.get("question", "")), options=options)

    def command_of(self, arguments: dict[str, Any]) -> Any:
        return arguments.get("cmd", arguments.get("command"))

    def is_shell_patch(self, arguments: dict[str, Any]) -> bool:
        command = self.command_of(arguments)
        if isinstance(command, list) and command:
            command = command[-1] if command[0] != "apply_patch" else "apply_patch"
        return isinstance(command, str) and command.lstrip().startswith("apply_patch")

    def files_of(self, name: str, kind: str, arguments: dict[str, Any]) -> list[str]:
        if name == "apply_patch":
            patch = arguments.get("input", arguments.get("patch"))
            return patch_files(patch, self.cwd) if isinstance(patch, str) else []
        if kind == "shell":
            command = self.command_of(arguments)
            if self.is_shell_patch(arguments):
                text = " ".join(command) if isinstance(command, list) else str(command)
                return patch_files(text, self.cwd)
            files = shell_files(command, None)
            workdir = arguments.get("workdir") or arguments.get("working_directory")
            base = workdir if isinstance(workdir, str) and workdir else self.cwd
            return [
                relativise(os.path.join(base, f) if base else f, self.cwd)
                if not os.path.isabs(f)
                else relativise(f, self.cwd)
                for f in files
            ]
        return touched_files(arguments, self.cwd)

    def tool_output(self, item: dict[str, Any]) -> None:
        call_id = self.call_id(item)
        text, code = _unwrap_output(item.get("output"))
        if code is None:
            code = _exit_code(text)
        structured = self.status.get(call_id)
        denied = _is_denial(text) or bool(structured and structured[1])
        is_error: bool | None
        if denied:
            is_error = False
        elif structured is not None and structured[0] is not None:
            is_error = structured[0]
        elif code is not None:
            is_error = code != 0
        else:
            is_error = None
        if call_id in self.questions and not denied and "unavailable" in text[:200].lower():
            is_error = True
        if is_error is None and text.startswith(UNSUPPORTED_CALL):
            is_error = True  # Codex's answer to a call of a tool it does not have
        result = self.add(
            "tool_result", id=call_id, output=text[:OUTPUT_CAP], is_error=is_error, denied=denied
        )
        self.results[call_id] = result
        if call_id in self.questions and not denied and not is_error:
            self.add("answer", id=call_id, text=text[:TEXT_CAP])

    def tool_search_output(self, item: dict[str, Any]) -> None:
        """The deferred tools a ``tool_search`` made callable, named as their calls will be."""
        found = []
        for entry in item.get("tools") or []:
            if not isinstance(entry, dict):
                continue
            inner = entry.get("tools") if entry.get("type") == "namespace" else [entry]
            for tool in inner if isinstance(inner, list) else []:
                if isinstance(tool, dict) and tool.get("name"):
                    prefix = f"{entry['name']}." if entry.get("type") == "namespace" else ""
                    found.append(f"{prefix}{tool['name']}")
        status = item.get("status")
        failed = isinstance(status, str) and status not in ("completed", "in_progress")
        output = "\n".join(found) if found else "no tools found"
        call_id = self.call_id(item)
        result = self.add("tool_result", id=call_id, output=output, is_error=failed, denied=False)
        self.results[call_id] = result

    def server_call(self, item: dict[str, Any]) -> None:
        """A tool the API ran itself (web search, image generation): no output item follows."""
        itype = str(item.get("type"))
        name = itype.removesuffix("_call")
        call_id = self.call_id(item)
        kind = "web" if name == "web_search" else "other"
        action = _dict(item.get("action"))
        self.add("tool_call", id=call_id, name=name, kind=kind, input=action, files=[])
        status = item.get("status")
        if isinstance(status, str):
            failed = status not in ("completed", "in_progress", "searching")
            self.add("tool_result", id=call_id, output=status, is_error=failed, denied=False)

    # -- event messages ---------------------------------------------------------------------

    def event_msg(self, payload: dict[str, Any]) -> None:
        etype = payload.get("type")
        if etype == "token_count":
            self.usage.token_count(payload, self.ts)
        elif etype in ("task_complete", "turn_complete"):
            error = payload.get("error")
            if error:
                message = error.get("message") if isinstance(error, dict) else error
                self.api_error(str(message))
            self.add("turn_end", duration_ms=payload.get("duration_ms"))
            self.turn_errors.clear()
        elif etype == "turn_aborted":
            reason = payload.get("reason") or "interrupted"
            self.add("turn_end", duration_ms=payload.get("duration_ms"), text=f"aborted ({reason})")
            self.turn_errors.clear()
        elif etype == "error":
            self.api_error(str(payload.get("message", "")))
        elif etype == "item_completed":
            self.item_completed(payload.get("item"))
        elif etype == "exec_command_end":
            code = payload.get("exit_code")
            self.set_status(payload.get("call_id"), code != 0 if isinstance(code, int) else None)
        elif etype == "patch_apply_end":
            success = payload.get("success")
            self.set_status(payload.get("call_id"), (not success) if success is not None else None)
        elif etype == "mcp_tool_call_end":
            self.mcp_end(payload)
        elif etype == "user_message":
            self.mirror("user", "user_message", str(payload.get("message", "")))
        elif etype == "agent_message":
            self.mirror("assistant", "assistant_text", str(payload.get("message", "")))
        elif etype in ("agent_reasoning", "agent_reasoning_raw_content"):
            self.mirror("reasoning", "thinking", str(payload.get("text", "")))
        elif self.quiet(str(etype)):
            return
        else:
            self.unknown(f"event_msg/{etype}", payload)

    def quiet(self, etype: str) -> bool:
        """Event messages that carry nothing the trajectory needs (or mirror something it has)."""
        return (
            etype in QUIET_EVENTS
            or etype.startswith(QUIET_EVENT_PREFIXES)
            or etype.endswith(QUIET_EVENT_SUFFIXES)
        )

    def api_error(self, text: str) -> None:
        if text in self.turn_errors:
            return
        self.turn_errors.add(text)
        self.add("api_error", text=text[:TEXT_CAP])

    def mirror(self, role: str, event_type: str, text: str) -> None:
        if role == "user" and text.lstrip().startswith(HARNESS_PREFIXES):
            return
        fields: dict[str, Any] = {"text": text}
        if event_type == "assistant_text":
            fields["model"] = self.model
        self.mirrors.append((self.add(event_type, **fields), role, text.strip()))

    def item_completed(self, item: Any) -> None:
        if not isinstance(item, dict):
            return
        itype = item.get("type")
        status = item.get("status")
        if itype == "CommandExecution":
            code = item.get("exit_code")
            failed: bool | None = None
            if isinstance(code, int):
                failed = code != 0
            if status == "failed":
                failed = True
            elif status == "completed" and failed is None:
                failed = False
            self.set_status(item.get("id"), failed, denied=status == "declined")
        elif itype in ("FileChange", "McpToolCall"):
            failed = {"failed": True, "completed": False}.get(str(status))
            if itype == "McpToolCall" and item.get("error"):
                failed = True
            self.set_status(item.get("id"), failed, denied=status == "declined")
            if itype == "McpToolCall":
                self.mark_mcp(item.get("id"))
        elif itype not in QUIET_ITEMS:
            self.unknown(f"event_msg/item_completed/{itype}", item)

    def mcp_end(self, payload: dict[str, Any]) -> None:
        result = payload.get("result")
        failed: bool | None = None
        if isinstance(result, dict):
            if "Err" in result:
                failed = True
            elif isinstance(result.get("Ok"), dict):
                ok = result["Ok"]
                failed = bool(ok.get("isError") or ok.get("is_error"))
        self.set_status(payload.get("call_id"), failed)
        self.mark_mcp(payload.get("call_id"))

    def mark_mcp(self, call_id: Any) -> None:
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        if call is not None:
            call.kind = "mcp"

    def set_status(self, call_id: Any, failed: bool | None, denied: bool = False) -> None:
        if not isinstance(call_id, str):
            return
        self.status[call_id] = (failed, denied)
        result = self.results.get(call_id)
        if result is None or result.denied:
            return
        if denied:
            result.denied, result.is_error = True, False
        elif failed is not None:
            result.is_error = failed

    # -- usage ------------------------------------------------------------------------------

    def usage_event(self, usage: dict[str, Any], model: Any) -> Event | None:
        inp, out, read, write = normalise_usage(usage)
        if not (inp or out or read or write):
            return None
        name = model if isinstance(model, str) and model else self.model or "unknown"
        return self.add(
            "usage",
            model=name,
            input_tokens=inp,
            output_tokens=out,
            cache_read_tokens=read,
            cache_write_tokens=write,
        )

    # -- result -----------------------------------------------------------------------------

    def result(self) -> Trajectory:
        drop = self.usage.superseded()
        _source, chosen = self.usage.chosen(self.events)
        for event, role, text in self.mirrors:
            if self.item_texts[(role, text)] > 0:
                self.item_texts[(role, text)] -= 1
                drop.add(id(event))
        events = [e for e in self.events if id(e) not in drop] if drop else self.events
        usage: dict[str, ModelUsage] = {}
        for event in chosen:
            usage.setdefault(event.model or "unknown", ModelUsage()).add(
                ModelUsage(
                    input_tokens=event.input_tokens or 0,
                    output_tokens=event.output_tokens or 0,
                    cache_read_tokens=event.cache_read_tokens or 0,
                    cache_write_tokens=event.cache_write_tokens or 0,
                    responses=1,
                )
            )
        return Trajectory(
            format="codex",
            events=events,
            usage=usage,
            coverage=self.coverage,
            session_id=self.session_id,
            agent_version=self.version,
        )


def _parse(lines: Iterable[str | bytes]) -> _Parser:
    parser = _Parser()
    for line in lines:
        if line and not line.isspace():
            parser.feed(line)
    return parser


def parse_codex_lines(lines: Iterable[str | bytes]) -> Trajectory:
    """Parse the lines of one Codex rollout."""
    return _parse(lines).result()


def parse_codex_rollout(path: Path) -> Trajectory:
    """Parse one Codex rollout file (``rollout-*.jsonl``), streaming it line by line."""
    with open(path, "rb") as fh:
        return _parse(fh).result()


def codex_usage_check(path: Path) -> dict[str, Any]:
    """Cross-check of a rollout's token accounting.

    Returns ``source`` (``token_usage_record``, ``token_count`` or None), ``responses`` counted,
    ``repeatsSkipped`` (repeated token_count events), ``computed`` (the per-response sum proctor
    reports), ``reported`` (the last ``total_token_usage``, normalised the same way, or None),
    ``difference`` (reported minus computed per field) and ``ok`` (no difference; None when the
    rollout has no total).
    """
    with open(path, "rb") as fh:
        parser = _parse(fh)
        return parser.usage.check(parser.events)
