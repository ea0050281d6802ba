"""Reading the trajectory for what an agent looked at that it should not: files the task hides,
other trials' folders, and git history beyond its own checkout (``git log --all``, ``git
reflog``, ``git show`` of another ref, ``.git`` internals). Shell commands are split into simple
commands (through ``&&``, pipes, ``sh -c '…'``) and read word by word. Pure functions."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from proctor.evaluators.gates.matching import CallView, calls_of
from proctor.evaluators.gates.patches import matches_any, normalise
from proctor.models.trajectory import Event


@dataclass(frozen=True)
class Finding:
    """One thing a gate caught: the path (or command) and what was wrong with it."""

    path: str
    what: str
    by: str = ""
    """The tool call that did it, when known."""

    def __str__(self) -> str:
        return f"{self.path}: {self.what}" + (f" ({self.by})" if self.by else "")


@dataclass(frozen=True)
class ReadScope:
    """Where the trial lives, to tell a hidden or foreign path from a fair one."""

    workspace: str | None = None
    case_dir: str | None = None
    """The case folder: hidden globs also match its copies of the held-back files."""
    others: tuple[str, ...] = ()
    """Folders holding other trials (the run's ``trials/``, the scratch root)."""
    own: tuple[str, ...] = ()
    """This trial's own folders under ``others`` (fair to read)."""


TRIAL_SCRATCH = re.compile(r"\d+(?:\.\d+)?")
"""The name of a trial's scratch folder (``<index>`` or ``<index>.<attempt>``)."""


def scope_of_trial(workspace: Path, trial_dir: Path, case_dir: Path | None = None) -> ReadScope:
    """The scope of one trial of a run: its workspace and case folder; as foreign, the run's
    other trial folders (``trials/<case>/<agent>/<condition>/<repeat>``) and the other
    trials' scratch folders beside its own (``<scratch root>/<index>``)."""
    others: list[str] = []
    own = [str(trial_dir.resolve())]
    parents = trial_dir.resolve().parents
    if len(parents) > 3 and parents[3].name == "trials":
        others.append(str(parents[3]))
    scratch = workspace.resolve().parent
    if TRIAL_SCRATCH.fullmatch(scratch.name):
        others.append(str(scratch.parent))
        own.append(str(scratch))
    return ReadScope(
        workspace=str(workspace.resolve()),
        case_dir=str(case_dir.resolve()) if case_dir is not None else None,
        others=tuple(others),
        own=tuple(own),
    )


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh"})
WRAPPERS = frozenset({"sudo", "env", "command", "time", "nohup", "exec", "nice", "builtin"})
PATH_KEYS = (
    "file_path",
    "filePath",
    "path",
    "absolute_path",
    "notebook_path",
    "dir_path",
    "directory",
    "cwd",
    "workdir",
)
LIST_KEYS = ("paths", "files", "file_paths")


def command_text(data: Mapping[str, Any]) -> str | None:
    command = data.get("command", data.get("cmd"))
    if isinstance(command, list):
        return shlex.join(str(c) for c in command)
    return command if isinstance(command, str) else None


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: read it word by word
        return text.split()


def split_commands(text: str, depth: int = 0) -> list[list[str]]:
    """The simple commands of a shell line, each as its words (redirections dropped, their
    targets kept; ``sh -c SCRIPT`` read as SCRIPT)."""
    commands: list[list[str]] = []
    argv: list[str] = []
    for token in [*_tokens(text), ";"]:
        if token and set(token) <= set("<>"):
            continue
        if token and set(token) <= set("();|&"):
            commands += _unwrap(argv, depth)
            argv = []
        elif token not in ("$", "{", "}", "!"):
            argv.append(token)
    return commands


def _unwrap(argv: list[str], depth: int) -> list[list[str]]:
    while argv and (("=" in argv[0] and not argv[0].startswith("-")) or argv[0] in WRAPPERS):
        argv = argv[1:]
    if not argv:
        return []
    if argv[0].rsplit("/", 1)[-1] in SHELLS and depth < 3:
        for i, arg in enumerate(argv[1:-1], start=1):
            if arg.startswith("-") and arg.endswith("c"):
                return split_commands(argv[i + 1], depth + 1)
    return [argv]


def shell_commands(data: Mapping[str, Any]) -> list[list[str]]:
    text = command_text(data)
    return split_commands(text) if text else []


def _mentioned(view: CallView) -> Iterator[str]:
    """Paths a call names: its path arguments, its files, and a shell command's words."""
    data = view.input
    for key in PATH_KEYS:
        if isinstance(data.get(key), str):
            yield data[key]
    for key in LIST_KEYS:
        if isinstance(data.get(key), list):
            yield from (p for p in data[key] if isinstance(p, str))
    yield from view.call.files or []
    for argv in shell_commands(data) if view.call.kind == "shell" or "command" in data else []:
        for word in argv[1:]:
            option, _, value = word.partition("=")
            if word.startswith("-") and value and option not in PATTERN_OPTIONS:
                yield value
        yield from _path_words(argv)


def _under(path: str, folder: str) -> bool:
    folder = folder.rstrip("/")
    return path == folder or path.startswith(folder + "/")


def _rel(path: str, folder: str) -> str:
    return path[len(folder.rstrip("/")) + 1 :] if path != folder.rstrip("/") else "."


def _holds_hidden(rel: str, globs: Sequence[str]) -> bool:
    """Whether reading ``rel`` (recursively, or as a glob) can reach a file the globs hide:
    the folder itself, a folder above a hidden path, or a pattern."""
    if rel == "." or any(c in rel for c in "*?["):
        return True
    prefix = rel.rstrip("/") + "/"
    return any(g.lstrip("./").startswith(prefix) for g in globs)


def classify_read(path: str, globs: Sequence[str], scope: ReadScope) -> str | None:
    """Why reading ``path`` breaks the rules, or None when it is fair."""
    path = path.strip()
    if not path or path.startswith("~") or "://" in path:
        return None
    if not path.startswith("/"):
        if scope.workspace and normalise(path).startswith("../"):
            path = posixpath.normpath(posixpath.join(scope.workspace, path))
        else:
            return "a hidden file" if globs and matches_any(path, globs) else None
    full = posixpath.normpath(path)
    if scope.workspace and _under(full, scope.workspace):
        rel = _rel(full, scope.workspace)
        return "a hidden file" if globs and matches_any(rel, globs) else None
    in_case = scope.case_dir and _under(full, scope.case_dir)
    if in_case and globs:
        rel = _rel(full, scope.case_dir or "")
        if matches_any(rel, globs):
            return "a hidden file, in the case folder"
        if _holds_hidden(rel, globs):
            return "a folder (or a glob) of the case folder that holds hidden files"
    mine = any(_under(full, own) for own in scope.own)
    if not mine and any(_under(full, other) for other in scope.others):
        return "another trial's folder"
    return None


def hidden_reads(
    events: Sequence[Event], globs: Sequence[str] = (), scope: ReadScope | None = None
) -> list[Finding]:
    """Every call that read (or named) a file matching ``globs`` (in the workspace or the case
    folder), or a path in another trial's folder."""
    scope = scope or ReadScope()
    found = []
    for view in calls_of(events):
        seen: set[str] = set()
        for path in _mentioned(view):
            why = classify_read(path, globs, scope)
            shown = _named(path, scope)
            if why and shown not in seen:
                seen.add(shown)
                found.append(Finding(shown, f"read {why}", view.name))
    return found


def _named(path: str, scope: ReadScope) -> str:
    """``path`` as a finding names it: relative to the workspace when it is in it, however the
    call spelt it, so one read a call names twice (its absolute ``file_path`` and its relative
    ``files`` entry) is one finding; a path out of the workspace, in full."""
    path = path.strip()
    if not scope.workspace:
        return path
    full = posixpath.normpath(posixpath.join(scope.workspace, path))
    return _rel(full, scope.workspace) if _under(full, scope.workspace) else full


HEADISH = re.compile(r"^(?:(?:HEAD|@)(?:[~^]\d*)*(?::.*)?|:.*|[0-9a-f]{7,40}(?:[~^]\d*)*(?::.*)?)$")
"""Refs within the agent's own checkout: HEAD and its ancestors, the index, a commit id."""
OTHER_REF = re.compile(
    r"^(?:origin|upstream|remotes?)/|^refs/|@\{|^(?:FETCH|ORIG|MERGE|CHERRY_PICK)_HEAD|^stash"
)
ALL_REFS = frozenset(
    {"--all", "--branches", "--remotes", "--tags", "--glob", "--reflog", "-g", "--walk-reflogs"}
)
REF_COMMANDS = frozenset(
    {"diff", "checkout", "restore", "switch", "ls-tree", "archive", "grep", "cherry-pick"}
    | {"merge", "rebase", "reset", "format-patch", "blame", "worktree"}
)


def _other_ref(word: str) -> bool:
    if ".." in word:
        return any(side and not HEADISH.match(side) for side in re.split(r"\.{2,3}", word))
    return bool(OTHER_REF.search(word))


def git_peek(argv: Sequence[str]) -> str | None:
    """What a ``git`` command does to look beyond the checkout, or None."""
    args = list(argv[1:])
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in ("-C", "-c", "--git-dir", "--work-tree") else args[1:]
    if not args:
        return None
    sub, rest = args[0], args[1:]
    rest = rest[: rest.index("--")] if "--" in rest else rest
    options = [a for a in rest if a.startswith("-")]
    words = [a for a in rest if not a.startswith("-")]
    shown = " ".join(argv)
    if sub == "reflog" or sub == "cat-file":
        return f"`{shown}` reads history beyond the checkout"
    if sub == "stash" and words[:1] in (["show"], ["list"]):
        return f"`{shown}` reads stashed work"
    if sub == "fsck" and any(o in ("--lost-found", "--unreachable", "--dangling") for o in options):
        return f"`{shown}` digs for unreachable commits"
    if sub in ("log", "shortlog", "whatchanged", "rev-list"):
        wide = [o for o in options if o.split("=", 1)[0] in ALL_REFS]
        if wide:
            return f"`{shown}` reads every ref ({wide[0]})"
    if sub == "show":
        others = [w for w in words if not HEADISH.match(w)]
        if others:
            return f"`{shown}` shows another ref ({others[0]})"
    if sub in REF_COMMANDS or sub in ("log", "shortlog", "whatchanged", "rev-list", "show"):
        sources = [o.split("=", 1)[1] for o in options if o.startswith("--source=")]
        others = [w for w in [*words, *sources] if _other_ref(w)]
        if others:
            return f"`{shown}` reads another ref ({others[0]})"
    return None


PATTERN_OPTIONS = frozenset(
    {"-path", "-ipath", "-name", "-iname", "-wholename", "-I", "-x", "--exclude", "--ignore"}
    | {"--exclude-dir", "--glob", "-g", "--iglob", "-prune"}
)
"""Options whose value is a pattern to leave out (``find . -path ./.git -prune``), not a path."""


def _path_words(argv: Sequence[str]) -> Iterator[str]:
    """The words of a command that name paths it reads: not options, not patterns."""
    for before, word in pairwise(argv):
        if word.startswith(("-", "!")) or before in PATTERN_OPTIONS:
            continue
        yield word


def _git_internal(path: str) -> bool:
    parts = normalise(path).split("/")
    return ".git" in parts


def history_peeking(events: Sequence[Event]) -> list[Finding]:
    """Every call that looked for a later fix in git's history: wide or foreign ``git log`` /
    ``show`` / ``diff`` / ``checkout``, ``git reflog``, ``git cat-file``, or reading ``.git``."""
    found = []
    for view in calls_of(events):
        commands = shell_commands(view.input) if view.call.kind == "shell" else []
        for argv in commands:
            if argv[0].rsplit("/", 1)[-1] == "git":
                why = git_peek(argv)
                if why:
                    found.append(Finding(" ".join(argv), why, view.name))
            elif any(_git_internal(w) for w in _path_words(argv)):
                found.append(Finding(" ".join(argv), "reads .git internals", view.name))
        if view.call.kind != "shell":
            data = view.input
            paths = [data[k] for k in PATH_KEYS if isinstance(data.get(k), str)]
            for path in paths + list(view.call.files or []):
                if _git_internal(path):
                    found.append(Finding(path, "reads .git internals", view.name))
    return found
