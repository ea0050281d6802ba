"""Gemini CLI chat recording → normalised trajectory.

The chat file is ``~/.gemini/tmp/<project>/chats/session-<ts>-<id8>.jsonl`` (Gemini CLI 0.61):
line 1 is a session header ``{sessionId, projectHash, startTime, lastUpdated, kind}``, then one
message record per line ``{id, timestamp, type: user|gemini|info|error|warning, content, …}``.
A record whose ``id`` was seen before replaces it in place (last write wins, position of first
appearance) and ``{"$set": {...}}`` updates metadata. A ``$set`` ``messages`` list and a
``{"$rewindTo": id}`` rewrite the conversation Gemini CLI sends next (a resumed session appends a
second header and the history in the model's wire form, without token counts or tool results;
after a refused call the history is written again without that turn; a rewind drops a message
and what followed), but what was recorded on its own line was sent, answered and billed, and
its tools ran: every recorded message stays, where it first appeared, and only the messages
known from a list alone follow the rewrites. The usage is then ccusage's (each ``gemini``
message once, by id), and no step that ran is lost.
The older single-document ``session-*.json`` (``{sessionId, …, messages: [...]}``) is read too.

A ``gemini`` message gives ``thinking`` (from ``thoughts``), ``assistant_text``, one
``tool_call`` per ``toolCalls`` entry, one ``usage`` event from ``tokens``, all at the message's
time, then each call's ``tool_result`` at the entry's own ``timestamp``, which is when the call
completed (the call and its result share the entry; a call still pending has no result).
``isError`` is ``status == "error"``, or a shell output whose ``Exit Code:`` is not 0 (the
status stays ``success`` then); null for a command moved to the background, whose end a later
process listing may tell (see :mod:`proctor.transcripts.gemini.background`). An ``ask_user``
call gives a ``question`` event for each of its ``questions``, and its ``success`` or refused
result an ``answer`` event for each, in the same order: the answer its output holds under the
question's index (see :func:`.records.ask_user_answers`), else the output (a refusal's, for each
question, as Claude Code's are). ``cancelled`` (the
user refused), policy refusals and calls a ``BeforeTool`` hook refused are denials (see
:mod:`.records`). ``error`` messages are ``api_error``; ``info`` and ``warning`` are known
``other`` events. A subagent's chat records no entry for a call to a tool that subagent is not
offered, only the response: its call and result are read from that, the call with the response
that made it (before its usage), its arguments from the ``resultDisplay`` of the main chat's call
that started the subagent, when it lists them (else the input is empty).

Tokens: Gemini's ``input`` (promptTokenCount) includes ``cached`` and excludes ``tool``
(toolUsePromptTokenCount); ``output`` (candidates) excludes ``thoughts``. So ``inputTokens =
input - cached + tool``, ``cacheReadTokens = cached``, ``outputTokens = output + thoughts``,
``cacheWriteTokens = 0`` (as ccusage counts them).

Since any later record may replace or drop a message, the file is read twice: a first pass
works out which record holds the final form of each message, in what order (it keeps only where
each record is, never the record), and the second reads just those records and writes their
events into the shared builder, which can hand them on as it goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
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
from proctor.transcripts.gemini.background import LISTING, listed_ends, moved_to_background
from proctor.transcripts.gemini.records import (
    activity_args,
    ask_user_answers,
    gemini_usage,
    parts_text,
    refused,
    result_text,
    unanswered,
)
from proctor.transcripts.kinds import (
    gemini_kind,
    numbered_questions,
    questions_of,
    relativise,
    shell_files_in,
    touched_files,
)
from proctor.transcripts.lines import decode_line, line_text
from proctor.util.files import open_regular, read_regular
from proctor.util.shellwords import shell_folder

TEXT_CAP = 2000
TOKEN_COUNTS = ("input", "output", "cached", "thoughts", "tool")
"""The token counts of a ``gemini`` message's ``tokens``."""
EXIT_CODE = re.compile(r"^Exit Code: (-?\d{1,12})", re.M)
#: User records the CLI injects itself (context, reminders), not typed by the user.
HARNESS_PREFIXES = ("<session_context>", "<system-reminder>", "<environment_context>")


# -- the first pass: where the final form of every message is ----------------------------------

Activity = dict[str, tuple[str, dict[str, Any]]]
"""The tool name and arguments of subagents' calls, by call id."""
Where = tuple[str, int, int]
"""(what, line, index): ``("line", n, 0)`` a whole line, ``("set", n, i)`` the i-th message of
a ``$set`` line, ``("unparsed", n, 0)`` / ``("unknown", n, 0)`` a line kept as ``other``."""


@dataclass
class ChatLayout:
    """The slots of a chat in order (``m:<id>`` for messages, ``#<n>`` for unknown or broken
    lines) and where each one's record is; the session id and project folder."""

    slots: dict[str, Where] = field(default_factory=dict)
    recorded: dict[str, Where] = field(default_factory=dict)
    unknown_types: dict[int, str] = field(default_factory=dict)
    session_id: str | None = None
    cwd: str | None = None
    kind: str | None = None
    """The header's ``kind``: ``main``, or ``subagent`` for a subagent's chat."""
    lines: int = 0
    extra: int = 0

    def add_extra(self, where: Where) -> None:
        self.extra += 1
        self.slots[f"#{self.extra}"] = where

    def metadata(self, meta: dict[str, Any], line: int) -> None:
        if isinstance(meta.get("sessionId"), str):
            self.session_id = self.session_id or meta["sessionId"]
        if self.kind is None and isinstance(meta.get("kind"), str):
            self.kind = meta["kind"]
        directories = meta.get("directories")
        if self.cwd is None and isinstance(directories, list) and directories:
            self.cwd = str(directories[0])
        messages = meta.get("messages")
        if isinstance(messages, list):
            # The history rewritten (a resumed session's, in the model's wire form, without
            # token counts or tool results; the history after a refused call, without that
            # turn): a message recorded on its own line happened, and stays where it was; of
            # the messages known only from an earlier list, those this one drops go.
            self.slots = self._relisted(messages, line)

    def _relisted(self, messages: list[Any], line: int) -> dict[str, Where]:
        """The slots after a ``$set.messages`` list: the recorded messages where they were, and
        the messages known from the list alone in the list's order, each placed before the
        recorded message that follows it in the list (a resumed session's context first)."""
        anchored: dict[str, list[tuple[str, Where]]] = {}
        waiting: list[tuple[str, Where]] = []
        for index, message in enumerate(messages):
            if not (isinstance(message, dict) and isinstance(message.get("id"), str)):
                continue
            key = "m:" + message["id"]
            if key in self.recorded:
                if waiting:
                    anchored.setdefault(key, []).extend(waiting)
                    waiting = []
            else:
                waiting.append((key, ("set", line, index)))
        slots: dict[str, Where] = {}
        for key, where in self.slots.items():
            if self._listed(key):
                continue  # known from an earlier list only: this one says where it goes
            for listed, at in anchored.pop(key, ()):
                slots[listed] = at
            slots[key] = where
        for listed, at in [*(pair for pairs in anchored.values() for pair in pairs), *waiting]:
            slots[listed] = at
        return slots

    def rewind(self, message_id: str) -> None:
        """The conversation taken back to before ``message_id``: what the model is sent next.
        The messages recorded after it were sent, answered and billed, and their tools ran:
        they stay (as ccusage counts them); of those known only from a history list, the
        ones from that message on go."""
        keys = list(self.slots)
        target = "m:" + message_id
        start = keys.index(target) if target in self.slots else 0
        for key in keys[start:]:
            if self._listed(key):
                del self.slots[key]

    def _listed(self, key: str) -> bool:
        """Whether a slot holds a message known only from a ``$set.messages`` list."""
        return not key.startswith("#") and key not in self.recorded

    def record(self, record: Any, line: int) -> None:
        self.lines += 1
        if not isinstance(record, dict):
            self.add_extra(("unparsed", line, 0))
        elif isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("$set"), dict):
            self.metadata(record["$set"], line)
        elif isinstance(record.get("id"), str):
            self.slots["m:" + record["id"]] = self.recorded["m:" + record["id"]] = ("line", line, 0)
        elif isinstance(record.get("sessionId"), str) and "projectHash" in record:
            self.metadata(record, line)
        else:
            kind = record.get("type")
            self.unknown_types[line] = UNTYPED if kind is None else str(kind)
            self.add_extra(("unknown", line, 0))


def _read_lines(path: Path) -> Iterator[bytes]:
    """A file's lines with their line ends; a read error names the file."""
    try:
        with open(path, "rb") as fh:
            yield from fh
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


class _Lines:
    """Random access to a chat's non-blank lines: by offset in a file, or in a list."""

    def __init__(self, path: Path | None = None, lines: list[str | bytes] | None = None) -> None:
        self.path = path
        self.lines = lines
        self.offsets: list[int] = []
        self._fh: Any = None
        self._cached: tuple[int, Any] | None = None

    def scan(self) -> Iterator[tuple[int, str | bytes]]:
        """(line number, text) of every non-blank line, remembering where each one is."""
        if self.lines is not None:
            yield from enumerate(self.lines)
            return
        if self.path is None:
            return
        offset = 0
        for raw in _read_lines(self.path):
            if raw.strip():
                self.offsets.append(offset)
                yield len(self.offsets) - 1, raw
            offset += len(raw)

    def text(self, number: int) -> str | bytes:
        if self.lines is not None:
            return self.lines[number]
        try:
            if self._fh is None and self.path is not None:
                self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
            self._fh.seek(self.offsets[number])
            return bytes(self._fh.readline())
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot be read ({exc.strerror or exc})") from exc

    def decoded(self, number: int) -> Any:
        if self._cached is None or self._cached[0] != number:
            self._cached = (number, decode_line(self.text(number)))
        return self._cached[1]

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


# -- the second pass: events ---------------------------------------------------------------------


def _entry_time(call: dict[str, Any]) -> str | None:
    """A ``toolCalls`` entry's own time: when the call completed."""
    stamp = call.get("timestamp")
    return stamp if isinstance(stamp, str) else None


class _Events:
    def __init__(self, builder: TrajectoryBuilder, layout: ChatLayout, activity: Activity | None):
        self.builder = builder
        self.cwd = layout.cwd
        self.calls = 0
        self.subagent = layout.kind == "subagent"
        """A subagent's chat: it records no ``toolCalls`` entry for a call it refused before
        scheduling it (a tool not offered to that agent), only the response it sent back."""
        self.recorded: set[str] = set()
        """A subagent's chat: the ids of the ``toolCalls`` entries read so far (a main chat,
        which may be long and streamed, keeps none)."""
        self.background: dict[str, str] = {}
        """The call that started each background process, by the process id."""
        self.questions: dict[str, list[int]] = {}
        """The index in its ``questions`` of each question a question call asks, in order, by
        the call's id, until its result (see :func:`~.records.ask_user_answers`)."""
        self.activity = activity
        """The name and arguments of the calls of the subagents a main chat started (by call
        id, see :func:`.records.activity_args`): a main chat fills it, a subagent's reads it."""

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
                if self.subagent:
                    for call in unanswered(record.get("content"), self.recorded):
                        self.tool_result(call, self.tool_call(self.known(call), ts, False), ts)
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
        if self.subagent and isinstance(following, dict) and following.get("type") == "user":
            # The calls it made that no entry recorded, answered in the record that follows.
            done = following.get("timestamp")
            for call in unanswered(following.get("content"), self.recorded):
                call["timestamp"] = done if isinstance(done, str) else None
                calls.append(call)
                ids.append(self.tool_call(self.known(call), ts, ran=False))
        tokens = record.get("tokens")
        if isinstance(tokens, dict):
            inputs, outputs, cached = gemini_usage(tokens)
            self.builder.check_counts(tokens, TOKEN_COUNTS, ts, str(record.get("id")))
            self.builder.usage((model or "unknown", inputs, outputs, cached, 0, 0), ts)
        for call, call_id in zip(calls, ids, strict=True):
            self.tool_result(call, call_id, ts)

    def known(self, call: dict[str, Any]) -> dict[str, Any]:
        """A call no entry recorded, with its arguments when the main chat's call that started
        the subagent lists them under the same id and name; otherwise its input is empty (a
        subagent's chat records neither the call nor its ``functionCall`` part)."""
        name, args = (self.activity or {}).get(call["id"], (None, None))
        return {**call, "args": args} if name == call["name"] else call

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
        if self.subagent:
            self.recorded.add(call_id)
        call_ts = ts if ts is not None else _entry_time(call)
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
            self.question(call_id, args, call_ts)
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
        if status not in ("success", "error", "cancelled"):
            return
        kind = gemini_kind(str(call.get("name") or ""))
        done = _entry_time(call)
        ts = done if done is not None else ts
        output = result_text(call.get("result"), call.get("resultDisplay"))
        denied = status == "cancelled" or (status == "error" and refused(output[:TEXT_CAP]))
        is_error: bool | None = status == "error" and not denied
        pid = moved_to_background(output) if kind == "shell" and status == "success" else None
        if pid is not None:  # how it ends is a later result's (see .background)
            is_error = None
            self.background[pid] = call_id
        elif not denied and kind == "shell":
            # The shell tool's trailer comes last; an earlier "Exit Code:" is the command's output.
            codes = EXIT_CODE.findall(output)
            if codes and int(codes[-1]) != 0:
                is_error = True
        self.add(
            "tool_result",
            ts,
            id=call_id,
            output=output[:OUTPUT_CAP],
            isError=is_error,
            denied=denied,
        )
        if self.activity is not None and kind == "subagent":
            self.activity.update(activity_args(call.get("resultDisplay")))
        if self.background and status == "success" and call.get("name") == LISTING:
            for started, summary, failed in listed_ends(output, self.background):
                self.add(
                    "tool_result", ts, id=started, output=summary, isError=failed, denied=False
                )
        if kind == "question" and (status == "success" or denied):
            self.answered(call_id, output, ts)

    def question(self, call_id: str, args: dict[str, Any], ts: str | None) -> None:
        """A ``question`` event for each question the call asks, in order."""
        asked = questions_of(args)
        self.questions[call_id] = [index for index, _ in numbered_questions(args)]
        for text, options in asked:
            self.add("question", ts, id=call_id, text=text, options=options)

    def answered(self, call_id: str, output: str, ts: str | None) -> None:
        """An ``answer`` event for each question of a question call that succeeded or was
        refused, in the order asked: the answer its output holds under the question's index
        (see :func:`~.records.ask_user_answers`), else the output itself (a refused call's,
        ``[Operation Cancelled] Reason: User denied execution.`` when the picker was dismissed
        with Esc, answers each of its questions, its result's ``denied`` saying so)."""
        for given in ask_user_answers(self.questions.pop(call_id, [0]), output):
            self.add("answer", ts, id=call_id, text=(given or output)[:TEXT_CAP])

    def files_of(self, kind: str, args: dict[str, Any]) -> list[str]:
        if kind == "shell":
            return shell_files_in(args.get("command"), shell_folder(args), self.cwd)
        files = touched_files(args, self.cwd)
        for key in ("dir_path", "paths"):
            value = args.get(key)
            values = value if isinstance(value, list) else [value]
            files += [relativise(v, self.cwd) for v in values if isinstance(v, str) and v]
        return list(dict.fromkeys(files))


def _message(lines: _Lines, where: Where) -> Any:
    """The message record in a slot (``None`` for a line kept as ``other``)."""
    what, number, index = where
    if what == "line":
        return lines.decoded(number)
    return lines.decoded(number)["$set"]["messages"][index] if what == "set" else None


def _emit(
    layout: ChatLayout, lines: _Lines, builder: TrajectoryBuilder, activity: Activity | None
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
        record = _message(lines, (what, number, index))
        following = None
        if events.subagent and after is not None and record.get("type") == "gemini":
            following = _message(lines, after)
        builder.guarded(partial(events.message, following=following), record)
        builder.maybe_drain()


def _parse(
    lines: _Lines,
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
    return _parse(_Lines(lines=nonblank), cwd, None, None).finish()


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
        lines = _Lines(lines=[json.dumps({"$set": {"messages": messages}}).encode()])
        return _parse(lines, cwd, sink, on_start, document, activity)
    builder = _parse(_Lines(path=path), cwd, sink, on_start, activity=activity)
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
