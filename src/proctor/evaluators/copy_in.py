"""``copyIn``: case-folder files (hidden tests, say) copied into the workspace once the agent has
finished, at the same relative paths. The source never leads outside the case folder, and the
copy never writes through a link the agent left in the workspace: whatever stands at a target
path (a file, a folder, a symbolic link) is replaced."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath


class CopyInError(Exception):
    """A ``copyIn`` entry cannot be copied; the message says which and why."""


def relative_entry(entry: str) -> str:
    """``entry`` when it names a path inside the case folder, else ValueError."""
    if "\0" in entry:
        raise ValueError("a path cannot hold a NUL character")
    path = PurePosixPath(entry.replace("\\", "/").rstrip("/"))
    if not entry.strip() or path.is_absolute() or ".." in path.parts or str(path) == ".":
        raise ValueError(
            f"{entry!r} is not a path inside the case folder "
            "(give a relative file or folder such as 'hidden_tests/')"
        )
    return entry


def _inside(path: Path, root: Path) -> bool:
    # realpath, not resolve(): a symlink loop leads nowhere rather than raising.
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def _sources(case_dir: Path, entry: str) -> Iterator[tuple[Path, str]]:
    """Each file to copy for ``entry``, with its path relative to the case folder."""
    rel = PurePosixPath(entry.replace("\\", "/").rstrip("/"))
    source = case_dir / rel
    if not os.path.lexists(source):
        raise CopyInError(f"{entry!r} does not exist in the case folder {case_dir}")
    if not _inside(source, case_dir):
        raise CopyInError(f"{entry!r} leads outside the case folder")
    if not source.is_dir():
        yield source, rel.as_posix()
        return
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]):
            path = Path(dirpath, name)
            if not _inside(path, case_dir):
                shown = path.relative_to(case_dir).as_posix()
                raise CopyInError(f"{shown!r} (under {entry!r}) leads outside the case folder")
            if path.is_file():
                yield path, path.relative_to(case_dir).as_posix()


def copy_in_problem(case_dir: Path, entries: Sequence[str]) -> tuple[int, str] | None:
    """The first entry that cannot be copied from this case folder (checked when the case is
    loaded): its index and what is wrong; None when every one can."""
    for i, entry in enumerate(entries):
        try:
            for _ in _sources(case_dir, entry):
                pass
        except CopyInError as exc:
            return i, str(exc)
    return None


def _clear(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _folder(workspace: Path, rel: PurePosixPath) -> Path:
    """``workspace/rel`` as a real folder: a link or file the agent left on the way is
    replaced, so the copy stays inside the workspace."""
    here = workspace
    for part in rel.parts:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            _clear(here)
        here.mkdir(exist_ok=True)
    return here


def copy_in(case_dir: Path, workspace: Path, entries: Sequence[str]) -> list[str]:
    """Copy every entry into the workspace; the workspace-relative paths copied."""
    copied: list[str] = []
    for entry in entries:
        for source, rel in list(_sources(case_dir, entry)):
            target_rel = PurePosixPath(rel)
            folder = _folder(workspace, target_rel.parent)
            target = folder / target_rel.name
            if os.path.lexists(target):
                _clear(target)
            shutil.copyfile(source, target)
            shutil.copymode(source, target)
            copied.append(rel)
    return copied
