"""The toolkit every agent's audit shares: tolerant readers confined to the home and project,
and the component shapes the three CLIs have in common (skill folders, event → matcher group →
handler hooks, MCP server tables, instruction files, another agent's files).

Nothing here writes, and nothing raises on a malformed file: it becomes a problem sentence.
"""

from __future__ import annotations

import difflib
import errno
import itertools
import json
import shlex
import tomllib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.front_matter import SkillRule, claude_code_skill
from proctor.addons.audit.repository import ABOVE_ENTRIES, marks_root
from proctor.addons.hooks.cases import EVENTS
from proctor.addons.shown import command_masked
from proctor.models.audit import AuditComponent, ComponentKind
from proctor.models.errors_format import json_kind

Scope = str
NO_COMMAND = "matcher with no hook command behind it"
NO_TYPE = "a hook handler needs a type"
EMPTY_SKILL = "empty skill folder (no SKILL.md)"
NO_ENDPOINT = "MCP entry with no command or url"
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
            problem = f"{path}: cannot be read ({exc.strerror or exc})"
            if problem not in self.problems:  # (a skill's SKILL.md is looked at twice)
                self.problems.append(problem)
            return False

    def text(self, path: Path, *, replace: bool = False) -> str | None:
        """The file's text as written (a lone CR is no line break), or None when it is absent,
        outside or unreadable (a problem); ``replace``: bytes that are not UTF-8 read as
        U+FFFD, as Node's ``fs.readFile(path, "utf-8")`` reads them, not unreadable."""
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
            if where.exists():  # a file, or a link to one
                problem = f"{where}: a file, where a folder belongs; ignored"
                if problem not in self.problems:
                    self.problems.append(problem)
                return

    def json(self, path: Path) -> dict[str, Any] | None:
        """A JSON object file, or None (absent; malformed or not an object is a problem)."""
        text = self.text(path)
        if text is None:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            self.problems.append(f"{path}: not valid JSON (line {exc.lineno}); ignored")
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

    def shape(self, path: Path, field: str, value: Any, kind: type) -> bool:
        """Whether ``value`` (the file's ``field``, when present) has the shape ``kind``; one
        that has not is a problem naming the file and the field, and contributes nothing."""
        if value is None or isinstance(value, kind):
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
            self.shape(path, f"{field}[{index}]", item, str)
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
    "plugin.json": {"mcpServers": dict},
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
    if not path.is_symlink():
        return False
    try:
        path.resolve(strict=True)
    except RuntimeError:  # Python before 3.13
        return True
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def skills(
    reader: Reader,
    root: Path,
    scope: Scope,
    disabled: Collection[str] = (),
    prefix: str = "",
    rule: SkillRule = claude_code_skill,
) -> None:
    """One skill per folder of ``root``: ``SKILL.md`` inside, or a decoy when it is missing.
    ``rule`` is the CLI's reading of its front matter (``front_matter.py``): the name the skill
    is loaded under, or why it is not loaded (Codex wants a ``description``, Gemini CLI a
    ``name`` and a ``description``). ``disabled`` names are matched without regard to case.

    A Claude Code ``SKILL.md`` with no ``description`` (none in its front matter, no front
    matter, even an empty file) is no decoy: Claude Code 2.1.197 leaves it out of the ``skills``
    of its ``system/init`` event, yet lists it to the model with its body's first paragraph as
    the description and loads it when the model calls the Skill tool (measured by
    ``tests/contract/test_skills.py::
    test_claude_code_offers_skills_without_a_description_to_the_model``)."""
    off = {name.lower() for name in disabled}
    for folder in reader.subdirs(root, linked=True):
        manifest = folder / "SKILL.md"
        if not reader.is_file(manifest) and reader.looked_at(manifest, "is_file"):
            # Linked in from outside (an add-on's checkout, a folder of dotfiles): each CLI
            # follows the link and loads the skill (measured by tests/contract/test_skills.py::
            # test_a_skill_linked_in_from_outside_the_home_is_offered_to_the_model). Only its
            # SKILL.md's presence is looked at there; nothing of it is read, so it is named by
            # its folder.
            target = str(folder.resolve())
            decoy = "disabled (skills.disabled)" if folder.name.lower() in off else None
            name = prefix + folder.name
            reader.add("skill", name, manifest, scope=scope, decoy=decoy, linked_to=target)
        elif not reader.is_file(manifest):
            reader.add("skill", prefix + folder.name, folder, scope=scope, decoy=EMPTY_SKILL)
        else:
            loaded_as, decoy = rule(reader.text(manifest) or "", folder.name)
            if decoy is None and loaded_as.lower() in off:
                decoy = "disabled (skills.disabled)"
            reader.add("skill", prefix + loaded_as, manifest, scope=scope, decoy=decoy)


def hooks(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    off: str | None = None,
    disabled_commands: Collection[str] = (),
    *,
    agent: str,
) -> None:
    """Hooks of an ``{event: [{matcher, hooks: [{type, command}]}]}`` table; ``off`` is why
    none of them runs (hooks switched off in that file), when they do not. A hook under an
    event ``agent`` never fires is a problem and a decoy; a wrong-shaped part is a problem."""
    for event, groups in as_dict(table).items():
        if not reader.shape(file, f"hooks.{event}", groups, list):
            continue
        unknown = unknown_event(agent, str(event))
        if unknown:
            reader.problems.append(f"{file}: hook event '{event}' {unknown}; never runs")
        for index, group in enumerate(groups or []):
            if not reader.shape(file, f"hooks.{event}[{index}]", group, dict):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            name = f"{event}:{matcher}" if matcher else str(event)
            listed = group.get("hooks")
            field = f"hooks.{event}[{index}].hooks"
            raw = listed if reader.shape(file, field, listed, list) and listed else []
            shaped = {
                i: h for i, h in enumerate(raw) if reader.shape(file, f"{field}[{i}]", h, dict)
            }
            handlers = list(shaped.values())
            untyped = [h for h in handlers if h.get("type") is None]
            runnable = [h for h in handlers if runnable_hook(h)]
            mistyped = [(i, key) for i, h in shaped.items() if (key := mistyped_key(h))]

            add = partial(reader.add, "hook", name, file, scope=scope, event=event, matcher=matcher)
            for handler in untyped:  # the CLIs refuse such a handler: it never runs
                command = handler.get("command")
                add(command=command if isinstance(command, str) else None, decoy=unknown or NO_TYPE)
            for i, key in mistyped:  # e.g. a command written as a list of words
                reader.shape(file, f"{field}[{i}].{key}", shaped[i][key], str)
                add(decoy=unknown or f"the hook's '{key}' is not a string")
            if not runnable and not untyped and not mistyped:
                add(decoy=unknown or NO_COMMAND)
            for handler in runnable:
                command = hook_command(handler)
                # Gemini CLI names a hook by its name, else its command (hooksConfig.disabled).
                named = handler.get("name")
                key = named if isinstance(named, str) and named else command
                disabled = "disabled (hooksConfig.disabled)" if key in disabled_commands else None
                add(command=command, decoy=unknown or off or disabled)


AGENT_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "gemini-cli": "Gemini CLI"}
COUNTERPARTS = {
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
    "PreCompact": "PreCompress",
}
"""Events of one CLI and their counterparts in Gemini CLI's names, for the near valid name."""


def unknown_event(agent: str, event: str) -> str | None:
    """Why ``event`` never fires in ``agent`` (with the near valid name), or None when it does."""
    known = EVENTS[agent]
    if event in known:
        return None
    pairs = [*COUNTERPARTS.items(), *((b, a) for a, b in COUNTERPARTS.items())]
    near = [b for a, b in pairs if a == event and b in known]
    near += [k for k in sorted(known) if k.lower() == event.lower()]
    near += difflib.get_close_matches(event, sorted(known), n=1)
    hint = f" (did you mean '{near[0]}'?)" if near else ""
    return f"is not an event {AGENT_NAMES[agent]} fires{hint}"


def runnable_hook(handler: Mapping[str, Any]) -> bool:
    """A handler that runs something: a ``command``, a ``prompt`` (``type: prompt`` or
    ``agent``) or, for Claude Code's ``type: http``, a ``url``."""
    value = hook_command(handler)
    return isinstance(value, str) and bool(value.strip())


def mistyped_key(handler: Mapping[str, Any]) -> str | None:
    """The field that holds what a typed handler runs (``command``, ``url``, ``prompt``) when
    it is there but not a string (a command written as a list of words); else None."""
    kind = handler.get("type")
    if not isinstance(kind, str):
        return None
    key = {"command": "command", "http": "url"}.get(kind, "prompt")
    value = handler.get(key)
    return key if value is not None and not isinstance(value, str) else None


def hook_command(handler: Mapping[str, Any]) -> str | None:
    """What a handler runs: its command line, its prompt, or the url an http hook posts to;
    None for a handler without a ``type``, which the CLIs never run."""
    kind = handler.get("type")
    key = {"command": "command", "http": "url"}.get(kind, "prompt") if isinstance(kind, str) else ""
    value = handler.get(key)
    return value if isinstance(value, str) else None


def shadow_same_names(reader: Reader, rank: Callable[[AuditComponent], int | None]) -> None:
    """Of the MCP servers the agent would load that share a name, the one of the lowest
    ``rank`` (the scope that wins) is loaded and the others are decoys shadowed by it; a
    server ``rank`` gives None (a plugin's, an extension's) is left as it is."""
    servers = [c for c in reader.components if c.kind == "mcp" and c.decoy is None]
    ranked = [(order, c) for c in servers if (order := rank(c)) is not None]
    winner: dict[str, AuditComponent] = {}
    for _, component in sorted(ranked, key=lambda pair: pair[0]):
        first = winner.setdefault(component.name, component)
        if first is not component:
            component.decoy = f"shadowed by the server of the same name in {first.file}"


def mcp_servers(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    transport_of: Callable[[dict[str, Any]], tuple[str | None, str | None]],
    decoy_of: Callable[[str, dict[str, Any]], str | None] = lambda name, entry: None,
    *,
    field: str = "mcpServers",
    bad_args: tuple[str, bool] = ("", False),
) -> None:
    """MCP servers of a ``{name: {command, args} | {url}}`` table (the file's ``field``).
    ``transport_of`` gives an entry's (transport, url) in the CLI's own terms; ``decoy_of`` why
    a well-formed entry would still not load (disabled, excluded). ``args`` that are not a list
    of strings are a problem naming the field; ``bad_args`` is what the CLI does with such an
    entry (said in the problem) and whether that keeps the server from loading (a decoy)."""
    for name, entry in as_dict(table).items():
        if not isinstance(entry, dict):
            reader.add("mcp", name, file, scope=scope, decoy="MCP entry is not a table")
            continue
        command = entry.get("command") if isinstance(entry.get("command"), str) else None
        args = entry.get("args")
        listed: list[Any] = args if isinstance(args, list) else []
        words = [a if isinstance(a, str) else json.dumps(a) for a in listed]  # as a CLI runs it
        line = shlex.join([command, *words]) if command else None
        transport, url = transport_of(entry)
        decoy = None if (line or url) else NO_ENDPOINT
        if entry.get("command") is not None and command is None:
            reader.problems.append(
                f"{file}: field '{field}.{name}.command': expected a string, "
                f"got {json_kind(entry['command'])}"
            )
            decoy = decoy and "the MCP entry's command is not a string"
        said, skipped = bad_args
        if not _string_args(reader, file, f"{field}.{name}.args", entry.get("args"), said):
            decoy = decoy or (f"an argument is not a string: {said}" if skipped else None)
        reader.add(
            "mcp",
            name,
            file,
            scope=scope,
            command=line,
            url=url,
            transport=transport if decoy is None else None,
            decoy=decoy or decoy_of(name, entry),
        )


def _string_args(reader: Reader, file: Path, field: str, args: Any, said: str) -> bool:
    """Whether an MCP entry's ``args`` (when present) is a list of strings; each part that is
    not is a problem naming the field, ending with ``said`` (what the CLI does with it)."""
    if args is None:
        return True
    if isinstance(args, list):
        bad = [
            (f"{field}[{i}]", "a string", a) for i, a in enumerate(args) if not isinstance(a, str)
        ]
    else:
        # A command line written as one string: shown as the audit shows a command line, a
        # credential in it masked (`--token ***`), never in the clear in a problem.
        shown = command_masked(args) if isinstance(args, str) else args
        bad = [(field, "a list", shown)]
    ending = f"; {said}" if said else ""
    for where, wanted, value in bad:
        reader.problems.append(
            f"{file}: field '{where}': expected {wanted}, got {json_kind(value)}{ending}"
        )
    return not bad


def instructions(reader: Reader, path: Path, scope: Scope, decoy: str | None = None) -> None:
    """An instruction file; one linked in from outside the home and project is not read, and
    is a problem that says so (not left out in silence)."""
    if not reader.looked_at(path, "is_file"):
        return
    if not reader.allowed(path):
        problem = f"{path}: leads outside the home and project; not read"
        if problem not in reader.problems:
            reader.problems.append(problem)
        return
    reader.add("instructions", path.name, path, scope=scope, decoy=decoy)


def ancestors(
    reader: Reader,
    *,
    to_repository_root: bool,
    outside_one_every: bool = False,
    is_root: Callable[[Path], bool] = marks_root,
) -> list[Path]:
    """The folders above the project the agent reads too, nearest first: for a project in the
    home, as far as the home (the CLIs stop there); for one outside it, as far as the
    filesystem's root (the CLIs walk on: Codex 0.171 reads a repository root's ``AGENTS.md``
    and ``.agents/skills`` above a project outside the home). Every one, or
    (``to_repository_root``) those up to the repository's root, the nearest folder that
    ``is_root`` takes for one (none when the project is that root; when it is in no
    repository, none, or with ``outside_one_every`` every one). The folders returned outside
    the home may be read."""
    project, home = reader.project, reader.home
    if project is None:
        return []
    inside = project.is_relative_to(home)
    above = [folder for folder in project.parents if not inside or folder.is_relative_to(home)]
    if to_repository_root:
        depth = next((d for d, f in enumerate([project, *above]) if is_root(f)), None)
        if depth is not None:
            above = above[:depth]
        elif not outside_one_every:
            above = []
    if not inside:
        reader.reach(above)
    return above


def from_above(reader: Reader, folder: Path, read: Callable[[], None]) -> None:
    """Run ``read`` on ``folder``, a folder above the project, and mark what it adds as coming
    from there (``above``: ``../``, ``../../``), shown as the scope ``[project: ../]``."""
    start = len(reader.components)
    read()
    if reader.project is not None and reader.project.is_relative_to(folder):
        label = "../" * len(reader.project.relative_to(folder).parts)
        for component in reader.components[start:]:
            component.above = label


def foreign_files(reader: Reader, folder: Path, owners: Mapping[str, str], scope: Scope) -> None:
    """Files of another agent planted in this agent's folder (``owners``: file name → whose)."""
    for name, owner in owners.items():
        path = folder / name
        if reader.is_file(path):
            kind: ComponentKind = "instructions" if name.endswith(".md") else "settings"
            reader.add(kind, name, path, scope=scope, decoy=f"a file of {owner}; not read here")
