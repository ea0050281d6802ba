"""Codex CLI rollout JSONL → normalised trajectory.

A rollout line is ``{"timestamp", "ordinal"?, "type", "payload"}`` (Codex 0.171 writes
``ordinal``; early rollouts had a flat header and bare response items, also accepted). Rules
followed (see the transcript reference, §2):

* ``response_item`` is the model-visible history and the source of messages, tool calls and
  results. User-role text that the harness injected (``<environment_context>``, AGENTS.md,
  ``<turn_aborted>`` …) and developer/system messages become ``other`` events with record type
  ``harness-message``, known, not counted as unknown. ``event_msg`` user/agent messages and
  reasoning mirror response items and are dropped when a matching item exists.
* Calls pair with results by ``call_id``; whether a result says its call failed or was denied
  is read from the call's structured statuses and its output (see :mod:`.results`). A
  ``request_user_input`` call gives a ``question`` event for each of its questions and an
  ``answer`` event for each from its result (see :mod:`.questions`).
* Usage, one ``usage`` event per model response (see :mod:`.usage`). OpenAI counts cached and
  cache-write tokens inside ``input_tokens`` and reasoning inside ``output_tokens``, so
  ``inputTokens = input - cached - cache_write``, ``cacheReadTokens = cached``,
  ``cacheWriteTokens = cache_write``, ``outputTokens = output`` (reasoning included).
  :func:`codex_usage_check` compares the sum with the last ``total_token_usage``.
* ``task_complete`` → ``turn_end`` (plus ``api_error`` when it carries an error);
  ``turn_aborted`` → ``turn_end`` with text ``aborted (<reason>)``; ``compacted`` and
  response-item compaction markers → ``compaction``. Unknown record and payload types become
  ``other`` events counted as ``<type>`` or ``<type>/<payload type>``; a line of neither format
  (another agent's, pasted in) is counted so too, without its time, which is not Codex's.
* **Inherited history.** A thread forked from another, or spawned as a subagent with its
  parent's context, begins its rollout with a copy of the parent's history (which lines are
  the copy: see :mod:`.copies`). Those lines are the parent's work (its rollout holds them
  already), so they give no events and count no tokens; one ``other`` event of record type
  ``inherited-history`` names the parent. A copied ``turn_context`` still sets the model and
  folder, and a copied ``total_token_usage`` is the baseline the thread's own cumulative
  totals grow from.

What the rollout says of a call after writing it (its status, that it was an MCP call, that a
mirror repeats an item) is read first, in a quick pass (:mod:`.facts`); the parse then writes
each event in its final form, into the shared builder, and can stream.

* **Unified exec.** A command that outlives its first wait and its ``write_stdin`` polls are
  one step (see :mod:`.unified_exec`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from proctor.models.trajectory import HARNESS_MESSAGE, OUTPUT_CAP, Trajectory
from proctor.transcripts.builder import (
    UNTYPED,
    EventSink,
    PlainTrajectory,
    StartHook,
    TrajectoryBuilder,
    ev,
    merge_subagents,
)
from proctor.transcripts.codex.calls import (
    custom_arguments,
    files_of,
    function_arguments,
    is_shell_patch,
)
from proctor.transcripts.codex.copies import CopiedHistory
from proctor.transcripts.codex.facts import CodexFacts, read_facts
from proctor.transcripts.codex.questions import QuestionCalls
from proctor.transcripts.codex.results import (
    STATUS_EVENTS,
    ended_output,
    output_of,
    server_call_failed,
    tool_search_result,
    verdict,
)
from proctor.transcripts.codex.shapes import (
    HARNESS_PREFIXES,
    QUIET_ITEMS,
    QUIET_RECORDS,
    RESPONSE_TYPES,
    TEXT_CAP,
    _content_text,
    _dict,
    quiet_event,
)
from proctor.transcripts.codex.unified_exec import UnifiedExec
from proctor.transcripts.codex.usage import CodexUsage
from proctor.transcripts.kinds import codex_kind
from proctor.transcripts.lines import decode_line, file_lines, line_text, nonblank

_SYNTHETIC = "codex-call-"
"""The start of the id given to a call that has none."""


def _text(value: Any) -> str | None:
    """A string field, or None when the record holds something else there."""
    return value if isinstance(value, str) and value else None


class _Parser:
    def __init__(self, facts: CodexFacts, builder: TrajectoryBuilder) -> None:
        self.facts = facts
        self.builder = builder
        self.line = 0
        self.model: str | None = None
        self.cwd: str | None = None
        self.ts: str | None = None
        self.questions = QuestionCalls()
        self.usage = CodexUsage(builder)
        self.turn_errors: set[str] = set()
        self.synthetic_ids = 0
        self.calls: set[str] = set()
        """The ids of the calls read (Codex gives each call its own)."""
        self.thread_id: str | None = None
        """The id of the rollout's own (first) ``session_meta``."""
        self.copy = CopiedHistory()
        """The copy of a parent thread's history being read, if any."""
        self.unified_exec = UnifiedExec()

    # -- plumbing ---------------------------------------------------------------------------

    def add(self, event_type: str, **fields: Any) -> None:
        self.builder.add(ev(type=event_type, ts=self.ts, **fields))

    def unknown(self, record_type: str, raw: Any) -> None:
        self.builder.unknown(record_type, raw, self.ts)

    def feed(self, line: str | bytes) -> None:
        self.line += 1
        self.builder.coverage.lines += 1
        record = decode_line(line)
        if not isinstance(record, dict):
            self.builder.unparsed(line_text(line)[:TEXT_CAP])
            return
        ts = record.get("timestamp")
        self.ts = ts if isinstance(ts, str) else None
        if self.copy.open:
            if self.copy.holds(record, self.ts):
                self.builder.guarded(self.inherit, record)
                return
            self.copy.close()
        self.builder.guarded(self.dispatch, record)
        self.builder.maybe_drain()

    def dispatch(self, record: dict[str, Any]) -> None:
        rtype = record.get("type")
        if not isinstance(rtype, str | None):
            rtype = str(rtype)
        payload = record.get("payload")
        if "payload" not in record:
            self.legacy(record)
        elif not isinstance(payload, dict):
            self.unknown(UNTYPED if rtype is None else str(rtype), record)
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
            self.usage.record(payload, self.model or "unknown", self.ts)
        elif rtype == "compacted":
            message = payload.get("message")
            self.add("compaction", text=message[:TEXT_CAP] if isinstance(message, str) else None)
        elif rtype in QUIET_RECORDS:
            return
        else:
            self.unknown(UNTYPED if rtype is None else str(rtype), record)

    def legacy(self, record: dict[str, Any]) -> None:
        """Pre-envelope rollouts: a flat header, then bare response items."""
        rtype = record.get("type")
        if rtype in RESPONSE_TYPES:
            self.response_item(record)
        elif "record_type" in record:
            return
        elif rtype is None and "id" in record and self.builder.session_id is None:
            self.session_meta(record)
            # Its items carry no time: the header's is when the session started.
            self.builder.started = self.builder.started or self.ts
        else:
            # No record of Codex's: neither of its envelope nor of the flat format, whose
            # items carry no time (another agent's line, pasted in): counted, and its time,
            # if it has one, is not the session's.
            self.builder.unknown(UNTYPED if rtype is None else str(rtype), record)

    def session_meta(self, payload: dict[str, Any]) -> None:
        meta = _dict(payload.get("meta")) or payload
        thread = _text(meta.get("id") or meta.get("session_id"))
        if self.thread_id is None:
            self.thread_id = thread
            self.copy.own_header(meta, self.ts)
        elif thread is not None and thread != self.thread_id and self.ts is not None:
            # Another thread's header: the history copied from it follows, at this time.
            self.copy.starts_at(self.ts, thread)
            self.inherit({})
            return
        self.builder.ids(thread, _text(meta.get("cli_version")))
        self.cwd = self.cwd or _text(meta.get("cwd"))
        self.model = self.model or _text(meta.get("model"))

    def inherit(self, record: dict[str, Any]) -> None:
        """A line of the history copied from the parent thread (see the module docstring)."""
        parent = self.copy.announced()
        if parent is not None:  # the first: said once
            text = f"history inherited from thread {parent}"
            self.add("other", recordType="inherited-history", text=text)
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return
        rtype = record.get("type")
        if rtype == "turn_context":
            self.dispatch(record)
        elif rtype == "event_msg" and payload.get("type") == "token_count":
            self.usage.inherit(payload)

    # -- response items ---------------------------------------------------------------------

    def response_item(self, item: dict[str, Any]) -> None:
        itype = item.get("type")
        if itype == "message":
            self.message(item)
        elif itype == "reasoning":
            texts = [_content_text(item.get("summary")), _content_text(item.get("content"))]
            self.add("thinking", text="\n".join(t for t in texts if t))
        elif itype == "function_call":
            self.tool_call(item, function_arguments(item))
        elif itype == "custom_tool_call":
            self.tool_call(item, custom_arguments(item))
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
            self.add("assistant_text", text=text, model=self.model)
        elif role == "user" and not text.lstrip().startswith(HARNESS_PREFIXES):
            self.add("user_message", text=text)
        else:
            self.add("other", recordType=HARNESS_MESSAGE, text=text[:TEXT_CAP])

    def call_id(self, item: dict[str, Any]) -> str:
        value = item.get("call_id") or item.get("id")
        if isinstance(value, str) and value:
            return value
        self.synthetic_ids += 1
        return f"{_SYNTHETIC}{self.synthetic_ids}"

    def tool_call(self, item: dict[str, Any], arguments: dict[str, Any]) -> None:
        name = str(item.get("name") or "")
        namespace = item.get("namespace") if isinstance(item.get("namespace"), str) else None
        kind = codex_kind(name, namespace)
        call_id = self.call_id(item)
        if call_id in self.calls:
            return  # a line written again (a copy, a sync, a hand edit): one call, one step
        if not call_id.startswith(_SYNTHETIC):
            self.calls.add(call_id)
        if not namespace and self.unified_exec.folds(call_id, name, arguments):
            return  # a poll of a running command: the same step
        files = files_of(name, kind, arguments, self.cwd)
        if kind == "shell" and is_shell_patch(arguments):
            kind = "edit"
        label = f"{namespace}.{name}" if namespace and kind == "mcp" else name
        if self.facts.is_mcp(call_id, self.line):
            kind = "mcp"
        self.add("tool_call", id=call_id, name=label, kind=kind, input=arguments, files=files)
        if kind == "question":
            for text, options in self.questions.asked(call_id, arguments):
                self.add("question", id=call_id, text=text, options=options)
        elif kind == "subagent" and "spawn" in name:
            agent = arguments.get("agent_type") or arguments.get("name") or name
            self.add("subagent", id=call_id, name=str(agent))

    def tool_output(self, item: dict[str, Any]) -> None:
        call_id = self.call_id(item)
        text, code = output_of(item)
        answered = self.unified_exec.result_of(
            call_id, text, code, lambda call: self.facts.status_at(call, self.line)
        )
        if answered is None:  # a command still running, or a poll of it
            return
        self.result(answered, text, code)

    def result(self, call_id: str, text: str, code: int | None, here: bool = False) -> None:
        """Call ``call_id``'s result: its output ``text``, the exit code ``code`` it states,
        and the structured statuses of the call (``here``: the one of the line being read too,
        which gives it), judged as :func:`.results.verdict` judges them."""
        before, after = self.facts.status_at(call_id, self.line, held=here)
        question = call_id in self.questions
        is_error, denied = verdict(text, code, before, after, question)
        self.add(
            "tool_result", id=call_id, output=text[:OUTPUT_CAP], isError=is_error, denied=denied
        )
        if question and (denied or not is_error):
            # Answered, refused or cancelled: each question has an answer, the refusal's text
            # when the output holds none for it (a failure that asked nothing has none).
            for given in self.questions.answers(call_id, text):
                self.add("answer", id=call_id, text=given[:TEXT_CAP])

    def tool_search_output(self, item: dict[str, Any]) -> None:
        """The deferred tools a ``tool_search`` made callable, named as their calls will be."""
        output, failed = tool_search_result(item)
        call_id = self.call_id(item)
        self.add("tool_result", id=call_id, output=output, isError=failed, denied=False)

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
            failed = server_call_failed(status)
            self.add("tool_result", id=call_id, output=status, isError=failed, denied=False)

    # -- event messages ---------------------------------------------------------------------

    def event_msg(self, payload: dict[str, Any]) -> None:
        etype = payload.get("type")
        if etype == "token_count":
            self.usage.token_count(payload, self.model or "unknown", self.ts)
        elif etype in ("task_complete", "turn_complete"):
            error = payload.get("error")
            if error:
                message = error.get("message") if isinstance(error, dict) else error
                self.api_error(str(message))
            self.add("turn_end", durationMs=payload.get("duration_ms"))
            self.turn_errors.clear()
        elif etype == "turn_aborted":
            reason = payload.get("reason") or "interrupted"
            self.add("turn_end", durationMs=payload.get("duration_ms"), text=f"aborted ({reason})")
            self.turn_errors.clear()
        elif etype == "error":
            self.api_error(str(payload.get("message", "")))
        elif etype == "item_completed":
            item = payload.get("item")
            itype = item.get("type") if isinstance(item, dict) else None
            if (
                isinstance(item, dict)
                and itype == "CommandExecution"
                and self.unified_exec.ends(item.get("id"))
            ):
                self.command_ended(item.get("id"), item)
            known = ("CommandExecution", "FileChange", "McpToolCall")
            if isinstance(item, dict) and itype not in known and itype not in QUIET_ITEMS:
                self.unknown(f"event_msg/item_completed/{itype}", item)
        elif etype in STATUS_EVENTS:
            if etype == "exec_command_end" and self.unified_exec.ends(payload.get("call_id")):
                self.command_ended(payload.get("call_id"), payload)
            return  # read by the first pass (see .facts)
        elif etype == "user_message":
            self.mirror("user", "user_message", str(payload.get("message", "")))
        elif etype == "agent_message":
            self.mirror("assistant", "assistant_text", str(payload.get("message", "")))
        elif etype in ("agent_reasoning", "agent_reasoning_raw_content"):
            self.mirror("reasoning", "thinking", str(payload.get("text", "")))
        elif quiet_event(str(etype)):
            return
        else:
            self.unknown(f"event_msg/{etype}", payload)

    def command_ended(self, call_id: Any, status: dict[str, Any]) -> None:
        """The result of a running command, given by the structured status Codex wrote when it
        ended (see :mod:`.unified_exec`): the output it wrote, and its exit code."""
        text, code = ended_output(status)
        self.result(str(call_id), text, code, here=True)

    def api_error(self, text: str) -> None:
        if text in self.turn_errors:
            return
        self.turn_errors.add(text)
        self.add("api_error", text=text[:TEXT_CAP])

    def mirror(self, role: str, event_type: str, text: str) -> None:
        if role == "user" and text.lstrip().startswith(HARNESS_PREFIXES):
            return
        if self.facts.take_mirror(role, text):
            return  # the response item with this text is in the rollout
        model = self.model if event_type == "assistant_text" else None
        self.add(event_type, text=text, model=model)


def _parse(
    lines: Sequence[str | bytes] | Path, sink: EventSink | None, on_start: StartHook | None
) -> _Parser:
    def source() -> Iterator[str | bytes]:
        return nonblank(file_lines(lines) if isinstance(lines, Path) else iter(lines))

    parser = _Parser(read_facts(source()), TrajectoryBuilder("codex", sink, on_start))
    for line in source():
        parser.feed(line)
    return parser


def parse_codex_lines(lines: Sequence[str | bytes]) -> Trajectory:
    """Parse the lines of one Codex rollout."""
    return _parse(list(lines), None, None).builder.finish()


def parse_codex_rollout(
    path: Path,
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
    threads: Sequence[str | Path] = (),
) -> Trajectory:
    """Parse one Codex rollout file (``rollout-*.jsonl``), reading it twice (see the module
    docstring); with a ``sink`` events are handed on as they are parsed, in flat memory. With
    ``threads``, the rollouts of the subagents it spawned, read as
    :func:`parse_codex_threads_plain` reads them."""
    return _threads(path, threads, sink, on_start)[1].finish()


def parse_codex_rollout_plain(path: Path) -> PlainTrajectory:
    """:func:`parse_codex_rollout` with the events left as objects (see
    :meth:`~proctor.transcripts.builder.TrajectoryBuilder.finish_plain`)."""
    return _parse(path, None, None).builder.finish_plain()


def parse_codex_threads_plain(main: Path, threads: Sequence[str | Path]) -> PlainTrajectory:
    """A Codex session of several threads as one plain trajectory: the rollout of its main
    thread and those of the subagents spawned in it (``threads``). A subagent runs beside its
    parent, so the events of all are merged in time order (each thread's own order kept), the
    subagents' marked ``sidechain``; tokens and coverage are summed, and the ids are the main
    thread's. Read this way, the events are held until every thread is read."""
    return _threads(main, threads, None, None)[1].finish_plain()


def _threads(
    main: Path, threads: Sequence[str | Path], sink: EventSink | None, on_start: StartHook | None
) -> tuple[_Parser, TrajectoryBuilder]:
    """The main thread's parser, and the builder holding every thread's events (see
    :func:`~proctor.transcripts.builder.merge_subagents`)."""
    if not threads:
        parser = _parse(main, sink, on_start)
        return parser, parser.builder
    parser = _parse(main, None, None)
    parts = [_parse(Path(thread), None, None).builder for thread in threads]
    return parser, merge_subagents(parser.builder, parts, sink, on_start)


def parse_codex_rollout_checked(
    path: Path,
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
    threads: Sequence[str | Path] = (),
) -> tuple[Trajectory, dict[str, Any]]:
    """:func:`parse_codex_rollout` and :func:`codex_usage_check` of the main rollout, in one
    parse."""
    parser, builder = _threads(path, threads, sink, on_start)
    return builder.finish(), parser.usage.check()


def codex_usage_check(path: Path) -> dict[str, Any]:
    """Cross-check of a rollout's token accounting.

    Returns ``source`` (``token_usage_record``, ``token_count``, both, or None), ``responses``
    counted, ``repeatsSkipped`` (repeated token_count events), ``computed`` (the per-response sum
    proctor reports), ``reported`` (the last ``total_token_usage``, normalised the same way, or
    None), ``difference`` (reported minus computed per field) and ``ok`` (no difference; None
    when the rollout has no total).
    """
    return _parse(path, lambda event: None, None).usage.check()
