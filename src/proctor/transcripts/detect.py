"""Which agent wrote a transcript, and one entry point that parses any of them.

``detect_format`` sniffs the first records of a file (a folder: the session file inside it);
``parse_any`` dispatches a transcript file to the format's parser through a registry (a folder
is refused: which of its sessions is meant is the session layer's choice, see
:func:`proctor.parse_transcript`). A main file is parsed together with its subagents' files.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.models.trajectory import Trajectory
from proctor.transcripts.builder import EventSink, StartHook
from proctor.transcripts.cut_short import (
    begins_like,
    document_cut,
    only_line_cut,
    partial_record,
    told_by_opening,
)
from proctor.transcripts.wrapped import wrapped
from proctor.util.jsonl import decode_object
from proctor.util.logs import shown_as
from proctor.util.native_paths import (
    claude_subagent_files,
    codex_rollout,
    first_record,
    gemini_chat,
    gemini_subagent_chats,
    newest_file,
    unlisted_subagents,
)

FORMATS = ("claude-code", "codex", "gemini-cli", "acp")
CODEX_RECORDS = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "token_usage_record",
        "world_state",
    }
)
CODEX_LEGACY_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output"})
CLAUDE_RECORDS = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "summary",
        "queue-operation",
        "file-history-snapshot",
        "last-prompt",
        "mode",
        "permission-mode",
        "ai-title",
        "custom-title",
        "progress",
    }
)
GEMINI_MESSAGES = frozenset({"user", "gemini", "info", "error", "warning"})
SNIFF_LINES = 20


CLI_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "gemini-cli": "Gemini CLI"}
FORMAT_NAMES = {
    "claude-code": "a Claude Code transcript",
    "codex": "a Codex rollout",
    "gemini-cli": "a Gemini CLI chat",
    "acp": "an ACP session log",
}
_HEADLESS_CLAUDE = frozenset({"system", "assistant", "user", "result", "stream_event"})


def headless_output(record: dict[str, Any]) -> str | None:
    """The CLI whose headless output ``record`` is a line of, or None: what ``claude -p
    --output-format stream-json`` (or ``json``), ``gemini --output-format stream-json`` (or
    ``json``) or ``codex exec --json`` print, which is not the session's transcript (a Claude
    Code line of it names its session as ``session_id``, a transcript's as ``sessionId``)."""
    rtype = record.get("type")
    if isinstance(record.get("session_id"), str) and "sessionId" not in record:
        if rtype in _HEADLESS_CLAUDE:
            return "claude-code"
        if rtype == "init" and "model" in record:
            return "gemini-cli"
    if rtype is None and "response" in record and "stats" in record:
        return "gemini-cli"
    if isinstance(rtype, str) and rtype.startswith(("thread.", "turn.", "item.")):
        return "codex"
    return None


def classify_record(record: dict[str, Any]) -> str | None:
    """The format one decoded record belongs to, or None when it says nothing."""
    if record.get("from") in ("client", "agent") and ("message" in record or "text" in record):
        return "acp"  # proctor's own log of an ACP session
    rtype = record.get("type")
    if not isinstance(rtype, str):
        rtype = None  # a list or an object here is no record type of any format
    if "payload" in record and rtype in CODEX_RECORDS:
        return "codex"
    if "record_type" in record:
        return "codex"
    if rtype in CODEX_LEGACY_ITEMS and "role" in record and isinstance(record.get("content"), list):
        return "codex"  # a bare message item (its parts in a list; a chat log's is text)
    if "projectHash" in record or "$set" in record or "$rewindTo" in record:
        return "gemini-cli"
    if rtype in CLAUDE_RECORDS and ("uuid" in record or "message" in record):
        return "claude-code"
    if "sessionId" in record and ("parentUuid" in record or "leafUuid" in record):
        return "claude-code"
    if rtype in GEMINI_MESSAGES and "content" in record and "id" in record:
        return "gemini-cli"
    if rtype in CLAUDE_RECORDS:
        return "claude-code"
    if "instructions" in record and "id" in record:
        return "codex"
    return None


def _sniff_file(path: Path) -> str | None:
    with open(path, "rb") as fh:
        seen = 0
        for line in fh:
            if not line.strip():
                continue
            seen += 1
            record = decode_object(line)
            if record is not None:
                if headless_output(record) is not None:
                    return None  # a CLI's headless output (see _sniff)
                found = classify_record(record)
                if found:
                    return found
            if seen >= SNIFF_LINES:
                break
    if path.suffix == ".json":
        try:
            document = json.loads(path.read_bytes())
        except ValueError:
            return None
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            return "gemini-cli"
    if only_line_cut(path) is not None:  # no whole record: its name says nothing of its records
        return None
    name = path.name
    if name.startswith("rollout-"):
        return "codex"
    if name.startswith("session-"):
        return "gemini-cli"
    return None


def _claude_main(folder: Path) -> Path | None:
    """``<project>/<session>.jsonl`` for a ``<project>/<session>/`` folder, else the newest
    session file directly inside ``folder`` (a project folder)."""
    sibling = folder.parent / f"{folder.name}.jsonl"
    if sibling.is_file():
        return sibling
    mains = [p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-")]
    return newest_file(mains)


def _acp_log(folder: Path) -> Path | None:
    """A trial folder's ``acp.jsonl``."""
    found = folder / "acp.jsonl"
    return found if found.is_file() else None


LOCATORS: dict[str, Callable[[Path], Path | None]] = {
    "claude-code": _claude_main,
    "codex": codex_rollout,
    "gemini-cli": gemini_chat,
    "acp": _acp_log,
}


def _check(path: Path) -> None:
    try:
        os.stat(path)  # the reason it cannot be read: missing, a name too long, a link loop
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file or folder") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not path.is_dir() and not path.is_file():
        raise ConfigError(f"{path}: not a regular file or folder")


def session_file(path: Path, fmt: str | None = None, *, forcible: bool = True) -> tuple[Path, str]:
    """The transcript file a path names (a folder: the session file inside it) and its format.
    ``forcible``: the command reads a file of another format as ``--agent`` says, and a file
    of no known format is told so (``record`` never forces one)."""
    _check(path)
    if path.is_file():
        if fmt:  # a format named makes no compressed or UTF-16 file a transcript
            _refuse_wrapped(path)
        found = fmt or _sniff(path, forcible)
        return path, found
    if fmt:
        located = LOCATORS[fmt](path)
        if located is not None:
            return located, fmt
        raise ConfigError(f"{path}: no session transcript found in this folder")
    acp = _acp_log(path)  # a trial folder of an ACP agent: its log is the session
    if acp is not None:
        return acp, _sniff(acp)
    # A folder with sessions of several CLIs (a home folder): the newest of them all.
    candidates = [LOCATORS[c](path) for c in ("codex", "gemini-cli", "claude-code")]
    sessions = [p for p in candidates if p is not None]
    if sessions:
        newest = max(sessions, key=_modified)
        return newest, _sniff(newest)
    raise ConfigError(f"{path}: no session transcript found in this folder")


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _refuse_wrapped(path: Path) -> None:
    """A ConfigError for a transcript handed over compressed or in UTF-16/32 (see
    :func:`~proctor.transcripts.wrapped.wrapped`)."""
    odd = wrapped(path)
    if odd is not None:
        raise ConfigError(odd)


def _sniff(path: Path, forcible: bool = True) -> str:
    _refuse_wrapped(path)
    try:
        found = _sniff_file(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    if found is None:
        made = headless_output(first_record(path))
        if made is not None:
            raise ConfigError(
                f"{path}: {CLI_NAMES[made]}'s headless output, not a session transcript: parse "
                f"the session it ran, in {CLI_NAMES[made]}'s history folder"
                + (" (pass --agent to force a reading)" if forcible else "")
            )
        if _blank(path):  # said so: "not a transcript" sent the user looking at its format
            raise ConfigError(f"{path}: an empty file (no record), not yet a transcript")
        cut = _cut_short(path)
        if cut is not None:
            said, one_line = cut
            where = (
                "its only line ends inside its first record"
                if one_line
                else "its JSON document ends before it is whole"
            )
            raise ConfigError(
                f"{path}: {said}: {where}, so it holds no whole record: give the whole file, "
                "as it was written"
            )
        raw = _trial_transcript(path)
        if raw is not None:
            raise ConfigError(
                f"{path}: a record proctor wrote of a trial, not a transcript: parse the "
                f"trial's native transcript, {raw}"
            )
        raise ConfigError(
            f"{path}: not a Claude Code, Codex or Gemini CLI transcript, nor an ACP session log"
            + (" (pass --agent to force one)" if forcible else "")
        )
    return found


def sniffed_format(path: Path) -> str | None:
    """The format ``path``'s first records are in, or None (no known one, not readable)."""
    try:
        return _sniff_file(path) if path.is_file() else None
    except OSError:
        return None


def _cut_short(path: Path) -> tuple[str, bool] | None:
    """What a file cut short inside its first record looks like (``looks like a Codex rollout
    cut short``): the format its first keys say, else those whose first record it may begin
    (cut before its keys say which), and whether it is one line; or None: keys of another
    file's, a CLI's headless output (which is no transcript whole either), not JSON cut
    short."""
    text = document_cut(path)
    said = _looks(text) if text is not None else None
    return (said, "\n" not in text) if said is not None and text is not None else None


def _looks(text: str) -> str | None:
    """:func:`_cut_short`'s words for the object ``text`` begins."""
    record = partial_record(text)
    if headless_output(record) is not None:
        return None
    found = classify_record(record) or told_by_opening(text)
    if found is not None:
        return f"looks like {FORMAT_NAMES[found]} cut short"
    may_be = [FORMAT_NAMES[fmt] for fmt in begins_like(text)]
    if not may_be:
        return None
    said = "looks cut short, too early to tell which CLI wrote it"
    if len(may_be) == len(FORMAT_NAMES):
        return said
    if len(may_be) == 1:
        return f"{said} (it begins as {may_be[0]} does)"
    return f"{said} (it begins as {', '.join(may_be[:-1])} or {may_be[-1]} may)"


def _trial_transcript(path: Path) -> Path | None:
    """The native transcript a trial folder keeps beside ``path``, when ``path`` is one of the
    trial's own records (``trajectory.jsonl``, already parsed; ``trial.json``)."""
    if path.name not in ("trajectory.jsonl", "trial.json"):
        return None
    for name in ("raw-transcript.jsonl", "acp.jsonl"):
        if (path.parent / name).is_file():
            return path.parent / name
    return None


def _blank(path: Path) -> bool:
    """Whether ``path`` holds nothing but white space (its first 64 KiB, when larger)."""
    try:
        with open(path, "rb") as fh:
            return not fh.read(65536).strip() and not fh.read(1)
    except OSError:
        return False


def detect_format(path: Path) -> str:
    """``claude-code``, ``codex`` or ``gemini-cli`` for a transcript file or session folder."""
    return session_file(Path(path))[1]


def session_parts(path: Path, fmt: str) -> list[Path]:
    """The files a main transcript of format ``fmt`` is parsed together with, as its parser
    finds them: a Claude Code session's subagent files, the rollouts of the threads a Codex
    thread spawned, the chats of the subagents a Gemini CLI chat started; [] for an ACP log."""
    if fmt == "claude-code":
        return claude_subagent_files(path)
    if fmt == "codex":
        from proctor.transcripts.codex.threads import subagent_threads

        return subagent_threads(path)
    if fmt == "gemini-cli":
        return gemini_subagent_chats(path)
    return []


# Each parser's modules are imported when a file of its format is first parsed: a run of one
# agent loads one parser.


def _parse_claude(
    path: Path, sink: EventSink | None = None, on_start: StartHook | None = None
) -> Trajectory:
    from proctor.transcripts.claude import parse_claude_session

    problem = unlisted_subagents(path)
    if problem is not None:  # read without them, and said (history lists it as unavailable)
        logging.getLogger("proctor").warning(
            "%s: %s: its subagents' steps and tokens are not counted",
            path,
            problem,
            extra=shown_as("warning"),
        )
    return parse_claude_session(path, session_parts(path, "claude-code"), sink, on_start)


def _parse_codex(
    path: Path, sink: EventSink | None = None, on_start: StartHook | None = None
) -> Trajectory:
    from proctor.transcripts.codex import parse_codex_rollout

    return parse_codex_rollout(path, sink, on_start, session_parts(path, "codex"))


def _parse_gemini(
    path: Path, sink: EventSink | None = None, on_start: StartHook | None = None
) -> Trajectory:
    from proctor.transcripts.gemini import parse_gemini_chat

    return parse_gemini_chat(path, None, sink, on_start, session_parts(path, "gemini-cli"))


def _parse_acp(
    path: Path, sink: EventSink | None = None, on_start: StartHook | None = None
) -> Trajectory:
    from proctor.transcripts.acp import parse_acp_log

    return parse_acp_log(path, sink, on_start)


Parser = Callable[[Path, EventSink | None, StartHook | None], Trajectory]
PARSERS: dict[str, Parser] = {
    "claude-code": _parse_claude,
    "codex": _parse_codex,
    "gemini-cli": _parse_gemini,
    "acp": _parse_acp,
}
"""Format → parser of a main transcript file: ``parser(path, sink, on_start)``. A parser names
the file it could not read (a ConfigError) and lets a sink's own errors pass."""


def locate_and_parse(path: Path, fmt: str | None = None) -> tuple[Path, Trajectory]:
    """The transcript file ``path`` names and its trajectory (see :func:`parse_any`)."""
    file, found = locate(path, fmt)
    return file, PARSERS[found](file, None, None)


def locate(path: Path, fmt: str | None = None) -> tuple[Path, str]:
    """The transcript file ``path`` and its format (``fmt`` forces the format). A folder is
    refused: which of its sessions is meant is what ``proctor parse`` decides (the session
    layer, :func:`proctor.parse_transcript`), which this layer cannot."""
    if fmt is not None and fmt not in FORMATS:
        raise ConfigError(f"unknown transcript format '{fmt}' (known: {', '.join(FORMATS)})")
    path = Path(path)
    _check(path)  # a path that cannot be looked at: its reason
    if path.is_dir():
        raise ConfigError(
            f"{path}: a folder, not a transcript file; proctor.parse_transcript(folder) reads "
            "the newest session in it as `proctor parse` does"
        )
    return session_file(path, fmt)


def stream_parse(
    file: Path, fmt: str, sink: EventSink, on_start: StartHook | None = None
) -> Trajectory:
    """Parse ``file`` handing each event (as its ``trajectory.jsonl`` object) to ``sink`` as it
    is parsed, in flat memory whatever the file's size; returns the trajectory without its
    events (usage, coverage and ids)."""
    return PARSERS[fmt](file, sink, on_start)


def parse_any(path: Path, fmt: str | None = None) -> Trajectory:
    """Parse any supported native transcript file (with the subagent files its session keeps
    beside it).

    ``fmt`` (``claude-code``, ``codex`` or ``gemini-cli``) forces the format; otherwise it is
    detected. Raises :class:`~proctor.errors.ConfigError` when the path is missing,
    unreadable, a folder (:func:`proctor.parse_transcript` reads a folder's newest session) or
    not a transcript.

    >>> parse_any(Path("~/.codex/sessions/2026/11/29/rollout-….jsonl")).usage  # doctest: +SKIP
    {'gpt-5.5': ModelUsage(input_tokens=11172, output_tokens=355, ...)}
    """
    return locate_and_parse(path, fmt)[1]
