"""Which Codex rollouts are the threads of subagents, and whose.

A subagent spawned with ``spawn_agent`` runs in a thread of its own, with a rollout of its own,
whose ``session_meta`` names the thread that spawned it
(``source.subagent.thread_spawn.parent_thread_id``). A rollout is named
``rollout-<time>-<thread id>.jsonl``. The header comes first in the file and says
``thread_spawn`` in its first few hundred bytes (the instructions it also holds come after), so a
rollout is told from its first :data:`HEAD_BYTES` without decoding it, and only a subagent's
header is decoded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from proctor.transcripts.codex.shapes import spawned_by
from proctor.util.files import read_head
from proctor.util.native_paths import first_record

HEAD_BYTES = 16 * 1024
_NAME = re.compile(
    r"rollout-(.*)-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl"
)


def thread_of(file: str | Path) -> str | None:
    """A rollout's thread id: in its name, else in its header."""
    named = _NAME.fullmatch(os.path.basename(file))
    if named is not None:
        return named.group(2)
    header = _header(file)
    thread = header.get("id") if header else None
    return thread if isinstance(thread, str) else None


def spawner_of(file: str | Path) -> str | None:
    """The thread that spawned the rollout ``file`` as a subagent; None for a thread a person
    started, or a file that cannot be read (its parse says why)."""
    try:
        head = read_head(file, HEAD_BYTES)
    except OSError:
        return None
    if b"thread_spawn" not in head:
        return None
    header = _header(file)
    return spawned_by(header) if header else None


def _header(file: str | Path) -> dict[str, object] | None:
    """The payload of a rollout's first record (its ``session_meta``)."""
    record = first_record(Path(file))
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else (record or None)


def spawners(files: Iterable[str]) -> dict[str, str]:
    """Each subagent's rollout among ``files``: the thread that spawned it."""
    found: dict[str, str] = {}
    for file in files:
        parent = spawner_of(file)
        if parent is not None:
            found[file] = parent
    return found


def subagent_threads(main: Path) -> list[Path]:
    """The rollouts of the subagents the thread of ``main`` spawned, and of theirs, in the
    same Codex home (``sessions/`` and ``archived_sessions/`` when ``main`` is under one of
    them, else its own folder), sorted by name. Only rollouts named after ``main``'s start
    are read: a subagent starts after the thread that spawns it."""
    thread = thread_of(main)
    if thread is None:
        return []
    after = _started(main) or ""
    candidates = [
        p for p in _rollouts(_home_of(main)) if p != str(main) and (_started(p) or after) >= after
    ]
    parent_of = spawners(candidates)
    if not parent_of:
        return []
    children: dict[str, list[str]] = {}
    for file, parent in parent_of.items():
        children.setdefault(parent, []).append(file)
    out: list[str] = []
    seen = {thread}
    todo = [thread]
    while todo:  # the subagents of each subagent, each once
        for file in children.get(todo.pop(), ()):
            child = thread_of(file)
            if child is not None and child not in seen:
                seen.add(child)
                todo.append(child)
                out.append(file)
    return sorted((Path(p) for p in out), key=lambda p: p.name)


def _started(file: str | Path) -> str | None:
    """The time in a rollout's name (``2026-12-02T18-46-40``), which sorts as times do."""
    named = _NAME.fullmatch(os.path.basename(file))
    return named.group(1) if named is not None else None


def _home_of(main: Path) -> list[Path]:
    for folder in main.parents:
        if folder.name in ("sessions", "archived_sessions"):
            return [folder.parent / "sessions", folder.parent / "archived_sessions"]
    return [main.parent]


def _rollouts(roots: list[Path]) -> list[str]:
    found: list[str] = []
    for root in roots:
        for folder, _, names in os.walk(root):
            found += [
                os.path.join(folder, n)
                for n in names
                if n.startswith("rollout-") and n.endswith(".jsonl")
            ]
    return found
