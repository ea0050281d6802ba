"""Gemini CLI chat recording → normalised trajectory.

The chat file is ``~/.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl`` (Gemini CLI 0.61):
line 1 is a session header ``{sessionId, projectHash, startTime, lastUpdated, kind}``, then one
message record per line ``{id, timestamp, type: user|gemini|info|error|warning, content, …}``.
A record whose ``id`` was seen before replaces it in place, ``{"$set": {...}}`` updates
metadata, and a ``$set`` ``messages`` list or a ``{"$rewindTo": id}`` rewrites the conversation;
every message recorded on its own line stays, where it first appeared (see :mod:`.layout`). The
usage is then ccusage's (each ``gemini`` message once, by id), and no step that ran is lost.
The older single-document ``session-*.json`` (``{sessionId, …, messages: [...]}``) is read too.

A ``gemini`` message gives ``thinking`` (from ``thoughts``), ``assistant_text``, one
``tool_call`` per ``toolCalls`` entry, one ``usage`` event from ``tokens``, all at the message's
time, then each call's ``tool_result`` at the entry's own ``timestamp``, which is when the call
completed (the call and its result share the entry; a call still pending has no result).
A result's ``isError`` and ``denied`` are read as :mod:`.results` says. An ``ask_user``
call gives a ``question`` event for each of its ``questions`` and an ``answer`` event for each
from its result (see :mod:`.questions`). ``error`` messages are ``api_error``; ``info`` and
``warning`` are known ``other`` events. A subagent's chat records no entry for a call to a
tool that subagent is not offered, only the response: its call and result are read from that
(see :mod:`.subagents`).

Tokens: Gemini's ``input`` (promptTokenCount) includes ``cached`` and excludes ``tool``
(toolUsePromptTokenCount); ``output`` (candidates) excludes ``thoughts``. So ``inputTokens =
input - cached + tool``, ``cacheReadTokens = cached``, ``outputTokens = output + thoughts``,
``cacheWriteTokens = 0`` (as ccusage counts them).

Since any later record may replace or drop a message, the file is read twice: a first pass
works out which record holds the final form of each message, in what order (:mod:`.layout`),
and the second reads just those records and writes their events into the shared builder,
which can hand them on as it goes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.trajectory import HARNESS_MESSAGE, OUTPUT_CAP, Trajectory
from proctor.transcripts.builder import (
    EventSink,
    PlainTrajectory,
    StartHook,
    TrajectoryBuilder,
    ev,
    merge_subagents,
)
from proctor.transcripts.gemini.background import LISTING, listed_ends
from proctor.transcripts.gemini.layout import ChatLayout, ChatLines, message_at
from proctor.transcripts.gemini.questions import AskedQuestions
from proctor.transcripts.gemini.records import TEXT_CAP, gemini_usage, parts_text, result_text
from proctor.transcripts.gemini.results import DONE, entry_time, verdict
from proctor.transcripts.gemini.subagents import Activity, SubagentCalls
from proctor.transcripts.kinds import gemini_kind, relativise, shell_files_in, touched_files
from proctor.transcripts.lines import decode_line, line_text
from proctor.util.files import open_regular, read_regular
from proctor.util.shellwords import shell_folder

TOKEN_COUNTS = ("input", "output", "cached", "thoughts", "tool")
"""The token counts of a ``gemini`` message's ``tokens``."""
#: User records the CLI injects itself (context, reminders), not typed by the user.
HARNESS_PREFIXES = ("<session_context>", "<system-reminder>", "<environment_context>")


class _Events:
    def __init__(self, builder: TrajectoryBuilder, layout: ChatLayout, activity: Activity | None):
        self.builder = builder
        self.cwd = layout.cwd
        self.calls = 0
        self.subagents = SubagentCalls(layout.kind == "subagent", activity)
        self.background: dict[str, str] = {}
        """The call that started each background process, by the process id."""
        self.questions = AskedQuestions()

    def add(self, event_type: str, ts: str | None, **fields: Any) -> None:
        self.builder.add(ev(type=event_type, ts=ts, **fields))

    def message(self, record: dict[str, Any], following: Any = None) -> None:
        """The events of a message; ``following`` is the record after a subagent's response,
        whose function responses may answer calls the response has no entry for."""
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        mtype = record.get("type")
        text = parts_text(record.get("content"))
        if mtype == "user":
            if not text.strip():
                # A user record that only carries function responses: the calls' own entries
                # hold them, but for a subagent's calls refused before they were scheduled.
                if self.subagents.subagent:
                    for call in self.subagents.unrecorded(record.get("content")):
                        self.tool_result(call, self.tool_call(call, ts, False), ts)
                return
            if text.lstrip().startswith(HARNESS_PREFIXES):
                self.add("other", ts, recordType=HARNESS_MESSAGE, text=text)
            else:
                self.add("user_message", ts, text=text)
        elif mtype == "error":
            self.add("api_error", ts, text=text[:TEXT_CAP])
        elif mtype in ("info", "warning"):
            self.add("other", ts, recordType=f"gemini/{mtype}", text=text)
        elif mtype == "gemini":
            self.gemini(record, ts, text, following)
        else:
            self.builder.unknown(f"message/{mtype}", record, ts)

    def gemini(self, record: dict[str, Any], ts: str | None, text: str, following: Any) -> None:
        model = record.get("model") if isinstance(record.get("model"), str) else None
        for thought in record.get("thoughts") or []:
            if isinstance(thought, dict):
                parts = [thought.get("subject"), thought.get("description")]
                thinking = "\n".join(str(p) for p in parts if p)
                self.add("thinking", thought.get("timestamp") or ts, text=thinking)
        if text:
            self.add("assistant_text", ts, text=text, model=model)
        # The calls and the response's usage at the time the model gave them, then each
        # result at the time its call completed (the entry's own ``timestamp``): a subagent's
        # events, and the results of calls run side by side, fall in between.
        calls = [call for call in record.get("toolCalls") or [] if isinstance(call, dict)]
        ids = [self.tool_call(call, ts) for call in calls]
        subagent = self.subagents.subagent
        if subagent and isinstance(following, dict) and following.get("type") == "user":
            # The calls it made that no entry recorded, answered in the record that follows.
            done = following.get("timestamp")
            for call in self.subagents.unrecorded(following.get("content")):
                call["timestamp"] = done if isinstance(done, str) else None
                calls.append(call)
                ids.append(self.tool_call(call, ts, ran=False))
        tokens = record.get("tokens")
        if isinstance(tokens, dict):
            inputs, outputs, cached = gemini_usage(tokens)
            self.builder.check_counts(tokens, TOKEN_COUNTS, ts, str(record.get("id")))
            self.builder.usage((model or "unknown", inputs, outputs, cached, 0, 0), ts)
        for call, call_id in zip(calls, ids, strict=True):
            self.tool_result(call, call_id, ts)

    def tool_call(self, call: dict[str, Any], ts: str | None, ran: bool = True) -> str:
        """The ``tool_call`` event of a ``toolCalls`` entry, at the message's time ``ts``
        (the entry's when the message has none), and unless the call was refused unscheduled
        (not ``ran``) the question, skill or subagent it starts; returns the call's id."""
        name = str(call.get("name") or "")
        raw_args = call.get("args")
        args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
        call_id = str(
            call.get("id") or f"{name}-{len(self.builder.pending) + self.builder.handed_on}"
        )
        self.subagents.entry(call_id)
        call_ts = ts if ts is not None else entry_time(call)
        kind = gemini_kind(name)
        self.add(
            "tool_call",
            call_ts,
            id=call_id,
            name=name,
            kind=kind,
            input=args,
            files=self.files_of(kind, args),
        )
        if not ran:
            pass
        elif kind == "question":
            for text, options in self.questions.asked(call_id, args):
                self.add("question", call_ts, id=call_id, text=text, options=options)
        elif kind == "skill":
            self.add("skill", call_ts, name=str(args.get("name", "")))
        elif kind == "subagent":
            label = args.get("agent_name") or args.get("name") or name
            self.add("subagent", call_ts, id=call_id, name=str(label))
        return call_id

    def tool_result(self, call: dict[str, Any], call_id: str, ts: str | None) -> None:
        """The ``tool_result`` event of a ``toolCalls`` entry that completed, at the entry's
        own time (the message's ``ts`` when it has none); nothing while it is pending."""
        status = call.get("status")
        if status not in DONE:
            return
        kind = gemini_kind(str(call.get("name") or ""))
        done = entry_time(call)
        ts = done if done is not None else ts
        output = result_text(call.get("result"), call.get("resultDisplay"))
        is_error, denied, pid = verdict(kind, status, output)
        if pid is not None:  # how it ends is a later result's (see .background)
            self.background[pid] = call_id
        self.add(
            "tool_result",
            ts,
            id=call_id,
            output=output[:OUTPUT_CAP],
            isError=is_error,
            denied=denied,
        )
        if kind == "subagent":
            self.subagents.started(call.get("resultDisplay"))
        if self.background and status == "success" and call.get("name") == LISTING:
            for started, summary, failed in listed_ends(output, self.background):
                self.add(
                    "tool_result", ts, id=started, output=summary, isError=failed, denied=False
                )
        if kind == "question" and (status == "success" or denied):
            # Each question has an answer, the refusal's text when the output holds none.
            for given in self.questions.answers(call_id, output):
                self.add("answer", ts, id=call_id, text=given[:TEXT_CAP])

    def files_of(self, kind: str, args: dict[str, Any]) -> list[str]:
        if kind == "shell":
            return shell_files_in(args.get("command"), shell_folder(args), self.cwd)
        files = touched_files(args, self.cwd)
        for key in ("dir_path", "paths"):
            value = args.get(key)
            values = value if isinstance(value, list) else [value]
            files += [relativise(v, self.cwd) for v in values if isinstance(v, str) and v]
        return list(dict.fromkeys(files))


def _emit(
    layout: ChatLayout, lines: ChatLines, builder: TrajectoryBuilder, activity: Activity | None
) -> None:
    events = _Events(builder, layout, activity)
    ahead = iter(layout.slots.values())  # the slot after each one
    next(ahead, None)
    for what, number, index in layout.slots.values():
        after = next(ahead, None)
        if what == "unparsed":
            builder.add(
                {
                    "type": "other",
                    "recordType": "unparsed",
                    "raw": line_text(lines.text(number))[:TEXT_CAP],
                }
            )
            continue
        if what == "unknown":
            raw = lines.decoded(number)
            builder.add({"type": "other", "recordType": layout.unknown_types[number], "raw": raw})
            continue
        record = message_at(lines, (what, number, index))
        following = None
        if events.subagents.subagent and after is not None and record.get("type") == "gemini":
            following = message_at(lines, after)
        builder.guarded(partial(events.message, following=following), record)
        builder.maybe_drain()


def _parse(
    lines: ChatLines,
    cwd: str | None,
    sink: EventSink | None,
    on_start: StartHook | None,
    document: dict[str, Any] | None = None,
    activity: Activity | None = None,
) -> TrajectoryBuilder:
    layout = ChatLayout(cwd=cwd)
    builder = TrajectoryBuilder("gemini-cli", sink, on_start)
    if document is not None:
        layout.lines = 1
        layout.metadata(document, 0)
    else:
        for number, line in lines.scan():
            record = decode_line(line)
            layout.record(record, number)
            if not isinstance(record, dict):
                builder.coverage.unparsed_lines += 1
    builder.coverage.lines = layout.lines
    for rtype in layout.unknown_types.values():
        builder.count_unknown(rtype)
    builder.ids(layout.session_id)
    try:
        _emit(layout, lines, builder, activity)
    finally:
        lines.close()
    return builder


def parse_gemini_lines(lines: Iterable[str | bytes], cwd: str | None = None) -> Trajectory:
    """Parse the lines of one Gemini CLI chat recording (JSONL)."""
    nonblank = [line for line in lines if line and not line.isspace()]
    return _parse(ChatLines(lines=nonblank), cwd, None, None).finish()


def project_root(path: Path) -> str | None:
    """The project directory Gemini CLI recorded for a chat, from ``<project>/.project_root``."""
    marker = path.parent.parent / ".project_root"
    try:
        # A regular file only (a named pipe would block); a folder name that is not UTF-8
        # comes back as Python spells such a path (surrogate escapes).
        text = read_regular(marker).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None
    return text or None


def parse_gemini_chat(
    path: Path,
    cwd: str | None = None,
    sink: EventSink | None = None,
    on_start: StartHook | None = None,
    subagents: Sequence[Path] = (),
) -> Trajectory:
    """Parse a Gemini CLI chat file: ``session-*.jsonl``, or the older whole-JSON ``.json``.
    With a ``sink`` events are handed on as they are parsed, in flat memory (JSONL files). The
    chats of the ``subagents`` it started are read with it (see
    :func:`~proctor.transcripts.builder.merge_subagents`; their events are held until the end)."""
    return _read_all(path, cwd, sink, on_start, subagents).finish()


def parse_gemini_chat_plain(
    path: Path, cwd: str | None = None, subagents: Sequence[Path] = ()
) -> PlainTrajectory:
    """:func:`parse_gemini_chat` with the events left as objects (see
    :meth:`~proctor.transcripts.builder.TrajectoryBuilder.finish_plain`)."""
    return _read_all(path, cwd, None, None, subagents).finish_plain()


def _read_all(
    path: Path,
    cwd: str | None,
    sink: EventSink | None,
    on_start: StartHook | None,
    subagents: Sequence[Path],
) -> TrajectoryBuilder:
    if not subagents:
        return _read(path, cwd, sink, on_start)
    cwd = cwd or project_root(path)
    activity: Activity = {}  # what the main chat says of the subagents' calls
    main = _read(path, cwd, None, None, activity)
    parts = [_read(chat, cwd, None, None, activity) for chat in subagents]
    return merge_subagents(main, parts, sink, on_start)


def _read(
    path: Path,
    cwd: str | None,
    sink: EventSink | None,
    on_start: StartHook | None,
    activity: Activity | None = None,
) -> TrajectoryBuilder:
    cwd = cwd or project_root(path)
    try:
        with open_regular(path) as fh:
            head = fh.read(1 << 16)
            first = head.split(b"\n", 1)[0].strip()
            whole = None
            record = decode_line(first)
            # A whole-JSON chat spans many lines, or one (written without indentation).
            one_document = isinstance(record, dict) and isinstance(record.get("messages"), list)
            if head.lstrip().startswith(b"{") and (record is None or one_document):
                fh.seek(0)
                whole = fh.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    document = decode_line(whole) if whole is not None else None
    if isinstance(document, dict):
        if "sessionId" not in document and "projectHash" not in document:
            raise ConfigError(
                f"{path}: not a Gemini CLI chat (its messages have no sessionId or "
                "projectHash beside them: another program's JSON)"
            )
        messages = document.get("messages")
        lines = ChatLines(lines=[json.dumps({"$set": {"messages": messages}}).encode()])
        return _parse(lines, cwd, sink, on_start, document, activity)
    builder = _parse(ChatLines(path=path), cwd, sink, on_start, activity=activity)
    coverage = builder.coverage
    if whole is not None and 0 < coverage.lines == coverage.unparsed_lines:
        if str(path).endswith(".jsonl"):  # a chat of lines, its header line cut
            raise ConfigError(
                f"{path}: its first line, the chat's header, is not whole JSON and no line "
                "after it is (cut short while it was written?)"
            )
        raise ConfigError(
            f"{path}: not a whole JSON document (a chat of the older releases, cut short "
            "while it was written?)"
        )
    return builder
