"""The toolkit every agent's audit shares: tolerant readers confined to the home and project,
and the component shapes the three CLIs have in common (skill folders, event → matcher group →
handler hooks, MCP server tables, instruction files, another agent's files).

Nothing here writes, and nothing raises on a malformed file: it becomes a problem sentence.
"""

from __future__ import annotations

import itertools
import json
import shlex
import tomllib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.models.audit import AuditComponent, ComponentKind

Scope = str
NO_COMMAND = "matcher with no hook command behind it"
EMPTY_SKILL = "empty skill folder (no SKILL.md)"
NO_ENDPOINT = "MCP entry with no command or url"
PATH_FLAGS = ("--plugin-dir", "--mcp-config")


@dataclass
class Reader:
    """What one agent's audit reads and what it found."""

    home: Path
    project: Path | None
    launch_args: Sequence[str] = ()
    """The session's command line; the paths its ``--plugin-dir`` and ``--mcp-config`` name are
    read even though they are outside the home and project."""
    components: list[AuditComponent] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        roots = [self.home, *([self.project] if self.project else []), *self.named_paths()]
        self._roots = [r.resolve() for r in roots]

    def allowed(self, path: Path) -> bool:
        """Whether ``path`` (symlinks resolved) lies inside the home, the project or a path
        named on the command line."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return False
        return any(real.is_relative_to(root) for root in self._roots)

    def named_paths(self) -> list[Path]:
        args = self.launch_args
        return [Path(v) for f, v in itertools.pairwise(args) if f in PATH_FLAGS]

    def is_file(self, path: Path) -> bool:
        return path.is_file() and self.allowed(path)

    def is_dir(self, path: Path) -> bool:
        return path.is_dir() and self.allowed(path)

    def text(self, path: Path) -> str | None:
        """The file's text, or None when it is absent, outside or unreadable (a problem)."""
        if not path.is_file() and not path.is_symlink():
            return None
        if not self.allowed(path):
            self.problems.append(f"{path}: leads outside the home and project; not read")
            return None
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.problems.append(f"{path}: cannot be read ({exc})")
            return None

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
            if key in data and not isinstance(data[key], kind):
                wanted = "an object" if kind is dict else "a list"
                self.problems.append(
                    f"{path}: field '{key}' should be {wanted}, not {type(data[key]).__name__}; "
                    "ignored"
                )

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

    def subdirs(self, root: Path) -> list[Path]:
        if not self.is_dir(root):
            return []
        return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


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
}
"""The fields of the agents' configuration files the audit reads, and the shape each must have."""


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
) -> None:
    """One skill per folder of ``root``: ``SKILL.md`` inside, or a decoy when it is missing."""
    for folder in reader.subdirs(root):
        manifest = folder / "SKILL.md"
        name = prefix + folder.name
        if not reader.is_file(manifest) and manifest.is_file():
            # Linked in from outside (an add-on's checkout): nothing outside the home and the
            # project is read or counted, and the reason says so (it is no empty folder).
            outside = f"leads outside the home and project ({folder.resolve()}); not read"
            reader.problems.append(f"{folder}: {outside}")
            reader.add("skill", name, folder, scope=scope, decoy=outside)
        elif not reader.is_file(manifest):
            reader.add("skill", name, folder, scope=scope, decoy=EMPTY_SKILL)
        elif folder.name in disabled:
            reader.add("skill", name, manifest, scope=scope, decoy="disabled (skills.disabled)")
        else:
            reader.add("skill", name, manifest, scope=scope)


def hooks(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    off: str | None = None,
    disabled_commands: Collection[str] = (),
) -> None:
    """Hooks of an ``{event: [{matcher, hooks: [{type, command}]}]}`` table; ``off`` is why
    none of them runs (hooks switched off in that file), when they do not."""
    for event, groups in as_dict(table).items():
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            name = f"{event}:{matcher}" if matcher else str(event)
            handlers = [h for h in group.get("hooks") or [] if isinstance(h, dict)]
            runnable = [h for h in handlers if runnable_hook(h)]
            if not runnable:
                reader.add(
                    "hook", name, file, scope=scope, event=event, matcher=matcher, decoy=NO_COMMAND
                )
            for handler in runnable:
                command = str(handler.get("command") or handler.get("prompt"))
                decoy = off or (
                    "disabled (hooksConfig.disabled)" if command in disabled_commands else None
                )
                reader.add(
                    "hook",
                    name,
                    file,
                    scope=scope,
                    event=event,
                    matcher=matcher,
                    command=command,
                    decoy=decoy,
                )


def runnable_hook(handler: Mapping[str, Any]) -> bool:
    kind = handler.get("type", "command")
    key = "command" if kind == "command" else "prompt"
    value = handler.get(key)
    return isinstance(value, str) and bool(value.strip())


def mcp_servers(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    transport_of: Callable[[dict[str, Any]], tuple[str | None, str | None]],
    decoy_of: Callable[[str, dict[str, Any]], str | None] = lambda name, entry: None,
) -> None:
    """MCP servers of a ``{name: {command, args} | {url}}`` table. ``transport_of`` gives an
    entry's (transport, url) in the CLI's own terms; ``decoy_of`` why a well-formed entry would
    still not load (disabled, excluded)."""
    for name, entry in as_dict(table).items():
        if not isinstance(entry, dict):
            reader.add("mcp", name, file, scope=scope, decoy="MCP entry is not a table")
            continue
        command = entry.get("command") if isinstance(entry.get("command"), str) else None
        line = shlex.join([command, *strings(entry.get("args"))]) if command else None
        transport, url = transport_of(entry)
        decoy = None if (line or url) else NO_ENDPOINT
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


def instructions(reader: Reader, path: Path, scope: Scope, decoy: str | None = None) -> None:
    if reader.is_file(path):
        reader.add("instructions", path.name, path, scope=scope, decoy=decoy)


def foreign_files(reader: Reader, folder: Path, owners: Mapping[str, str], scope: Scope) -> None:
    """Files of another agent planted in this agent's folder (``owners``: file name → whose)."""
    for name, owner in owners.items():
        path = folder / name
        if reader.is_file(path):
            kind: ComponentKind = "instructions" if name.endswith(".md") else "settings"
            reader.add(kind, name, path, scope=scope, decoy=f"a file of {owner}; not read here")
