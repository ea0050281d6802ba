"""Materialising a case's fixture into a fresh workspace, safely.

Zip entries that would land outside the workspace (absolute paths, ``..``) and symbolic links
that point outside it are refused with a :class:`WorkspaceError` naming the entry.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from proctor.errors import WorkspaceError


def _is_symlink_entry(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _escapes(root: Path, target: Path) -> bool:
    try:
        target.resolve().relative_to(root.resolve())
    except ValueError:
        return True
    return False


def check_zip(path: Path) -> None:
    """Raise WorkspaceError when ``path`` is not a zip or has an entry escaping its root."""
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename
                parts = PurePosixPath(name.replace("\\", "/")).parts
                if name.startswith(("/", "\\")) or (parts and ":" in parts[0]) or ".." in parts:
                    raise WorkspaceError(
                        f"{path}: entry '{name}' would be written outside the workspace"
                    )
                if _is_symlink_entry(info):
                    link = zf.read(info).decode("utf-8", "replace")
                    resolved = PurePosixPath(name).parent / link
                    if link.startswith("/") or ".." in _normalise(resolved).parts:
                        raise WorkspaceError(
                            f"{path}: symlink entry '{name}' points outside the workspace ({link})"
                        )
    except zipfile.BadZipFile as exc:
        raise WorkspaceError(f"{path}: not a valid zip file ({exc})") from exc
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot be read ({exc})") from exc


def _normalise(path: PurePosixPath) -> PurePosixPath:
    out: list[str] = []
    for part in path.parts:
        if part == "..":
            if not out:
                return PurePosixPath("..", *path.parts)
            out.pop()
        elif part != ".":
            out.append(part)
    return PurePosixPath(*out)


def _extract_zip(path: Path, dest: Path) -> None:
    check_zip(path)
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            target = dest / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if _is_symlink_entry(info):
                os.symlink(zf.read(info).decode("utf-8"), target)
                continue
            with zf.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(target, mode | stat.S_IRUSR | stat.S_IWUSR)
    _strip_single_root(dest)


def _strip_single_root(dest: Path) -> None:
    """A zip holding one top folder (``src/...``) is unwrapped, as archives usually are."""
    entries = [p for p in dest.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        inner = entries[0]
        for child in list(inner.iterdir()):
            child.rename(dest / child.name)
        inner.rmdir()
    macosx = dest / "__MACOSX"
    if macosx.is_dir():
        shutil.rmtree(macosx)


def _copy_dir(src: Path, dest: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(src):
        here = Path(dirpath)
        for name in dirnames + filenames:
            item = here / name
            if item.is_symlink() and _escapes(src, item):
                raise WorkspaceError(
                    f"{item}: symlink points outside the fixture ({os.readlink(item)})"
                )
    shutil.copytree(src, dest, symlinks=True, dirs_exist_ok=True)


def materialise_fixture(fixture: Path | None, kind: str | None, dest: Path) -> None:
    """Fill the empty directory ``dest`` with the fixture (nothing when there is none)."""
    dest.mkdir(parents=True, exist_ok=True)
    if fixture is None:
        return
    if kind == "zip":
        _extract_zip(fixture, dest)
    else:
        _copy_dir(fixture, dest)
    for dirpath, dirs, files in os.walk(dest):
        for name in dirs + files:
            item = Path(dirpath) / name
            if item.is_symlink() and _escapes(dest, item):
                raise WorkspaceError(
                    f"fixture entry '{item.relative_to(dest)}' escapes the workspace"
                )
