"""The scratch an installer runs in: an empty ``home/`` and ``project/``, a filtered
environment whose every home-like variable points inside it, the command in its own process
group (killed afterwards, with anything it left running), and snapshots of the trees it wrote.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shlex
import stat
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from proctor.addons.install_planted import claude_state_servers
from proctor.addons.shown import command_masked
from proctor.errors import ConfigError
from proctor.util.cutting import output_tail
from proctor.util.masking import mask
from proctor.util.processes import run_captured
from proctor.util.startable import first_program, why_unstartable
from proctor.util.text import shown_repr
from proctor.workspace.environment import agent_environment

SHELL = "/bin/sh"
NOT_STARTED = (126, 127)
"""``sh -c`` exits 127 when a command is not found and 126 when it cannot be executed; the
same statuses come from a script that ran and then called a missing command, so only a first
program that is itself missing or not executable makes the command one that cannot start."""
DEFAULT_IGNORE = (
    "home/.npm/*",
    "home/.cache/*",
    "home/.claude/backups/*",
    "home/.claude/statsig/*",
    "home/.claude/shell-snapshots/*",
    "home/.claude/telemetry/*",
    "home/.claude/debug/*",
    "home/.claude/mcp-needs-auth-cache.json",
    "home/.codex/log/*",
    "home/.codex/.tmp/*",
    "home/.gemini/projects.json",
    "home/.gemini/tmp/*",
    "home/.gemini/history/*",
)
"""Caches, logs and bookkeeping that package managers and the agent CLIs keep for themselves
(``claude mcp add`` writes telemetry, ``gemini mcp add`` registers the folder it ran in). Claude
Code's ``.claude.json`` is compared by its MCP servers only (see :func:`snapshot`)."""


@dataclass(frozen=True)
class Scratch:
    """One scratch::

    <root>/
      home/       HOME, XDG_*_HOME, CODEX_HOME=home/.codex, GEMINI_CLI_HOME=home
        .codex/   made empty up front: Codex refuses a CODEX_HOME that does not exist
      project/    the command's working folder
    <root>-tmp/   TMPDIR
    """

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def temp(self) -> Path:
        """``TMPDIR``: beside the root, so the temporary files a command leaves are removed
        with the scratch and never counted as something it installed."""
        return self.root.with_name(self.root.name + "-tmp")

    @classmethod
    def create(cls, root: Path) -> Scratch:
        scratch = cls(root)
        scratch.home.mkdir(parents=True)
        scratch.temp.mkdir()
        (scratch.home / ".codex").mkdir()
        scratch.project.mkdir()
        return scratch


def installer_environment(
    scratch: Scratch, parent: Mapping[str, str], extra_path: Sequence[Path] = ()
) -> dict[str, str]:
    """The parent's environment without keys or agent settings, every home inside the scratch.

    ``CLAUDE_CONFIG_DIR`` stays unset: set, Claude Code would keep its ``.claude.json`` in it
    rather than in ``$HOME``, which is not where a user's is. ``extra_path`` (the pinned agent
    CLIs) goes in front of ``PATH`` so an installer can call ``claude mcp add`` and the like.
    """
    home = scratch.home
    env = agent_environment(parent, home=home)
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    env["CODEX_HOME"] = str(home / ".codex")
    env["GEMINI_CLI_HOME"] = str(home)
    env["PWD"] = str(scratch.project)
    env["TMPDIR"] = str(scratch.temp)
    if extra_path:
        env["PATH"] = os.pathsep.join([*map(str, extra_path), env.get("PATH", "")])
    return env


def expand(command: str, scratch: Scratch, origin: Path, *, shell: bool = True) -> str:
    """``{home}``, ``{project}`` and ``{cwd}`` (where proctor was started) in ``command``. For a
    shell line (``shell``) each is one shell word: a folder with a space (or a ``;``) in its name
    stays one path, never words or code of its own; a plain path is put in as it is. Otherwise
    (a hook command an expect file names, compared as text) the paths go in as they are."""
    word = shlex.quote if shell else str
    return (
        command.replace("{home}", word(str(scratch.home)))
        .replace("{project}", word(str(scratch.project)))
        .replace("{cwd}", word(str(origin)))
    )


@dataclass(frozen=True)
class Run:
    command: str
    returncode: int
    timed_out: bool
    tail: str
    """The end of its output, every registered key masked."""
    seconds: float
    stopped: str | None = None
    """Why proctor stopped it for its output, when it did (see
    :meth:`~proctor.util.processes.Outcome.stopped_for_output`)."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.stopped is None

    def describe(self, what: str) -> str:
        if self.stopped is not None:  # its exit is the kill's, not its own
            return f"the {what} command {self.stopped}: {self.tail[-400:] or '(no output)'}"
        if self.timed_out:  # a timeout under a second (0.5) is not said as "0s"
            took = f"{self.seconds:.0f}" if self.seconds >= 1 else f"{self.seconds:.1f}"
            tail = self.tail[-400:] or "(no output)"
            return f"the {what} command timed out after {took}s: {tail}"
        if self.returncode != 0:
            tail = self.tail[-600:] or "(no output)"
            return f"the {what} command exited {self.returncode}: {tail}"
        return f"the {what} command exited 0 in {self.seconds:.1f}s"


def run_command(
    command: str, scratch: Scratch, env: Mapping[str, str], timeout: float, option: str
) -> Run:
    """Run ``command`` under ``sh -c`` in the scratch project; one that cannot be started
    (no shell, a program not found or not executable) is a configuration error."""
    started = time.monotonic()
    try:
        outcome = run_captured(
            [SHELL, "-c", command], cwd=scratch.project, env=env, timeout=timeout
        )
    except OSError as exc:
        raise ConfigError(f"{option}: cannot start {SHELL} ({exc.strerror or exc})") from exc
    if outcome.returncode in NOT_STARTED and not outcome.timed_out:
        refuse_unstartable(command, scratch, env, option)
    # The tail masked before it is cut: a key the cut would split shows no part of it.
    tail = output_tail(outcome)
    took = time.monotonic() - started
    stopped = outcome.stopped_for_output()
    return Run(command, outcome.returncode, outcome.timed_out, tail, took, stopped)


def refuse_unstartable(
    command: str, scratch: Scratch, env: Mapping[str, str], option: str, *, before: bool = False
) -> None:
    """A configuration error when the program ``command`` starts with cannot be executed (see
    :func:`unstartable_program`). ``before`` anything ran, a program in the scratch home is let
    be: the install may be what puts it there."""
    why = unstartable_program(command, scratch.project, env)
    if why is None:
        return
    if before:
        program = first_program(command) or ""
        if "/" in program and (scratch.project / program).resolve().is_relative_to(
            scratch.home.resolve()
        ):
            return
    shown = command_masked(command)
    raise ConfigError(f"{option}: the command {shown_repr(shown)} cannot be started: {mask(why)}")


def unstartable_program(command: str, cwd: Path, env: Mapping[str, str]) -> str | None:
    """Why the program ``command`` starts with cannot be executed at all (not found on
    ``PATH``, no such file, not executable, a ``#!`` line naming a missing interpreter or ending
    in a carriage return); None when it can, or when the line does not start with a plain
    program (a builtin, a keyword, a redirection, shell syntax)."""
    program = first_program(command)
    if program is None:
        return None
    why = why_unstartable(program, cwd, env.get("PATH", os.defpath))
    if why is not None and "/" in program and not os.path.isabs(program):
        why += (
            " in the scratch project, where the command runs; a path from the folder you ran "
            f"proctor in needs {{cwd}}: {{cwd}}/{program.removeprefix('./')}"
        )
    if why is not None and why.endswith(" does not exist"):
        words = shlex.split(command, comments=True)
        rest = words[words.index(program) + 1 :]
        joined = " ".join([program, *rest[:1]])
        if rest and (Path(joined) if os.path.isabs(joined) else cwd / joined).exists():
            why += (
                f" (the shell split {joined!r} at its space: quote the part after a placeholder, "
                "{cwd}/'my installer.sh')"
            )
    return why


@dataclass(frozen=True)
class Entry:
    """A path in a snapshot: ``file`` (with its sha256), ``dir``, ``link`` (its target) or
    ``special`` (a pipe, socket or device, never opened)."""

    kind: str
    mode: int
    digest: str = ""


Snapshot = dict[str, Entry]


def snapshot(root: Path, ignore: Sequence[str] = ()) -> Snapshot:
    """Every path under ``root`` (relative, ``/``-separated) with what identifies its content."""
    found: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        for name in sorted([*dirs, *files]):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if ignored(rel, ignore):
                continue
            info = path.lstat()
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                found[rel] = Entry("link", mode, os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = Entry("dir", mode)
            elif stat.S_ISREG(info.st_mode) and name == ".claude.json":
                found[rel] = Entry("file", mode, claude_state_digest(path))
            elif stat.S_ISREG(info.st_mode):
                found[rel] = Entry("file", mode, file_digest(path))
            else:  # a pipe, socket or device: never opened (a FIFO would block the read)
                found[rel] = Entry("special", mode, stat.filemode(info.st_mode)[0])
    return found


def claude_state_digest(path: Path) -> str:
    """What identifies Claude Code's ``.claude.json``: its MCP servers (top level and per
    project), not the bookkeeping every ``claude`` command rewrites; the bytes when it does not
    parse."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return file_digest(path)
    servers = json.dumps(claude_state_servers(data), sort_keys=True)
    return "mcp:" + hashlib.sha256(servers.encode()).hexdigest()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def ignored(rel: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(rel, p) or rel == p.removesuffix("/*") for p in patterns)


@dataclass(frozen=True)
class Changes:
    added: list[str]
    removed: list[str]
    changed: list[str]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def describe(self, limit: int = 8) -> str:
        parts = []
        for word, paths in (("added", self.added), ("removed", self.removed)):
            if paths:
                parts.append(f"{word} {shorten(paths, limit)}")
        if self.changed:
            parts.append(f"changed {shorten(self.changed, limit)}")
        return "; ".join(parts)


def compare(before: Snapshot, after: Snapshot) -> Changes:
    """Paths added, removed and changed (content, mode, kind or link target) between two
    snapshots; a folder counts as changed only when its own mode changed."""
    return Changes(
        added=sorted(set(after) - set(before)),
        removed=sorted(set(before) - set(after)),
        changed=sorted(p for p in set(before) & set(after) if before[p] != after[p]),
    )


def shorten(paths: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")
