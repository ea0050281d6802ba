"""Which files a CLI's history folder holds as its sessions, as the CLI lays them out there
(``projects/<project>/<id>.jsonl``, ``sessions/**/rollout-*.jsonl``,
``tmp/<project>/chats/session-*``: see :mod:`proctor.history.sources`), and the
:class:`Session`, a session file to replay with the CLI that wrote it. Nothing here writes
anything."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from proctor.history.listing import sorted_names, unreachable
from proctor.models.history import Unavailable


class Session:
    """A session file to replay, and the CLI that wrote it. ``file`` is its path as text, what
    a replay read from the cache needs; ``path`` is made from it when first asked for (a
    history of 20,000 sessions spent a sixth of a second building paths it never used).
    ``parts`` are the rollouts of the subagent threads a Codex session spawned, or a Gemini
    CLI chat's subagent chats found beside another copy of it (a Claude Code session's
    subagent files, and a chat's own subagent chats, are found where it is measured)."""

    __slots__ = ("_path", "agent", "file", "parts")

    def __init__(self, agent: str, path: Path | str, parts: tuple[str, ...] = ()) -> None:
        self.agent = agent
        self.file = os.fspath(path)
        self._path = path if isinstance(path, Path) else None
        self.parts = parts

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self.file)
        return self._path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Session):
            return NotImplemented
        return (self.agent, self.file) == (other.agent, other.file)

    def __hash__(self) -> int:
        return hash((self.agent, self.file))

    def __repr__(self) -> str:
        return f"Session({self.agent!r}, {self.file!r})"

    def __getstate__(self) -> tuple[str, str, tuple[str, ...]]:
        return self.agent, self.file, self.parts

    def __setstate__(self, state: tuple[str, str, tuple[str, ...]]) -> None:
        self.agent, self.file, self.parts = state
        self._path = None


def agent_sessions(
    agent: str, folder: Path, unreadable: list[Unavailable] | None = None
) -> Iterator[Session]:
    """Every main session file ``agent`` keeps under its history ``folder``. A folder in it
    that cannot be listed (no permission) is added to ``unreadable``, with the reason: its
    sessions are not silently left out."""

    def listed(where: str | Path, *, folders: bool, named: list[str] | None = None) -> list[str]:
        return sorted_names(where, folders=folders, agent=agent, unreadable=unreadable, named=named)

    def folders_named(where: str | Path, named: list[str], session: Callable[[str], bool]) -> None:
        """Each folder in ``where`` named as ``agent`` names a session file (``named``, as the
        listing of its files found them), listed as unavailable: never passed over in silence."""
        if unreadable is not None:
            for name in sorted(filter(session, named)):
                path = os.path.join(where, name)
                unreadable.append(Unavailable(agent=agent, path=path, reason=FOLDER))

    if agent == "claude-code":
        # Listed folder by folder (the order of sorted paths): a glob and a sort of Path
        # objects took a tenth of a second per 10,000 sessions.
        projects = os.path.join(folder, "projects")
        linked = _Seen()
        for project in listed(projects, folders=True):
            project_folder = os.path.join(projects, project)
            if not linked.first(project_folder):
                continue  # a link to a project folder listed already: its sessions once
            links: set[str] = set()
            named: list[str] = []
            names = sorted_names(
                project_folder,
                folders=False,
                agent=agent,
                unreadable=unreadable,
                links=links,
                named=named,
            )
            within = project_folder + os.sep  # (a join per file cost more than the listing)
            for name in names:
                if name.endswith(".jsonl") and not name.startswith("agent-"):
                    # (agent-*.jsonl: an older release's subagent file; inline, as _claude_session
                    # says it: a call per file costs)
                    path = within + name
                    if name not in links or linked.first_file(path):
                        yield Session(agent, path)
            if named:
                folders_named(project_folder, named, _claude_session)
    elif agent == "codex":
        for root in (folder / "sessions", folder / "archived_sessions"):
            found: list[str] = []
            stack = [str(root)]
            seen: set[str] = set()  # a link back up the tree is listed once
            while stack:  # every rollout-*.jsonl at any depth (sessions/YYYY/MM/DD/)
                where = stack.pop()
                real = os.path.realpath(where)
                if real in seen:
                    continue
                seen.add(real)
                for name in listed(where, folders=True):
                    path = os.path.join(where, name)
                    if not os.path.islink(path) or _dated(name):
                        stack.append(path)  # a year, month or day moved to another disk
                    elif unreadable is not None:
                        # Any other link (to / say) could count other disks' files as sessions.
                        reason = (
                            "a link to a folder that is not one of Codex's year, month or day "
                            "folders: not followed (give its target as a PATH to read it)"
                        )
                        unreadable.append(Unavailable(agent=agent, path=path, reason=reason))
                rollout_folders: list[str] = []
                found += [
                    os.path.join(where, n)
                    for n in listed(where, folders=False, named=rollout_folders)
                    if _rollout(n)
                ]
                if rollout_folders:
                    folders_named(where, rollout_folders, _rollout)
            yield from (Session(agent, path) for path in sorted(found))
    else:
        tmp = folder / "tmp"
        linked = _Seen()
        for project in listed(tmp, folders=True):
            if not linked.first(os.path.join(tmp, project)):
                continue
            chats = tmp / project / "chats"
            try:
                if not chats.is_dir():
                    continue
            except OSError as exc:  # a project folder that cannot be entered (chmod 000)
                if unreadable is not None:
                    reason = f"{unreachable(exc, chats)}: its sessions are left out"
                    unreadable.append(Unavailable(agent=agent, path=str(chats), reason=reason))
                continue
            chat_folders: list[str] = []
            names = listed(chats, folders=False, named=chat_folders)
            for pattern in (".jsonl", ".json"):
                for name in names:
                    if name.startswith("session-") and name.endswith(pattern):
                        yield Session(agent, chats / name)
            if chat_folders:
                folders_named(chats, chat_folders, _gemini_chat)


def _claude_session(name: str) -> bool:
    """Named as Claude Code names a session's file in a project folder (``agent-*.jsonl``
    is an older release's subagent file)."""
    return name.endswith(".jsonl") and not name.startswith("agent-")


def _rollout(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith(".jsonl")


def _gemini_chat(name: str) -> bool:
    return name.startswith("session-") and name.endswith((".jsonl", ".json"))


FOLDER = "a folder, not a session file: left out"
"""Why a folder named as its CLI names a session file, where the CLI keeps them, is none."""


def _dated(name: str) -> bool:
    """Whether a folder's name is one of the dates Codex files its rollouts under
    (``sessions/2026/12/01``)."""
    return name.isdigit() and len(name) in (2, 4)


class _Seen:
    """Folders and files of one history listed so far, by their real path: a link to one
    already listed (a project folder linked under a second name) is not listed again. Only
    links are resolved, so a history without any costs no look-up."""

    def __init__(self) -> None:
        self.real: set[str] = set()

    def first(self, folder: str | Path) -> bool:
        real = os.path.realpath(folder)
        if real in self.real:
            return False
        self.real.add(real)
        return True

    def first_file(self, path: str) -> bool:
        """Whether the linked session file ``path`` is to be listed: not when its target
        sits in a folder of this history listed on its own."""
        real = os.path.realpath(path)
        listed = os.path.realpath(os.path.dirname(real)) in self.real
        return not listed  # its target is listed where it is (or will be) on its own


LAYOUT_FOLDERS = {
    "claude-code": ("projects",),
    "codex": ("sessions", "archived_sessions"),
    "gemini-cli": ("tmp",),
}
"""The folders of a CLI's history folder that :func:`agent_sessions` reads."""
