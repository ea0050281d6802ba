"""Which CLI wrote a file given by the user: told from its first records, on one process per
CPU for a folder of many files, or, for a folder whose every file lies where one CLI keeps its
sessions and is named as it names them, from that. A Gemini CLI subagent's chat is no session
of its own."""

from __future__ import annotations

import os
import re
from pathlib import Path

from proctor.history.projects import head_records, json_header
from proctor.transcripts.lines import HEADER_LINES, decode_line
from proctor.util.cpus import usable_cpus
from proctor.util.files import read_head
from proctor.util.native_paths import UUID, first_record

SNIFF_BYTES = 16 * 1024
"""The first bytes of a file given by the user read to tell its format: its first records,
unless they are longer (the rest is then read line by line)."""


def sniff(path: str | Path, head: bytes | None = None) -> str | None:
    """The CLI that wrote the session file ``path``, or None when it is not a main session.
    ``head``: the file's first bytes, when the caller has read them."""
    from proctor.transcripts.detect import classify_record, headless_output

    if os.fspath(path).endswith(".json"):  # a Gemini CLI chat of the releases that wrote one
        document = json_header(Path(path))
        return "gemini-cli" if document and _gemini_main(document) else None
    if head is not None:
        seen, start, whole = 0, 0, len(head) < SNIFF_BYTES
        while seen < HEADER_LINES:
            end = head.find(b"\n", start)
            if end < 0 and not whole:
                break  # a line cut short: the rest is read line by line
            text, start = head[start : end if end >= 0 else len(head)], end + 1
            if text.strip():
                seen += 1
                record = decode_line(text)
                if isinstance(record, dict) and headless_output(record) is not None:
                    return None  # a CLI's headless output: no session
                found = classify_record(record) if isinstance(record, dict) else None
                if found is not None:
                    return found if _main_chat(found, record) else None
            if end < 0:
                return None  # the whole file, read
        else:
            return None
    for record in head_records(Path(path)):
        if headless_output(record) is not None:
            return None
        found = classify_record(record)
        if found is not None:
            return found if _main_chat(found, record) else None
    return None


def _main_chat(agent: str, record: dict[str, object]) -> bool:
    """Whether a file whose first telling record is ``record`` is a main session: a Gemini CLI
    subagent's chat (its header says ``"kind": "subagent"``) is read with the chat that
    started it, and a Claude Code subagent's file (its lines are a sidechain of an agent)
    with its session, wherever its folder is and whatever it is named."""
    if agent == "gemini-cli":
        return not gemini_subagent(record)
    return agent != "claude-code" or not claude_subagent(record)


def gemini_subagent(record: dict[str, object]) -> bool:
    """Whether ``record`` is the header of a Gemini CLI subagent's chat."""
    return record.get("kind") == "subagent" and "projectHash" in record


def claude_subagent(record: dict[str, object]) -> bool:
    """Whether ``record`` is the first line of a Claude Code subagent's file: a sidechain
    line of a session, naming its agent (a session's own file starts with its own line)."""
    return (
        record.get("isSidechain") is True
        and isinstance(record.get("agentId"), str)
        and "sessionId" in record
    )


def subagent_header(record: dict[str, object]) -> bool:
    """Whether ``record`` starts a subagent's file or chat, of Claude Code or Gemini CLI."""
    return gemini_subagent(record) or claude_subagent(record)


def _gemini_main(document: dict[str, object]) -> bool:
    """Whether a ``.json`` document is a Gemini CLI chat of its own: a ``messages`` list, and
    the session id and project hash every chat starts with (a request body of a chat API has a
    ``messages`` list too)."""
    return (
        isinstance(document.get("messages"), list)
        and isinstance(document.get("sessionId"), str)
        and "projectHash" in document
        and _main_chat("gemini-cli", document)
    )


STRAY_SUBAGENT = (
    "a subagent's file outside its session's folder (a Claude Code session's "
    "<session>/subagents/, a Gemini CLI chat's chats/<session id>/): no session of its own; "
    "its steps and tokens count only where its session's folder holds it"
)


def told(file: str | Path) -> tuple[str | None, str | None]:
    """The CLI that wrote ``file`` (see :func:`sniff`), or the reason it cannot be read, or
    is a subagent's file that lies where no session of it is read (a plain folder's files
    are main sessions; a subagent's are read from its session's folder)."""
    try:
        head = read_head(file, SNIFF_BYTES)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    agent = sniff(file, head)
    if agent is None:
        first = head.lstrip().partition(b"\n")[0]
        record = decode_line(first) if first else None
        if isinstance(record, dict) and subagent_header(record):
            return None, STRAY_SUBAGENT
    return agent, None


def headless_reason(file: str | Path) -> str | None:
    """Why ``file`` is no session when it is a CLI's headless output (what ``claude -p
    --output-format stream-json`` prints, say), told from its first line; else None."""
    from proctor.transcripts.detect import CLI_NAMES, headless_output

    made = headless_output(first_record(Path(file)))
    if made is None:
        return None
    name = CLI_NAMES[made]
    return (
        f"{name}'s headless output, not a session transcript: the session it ran is in "
        f"{name}'s history folder (read there)"
    )


PARALLEL_SNIFF_FROM = 2_000
"""The fewest files of a plain folder whose formats are told on one process per usable CPU: each
file's first bytes are opened, read and decoded, which took a 20,000-session folder 0.8 s on
one process; a pool costs more than that saves on a few hundred."""


def told_all(files: list[str]) -> list[tuple[str | None, str | None]]:
    """:func:`told` of each file, in order; on one process per usable CPU (see
    :func:`~proctor.util.cpus.usable_cpus`) for many files."""
    count = usable_cpus()
    if count == 1 or len(files) < PARALLEL_SNIFF_FROM:
        return [told(file) for file in files]
    from proctor.util.pool import forked_pool, start_worker

    size = max(1, len(files) // (count * 16))
    chunks = [files[start : start + size] for start in range(0, len(files), size)]
    with forked_pool(count, start_worker) as pool:
        return [told for chunk in pool.imap(_told_chunk, chunks) for told in chunk]


def _told_chunk(files: list[str]) -> list[tuple[str | None, str | None]]:
    return [told(file) for file in files]


_CLAUDE_SESSION = re.compile(UUID + r"\.jsonl")
"""A Claude Code session's file name: its session id."""
_CLAUDE_PROJECT = re.compile(r"-.*|[A-Za-z]--.*")
"""A Claude Code project folder's name: the folder the sessions ran in, each character but a
letter or digit written as ``-`` (``/home/me/app`` is ``-home-me-app``, ``C:\\app``
``C--app``)."""
_ROLLOUT = re.compile(r"rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-" + UUID + r"\.jsonl")
"""A Codex rollout's file name: when it started, and its thread's id."""
_GEMINI_CHAT = re.compile(r"session-\d{4}-\d\d-\d\dT\d\d-\d\d-[0-9a-f]{8}\.jsonl?")
"""A Gemini CLI chat's file name: the minute it started, and its session id's first 8 hex
digits (``.json`` for a chat of the older releases)."""


_GEMINI_SIDE = re.compile(r"logs\.json|checkpoint-.+\.json")
"""The files Gemini CLI keeps beside a project's ``chats/`` that are no chats: its prompt log
(``logs.json``, the prompts the terminal recalls) and the conversations saved by ``/chat save
<tag>`` (``checkpoint-<tag>.json``)."""
_GEMINI_SIDE_FOLDERS = {"checkpoints": ".json", "logs": ".jsonl"}
"""The folders of no chats Gemini CLI keeps beside a project's ``chats/``, and the files they
hold: the checkpoints ``/restore`` reads (``checkpoints/*.json``) and the developer tools' log
of a session (``logs/session-<id>.jsonl``)."""


def gemini_side_files(files: list[str]) -> set[str]:
    """Those of ``files`` that Gemini CLI keeps in a project's folder beside its ``chats/``
    (one that holds one of ``files``) and that are no chats: see :data:`_GEMINI_SIDE` and
    :data:`_GEMINI_SIDE_FOLDERS`. A folder of such a project is laid out as Gemini CLI's all
    the same (:func:`laid_out` of the other files)."""
    projects = {
        os.path.dirname(folder)
        for folder in map(os.path.dirname, files)
        if os.path.basename(folder) == "chats"
    }
    if not projects:
        return set()
    side = set()
    for file in files:
        folder, name = os.path.split(file)
        if folder in projects:
            if _GEMINI_SIDE.fullmatch(name):
                side.add(file)
        elif os.path.dirname(folder) in projects:
            suffix = _GEMINI_SIDE_FOLDERS.get(os.path.basename(folder))
            if suffix is not None and name.endswith(suffix):
                side.add(file)
    return side


def laid_out(folder: str, files: list[str]) -> str | None:
    """The CLI whose folder of sessions the plain folder ``folder`` is, when every one of its
    session ``files`` (its main files, under it) lies where that CLI keeps its sessions and is
    named as it names them: Claude Code's ``projects/`` (``<project>/<session id>.jsonl``, each
    project folder named after the folder its sessions ran in) or one project folder of it,
    Codex's ``sessions/`` (``rollout-<time>-<thread id>.jsonl`` at any depth), Gemini CLI's
    ``tmp/``, a project folder in it or its ``chats/`` (``chats/session-<minute>-<id>.jsonl``
    or ``.json``). Such files are that CLI's, as in its history folder, without their first
    bytes read (a tenth of a second for 12,000 sessions): one that is empty, cut short or
    another CLI's is then unavailable with the reason, as it is there, not passed over as a
    file that is no session. None for any other folder (a folder of session files saved under
    their ids, say), whose files are told apart by :func:`told_all`."""
    if not files:
        return None
    names = [os.path.basename(file) for file in files]
    if all(map(_ROLLOUT.fullmatch, names)):
        return "codex"
    if all(map(_GEMINI_CHAT.fullmatch, names)) and all(
        os.path.basename(os.path.dirname(file)) == "chats" for file in files
    ):
        return "gemini-cli"
    if not all(map(_CLAUDE_SESSION.fullmatch, names)):
        return None
    start = len(folder) + 1
    if all(file.find(os.sep, start) < 0 for file in files):  # a project folder
        return "claude-code" if _CLAUDE_PROJECT.fullmatch(os.path.basename(folder)) else None
    projects = {os.path.dirname(file)[start:] for file in files}
    if all(os.sep not in name and _CLAUDE_PROJECT.fullmatch(name) for name in projects):
        return "claude-code"
    return None
