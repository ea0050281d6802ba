"""The search of a file or folder the user gives as a ``PATH`` for the session files in it: a
file is told by its first records; in a folder, the folders of a CLI's history folder are read
as the CLI lays them out (see :mod:`proctor.history.layout`) and every other folder is walked
for session files of any format. In a CLI's own folder (``~/.claude``) the folders it keeps
beside its sessions (:data:`~proctor.history.homes.KEPT_FOLDERS`) are passed over, and nowhere
are a version control's store or installed packages searched
(:data:`~proctor.history.homes.NO_SESSIONS`). A CLI's own folder met on the way (a ``.claude``
in ``~``, a copy of one under another name, a link to one kept elsewhere) is read as if given
alone, once; any other link to a folder met in the folder given's own tree is searched as the
folder it leads to (not when the link is named as a folder passed over there is, or its target
as one searched nowhere is), but a link to a folder met in a folder a link leads to is not
followed: one level of links, which bounds the walk and lets no loop go through links. A file
or folder two links lead to (or that lies in a folder another link leads to) is read once
whatever the order they are listed in, a file never as a copy of itself; a link to a folder
that holds the one given is said and not followed. Nothing here writes anything."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from proctor.history.homes import (
    CLI_FOLDERS,
    NO_SESSIONS,
    cli_folder,
    kept_folders,
    missing_reason,
    unrecorded_home,
)
from proctor.history.layout import FOLDER, LAYOUT_FOLDERS, Session, agent_sessions
from proctor.history.listing import is_listed
from proctor.history.sniff import (
    STRAY_SUBAGENT,
    gemini_side_files,
    headless_reason,
    laid_out,
    told,
    told_all,
)
from proctor.models.history import Unavailable
from proctor.util.native_paths import UUID

_SESSION_ID = re.compile(UUID)


def file_identity(file: str) -> tuple[int, int] | str:
    """What tells a file from every other: its device and inode (a hard link under another
    name is the same file), else its real path."""
    try:
        found = os.stat(file)
    except OSError:
        return os.path.realpath(file)
    return found.st_dev, found.st_ino


def sessions_in(
    path: Path, unreadable: list[Unavailable], seen: set[tuple[int, int] | str] | None = None
) -> Iterator[Session]:
    """The sessions of a file or folder given by the user; what cannot be read or listed is
    added to ``unreadable``, with the reason, never left out without a word. ``seen`` holds
    the folders read so far, the one given and the CLI folders met in it (by
    :func:`file_identity`): a ``.claude`` two links lead to is read once."""
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
    seen.add(file_identity(os.fspath(path)))
    read: set[str] = set()  # the folders of sessions of a CLI's history folder, read as such
    # A CLI's own folder (its todos/, plugins/, … hold no session) is one its sessions are read
    # in, named as it is or holding what it keeps beside them; any other (~ with ~/projects)
    # is not. Claude Code keeps its sessions in projects/ only: a .claude whose projects/ is
    # empty is its own folder by what it holds beside it (todos/, …), below, or none.
    owners: list[str] = []  # the CLIs whose own folder it is
    for agent, children in LAYOUT_FOLDERS.items():
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
    read as it is given alone, once (``seen``: see :func:`sessions_in`)."""
    top = os.fspath(path)
    inside = os.path.realpath(path)
    # (file, its device and inode when it is not a link: the listing knows the inode)
    files: list[tuple[str, tuple[int, int] | None]] = []
    named_folders: list[str] = []  # folders named like a session file (see below)
    homes: list[str] = []  # a CLI's own folder met on the way (~/.claude in ~): read as given
    folders = [top]
    # The links to folders met in the folder given's own tree, with their targets' real paths:
    # searched once that tree is, each target once (see _linked_trees); a link met in a folder
    # a link leads to is not followed (the walk stays bounded, and no loop goes through links).
    links: list[tuple[str, str]] = []
    linked = False  # the folders walked are those links lead to
    while folders or (links and not linked):
        if not folders:
            folders, linked = _linked_trees(links, inside, unreadable), True
            named_folders.extend(f for f in folders if f.endswith((".jsonl", ".json")))
            continue
        folder = folders.pop()
        # Every file of the folder is a part when the folder's name or its parent's says so
        # (see is_part), told once for the folder.
        above, name = os.path.split(folder)
        parts = name == "tool-results" or os.path.basename(above) == "chats"
        # (what the folder adds, taken back when it is a CLI's own folder: read as one)
        before = len(files), len(folders), len(named_folders), len(homes), len(links)
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
                    elif not linked and entry.is_symlink() and _is_folder(entry):
                        # Sessions collected by links to their folders (a backup disk, another
                        # user's history): searched as the folder it leads to, once, unless it
                        # is named as a folder passed over here is, or its target as one
                        # searched nowhere is (a user's ~/.claude/archive -> ~/Dropbox/backups
                        # is followed: a name the CLI keeps a folder under is no name of its).
                        if entry.name in passed or entry.name in NO_SESSIONS or entry.path in skip:
                            continue
                        target = os.path.realpath(entry.path)
                        if os.path.basename(target) not in NO_SESSIONS:
                            links.append((entry.path, target))
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
                del homes[before[3] :], links[before[4] :]
                homes.append(folder)
        except OSError as exc:
            reason = f"cannot be listed ({exc.strerror or exc}): its sessions are left out"
            unreadable.append(Unavailable(path=str(exc.filename or folder), reason=reason))
    for home in sorted(homes):
        identity = file_identity(home)
        if identity not in seen:  # (a folder linked twice, a link back up: read once)
            yield from sessions_in(Path(home), unreadable, seen)
    # In the order of their paths (as Path objects sort: part by part, which the text does
    # with each separator made the lowest character); names, not objects: a plain folder of
    # 20,000 sessions spent a third of a second making and comparing paths.
    files.sort(key=lambda f: f[0].replace(os.sep, "\0"))
    candidates: list[str] = []
    listed = {inode for _, inode in files if inode is not None}
    identities: set[tuple[int, int] | str] = set()
    same: tuple[int, int] | str
    for file, inode in files:
        if inode is None:  # a link to a session in this folder: listed on its own
            if os.path.realpath(file).startswith(inside + os.sep):
                continue
            same = file_identity(file)  # and one listed through a link to its folder
            if same in listed:
                continue
        else:
            same = inode
        # A file hard-linked under a second name, or linked twice: listed under its first.
        if same in identities:
            continue
        identities.add(same)
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


_LAYOUT_NAMES = frozenset(name for names in LAYOUT_FOLDERS.values() for name in names)


def _own_folder(folder: Path) -> bool:
    """Whether ``folder``, of any name, met in a folder given, is a CLI's own folder: it holds
    sessions laid out as its CLI keeps them, one of the first of them at least a session of
    that CLI by its records (see :func:`_recorded_by`), and beside them what that CLI keeps
    there (``settings.json``, ``plugins/``, ``config.toml``…: see :func:`cli_folder`). A
    ``projects/`` beside ``todos/`` holding no session (``~``) is none, nor a folder of an
    app's settings.json and its data in ``projects/<name>/events.jsonl``: each is searched as
    any folder is."""
    for agent, children in LAYOUT_FOLDERS.items():
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


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """Whether a link listed leads to a folder; one that cannot be followed (a loop, a target
    behind a folder without access) is none here: named like a session, the listing of files
    says why (see :func:`~proctor.history.listing.is_listed`)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _linked_trees(
    links: list[tuple[str, str]], inside: str, unreadable: list[Unavailable]
) -> list[str]:
    """The links to folders met in the folder given (whose real path is ``inside``) that are
    searched, each with its target's real path: not one that leads into that folder (its
    sessions are read where they lie), nor one whose target another link leads to (the first
    by name is), or lies in a folder another leads to (it is searched there, through that
    link), whatever the order they were met in; one that leads to a folder above it, which
    holds it (a loop), is said and not followed."""
    targets: dict[str, str] = {}  # each target, by the first link to it
    for link, target in sorted(links):
        if not _holds_it(target, inside, link, unreadable):
            targets.setdefault(target, link)
    # In the order of their paths part by part (the separator made the lowest character), the
    # folders a target lies in come before it, and each folder's are just after it: the
    # targets that hold the one met are a chain, the last of them the nearest. A target is
    # searched in a farther one only through the nearest (the way from it goes through the
    # nearest's), so it is searched with another when it is with the nearest: one comparison
    # each, not each with every other (3,000 links: 1.5 s of comparing).
    within: set[str] = set()
    chain: list[str] = []  # the targets that hold the one met, the nearest last
    for target in sorted(targets, key=lambda t: t.replace(os.sep, "\0")):
        while chain and not target.startswith(chain[-1].rstrip(os.sep) + os.sep):
            chain.pop()
        if chain and _searched_in(target, chain[-1]):
            within.add(target)
        chain.append(target)
    return [link for target, link in targets.items() if target not in within]


def _searched_in(target: str, other: str) -> bool:
    """Whether the folder ``target`` is searched with the folder ``other`` (real paths): it
    lies in it, in no folder searched nowhere on the way (``x/.git/a``, which a link leads to
    beside one to ``x``, is searched on its own)."""
    if not target.startswith(other.rstrip(os.sep) + os.sep):
        return False
    way = os.path.relpath(target, other).split(os.sep)[:-1]
    return not any(part in NO_SESSIONS for part in way)


def _holds_it(target: str, inside: str, link: str, unreadable: list[Unavailable]) -> bool:
    """Whether a link's ``target`` is the folder given (``inside``, its real path), lies in it,
    or holds it: a link to a folder that holds it (a loop) is noted in ``unreadable``."""
    if target == inside or target.startswith(inside.rstrip(os.sep) + os.sep):
        return True
    if inside.startswith(target.rstrip(os.sep) + os.sep):
        reason = (
            f"a link to {target}, a folder that holds it: not followed (give its target as "
            "a PATH to read it)"
        )
        unreadable.append(Unavailable(path=link, reason=reason))
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
    return not _holds_it(target, inside, link, unreadable)


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


def is_part(file: str | Path) -> bool:
    """A subagent file, a side file or a Gemini CLI subagent chat: read with its session."""
    *_, grandparent, parent, name = ["", "", *os.fspath(file).rsplit(os.sep, 3)]
    # tool-results/… (a subagent file is agent-*.jsonl, below); chats/<parent session>/<chat>
    return _part_name(name) or parent == "tool-results" or grandparent == "chats"


def _part_name(name: str) -> bool:
    """A subagent's file or a side file, by its name."""
    return name.startswith("agent-") or name.endswith(".meta.json")
