"""Which project a recorded session ran in, and whether it is the folder a user named.

A Claude Code or Codex session says its folder in its first records (``cwd``); a Gemini CLI
session knows it by its project's ``.project_root`` file, else only by the SHA-256 of the path
(``gemini:<hash>``). A name that is not UTF-8 is matched as a summary keeps it, its bytes
escaped (``caf\\xe9``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from proctor.models.io import escape_surrogates
from proctor.transcripts.lines import HEADER_LINES, SYNTHETIC_MODEL, decode_line, head_cwd
from proctor.util.files import open_regular, read_regular

if TYPE_CHECKING:
    from proctor.history.layout import Session
    from proctor.history.record import SessionRecord


def head_records(path: Path, limit: int | None = HEADER_LINES) -> Iterator[dict[str, object]]:
    """The records of the first ``limit`` lines with text (every line with None)."""
    try:
        with open_regular(path) as fh:
            lines = (line for line in fh if not line.isspace())
            for number, line in enumerate(lines):
                if limit is not None and number >= limit:
                    return
                record = decode_line(line)  # as the parsers decode it
                if isinstance(record, dict):
                    yield record
    except OSError:
        return


def session_project(session: Session) -> str | None:
    """The folder the session ran in, from the session file's records (Gemini CLI:
    the folder named in the project's ``.project_root``, else ``gemini:<project hash>``).
    A Claude Code parse finds the same (:func:`~proctor.transcripts.lines.head_cwd`)."""
    if session.agent == "gemini-cli":
        return _gemini_project(session.path)
    claude = session.agent == "claude-code"
    # Claude Code: the first record that names one, however far in (a resumed session may
    # begin with dozens of summary lines); its parse finds the same.
    for record in head_records(session.path, None if claude else HEADER_LINES):
        found, cwd = head_cwd(record, claude)
        if found:
            return cwd
    return None


Kin = tuple["str | None", "int | None"]
"""What a Claude Code session of another project than ``--project`` is told by, from its
first lines, when a family of forks and copies is looked for (see
:mod:`proctor.history.kin`): the session id its first line carries, and the digest of its
first response (None for either not found)."""


class _Message(msgspec.Struct, gc=False):
    id: Any = None
    model: Any = None
    usage: Any = None


class _Answer(msgspec.Struct, gc=False):
    """What a response's digest is told from, and whether it is one (any other field is
    skipped, unbuilt)."""

    type: Any = None
    requestId: Any = None
    isApiErrorMessage: Any = None
    message: _Message | None = None


_answer = msgspec.json.Decoder(_Answer).decode


def claude_head(path: Path) -> tuple[str | None, Kin]:
    """A Claude Code session's folder, as :func:`session_project` finds it, with its
    :data:`Kin`, in one read of its first lines: up to its first response (the first the
    parsers count, see :func:`_counted`), however far in. The lines after the folder's are
    decoded only when they may be a response, and then only for what tells one.

    No bound is put on how far: any bound would be a guess, and one a real session may pass
    (what comes before its first response is the lines the CLI writes for each prompt: its
    hooks' progress, attachments, snapshots, an API error retried; 70 hooks write 70 lines),
    which would make a ``--project`` replay differ from one of every project. A session with
    no response is read to its end; with no model's output in it, such a file is short."""
    from proctor.transcripts.claude.records import response_digest

    found = False
    cwd = session_id = None
    try:
        with open_regular(path) as fh:
            for line in fh:
                if line.isspace():
                    continue
                if not found:  # as session_project reads them
                    record = decode_line(line)
                    if isinstance(record, dict):
                        found, cwd = head_cwd(record, True)
                        if session_id is None and isinstance(name := record.get("sessionId"), str):
                            session_id = name
                    if not found:
                        continue
                if b'"assistant"' not in line:
                    continue
                try:
                    answer = _answer(line)
                except (msgspec.DecodeError, RecursionError):
                    continue
                message = answer.message
                if message is not None and _counted(answer, message):
                    return cwd, (session_id, response_digest(str(message.id), answer.requestId))
    except OSError:
        pass
    return cwd, (session_id, None)


def _counted(answer: _Answer, message: _Message) -> bool:
    """Whether an assistant line (``message`` its message) is a response the parsers count,
    and give its digest: one that names its model and carries its usage; not the CLI's own
    line (model ``<synthetic>``: an API error, or its filler after a command that asks the
    model nothing), nor an API error's (``isApiErrorMessage``), which they read as one."""
    return (
        answer.type == "assistant"
        and type(message.usage) is dict
        and bool(message.model)
        and message.model != SYNTHETIC_MODEL
        and not answer.isApiErrorMessage
    )


def _gemini_project(path: Path) -> str | None:
    marker = path.parent.parent / ".project_root"
    try:
        # A regular file only: a named pipe there would block the replay.
        named = read_regular(marker).decode("utf-8", "surrogateescape").strip()
    except OSError:
        named = ""
    if named:  # an empty one names no folder: the project's hash, as without it
        return named
    header = next(head_records(path), None) if path.suffix == ".jsonl" else json_header(path)
    project_hash = header.get("projectHash") if header else None
    return f"gemini:{project_hash}" if isinstance(project_hash, str) else None


def unreadable_project_roots(sessions: list[Session]) -> list[str]:
    """A note for each Gemini CLI project folder of ``sessions`` whose ``.project_root`` is
    there but cannot be read: its chats are then known by their project's hash only (a
    ``--project`` naming the folder leaves them out, and they are a row of their own)."""
    notes = []
    folders = {s.path.parent.parent for s in sessions if s.agent == "gemini-cli"}
    for folder in sorted(folders):
        marker = folder / ".project_root"
        if not os.path.lexists(marker):
            continue
        try:
            read_regular(marker)
        except OSError as exc:
            notes.append(
                f"{escape_surrogates(str(marker))} cannot be read ({exc.strerror or exc}): the "
                "chats of its project are known by the project's hash (gemini:…)"
            )
    return notes


def json_header(path: Path) -> dict[str, object] | None:
    """A JSON file's top object (a Gemini CLI chat of the releases that wrote one)."""
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def project_key(project: str | None) -> str:
    """The folder a session ran in as ``--by project`` groups it (the row is named as the
    group's first session recorded it): the same folder named with
    a trailing ``/``, ``..`` or through a link is one project, as ``--project`` matches it
    (:func:`same_project`). A Gemini CLI project known by its hash stays as it is."""
    if not project:
        return "unknown project"
    if not os.path.isabs(project):
        return project
    try:
        return os.path.realpath(project)
    except ValueError:  # a NUL in the name: no folder has it
        return project


def same_project(project: str | None, wanted: Path) -> bool:
    """Whether a session's project is the folder ``wanted`` (Gemini CLI's by its hash). A
    name that is not UTF-8 matches as a summary keeps it, its bytes escaped (``caf\\xe9``)."""
    if project is None:
        return False
    resolved = _real(wanted)
    if project.startswith("gemini:"):
        named = project.removeprefix("gemini:")
        try:
            raw = resolved.encode("utf-8", "surrogateescape")  # the name's own bytes
        except UnicodeError:  # a lone surrogate: no folder's name
            return named in _names(str(wanted))
        shown = raw.decode("utf-8", "replace").encode()  # as Node decodes the name: U+FFFD
        digests = {hashlib.sha256(raw).hexdigest(), hashlib.sha256(shown).hexdigest()}
        return named in digests or named in _names(str(wanted))
    names = {*_names(str(wanted)), *_names(resolved)}
    return project in names or _real(project) == resolved


def _real(path: str | Path) -> str:
    """``path`` with its links resolved; as it is when it can name no folder (a NUL byte in a
    session's recorded folder or a journal's line, a lone surrogate): it then matches only a
    name written the same."""
    try:
        return os.path.realpath(path)
    except (ValueError, UnicodeError):
        return os.fspath(path)


def _names(path: str) -> tuple[str, str]:
    """A path as given and as a summary keeps it (its undecodable bytes escaped)."""
    return path, escape_surrogates(path)


def name_hashed_projects(records: Iterable[SessionRecord], folders: Iterable[str] = ()) -> None:
    """Name each Gemini CLI session known by its project's hash alone (``gemini:<hash>``) by
    the folder, when another session of the history ran in a folder of that hash (a Claude
    Code or Codex session, a Gemini CLI chat with a ``.project_root``), or one of ``folders``
    is (``--project``): the hash is the SHA-256 of the folder's path, so the same project is
    one row of ``--by project``, not two."""
    records = list(records)
    hashed = [r for r in records if r.project and r.project.startswith("gemini:")]
    if not hashed:
        return
    known: dict[str, str] = {}
    named = [r.project for r in records if r.project and not r.project.startswith("gemini:")]
    folder: str
    for folder in dict.fromkeys((*named, *folders)):  # each folder resolved once
        if os.path.isabs(folder):
            for path in dict.fromkeys((folder, _real(folder))):
                try:
                    raw = path.encode("utf-8", "surrogateescape")
                except UnicodeError:  # a lone surrogate: no folder's name
                    continue
                known.setdefault(hashlib.sha256(raw).hexdigest(), folder)
    for record in hashed:
        found = known.get(str(record.project).removeprefix("gemini:"))
        if found is not None:
            record.project = found
