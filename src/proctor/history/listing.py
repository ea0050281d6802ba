"""Listing a history's folders: the names of its folders or of its regular files, with what
cannot be listed or told noted, never passed over in silence (see
:mod:`proctor.history.sources`)."""

from __future__ import annotations

import os
from pathlib import Path

from proctor.models.history import Unavailable


def sorted_names(
    folder: str | Path,
    *,
    folders: bool,
    agent: str | None = None,
    unreadable: list[Unavailable] | None = None,
    links: set[str] | None = None,
    named: list[str] | None = None,
) -> list[str]:
    """The names of the folders (or the files) in ``folder`` that a ``*`` glob matches
    (not hidden), sorted; none when it cannot be listed (noted in ``unreadable`` unless it
    is simply not there). Listing files, the folders among them named like one (``*.jsonl``,
    ``*.json``, not hidden) are added to ``named``, as the listing tells them."""
    try:
        with os.scandir(folder) as entries:
            # Files are regular files only: a named pipe would block the replay that read it.
            found = [e for e in entries if is_listed(e, folders, unreadable, agent, named)]
        names = [e.name for e in found]
        if links is not None:  # which of them are links (known from the listing itself)
            links.update(e.name for e in found if e.is_symlink())
    except FileNotFoundError:
        return []
    except OSError as exc:
        if unreadable is not None and all(u.path != str(folder) for u in unreadable):
            reason = f"cannot be listed ({exc.strerror or exc}): its sessions are left out"
            unreadable.append(Unavailable(agent=agent, path=str(folder), reason=reason))
        return []
    return sorted(n for n in names if not n.startswith("."))


def is_listed(
    entry: os.DirEntry[str],
    folder: bool,
    unreadable: list[Unavailable] | None,
    agent: str | None = None,
    named: list[str] | None = None,
) -> bool:
    """Whether a listed entry is a folder (or a regular file), its link followed. An entry
    whose type cannot be told (a link in a loop, a target behind a folder without access),
    and a link named like a session whose target is not there, are noted in ``unreadable``
    and passed over: the rest of its folder is still read. A folder named like a file, asked
    for files, is added to ``named`` (its type known from the listing: no look-up)."""
    try:
        found = entry.is_dir() if folder else entry.is_file()
    except OSError as exc:
        note(entry, f"cannot be read ({exc.strerror or exc}): left out", unreadable, agent)
        return False
    if not found and not folder and entry.name.endswith((".jsonl", ".json")):
        try:
            dangling = entry.is_symlink() and not os.path.exists(entry.path)
            target = os.readlink(entry.path) if dangling else ""
            a_folder = not dangling and entry.is_dir()
            special = not dangling and not a_folder
        except OSError:  # gone meanwhile
            dangling = a_folder = special = False
        if dangling:
            note(entry, f"a link to {target}, which is not there: left out", unreadable, agent)
        elif a_folder and named is not None and not entry.name.startswith("."):
            named.append(entry.name)  # (the caller tells whether it is named like a session)
        elif special:  # named like a session, but never opened: reading it could block
            note(entry, SPECIAL, unreadable, agent)
    return found


SPECIAL = "not a regular file (a named pipe, a socket, a device): left out, never opened"


def note(
    entry: os.DirEntry[str], reason: str, unreadable: list[Unavailable] | None, agent: str | None
) -> None:
    # Listed once, though a folder may be listed for its folders and then for its files.
    if (
        unreadable is not None
        and not entry.name.startswith(".")
        and all(u.path != entry.path for u in unreadable)
    ):
        unreadable.append(Unavailable(agent=agent, path=entry.path, reason=reason))


def unreachable(exc: OSError, path: Path | str) -> str:
    """Why a file or folder that could not be looked at is unavailable: ``permission
    denied: FOLDER`` naming the outermost folder on the way that cannot be entered (chmod
    000), else the system's reason."""
    where = exc.filename if isinstance(exc.filename, str) else os.fspath(path)
    if isinstance(exc, PermissionError):
        return f"permission denied: {shut_folder(where)}"
    return f"cannot be read ({exc.strerror or exc}): {where}"


def shut_folder(path: str) -> str:
    """The outermost folder on the way to ``path`` (``path`` included) that cannot be
    entered; ``path`` itself when none is found. A look-up under a folder without search
    permission fails on the child, not on the folder the user shut."""
    named = Path(path)
    for folder in [*reversed(named.parents), named]:
        try:
            os.stat(os.path.join(folder, "."))
        except PermissionError:
            return os.fspath(folder)
        except OSError:  # not a folder, or gone: nothing further to enter
            break
    return path
