"""An ACP session log → normalised trajectory.

proctor keeps every JSON-RPC message it exchanged with an ACP agent, one per line, as
``{"ts": ISO time, "from": "client" | "agent", "message": <the message's bytes as sent>}`` (a
line the agent wrote that is not JSON is kept as ``"text"``). From it:

* the client's ``session/prompt`` → ``user_message`` (its text blocks);
* ``session/update`` notifications: ``agent_message_chunk``s → one ``assistant_text`` per run of
  chunks, ``agent_thought_chunk``s → ``thinking``, ``tool_call`` / ``tool_call_update`` →
  ``tool_call`` and ``tool_result`` (merged by id, see :mod:`.calls`), ``plan`` → an ``other``
  event of record type ``plan`` (one ``[status] step`` line per entry);
* ``session/request_permission`` → the call, a ``question`` (the options' names) and, once the
  client answered, an ``answer`` (a rejection makes the call's result a denial, not an error);
* the response to a prompt → ``usage`` (when the agent reports tokens) and ``turn_end`` (its
  ``stopReason``, the turn's duration); an error response → ``api_error``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from proctor.models.trajectory import Trajectory
from proctor.transcripts.acp.calls import FINAL, OpenCall
from proctor.transcripts.builder import EventSink, StartHook, TrajectoryBuilder, ev
from proctor.transcripts.lines import decode_line, file_lines, line_text
from proctor.util.masking import mask

FORMAT = "acp"
QUIET_UPDATES = frozenset(
    {
        "available_commands_update",
        "current_mode_update",
        "config_option_update",
        "session_info_update",
        "usage_update",
        "user_message_chunk",
    }
)
"""Session updates that carry no step of the agent's work."""
REJECT_KINDS = ("reject_once", "reject_always")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _ms_between(start: Any, end: Any) -> float | None:
    try:
        delta = datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))
    except ValueError:
        return None
    return round(delta.total_seconds() * 1000, 3)


def permission_question(call: OpenCall) -> str:
    """The question a permission request asks: the tool's name, then what the call does."""
    title = call.title or call.name
    return title if title.startswith(call.name) else f"{call.name}: {title}"


def _text_of(blocks: Any) -> str:
    parts = [_dict(b).get("text") for b in blocks] if isinstance(blocks, list) else []
    return "\n".join(p for p in parts if isinstance(p, str))


class AcpParse:
    """The state of one pass over a session log."""

    def __init__(self, builder: TrajectoryBuilder) -> None:
        self.b = builder
        self.cwd: str | None = None
        self.calls: dict[str, OpenCall] = {}
        self.sent: dict[Any, tuple[str, dict[str, Any], Any]] = {}
        """Client requests awaiting a response: id → (method, params, ts)."""
        self.asked: dict[Any, tuple[str, dict[str, Any]]] = {}
        """Agent requests awaiting the client's response: id → (method, params)."""
        self.text: list[str] = []
        self.thought: list[str] = []
        self.text_ts: Any = None

    # -- one record -------------------------------------------------------------------------

    def record(self, record: dict[str, Any]) -> None:
        ts, message = record.get("ts"), record.get("message")
        if not isinstance(message, dict):
            self.b.unknown("text", record, ts, mask(str(record.get("text", "")))[:2000])
            return
        method = message.get("method")
        if record.get("from") == "client":
            if isinstance(method, str):
                self.client_request(method, message, ts)
            elif "id" in message:
                self.client_response(message, ts)
        elif isinstance(method, str):
            if method == "session/update":
                self.update(_dict(_dict(message.get("params")).get("update")), ts)
            elif "id" in message:
                self.asked[message["id"]] = (method, _dict(message.get("params")))
                if method == "session/request_permission":
                    self.permission(_dict(message.get("params")), ts)
        elif "id" in message:
            self.agent_response(message, ts)

    def client_request(self, method: str, message: dict[str, Any], ts: Any) -> None:
        params = _dict(message.get("params"))
        if "id" in message:
            self.sent[message["id"]] = (method, params, ts)
        if method in ("session/new", "session/load") and isinstance(params.get("cwd"), str):
            self.cwd = params["cwd"]
        if method == "session/prompt":
            self.b.add(ev(type="user_message", ts=ts, text=_text_of(params.get("prompt"))))

    def client_response(self, message: dict[str, Any], ts: Any) -> None:
        method, params = self.asked.pop(message.get("id"), ("", {}))
        if method != "session/request_permission":
            return
        call_id = _dict(params.get("toolCall")).get("toolCallId")
        outcome = _dict(_dict(message.get("result")).get("outcome"))
        options = {
            _dict(o).get("optionId"): _dict(o) for o in params.get("options") or [] if _dict(o)
        }
        chosen = options.get(outcome.get("optionId"), {})
        rejected = outcome.get("outcome") != "selected" or chosen.get("kind") in REJECT_KINDS
        call = self.calls.get(str(call_id))
        if call is not None and rejected:
            call.denied = True
        text = chosen.get("name") or outcome.get("optionId") or "(cancelled)"
        self.b.add(ev(type="answer", ts=ts, id=call_id, text=str(text)))

    def agent_response(self, message: dict[str, Any], ts: Any) -> None:
        method, _params, started = self.sent.pop(message.get("id"), ("", {}, None))
        result = _dict(message.get("result"))
        if method == "initialize":
            info = _dict(result.get("agentInfo"))
            self.b.ids(version=info.get("version"))
        elif method in ("session/new", "session/load"):
            self.b.ids(session_id=result.get("sessionId"))
        elif method == "session/prompt":
            self.flush_text()
            self.close_calls(ts)
            error = _dict(message.get("error"))
            if error:
                data = error.get("data")
                text = str(error.get("message", "error")) + (
                    f" ({json.dumps(data)})" if data else ""
                )
                self.b.add(ev(type="api_error", ts=ts, text=text))
                return
            self.usage(result, ts)
            stop = result.get("stopReason")
            took = _ms_between(started, ts) if started is not None else None
            self.b.add(ev(type="turn_end", ts=ts, durationMs=took, text=stop))

    # -- session updates --------------------------------------------------------------------

    def update(self, update: dict[str, Any], ts: Any) -> None:
        kind = update.get("sessionUpdate")
        content = _dict(update.get("content"))
        if kind == "agent_message_chunk":
            if self.thought:
                self.flush_text()
            self.text_ts = self.text_ts or ts
            self.text.append(str(content.get("text") or ""))
        elif kind == "agent_thought_chunk":
            if self.text:
                self.flush_text()
            self.text_ts = self.text_ts or ts
            self.thought.append(str(content.get("text") or ""))
        elif kind in ("tool_call", "tool_call_update"):
            self.flush_text()
            self.tool(update, ts)
        elif kind == "plan":
            self.flush_text()
            entries = [_dict(e) for e in update.get("entries") or []]
            lines = [f"[{e.get('status', '')}] {e.get('content', '')}" for e in entries]
            self.b.add(
                ev(type="other", ts=ts, recordType="plan", text="\n".join(lines), raw=entries)
            )
        elif kind not in QUIET_UPDATES:
            self.b.unknown(f"session/update:{kind}", update, ts)

    def tool(self, update: dict[str, Any], ts: Any) -> None:
        call_id = str(update.get("toolCallId") or "")
        call = self.calls.setdefault(call_id, OpenCall(call_id))
        call.merge(update)
        if call.status in FINAL and not call.finished:
            if not call.emitted:
                self.b.add(call.call_event(ts, self.cwd))
            self.b.add(call.result_event(ts))

    def permission(self, params: dict[str, Any], ts: Any) -> None:
        self.flush_text()
        asked = _dict(params.get("toolCall"))
        call_id = str(asked.get("toolCallId") or "")
        call = self.calls.setdefault(call_id, OpenCall(call_id))
        call.merge(asked)
        if not call.emitted:
            self.b.add(call.call_event(ts, self.cwd))
        options = [
            str(_dict(o).get("name") or _dict(o).get("optionId"))
            for o in params.get("options") or []
        ]
        question = permission_question(call)
        self.b.add(ev(type="question", ts=ts, id=call_id, text=question, options=options or None))

    # -- flushing ---------------------------------------------------------------------------

    def flush_text(self) -> None:
        if self.thought:
            self.b.add(ev(type="thinking", ts=self.text_ts, text="".join(self.thought)))
        text = "".join(self.text)
        if text.strip():
            self.b.add(ev(type="assistant_text", ts=self.text_ts, text=text))
        self.text, self.thought, self.text_ts = [], [], None

    def close_calls(self, ts: Any) -> None:
        """At a turn's end, calls the agent never finished are written as they stand; a
        refused call the agent never reported again gets its denial as its result."""
        for call in self.calls.values():
            if not call.emitted:
                self.b.add(call.call_event(ts, self.cwd))
            if call.denied and not call.finished:
                self.b.add(call.result_event(ts))

    def usage(self, result: dict[str, Any], ts: Any) -> None:
        """Tokens the agent reported for the turn: ACP's ``usage``, or Gemini CLI's per-model
        ``_meta.quota.model_usage``."""
        rows = []
        usage = _dict(result.get("usage"))
        if usage:
            rows.append(
                (
                    "acp",
                    usage.get("inputTokens"),
                    usage.get("outputTokens"),
                    usage.get("cachedReadTokens"),
                    usage.get("cachedWriteTokens"),
                )
            )
        else:
            for entry in _dict(_dict(result.get("_meta")).get("quota")).get("model_usage") or []:
                counts = _dict(_dict(entry).get("token_count"))
                model = _dict(entry).get("model") or "unknown"
                rows.append(
                    (str(model), counts.get("input_tokens"), counts.get("output_tokens"), 0, 0)
                )
        for model, inp, out, read, write in rows:
            row = (model, int(inp or 0), int(out or 0), int(read or 0), int(write or 0), 0)
            self.b.usage(row, ts)


def parse_acp_log(
    path: Path, sink: EventSink | None = None, on_start: StartHook | None = None
) -> Trajectory:
    """The trajectory of an ACP session log (``acp.jsonl``); see the module docstring."""
    builder = TrajectoryBuilder(FORMAT, sink, on_start)
    state = AcpParse(builder)
    for line in file_lines(Path(path)):
        if not line.strip():
            continue
        builder.coverage.lines += 1
        record = decode_line(line)
        if not isinstance(record, dict):
            builder.unparsed(line_text(line))
            continue
        builder.guarded(state.record, record)
        builder.maybe_drain()
    state.flush_text()
    return builder.finish()
