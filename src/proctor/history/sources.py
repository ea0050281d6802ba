"""Where each CLI keeps its recorded sessions, and which files are sessions.

=============== ============================================ ====================================
agent           history folder                               session files
=============== ============================================ ====================================
claude-code     ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``      ``projects/<project>/<id>.jsonl``
                                                             (subagent files belong to their
                                                             session)
codex           ``$CODEX_HOME`` or ``~/.codex``              ``sessions/**/rollout-*.jsonl`` and
                                                             ``archived_sessions/**`` (a
                                                             subagent's thread belongs to the
                                                             session that spawned it)
gemini-cli      ``$GEMINI_CLI_HOME/.gemini`` or ``~/.gemini`` ``tmp/<project>/chats/session-*``
=============== ============================================ ====================================

``--home DIR`` reads ``DIR/.claude``, ``DIR/.codex`` and ``DIR/.gemini`` instead, whatever the
environment says. A plain folder (or file) given on the command line is searched for session
files of any of the three formats. Nothing here writes anything.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from proctor.history.copies import each_once
from proctor.history.folders import history_folders, unnamed_config_dir
from proctor.history.homes import (
    CLI_FOLDERS,
    NO_SESSIONS,
    cli_folder,
    kept_folders,
    missing_reason,
    unrecorded_home,
)
from proctor.history.listing import is_listed, sorted_names, unreachable
from proctor.history.sniff import (
    STRAY_SUBAGENT,
    gemini_side_files,
    headless_reason,
    laid_out,
    subagent_header,
    told,
    told_all,
)
from proctor.history.threads import threads_folded
from proctor.models.history import Unavailable
from proctor.util.native_paths import UUID, first_record
from proctor.util.text import plural

AGENTS = ("claude-code", "codex", "gemini-cli")
_SESSION_ID = re.compile(UUID)


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


def _identity(file: str) -> tuple[int, int] | str:
    """What tells a file from every other: its device and inode (a hard link under another
    name is the same file), else its real path."""
    try:
        found = os.stat(file)
    except OSError:
        return os.path.realpath(file)
    return found.st_dev, found.st_ino


def find_sessions(
    agents: Iterable[str], home: Path | None, env: Mapping[str, str]
) -> tuple[list[Session], list[Unavailable]]:
    """The sessions of each agent in its usual place, and the agents whose history is not
    there (with the reason). Another agent's sessions never stand in for a missing one."""
    sessions: list[Session] = []
    unavailable: list[Unavailable] = []
    for agent in agents:
        if (unnamed := unnamed_config_dir(agent, home, env)) is not None:
            unavailable.append(Unavailable(agent=agent, path="$CLAUDE_CONFIG_DIR", reason=unnamed))
        for folder in history_folders(agent, home, env):
            reason = missing_reason(agent, folder, home, env)
            if reason is None:
                # Each folder on its own: one that fails as it is listed loses no other's.
                unreadable: list[Unavailable] = []
                try:
                    found = list(agent_sessions(agent, folder, unreadable))
                except OSError as exc:
                    found, reason = [], f"{unreachable(exc, folder)}: its sessions are left out"
                unavailable += unreadable
                sessions += found
            if reason is not None:
                unavailable.append(Unavailable(agent=agent, path=str(folder), reason=reason))
    return threads_folded(each_once(sessions), unavailable), unavailable


def sessions_under(
    paths: Sequence[Path], agents: Iterable[str]
) -> tuple[list[Session], list[Unavailable]]:
    """Session files in plain folders or files given by the user, of the given agents only.

    A folder that is a CLI's history folder (it has ``projects/``, ``sessions/`` or ``tmp/``)
    is read like one; any other folder is searched for session files of any format. Subagent
    files are left to their session's parser.
    """
    wanted = set(agents)
    sessions: list[Session] = []
    unavailable: list[Unavailable] = []
    # A session named twice (overlapping folders, a link) is replayed once.
    seen: set[tuple[int, int] | str] = set()
    for path in paths:
        # Each path on its own: one that cannot be looked at loses none of the others.
        try:
            found = _sessions_given(path, wanted, unavailable)
        except OSError as exc:
            found = []
            reason = f"{unreachable(exc, path)}: its sessions are left out"
            unavailable.append(Unavailable(path=str(path), reason=reason))
        if len(paths) == 1:  # one folder lists each file once: no path to resolve
            sessions.extend(found)
            continue
        for session in found:
            identity = _identity(session.file)
            if identity not in seen:
                seen.add(identity)
                sessions.append(session)
    return threads_folded(each_once(sessions), unavailable), unavailable


OTHER_AGENTS_ONLY = "holds sessions of other agents only"
"""The start of the reason for a ``PATH`` whose sessions ``--agent`` all left out: it was read."""


NOT_A_CLI_SESSION = (
    "an ACP recording (proctor's log of an ACP agent's trial), not a CLI session: not "
    "replayed (`proctor parse` reads it)"
)
"""Why a session log of a format ``history`` does not replay is listed unavailable."""


def _sessions_given(path: Path, wanted: set[str], unavailable: list[Unavailable]) -> list[Session]:
    """The sessions of ``wanted`` agents in one ``PATH`` given by the user; why it holds none
    is added to ``unavailable``. An OSError when the path itself cannot be looked at."""
    try:
        os.stat(path)
    except FileNotFoundError:
        unavailable.append(Unavailable(path=str(path), reason="no such file or folder"))
        return []
    except OSError as exc:
        if isinstance(exc, PermissionError):  # the caller names the folder that is shut
            raise
        reason = f"cannot be read ({exc.strerror or exc})"  # a link in a loop, a long name
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    if not path.is_file() and not path.is_dir():
        reason = "not a regular file or a folder (a named pipe, a socket, a device): not read"
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    # A trial's agent-stdout.jsonl is named like a subagent's file: its own reason is said.
    headless = path.is_file() and headless_reason(path) is not None
    if not headless and path.is_file() and (_is_part(path) or subagent_header(first_record(path))):
        reason = "a subagent or side file: it is read with its main session (give that one)"
        unavailable.append(Unavailable(path=str(path), reason=reason))
        return []
    unreadable: list[Unavailable] = []
    every = []
    for session in _sessions_in(path, unreadable):
        if session.agent in AGENTS:
            every.append(session)
        else:  # a log proctor wrote of a trial's run (ACP): no CLI's session, whatever --agent
            unreadable.append(Unavailable(path=session.file, reason=NOT_A_CLI_SESSION))
    found = [s for s in every if s.agent in wanted]
    if not every and path.is_dir() and _acp_only(unreadable):  # said once, for the folder
        unavailable.append(Unavailable(path=str(path), reason=_acp_recordings(len(unreadable))))
        return []
    unavailable += unreadable
    said = {u.path for u in unreadable}  # (~/.claude before any session says why it has none)
    if path.is_file():  # a Codex rollout given alone: with its subagents' threads, as parse
        _with_threads(found)
    if not found and every:  # read, but --agent keeps none: said, never a usage error
        counts = Counter(s.agent for s in every)
        held = ", ".join(plural(n, f"{agent} session") for agent, n in sorted(counts.items()))
        unavailable.append(
            Unavailable(path=str(path), reason=f"{OTHER_AGENTS_ONLY}: {held}, left out by --agent")
        )
    elif not found and not (path.is_file() and unreadable) and str(path) not in said:
        narrowed = "" if wanted.issuperset(AGENTS) else " of the agents asked for"  # --agent
        reason = f"no session transcript{narrowed}" if path.is_dir() else "not a session transcript"
        if path.name.endswith((".jsonl", ".json")) and path.is_dir():
            reason = f"{FOLDER.partition(':')[0]}: it holds {reason}"
        if path.is_dir() and _parts_only(path):
            reason = (
                "holds subagent or side files only: they are read with their main session "
                "(give the folder that holds it)"
            )
        unavailable.append(Unavailable(path=str(path), reason=reason))
    return found


def _acp_only(unreadable: list[Unavailable]) -> bool:
    """Whether what a folder gave as unavailable is ACP recordings only, for one reason."""
    return bool(unreadable) and all(u.reason == NOT_A_CLI_SESSION for u in unreadable)


def _acp_recordings(count: int) -> str:
    """Why a folder that holds ACP recordings only (``count`` of them) is unavailable."""
    what = "log of an ACP agent's trial" if count == 1 else "logs of ACP agents' trials"
    return (
        f"holds {plural(count, 'ACP recording')} only (proctor's {what}), no CLI session: "
        "not replayed (`proctor parse` reads each)"
    )


def _with_threads(sessions: list[Session]) -> None:
    """Give each Codex session among ``sessions`` (a rollout given alone) the threads of the
    subagents it spawned, found where ``proctor parse`` finds them (its Codex home's
    ``sessions/``, or its own folder): a history of the folder folds them in, and a history
    of the file alone must measure the same session."""
    for session in sessions:
        if session.agent == "codex" and not session.parts:
            from proctor.transcripts.codex.threads import subagent_threads

            session.parts = tuple(str(thread) for thread in subagent_threads(Path(session.file)))


def _parts_only(folder: Path, look: int = 100) -> bool:
    """Whether the first ``look`` transcript files in ``folder`` (a folder that gave no
    session) are all subagent or side files, such as a Gemini CLI chat's subagent folder or a
    Claude Code session's ``subagents/``."""
    seen = 0
    for root, _, names in os.walk(folder):
        for name in names:
            if not name.endswith((".jsonl", ".json")):
                continue
            file = os.path.join(root, name)
            if headless_reason(file) is not None or not (
                _is_part(file) or subagent_header(first_record(Path(file)))
            ):
                return False
            seen += 1
            if seen >= look:
                return True
    return seen > 0


def _sessions_in(
    path: Path, unreadable: list[Unavailable], seen: set[tuple[int, int] | str] | None = None
) -> Iterator[Session]:
    """The sessions of a file or folder given by the user; what cannot be read or listed is
    added to ``unreadable``, with the reason, never left out without a word. ``seen`` holds
    the folders read so far, the one given and the CLI folders met in it (by
    :func:`_identity`): a ``.claude`` two links lead to is read once."""
    if path.is_file():
        noted = len(unreadable)
        agent = _sniffed(path, unreadable)
        if agent is None and len(unreadable) == noted:
            # Named and placed as its CLI keeps sessions (an empty file, a chat cut short):
            # that CLI's, for the replay to say why it is none, as in a folder of them.
            agent = laid_out(os.fspath(path.parent), [os.fspath(path)])
        if agent is not None:
            yield Session(agent, path)
        return
    seen = set() if seen is None else seen
    seen.add(_identity(os.fspath(path)))
    read: set[str] = set()  # the folders of sessions of a CLI's history folder, read as such
    # A CLI's own folder (its todos/, plugins/, … hold no session) is one its sessions are read
    # in, named as it is or holding what it keeps beside them; any other (~ with ~/projects)
    # is not. Claude Code keeps its sessions in projects/ only: a .claude whose projects/ is
    # empty is its own folder by what it holds beside it (todos/, …), below, or none.
    owners: list[str] = []  # the CLIs whose own folder it is
    for agent, children in _LAYOUT_FOLDERS.items():
        there = [child for child in children if (path / child).is_dir()]
        if not there:
            continue
        looks = _looks_like(agent, path)  # (a Codex folder may keep archived ones only)
        if looks and any(cli_folder(path, c) for c in there):
            owners.append(agent)
        if looks:
            read.update(os.path.join(path, name) for name in children)
            yield from agent_sessions(agent, path, unreadable)
    unrecorded = None if owners or read else unrecorded_home(path)  # (~/.claude with sessions/)
    # The rest of the folder (all of it, when it is no CLI's history folder) is searched as
    # any folder is: a session beside a history's folders is read, never passed over; in a
    # CLI's own folder (~/.claude), all but the folders that CLI keeps beside its sessions
    # (plugins/, todos/, …: see KEPT_FOLDERS) are.
    found = False
    kept = kept_folders(owners if unrecorded is None else [unrecorded])
    for session in _plain_sessions(path, unreadable, read, seen, kept=kept):
        found = True
        yield session
    # ~/.claude before any session: said so (with its projects/ there, empty, no reason is:
    # "no session transcript", as for any folder)
    reason = None if unrecorded is None or found else missing_reason(unrecorded, path, home=path)
    if unrecorded is not None and reason is not None:
        unreadable.append(Unavailable(agent=unrecorded, path=str(path), reason=reason))


_LAYOUT_FOLDERS = {
    "claude-code": ("projects",),
    "codex": ("sessions", "archived_sessions"),
    "gemini-cli": ("tmp",),
}
"""The folders of a CLI's history folder that :func:`agent_sessions` reads."""


def _plain_sessions(
    path: Path,
    unreadable: list[Unavailable],
    skip: set[str],
    seen: set[tuple[int, int] | str],
    *,
    kept: frozenset[str] = frozenset(),
) -> Iterator[Session]:
    """The sessions of a folder given by the user that is searched for session files of any
    format, its folders in ``skip`` left out (read as a CLI's history folder's), and those of
    its own folders named in ``kept`` (what a CLI keeps in its own folder beside its sessions:
    plugins/, todos/, …). A CLI's own folder met in it (a ``.claude``, or a folder of any name
    that holds its CLI's sessions laid out as it keeps them and what it keeps beside them) is
    read as it is given alone, once (``seen``: see :func:`_sessions_in`)."""
    top = os.fspath(path)
    inside = os.path.realpath(path)
    # (file, its device and inode when it is not a link: the listing knows the inode)
    files: list[tuple[str, tuple[int, int] | None]] = []
    named_folders: list[str] = []  # folders named like a session file (see below)
    homes: list[str] = []  # a CLI's own folder met on the way (~/.claude in ~): read as given
    folders = [top]
    while folders:  # the folder's tree, links to folders not followed
        folder = folders.pop()
        # Every file of the folder is a part when the folder's name or its parent's says so
        # (see _is_part), told once for the folder.
        above, name = os.path.split(folder)
        parts = name == "tool-results" or os.path.basename(above) == "chats"
        # (what the folder adds, taken back when it is a CLI's own folder: read as one)
        before = len(files), len(folders), len(named_folders), len(homes)
        layout = False  # it holds a folder a CLI keeps its sessions in (projects/, …)
        passed = kept if folder == top else ()  # (a plugins/ deeper down is searched)
        try:
            device = os.stat(folder).st_dev
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name in CLI_FOLDERS:  # read as given, even in a CLI's folder
                            homes.append(entry.path)
                            continue
                        layout = layout or entry.name in _LAYOUT_NAMES
                        if entry.name in passed or entry.name in NO_SESSIONS or entry.path in skip:
                            continue
                        folders.append(entry.path)
                        if entry.name.endswith((".jsonl", ".json")):
                            named_folders.append(entry.path)
                    elif entry.name in CLI_FOLDERS and entry.is_symlink():
                        # ~/.claude linked to a folder elsewhere (a dotfiles repository)
                        if _linked_home(entry.path, inside, unreadable):
                            homes.append(entry.path)
                    elif entry.name.endswith((".jsonl", ".json")) and is_listed(
                        entry, False, unreadable
                    ):
                        if parts or _part_name(entry.name):
                            continue
                        link = entry.is_symlink()
                        files.append((entry.path, None if link else (device, entry.inode())))
            if layout and folder != top and _own_folder(Path(folder)):
                # A copy of ~/.claude (claude-backup/), a CLAUDE_CONFIG_DIR of any name: its
                # plugins' test fixtures are no session.
                del files[before[0] :], folders[before[1] :], named_folders[before[2] :]
                del homes[before[3] :]
                homes.append(folder)
        except OSError as exc:
            reason = f"cannot be listed ({exc.strerror or exc}): its sessions are left out"
            unreadable.append(Unavailable(path=str(exc.filename or folder), reason=reason))
    for home in sorted(homes):
        identity = _identity(home)
        if identity not in seen:  # (a folder linked twice, a link back up: read once)
            yield from _sessions_in(Path(home), unreadable, seen)
    # In the order of their paths (as Path objects sort: part by part, which the text does
    # with each separator made the lowest character); names, not objects: a plain folder of
    # 20,000 sessions spent a third of a second making and comparing paths.
    files.sort(key=lambda f: f[0].replace(os.sep, "\0"))
    candidates: list[str] = []
    inodes: set[tuple[int, int]] = set()
    for file, inode in files:
        if inode is None:  # a link to a session in this folder: listed on its own
            if os.path.realpath(file).startswith(inside + os.sep):
                continue
        elif inode in inodes:  # a file hard-linked under a second name: listed under its first
            continue
        else:
            inodes.add(inode)
        candidates.append(file)
    # Gemini CLI's prompt log and saved conversations beside a project's chats are no chats,
    # and leave its folder laid out as Gemini CLI's.
    side = gemini_side_files(candidates)
    named = [file for file in candidates if file not in side] if side else candidates
    agent = laid_out(os.fspath(path), named or named_folders)
    if agent is not None:  # a CLI's folder of sessions, ~/.claude/projects say
        yield from (Session(agent, file) for file in named)
        # A folder named and placed as the CLI keeps a session's file is said, as in its
        # history folder (what it holds is read as any folder's is).
        for folder in sorted(named_folders):
            if laid_out(os.fspath(path), [folder]) == agent:
                unreadable.append(Unavailable(agent=agent, path=folder, reason=FOLDER))
        return
    told = list(zip(candidates, told_all(candidates), strict=True))
    # A Gemini CLI subagent's chat lies in a folder named by the session that started it,
    # beside that session's chat, wherever the two were copied: it is read with it.
    chats = {os.path.dirname(file) for file, (agent, _) in told if agent == "gemini-cli"}
    for file, (agent, gone) in told:
        if gone == STRAY_SUBAGENT and _beside_a_chat(file, chats):
            continue
        if gone is not None:
            unreadable.append(Unavailable(path=file, reason=gone))
        elif agent is not None:
            yield Session(agent, file)


def _beside_a_chat(file: str, chats: set[str]) -> bool:
    """Whether a subagent's chat lies where a Gemini CLI chat's are read from: in a folder
    named by a session id, beside one of the chats listed (``chats``: their folders)."""
    folder = os.path.dirname(file)
    return os.path.dirname(folder) in chats and bool(
        _SESSION_ID.fullmatch(os.path.basename(folder))
    )


_LAYOUT_NAMES = frozenset(name for names in _LAYOUT_FOLDERS.values() for name in names)


def _own_folder(folder: Path) -> bool:
    """Whether ``folder``, of any name, met in a folder given, is a CLI's own folder: it holds
    sessions laid out as its CLI keeps them, one of the first of them at least a session of
    that CLI by its records (see :func:`_recorded_by`), and beside them what that CLI keeps
    there (``settings.json``, ``plugins/``, ``config.toml``…: see :func:`cli_folder`). A
    ``projects/`` beside ``todos/`` holding no session (``~``) is none, nor a folder of an
    app's settings.json and its data in ``projects/<name>/events.jsonl``: each is searched as
    any folder is."""
    for agent, children in _LAYOUT_FOLDERS.items():
        there = [child for child in children if (folder / child).is_dir()]
        if there and any(cli_folder(folder, c) for c in there) and _recorded_by(agent, folder):
            return True
    return False


def _recorded_by(agent: str, folder: Path, look: int = 8) -> bool:
    """Whether one of the first ``look`` files ``agent`` keeps its sessions in under
    ``folder`` (where :func:`agent_sessions` finds them) reads as a session of ``agent``, by
    its first records (:func:`~proctor.history.sniff.told`)."""
    for count, session in enumerate(agent_sessions(agent, folder)):
        if count >= look:
            break
        if told(session.file)[0] == agent:
            return True
    return False


def _linked_home(link: str, inside: str, unreadable: list[Unavailable]) -> bool:
    """Whether the CLI's own folder ``link`` (``.claude``, a link) met in the folder given,
    whose real path is ``inside``, is read as given: it leads to a folder elsewhere. One that
    leads into the folder given is read where its target lies; one that leads to a folder
    above it, which holds it (a loop), is said and not followed."""
    try:
        if not os.path.isdir(link):
            return False  # a link to a file, or to nothing: no folder of sessions
        target = os.path.realpath(link)
    except (OSError, ValueError):
        return False
    if target == inside or target.startswith(inside.rstrip(os.sep) + os.sep):
        return False
    if inside.startswith(target.rstrip(os.sep) + os.sep):
        reason = (
            f"a link to {target}, a folder that holds it: not followed (give its target as "
            "a PATH to read it)"
        )
        unreadable.append(Unavailable(path=link, reason=reason))
        return False
    return True


def _sniffed(file: str | Path, unreadable: list[Unavailable]) -> str | None:
    """:func:`~proctor.history.sniff.sniff` of a file given by the user, its first bytes read
    once; one that cannot be opened is noted, and so is a CLI's headless output (in a folder,
    such a file is passed over as any file that is no session is)."""
    agent, reason = told(file)
    if agent is None and reason is None:  # no session: a CLI's headless output says why
        reason = headless_reason(file)
    if reason is not None:
        unreadable.append(Unavailable(path=str(file), reason=reason))
    return agent


def _looks_like(agent: str, folder: Path) -> bool:
    return any(True for _ in agent_sessions(agent, folder))


def _is_part(file: str | Path) -> bool:
    """A subagent file, a side file or a Gemini CLI subagent chat: read with its session."""
    *_, grandparent, parent, name = ["", "", *os.fspath(file).rsplit(os.sep, 3)]
    # tool-results/… (a subagent file is agent-*.jsonl, below); chats/<parent session>/<chat>
    return _part_name(name) or parent == "tool-results" or grandparent == "chats"


def _part_name(name: str) -> bool:
    """A subagent's file or a side file, by its name."""
    return name.startswith("agent-") or name.endswith(".meta.json")
