"""The audit's reader: what one agent's audit reads and what it found, read tolerantly and
only inside the home, the project and the paths a session's command line names (a malformed,
unreadable or wrong-shaped file becomes a problem sentence, never an error), with the shapes
the agents' configuration files must have.

Nothing here writes. The component shapes read with it are :mod:`.shared_components` (skill
folders, instruction files, folders above the project), :mod:`.hook_tables` and
:mod:`.mcp_tables`.
"""

from __future__ import annotations

import errno
import itertools
import json
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.addons.audit.repository import ABOVE_ENTRIES
from proctor.addons.shown import command_masked
from proctor.models.audit import AuditComponent, ComponentKind
from proctor.models.errors_format import json_error, json_kind

Scope = str
PATH_FLAGS = ("--plugin-dir", "--mcp-config")
JSON_NAMES: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
"""A shape as JSON (and TOML) calls it, for the problem sentences."""


@dataclass
class Reader:
    """What one agent's audit reads and what it found."""

    home: Path
    project: Path | None
    launch_args: Sequence[str] = ()
    """The session's command line; the paths its ``--plugin-dir`` and ``--mcp-config`` name are
    read even though they are outside the home and project."""
    claude_config_dir: Path | None = None
    """Claude Code's ``CLAUDE_CONFIG_DIR`` when the session sets it (proctor's trials set it to
    ``<home>/.claude``); it moves ``~/.claude`` and ``~/.claude.json`` into it."""
    codex_home: Path | None = None
    """Codex's ``CODEX_HOME`` when set: it takes the place of ``~/.codex``."""
    gemini_cli_home: Path | None = None
    """Gemini CLI's ``GEMINI_CLI_HOME`` when set: the home whose ``.gemini`` and
    ``.agents/skills`` Gemini CLI reads instead of ``~/.gemini`` and ``~/.agents/skills``."""
    components: list[AuditComponent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the agent warns of but loads anyway, and what proctor could not judge."""

    def __post_init__(self) -> None:
        roots = [self.home, *([self.project] if self.project else []), *self.named_paths()]
        moved = (self.claude_config_dir, self.codex_home, self.gemini_cli_home)
        roots += [folder for folder in moved if folder is not None]
        self._roots = [r.resolve() for r in roots]
        self._entries: list[Path] = []
        """What the CLIs read in the folders above a project outside the home (see
        :meth:`reach`): those entries only, never the rest of such a folder."""

    def allowed(self, path: Path) -> bool:
        """Whether ``path`` (symlinks resolved) lies inside the home, the project or a path
        named on the command line."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return False
        return any(real.is_relative_to(root) for root in (*self._roots, *self._entries))

    def reach(self, folders: Sequence[Path]) -> None:
        """Let the audit read, in ``folders`` above a project outside the home, the entries a
        CLI reads there (:data:`ABOVE_ENTRIES`) and nothing else of them: a file of the project
        linked elsewhere in such a folder (``/tmp`` above ``/tmp/x/proj``) is still refused,
        and so is such an entry that is a link leading out of its folder."""
        for folder in folders:  # (never the filesystem's root)
            if folder != Path(folder.anchor):
                base = folder.resolve()
                self._entries += [base / name for name in ABOVE_ENTRIES]

    def named_paths(self) -> list[Path]:
        args = self.launch_args
        return [Path(v) for f, v in itertools.pairwise(args) if f in PATH_FLAGS]

    def is_file(self, path: Path) -> bool:
        return self.looked_at(path, "is_file") and self.allowed(path)

    def is_dir(self, path: Path) -> bool:
        return self.looked_at(path, "is_dir") and self.allowed(path)

    def looked_at(self, path: Path, test: str) -> bool:
        """``path.is_file()`` or ``path.is_dir()``; False with a problem when a folder on its
        way cannot be entered (an audit never fails on a file it cannot read)."""
        try:
            return bool(getattr(path, test)())
        except OSError as exc:
            self.unreadable(path, exc)
            return False

    def text(self, path: Path, *, replace: bool = False) -> str | None:
        """The file's text as written (a lone CR is no line break), or None when it is absent,
        outside or unreadable (a problem); ``replace``: bytes that are not UTF-8 read as
        U+FFFD, as Node's ``fs.readFile(path, "utf-8")`` reads them, not unreadable; a folder
        on its way that cannot be entered (Python 3.11 raises then) is unreadable too."""
        try:
            return self._text(path, replace=replace)
        except OSError as exc:
            self.unreadable(path, exc)
            return None

    def unreadable(self, path: Path, exc: OSError) -> None:
        """The problem that ``path`` cannot be read (said once)."""
        problem = f"{path}: cannot be read ({exc.strerror or exc})"
        if problem not in self.problems:  # (a skill's SKILL.md is looked at twice)
            self.problems.append(problem)

    def _text(self, path: Path, *, replace: bool) -> str | None:
        if not path.is_file() and not path.is_symlink():
            if path.is_dir():  # where the agent reads a file: it reads nothing there either
                self.problems.append(f"{path}: a folder, where a file belongs; ignored")
            elif path.exists():  # a named pipe, a socket, a device: reading it could block
                self.problems.append(f"{path}: not a regular file; not read")
            else:
                self.file_in_the_way(path.parent)
            return None
        if loops(path):
            self.problems.append(f"{path}: {LOOP}; not read")
            return None
        if not path.exists():  # a link whose target is not there
            self.problems.append(
                f"{path}: a symbolic link to {path.readlink()}, which is not there; ignored"
            )
            return None
        if not self.allowed(path):
            self.problems.append(f"{path}: leads outside the home and project; not read")
            return None
        try:
            with path.open(
                encoding="utf-8", errors="replace" if replace else "strict", newline=""
            ) as file:
                return file.read()
        except (OSError, UnicodeDecodeError) as exc:
            self.problems.append(f"{path}: cannot be read ({exc})")
            return None

    def file_in_the_way(self, folder: Path) -> None:
        """A problem when ``folder``, or the nearest of its parents that is there, is a file
        (``~/.claude`` a regular file): the agent reads nothing below it, which would otherwise
        read as nothing installed. Said once per file."""
        for where in (folder, *folder.parents):
            if _is_dir(where):
                return
            if loops(where):
                problem = f"{where}: {LOOP}; ignored"
                if problem not in self.problems:
                    self.problems.append(problem)
                return
            try:
                there = where.exists()  # a file, or a link to one
            except OSError as exc:  # a folder above it cannot be entered
                self.unreadable(where, exc)
                return
            if there:
                problem = f"{where}: a file, where a folder belongs; ignored"
                if problem not in self.problems:
                    self.problems.append(problem)
                return

    def json(
        self,
        path: Path,
        *,
        comments: bool = False,
        cost: str | Callable[[str], str] | None = None,
    ) -> dict[str, Any] | None:
        """A JSON object file, or None (absent; malformed or not an object is a problem);
        ``comments``: ``//`` and ``/* */`` comments are blanks (:func:`strip_json_comments`);
        ``cost``: what the agent loses when the file is not JSON, said with what is wrong
        (else: "ignored", and the line alone), or a function of what is wrong saying it."""
        text = self.text(path)
        if text is None:
            return None
        try:
            data = js_json(strip_json_comments(text) if comments else text)
        except json.JSONDecodeError as exc:
            if cost is None:
                self.problems.append(f"{path}: not valid JSON (line {exc.lineno}); ignored")
                return None
            fault = json_error(exc)
            said = cost(fault) if callable(cost) else cost
            self.problems.append(f"{path}: not valid JSON (line {exc.lineno}: {fault}); {said}")
            return None
        except RecursionError:
            self.problems.append(f"{path}: JSON nested too deeply to read; ignored")
            return None
        if not isinstance(data, dict):
            self.problems.append(f"{path}: expected a JSON object; ignored")
            return None
        self._check_shapes(path, data)
        return data

    def _check_shapes(self, path: Path, data: dict[str, Any]) -> None:
        """A field of the agents' settings files read with the wrong shape contributes nothing;
        said under ``problems`` rather than read as if it were absent."""
        for key, kind in SHAPES.get(path.name, {}).items():
            if key in data:
                self.shape(path, key, data[key], kind)

    def shape(self, path: Path, field: str, value: Any, kind: type, *, item: bool = False) -> bool:
        """Whether ``value`` (the file's ``field``, when present) has the shape ``kind``; one
        that has not is a problem naming the file and the field, and contributes nothing. An
        ``item`` of a list is always present: a ``null`` there has the wrong shape."""
        if (value is None and not item) or isinstance(value, kind):
            return True
        wanted = JSON_NAMES.get(kind, kind.__name__)
        shown = command_masked(value) if isinstance(value, str) else value  # a command line
        self.problems.append(
            f"{path}: field '{field}': expected {wanted}, got {json_kind(shown)}; ignored"
        )
        return False

    def string_list(self, path: Path, field: str, value: Any) -> list[str] | None:
        """The file's ``field`` as a list of strings: None when absent or malformed (a list
        that is not one, or an entry that is not a string, is a problem; such an entry is
        dropped)."""
        if value is None or not self.shape(path, field, value, list):
            return None
        for index, item in enumerate(value):
            self.shape(path, f"{field}[{index}]", item, str, item=True)
        return strings(value)

    def toml(self, path: Path) -> dict[str, Any] | None:
        text = self.text(path)
        if text is None:
            return None
        try:
            data = tomllib.loads(text)
        except RecursionError:
            self.problems.append(f"{path}: TOML nested too deeply to read; ignored")
            return None
        except tomllib.TOMLDecodeError as exc:
            self.problems.append(f"{path}: not valid TOML ({exc}); ignored")
            return None
        self._check_shapes(path, data)
        return data

    def add(self, kind: ComponentKind, name: str, file: Path, **fields: Any) -> None:
        self.components.append(AuditComponent(kind=kind, name=name, file=str(file), **fields))

    def subdirs(self, root: Path, *, linked: bool = False) -> list[Path]:
        """The folders in ``root`` (hidden ones left out). With ``linked``, a ``root`` that
        leads out of the home and project is listed too (names only): the agents follow a
        linked skills folder. An entry that is a symbolic link in a loop (an extension or a
        skill linked to itself) is a problem: no agent can load it."""
        if not (self.looked_at(root, "is_dir") if linked else self.is_dir(root)):
            self.file_in_the_way(root)
            return []
        try:
            entries = list(root.iterdir())
        except OSError as exc:
            self.problems.append(f"{root}: cannot be listed ({exc.strerror or exc})")
            return []
        shown = sorted(p for p in entries if not p.name.startswith("."))
        for looping in (p for p in shown if loops(p)):
            problem = f"{looping}: {LOOP}; ignored"
            if problem not in self.problems:  # (a folder listed twice)
                self.problems.append(problem)
        return [p for p in shown if _is_dir(p)]


_SETTINGS: dict[str, type] = {
    "hooks": dict,
    "mcpServers": dict,
    "permissions": dict,
    "enabledPlugins": dict,
    "disabledMcpjsonServers": list,
    "hooksConfig": dict,
    "mcp": dict,
    "tools": dict,
    "skills": dict,
    "context": dict,
}
SHAPES: dict[str, dict[str, type]] = {
    "settings.json": _SETTINGS,  # Claude Code's and Gemini CLI's: the same shapes where shared
    "settings.local.json": _SETTINGS,
    "config.toml": {"mcp_servers": dict, "notify": list, "hooks": dict},
    "hooks.json": {"hooks": dict},
    "installed_plugins.json": {"plugins": dict},
    ".claude.json": {"mcpServers": dict, "projects": dict},
    ".mcp.json": {"mcpServers": dict},
    "gemini-extension.json": {"mcpServers": dict},
}
"""The fields of the agents' configuration files the audit reads, and the shape each must have."""


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a link in a loop
        return False


LOOP = "a symbolic link that loops back on itself"


def loops(path: Path) -> bool:
    """Whether ``path`` is a symbolic link that leads, through others or itself, back to
    itself: no agent can read it, and it is said so rather than read as leading outside."""
    try:
        if not path.is_symlink():
            return False
        path.resolve(strict=True)
    except RuntimeError:  # Python before 3.13
        return True
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def js_json(text: str) -> Any:
    """``text`` read as the agents' ``JSON.parse`` (Node, Bun) reads it: ``NaN`` and
    ``Infinity`` are no JSON (a JSONDecodeError, as for any fault), and an integer of any
    length is a number (one of more than 4300 digits, which Python's ``int`` refuses, is read
    as a float, as JavaScript reads every number)."""
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_js_int)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # NaN, Infinity or -Infinity, from _no_constant
        raise json.JSONDecodeError(
            f"{exc} is not JSON", text, max(text.find(str(exc)), 0)
        ) from None


def strip_json_comments(text: str) -> str:
    """``text`` with its ``//`` and ``/* */`` comments outside strings made spaces (line breaks
    kept, so a fault is said at its line in the file), as the strip-json-comments package does
    with the ``settings.json`` files Gemini CLI 0.61 reads (a comment never closed runs to the
    end)."""
    out: list[str] = []
    inside_string = False
    comment: str | None = None  # "//" or "/*"
    offset = i = 0
    while i < len(text):
        pair = text[i : i + 2]
        if comment is None and text[i] == '"' and not _escaped(text, i):
            inside_string = not inside_string
        if inside_string:
            i += 1
            continue
        if comment is None and pair in ("//", "/*"):
            out.append(text[offset:i])
            offset, comment = i, pair
            i += 2
            continue
        if comment == "//" and text[i] in "\r\n" and (text[i] == "\n" or pair == "\r\n"):
            end = i + 2 if pair == "\r\n" else i
            out.append(_blank(text[offset:end]))
            offset, comment = end, None
            i = end
            continue
        if comment == "/*" and pair == "*/":
            out.append(_blank(text[offset : i + 2]))
            offset, comment = i + 2, None
            i += 2
            continue
        i += 1
    rest = text[offset:]
    return "".join(out) + (_blank(rest) if comment is not None else rest)


def _escaped(text: str, quote: int) -> bool:
    """Whether the quote at ``quote`` follows an odd number of backslashes."""
    start = quote
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (quote - start) % 2 == 1


def _blank(comment: str) -> str:
    return re.sub(r"\S", " ", comment)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _js_int(digits: str) -> int | float:
    return int(digits) if len(digits) <= 4300 else float(digits)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
