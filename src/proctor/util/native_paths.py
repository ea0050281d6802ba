"""Where each agent CLI leaves a session's native files inside a (scratch) home, and how it
names them.

* Claude Code: ``<config>/projects/<project>/<session>.jsonl`` plus subagent files
  ``<project>/<session>/subagents/agent-*.jsonl`` (2.1.2+) or, earlier,
  ``<project>/agent-*.jsonl`` whose lines carry the parent's ``sessionId``.
* Codex: ``<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<ts>-<thread id>.jsonl`` (then
  ``archived_sessions/``).
* Gemini CLI: ``<~/.gemini>/tmp/<project>/chats/session-<ts>-<id8>.jsonl`` (older: ``.json``);
  subagent chats live one level deeper, in ``chats/<parent session id>/``, and are skipped.

Every function returns nothing (``[]`` or None) rather than raising when the files are absent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable
from pathlib import Path

from proctor.util.files import open_regular
from proctor.util.jsonl import decode_object

CLAUDE_NAME_LIMIT = 200


def project_dir_name(cwd: str) -> str:
    """Claude Code's folder name for a working directory: every character that is not an ASCII
    letter or digit becomes ``-``; a name longer than 200 characters keeps its first 200 and
    gains ``-`` and the base-36 absolute value of the path's Java-style 32-bit string hash."""
    name = re.sub(r"[^a-zA-Z0-9]", "-", cwd)
    if len(name) <= CLAUDE_NAME_LIMIT:
        return name
    units = cwd.encode("utf-16-le", "surrogatepass")
    digest = 0
    for low, high in zip(units[::2], units[1::2], strict=True):  # JavaScript's string units
        digest = (digest * 31 + (high << 8 | low)) & 0xFFFFFFFF
    signed = digest - (1 << 32) if digest >= 1 << 31 else digest
    return f"{name[:CLAUDE_NAME_LIMIT]}-{_base36(abs(signed))}"


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def claude_transcript(config_dir: Path | str, cwd: str, session_id: str) -> Path:
    """``<config>/projects/<project folder of cwd>/<session id>.jsonl``."""
    return Path(config_dir) / "projects" / project_dir_name(cwd) / f"{session_id}.jsonl"


def newest_file(paths: Iterable[Path]) -> Path | None:
    best: tuple[float, str] | None = None
    chosen = None
    for path in paths:
        try:
            key = (path.stat().st_mtime, path.name)
        except OSError:
            continue
        if best is None or key > best:
            best, chosen = key, path
    return chosen


def first_record(path: Path) -> dict[str, object]:
    """The first record of a JSONL file; {} when there is none, or when the file is not a
    regular file (a named pipe would block the reader)."""
    try:
        with open_regular(path) as fh:
            for line in fh:
                if line.strip():
                    return decode_object(line) or {}
    except OSError:
        pass
    return {}


def unlisted_subagents(main: Path) -> str | None:
    """Why the subagent folder of the Claude Code session ``main`` cannot be listed, when it
    is there and cannot be (:func:`claude_subagent_files` then finds none in it); else None."""
    folder = main.parent / main.name.removesuffix(".jsonl") / "subagents"
    try:
        with os.scandir(folder):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return unlisted(folder, exc)


def unlisted(folder: Path, exc: OSError) -> str:
    """Why a session is short of its subagents: their folder cannot be listed."""
    return f"its subagent folder {folder} cannot be listed ({exc.strerror or exc})"


def claude_subagent_files(main: Path) -> list[Path]:
    """Subagent transcripts of the session whose main file is ``main``, sorted by name."""
    session_id = main.name.removesuffix(".jsonl")
    folder = main.parent / session_id / "subagents"
    # Regular files only: a named pipe would block whoever read it. A workflow's agents write
    # theirs a folder deeper (subagents/workflows/<run>/), each read once.
    nested = [p for p in folder.glob("agent-*.jsonl") if p.is_file()]
    names = {p.name for p in nested}
    nested += [
        p for p in folder.glob("workflows/*/agent-*.jsonl") if p.is_file() and p.name not in names
    ]
    if nested:
        return sorted(nested)
    siblings = sorted(p for p in main.parent.glob("agent-*.jsonl") if p.is_file())
    return [p for p in siblings if first_record(p).get("sessionId") == session_id]


def gemini_subagent_chats(
    main: Path, folders: Collection[str] | None = None, *, strict: bool = False
) -> list[Path]:
    """Chats of the subagents the Gemini CLI chat ``main`` started, and of theirs: a subagent
    writes ``chats/<the session id of the chat that started it>/<its own id>.jsonl``. Sorted by
    name; none when the chats folder holds no folder (the main chat is then not opened).
    ``folders``: the names of the folders in the chats folder, when the caller has listed it.
    A subagent folder that is there but cannot be listed is skipped, or with ``strict`` an
    OSError naming it (the session's figures would be short of its subagents')."""
    folder = main.parent
    named = folders
    if named is None:
        try:
            with os.scandir(folder) as entries:
                named = {e.name for e in entries if e.is_dir(follow_symlinks=False)}
        except OSError:
            return []
    if not named:
        return []
    session_id = first_record(main).get("sessionId")
    found: list[Path] = []
    todo = [session_id] if isinstance(session_id, str) else []
    seen: set[str] = set()
    while todo:
        started_by = todo.pop()
        if started_by in seen or started_by not in named:
            continue
        seen.add(started_by)
        try:
            with os.scandir(folder / started_by) as entries:
                chats = [e.name for e in entries if e.name.endswith(".jsonl") and e.is_file()]
        except OSError as exc:
            if strict and not isinstance(exc, (FileNotFoundError, NotADirectoryError)):
                raise OSError(unlisted(folder / started_by, exc)) from exc
            continue
        for path in _each_chat_once([folder / started_by / name for name in chats]):
            found.append(path)
            todo.append(path.name.removesuffix(".jsonl"))
    return sorted(found, key=lambda p: p.name)


UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
"""A session's or thread's id as the CLIs write it into file and folder names."""
_CHAT_NAME = re.compile(UUID + r"\.jsonl")
"""A subagent's chat as Gemini CLI names it: its session id."""


def _each_chat_once(chats: list[Path]) -> list[Path]:
    """The subagent chats of one folder, a chat kept under two names (a sync conflict's
    ``<id> (1).jsonl``) read once: of those that hold one session id, the larger (a chat only
    grows), then the one named as Gemini CLI names it, then the first name."""
    if len(chats) < 2:
        return chats
    by_id: dict[object, list[Path]] = {}
    for chat in chats:
        session_id = first_record(chat).get("sessionId")
        by_id.setdefault(session_id if isinstance(session_id, str) else chat, []).append(chat)
    return [min(same, key=_chat_first) for same in by_id.values()]


def _chat_first(chat: Path) -> tuple[int, bool, str]:
    try:
        size = chat.stat().st_size
    except OSError:
        size = -1
    return -size, _CHAT_NAME.fullmatch(chat.name) is None, chat.name


def claude_session_files(config_dir: Path | str, cwd: Path | str, session_id: str) -> list[Path]:
    """The main transcript of ``session_id`` (first) and its subagent files; [] if absent.

    Looks in the project folder Claude Code derives from ``cwd`` (as given, then its real
    path), then in any project folder.
    """
    projects = Path(config_dir) / "projects"
    name = f"{session_id}.jsonl"
    candidates = [projects / project_dir_name(str(cwd)) / name]
    real = os.path.realpath(cwd)
    if real != str(cwd):
        candidates.append(projects / project_dir_name(real) / name)
    main = next((p for p in candidates if p.is_file()), None)
    if main is None:
        main = next(iter(sorted(projects.glob(f"*/{name}"))), None) if projects.is_dir() else None
    if main is None:
        return []
    return [main, *claude_subagent_files(main)]


def codex_rollout(codex_home: Path | str, thread_id: str | None = None) -> Path | None:
    """The rollout of ``thread_id`` (its name ends with the id), or the newest one; None if none.

    ``sessions/`` wins over ``archived_sessions/``; a folder without either is searched as is.
    """
    home = Path(codex_home)
    roots = [home / "sessions", home / "archived_sessions"]
    if not any(r.is_dir() for r in roots):
        roots = [home]
    for root in roots:
        if not root.is_dir():
            continue
        rollouts = root.rglob("rollout-*.jsonl")
        if thread_id:
            match = sorted(p for p in rollouts if p.name.endswith(f"-{thread_id}.jsonl"))
            if match:
                return match[-1]
            continue
        newest = newest_file(rollouts)
        if newest is not None:
            return newest
    return None


def _gemini_roots(gemini_home_dir: Path) -> list[Path]:
    for root in (gemini_home_dir / "tmp", gemini_home_dir / ".gemini" / "tmp"):
        if root.is_dir():
            return [root]
    return [gemini_home_dir]


def gemini_chat(gemini_home_dir: Path | str, session_id: str | None = None) -> Path | None:
    """The main chat file of ``session_id``, or the newest one; None if none.

    ``gemini_home_dir`` is the ``.gemini`` folder (or a home containing it, or a ``chats``
    folder). A file matches when its header's ``sessionId`` is ``session_id`` or, failing
    that, its name ends with the id's first 8 characters.
    """
    chats: list[Path] = []
    for root in _gemini_roots(Path(gemini_home_dir)):
        for pattern in ("session-*.jsonl", "session-*.json"):
            found = root.rglob(pattern)
            chats += [p for p in found if p.parent.name == "chats" or p.parent == root]
    if not chats:
        return None
    if session_id:
        exact = [p for p in chats if first_record(p).get("sessionId") == session_id]
        if exact:
            return newest_file(exact)
        short = session_id[:8]
        named = [p for p in chats if p.stem.endswith(f"-{short}")]
        return newest_file(named)
    return newest_file(chats)
