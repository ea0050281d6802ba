"""Reading a unified diff (proctor's ``workspace.diff``, ``git diff`` or ``diff -u`` output) into
one record per file: how it changed and which lines went and came, and matching paths against
workspace globs. Pure functions of text."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from proctor.util.diffpaths import unquote_path

ChangeKind = Literal["added", "deleted", "modified", "renamed"]
HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@dataclass
class FileChange:
    """One file of a diff: ``path`` as it was (as it is, for an added file), ``new_path`` after
    a rename, and the lines removed and added (without their ``-``/``+``)."""

    path: str
    kind: ChangeKind = "modified"
    new_path: str | None = None
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def _strip_prefix(name: str) -> str | None:
    if name.startswith('"'):  # quoted as git quotes a name with a newline, a tab, a quote
        name, _ = unquote_path(name)
    else:
        name = name.split("\t", 1)[0].strip()  # `diff -u` puts a tab and a time after it
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


def _git_header_paths(rest: str) -> str:
    """The first path of ``diff --git a/X b/Y`` (X may hold spaces, or be quoted)."""
    if rest.startswith('"'):
        first, _ = unquote_path(rest)
        return first[2:] if first[:2] == "a/" else first
    left, _, _right = rest.partition(" b/")
    return _strip_prefix(left) or left


def parse_unified_diff(text: str) -> list[FileChange]:
    """Every file the diff touches, in order. Hunk lengths are honoured, so a removed line that
    itself starts with ``--`` is never taken for a file header."""
    changes: list[FileChange] = []
    current: FileChange | None = None
    old_left = new_left = 0
    # Lines end at "\n" only: a form feed or U+2028 inside a line is part of it.
    for line in text.replace("\r\n", "\n").split("\n"):
        if old_left > 0 or new_left > 0:
            if line.startswith("\\"):
                continue
            tag, body = line[:1], line[1:]
            if tag == "-" and current is not None:
                current.removed.append(body)
                old_left -= 1
            elif tag == "+" and current is not None:
                current.added.append(body)
                new_left -= 1
            else:
                old_left, new_left = old_left - 1, new_left - 1
            continue
        hunk = HUNK.match(line)
        if hunk and current is not None:
            old_left = int(hunk[1]) if hunk[1] is not None else 1
            new_left = int(hunk[2]) if hunk[2] is not None else 1
        elif line.startswith("diff --git "):
            current = FileChange(_git_header_paths(line[len("diff --git ") :]))
            changes.append(current)
        elif line.startswith("--- ") and (current is None or current.removed or current.added):
            current = FileChange(_strip_prefix(line[4:]) or "", kind="modified")
            changes.append(current)
            if current.path == "":
                current.kind = "added"
        elif current is None:
            continue
        elif line.startswith("--- "):
            if _strip_prefix(line[4:]) is None:
                current.kind = "added"
        elif line.startswith("+++ "):
            name = _strip_prefix(line[4:])
            if name is None:
                current.kind = "deleted"
            elif current.kind == "added" or not current.path:
                current.path = name
        elif line.startswith(("new file", "new file mode")):
            current.kind = "added"
        elif line.startswith(("deleted file", "deleted file mode")):
            current.kind = "deleted"
        elif line.startswith("rename from "):
            current.path, current.kind = unquote_path(line[len("rename from ") :])[0], "renamed"
        elif line.startswith("rename to "):
            current.new_path, current.kind = unquote_path(line[len("rename to ") :])[0], "renamed"
    return _pair_renames(changes)


def _pair_renames(changes: list[FileChange]) -> list[FileChange]:
    """A file deleted and another added with the very same lines is a rename (proctor's own
    diffs show a rename that way)."""
    added = {c.path: c for c in changes if c.kind == "added" and c.added}
    out: list[FileChange] = []
    taken: set[str] = set()
    for change in changes:
        if change.kind == "deleted" and change.removed:
            twin = next(
                (p for p, a in added.items() if p not in taken and a.added == change.removed),
                None,
            )
            if twin is not None:
                taken.add(twin)
                change.kind, change.new_path = "renamed", twin
        out.append(change)
    return [c for c in out if not (c.kind == "added" and c.path in taken)]


# -- globs -----------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A workspace glob as a regex over ``/``-separated relative paths. ``*`` and ``?`` stay in
    one folder, ``**`` crosses folders, ``[abc]`` and ``{a,b}`` work as in a shell. A pattern
    with no ``/`` matches a file name at any depth (``test_*.py``); a trailing ``/`` or ``/**``
    also matches the folder itself (``hidden_tests/`` matches ``hidden_tests``)."""
    pattern = pattern.strip()
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if pattern.endswith("/"):
        pattern += "**"
    if "/" not in pattern:
        pattern = "**/" + pattern
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out, i = out + "(?:/.*)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out, i = out + "[" + body.replace("\\", "\\\\") + "]", end + 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            options = pattern[i + 1 : end].split(",")
            out, i = out + "(?:" + "|".join(re.escape(o) for o in options) + ")", end + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


def normalise(path: str) -> str:
    """A relative path in one spelling: ``/`` separators, no ``./``, ``..`` folded."""
    path = path.replace("\\", "/")
    folded = posixpath.normpath(path) if path else path
    return "" if folded == "." else folded


def matches_any(path: str, globs: Iterable[str]) -> bool:
    rel = normalise(path)
    return bool(rel) and any(glob_regex(g).match(rel) for g in globs)


def check_globs(globs: Sequence[str]) -> list[str]:
    """The globs as given, or ValueError naming the first that cannot name a workspace file."""
    for glob in globs:
        if not isinstance(glob, str) or not glob.strip():
            raise ValueError(f"{glob!r} is not a glob (give text such as 'tests/**')")
        if glob.startswith("/") or ".." in glob.split("/"):
            raise ValueError(f"{glob!r} must be relative to the workspace, without '..'")
    return list(globs)
