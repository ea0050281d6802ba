"""Where an add-on declares its hooks, read into one flat list of :class:`HookSpec`.

Accepted, as each CLI reads them:

- a **Claude Code plugin** folder: ``hooks/hooks.json`` and the ``hooks`` of
  ``.claude-plugin/plugin.json`` (an object of events, a path to a file like ``hooks/hooks.json``,
  or a list of those), all of which Claude Code runs; a manifest Claude Code refuses (a
  ``name`` with a space, a field of the wrong type: :func:`.claude_manifest.manifest_refusal`)
  is a configuration error, as Claude Code loads nothing of the plugin;
  ``${CLAUDE_PLUGIN_ROOT}`` in a command is the folder (Claude Code substitutes it and also
  sets it in the environment);
- a **Gemini CLI extension** folder (``gemini-extension.json``): ``hooks/hooks.json``, with
  ``${extensionPath}``, ``${workspacePath}``, ``${/}`` and ``${pathSeparator}`` substituted;
- a **settings file** with a ``hooks`` object: ``.claude/settings.json``, Gemini CLI's
  ``settings.json`` (in a ``.gemini`` folder: read with its ``//`` and ``/* */`` comments, as
  Gemini CLI reads it), Codex's ``hooks.json``;
- a **Codex** ``config.toml`` with inline ``[[hooks.<Event>]]`` tables.

A project's own settings file (``<project>/.claude/settings.json`` or ``settings.local.json``,
``<project>/.gemini/settings.json``, ``<project>/.codex/hooks.json`` or ``config.toml``) names
its folder as :attr:`HookSource.config_folder`: its commands call scripts beside it
(``"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh``, ``.codex/hooks/check.sh``), so every scratch
project receives a copy of that folder. The user's own settings file (``~/.claude/settings.json``
and the like) names, as :attr:`HookSource.home_entries`, the entries of its folder that its
commands reach through the home (``~/.claude/hooks/check.sh``): each scratch home receives a
copy of those, never of credentials or session records.

All share one structure: event → matcher groups → handlers (``{type, command, timeout}``).
Handlers that are not ``command`` (Claude Code's ``http``, ``prompt``, ``mcp_tool``, ...) are listed
as skipped (an ``mcp_tool`` one with the tool it calls);
a handler without ``type`` is an error, as the CLIs never run it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.addons.hooks.claude_manifest import manifest_refusal
from proctor.addons.hooks.claude_schema import (
    claude_refusal,
    hooks_file_refusal,
    mcp_tool_called,
    positive_number,
)
from proctor.addons.hooks.conditions import parse_rule
from proctor.errors import ConfigError
from proctor.models.errors_format import json_kind
from proctor.models.loading import parse_json_text, parse_toml_text
from proctor.util.text import escaped_line


@dataclass(frozen=True)
class HookSpec:
    """One command hook: its event, matcher, command and declared timeout (the CLI's unit)."""

    event: str
    matcher: str
    command: str
    timeout: float | None
    kind: str
    """``claude-plugin``, ``gemini-extension`` or ``settings``."""
    root: Path | None
    """The plugin or extension folder, for its placeholders."""
    condition: str | None = None
    """Claude Code's ``if``: a permission-rule pattern the tool call must match."""
    background: bool = False
    """Claude Code's ``async``: runs without blocking, so its result decides nothing."""


@dataclass(frozen=True)
class HookSource:
    path: Path
    kind: str
    hooks: tuple[HookSpec, ...]
    skipped: tuple[str, ...]
    """Handlers proctor cannot run (``event: type``), reported, never silently dropped."""
    config_folder: Path | None = None
    """The project's ``.claude`` (``.gemini``, ``.codex``) folder holding the settings file,
    copied into each scratch project; None for a plugin, an extension or a file outside a
    project."""
    home_entries: tuple[Path, ...] = ()
    """Entries of the user's own ``~/.claude`` (``~/.gemini``, ``~/.codex``) folder that the
    user settings file's commands name through the home (``~/.claude/hooks/check.sh``),
    copied into each scratch home."""
    home_withheld: tuple[Path, ...] = ()
    """Entries so named that hold credentials or session records: never copied."""
    home_unresolved: tuple[str, ...] = ()
    """Commands naming the user's agent folder where no entry to copy could be told."""
    not_loaded: str | None = None
    """Why the CLI would not load this file where it is (a Codex project the user's
    config.toml does not trust), or None."""
    untrusted: bool = False
    """Whether :attr:`not_loaded` is the project's trust (else the user's config.toml, with
    which Codex does not start)."""
    loaded_with: Path | None = None
    """Codex's other hooks file of the same folder (``hooks.json`` beside ``config.toml``, or
    the reverse) when both declare hooks: Codex loads both, and warns."""
    agent: str | None = None
    """The CLI whose hooks these are, when the source's form says it (a Claude Code plugin,
    a Gemini CLI extension, a settings file in a ``.claude``, ``.gemini`` or ``.codex``
    folder); None for a settings file anywhere else."""


PROJECT_SETTINGS = {
    ".claude": ("settings.json", "settings.local.json"),
    ".gemini": ("settings.json",),
    ".codex": ("hooks.json", "config.toml"),
}
"""Project folder name → the settings files in it that a CLI reads for the project."""
SETTINGS_AGENT = {".claude": "claude-code", ".gemini": "gemini-cli", ".codex": "codex"}
"""The folder a settings file sits in → the CLI that reads it."""
WORKTREES = "worktrees"
"""Claude Code's checkouts for ``--worktree`` sessions inside ``.claude``: never copied."""
SECRET_FILES = frozenset(
    {
        ".credentials.json", "auth.json", "oauth_creds.json", "google_accounts.json", ".env",
        ".netrc", ".git-credentials", ".npmrc", ".pypirc",
    }
)  # fmt: skip
"""File names that hold credentials: never copied into a scratch home, at any depth, nor
reached through a link."""
SECRET_FOLDERS = frozenset({".ssh", ".gnupg", ".aws", ".azure", ".kube", ".password-store"})
"""Folders of a home that hold keys: nothing in them is copied into a scratch home."""
HOME_WITHHELD = {
    ".claude": {
        "projects", "todos", "shell-snapshots", "file-history", "history.jsonl", "session-env",
        "ide", "statsig", "telemetry", "debug", "backups",
    },
    ".gemini": {"tmp", "history", "installation_id", "user_id"},
    ".codex": {"sessions", "archived_sessions", "history.jsonl", "log"},
}  # fmt: skip
"""Entries of a user's agent folder that hold session records or the CLI's own bookkeeping,
besides :data:`SECRET_FILES`: a hook test never copies them into its scratch home, even when
a command names them."""
_THROUGH_HOME = r"""(?:~|\$HOME\b|\$\{HOME\})["']?/%s"""
_HOME_ENTRY = _THROUGH_HOME + r"""/([^/\s'"`;|&()<>$*?\[\]\\]+)"""


def load_hooks(path: Path) -> HookSource:
    """Read the hooks of a plugin or extension folder or a settings file. Raises ConfigError."""
    if path.is_dir():
        manifest = path / "hooks" / "hooks.json"
        if not (path / "gemini-extension.json").is_file():
            return _plugin_hooks(path)
        if not manifest.is_file():
            raise ConfigError(f"{path}: no hooks/hooks.json in this gemini extension")
        _loadable_extension(path / "gemini-extension.json")
        source = _from_data(manifest, _read_json(manifest), "gemini-extension", path.resolve())
        return dataclasses.replace(source, agent="gemini-cli")
    if not path.is_file():
        raise ConfigError(f"{path}: no such plugin folder or settings file")
    if path.suffix == ".toml":
        try:
            data = parse_toml_text(path.read_text(encoding="utf-8"), path)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not a readable TOML file ({exc})") from exc
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
        source = _from_data(path, data, "settings", None)
    else:
        reader = SETTINGS_AGENT.get(path.absolute().parent.name)
        data = _read_json(path, comments=reader == "gemini-cli")
        source = _from_data(path, data, "settings", None, claude=reader in ("claude-code", None))
    source = dataclasses.replace(source, agent=SETTINGS_AGENT.get(path.absolute().parent.name))
    if source.agent == "codex":
        source = dataclasses.replace(source, loaded_with=codex_hooks_beside(path))
    user_folder = user_config_folder(path)
    if user_folder is None:
        folder = project_config_folder(path)
        why = codex_untrusted(folder) if folder and folder.name == ".codex" else None
        if why is None:
            return dataclasses.replace(source, config_folder=folder)
        reason, untrusted = why  # Codex loads neither file of the folder
        return dataclasses.replace(
            source, config_folder=folder, not_loaded=reason, untrusted=untrusted, loaded_with=None
        )
    named = home_entries_named(user_folder, source.hooks)
    return dataclasses.replace(
        source,
        home_entries=named.copied,
        home_withheld=named.withheld,
        home_unresolved=named.unresolved,
    )


def _loadable_extension(manifest_file: Path) -> None:
    """Refuse an extension Gemini CLI would skip (and so run none of its hooks): a manifest
    that is no JSON object, or one without ``name`` or ``version`` or with a name other than
    letters, digits and dashes, by the audit's rule."""
    from proctor.addons.audit.gemini_cli import unloadable

    manifest = _read_json(manifest_file)
    if not isinstance(manifest, dict):
        raise ConfigError(
            f"{manifest_file}: expected a JSON object; Gemini CLI skips the extension and runs "
            "none of its hooks"
        )
    reason = unloadable(manifest)
    if reason is not None:
        raise ConfigError(f"{manifest_file.parent}: {reason}, so it runs none of its hooks")


def project_config_folder(settings: Path) -> Path | None:
    """The ``.claude``, ``.gemini`` or ``.codex`` folder of the project that ``settings``
    belongs to, or None when it is no project's settings file (the same names in the home
    folder are the user's settings, whose folder also holds sessions and caches)."""
    folder = settings.absolute().parent
    if settings.name not in PROJECT_SETTINGS.get(folder.name, ()):
        return None
    if folder.parent.resolve() == Path.home().resolve():
        return None
    return folder


def codex_untrusted(config_folder: Path) -> tuple[str, bool] | None:
    """Why Codex would not load the hooks of a project's ``.codex`` folder, and whether that is
    the project's trust: the user's ``config.toml`` (in ``CODEX_HOME``, else ``~/.codex``)
    trusts neither the project nor its repository root
    (:func:`~proctor.addons.audit.repository.is_repository`, the audit's rule), or does not
    read (Codex does not start); None when Codex loads them."""
    from proctor.addons.audit.codex import trust_level, untrusted
    from proctor.addons.audit.repository import is_repository, repository_root

    project = config_folder.parent.absolute()
    root = repository_root(project, is_repository) or project
    config_file = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex") / "config.toml"
    try:
        config = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except OSError:  # none: no folder is trusted
        config = {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return (
            f"{config_file}: not a readable TOML file ({exc}); Codex does not start with it",
            False,
        )
    projects = config.get("projects")
    where, level = trust_level(projects if isinstance(projects, dict) else {}, project, root)
    return None if level == "trusted" else (untrusted(where, level, config_file), True)


def codex_hooks_beside(path: Path) -> Path | None:
    """The other of a ``.codex`` folder's ``hooks.json`` and ``config.toml`` when both declare
    hooks (as :func:`~proctor.addons.audit.codex.declares_hooks` tells it); None otherwise or
    when either cannot be read (its own error is reported where it is read)."""
    from proctor.addons.audit.codex import declares_hooks

    names = PROJECT_SETTINGS[".codex"]
    if path.name not in names:
        return None
    tables = []
    for name in names:
        file = path.parent / name
        try:
            text = file.read_text(encoding="utf-8")
            data = tomllib.loads(text) if name.endswith(".toml") else json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        tables.append(data.get("hooks") if isinstance(data, dict) else None)
    if not all(declares_hooks(table) for table in tables):
        return None
    return path.parent / next(name for name in names if name != path.name)


def user_config_folder(settings: Path) -> Path | None:
    """The user's ``~/.claude`` (``~/.gemini``, ``~/.codex``) folder when ``settings`` is the
    user's own settings file there, else None."""
    folder = settings.absolute().parent
    if settings.name not in PROJECT_SETTINGS.get(folder.name, ()):
        return None
    return folder if folder.parent.resolve() == Path.home().resolve() else None


@dataclass(frozen=True)
class HomeEntries:
    """What the hooks of a user's settings file name of its folder (``~/.claude``)."""

    copied: tuple[Path, ...] = ()
    withheld: tuple[Path, ...] = ()
    """Named, but holding credentials or session records."""
    unresolved: tuple[str, ...] = ()
    """Commands naming the folder where no entry to copy could be told, each with why."""


def home_entries_named(folder: Path, hooks: tuple[HookSpec, ...]) -> HomeEntries:
    """The entries of ``folder`` (the user's agent folder) that ``hooks`` name through the
    home (``~/.claude/hooks/…``, ``$HOME/.claude/…``, ``"${HOME}"/.claude/…``). An entry
    holding credentials or sessions is withheld, and so is one that is not a plain child of
    the folder (``.``, ``..``, a link to the folder or above it). A command that names the
    folder but no entry that exists (``cd ~/.claude && …``, a path with a space) is
    unresolved: the hook then fails as it would without the file."""
    names: set[str] = set()
    unresolved: list[str] = []
    through = re.compile(_THROUGH_HOME % re.escape(folder.name) + r"""(?=[/\s'"`;|&)]|$)""")
    entry = re.compile(_HOME_ENTRY % re.escape(folder.name))
    for hook in hooks:
        named = set(entry.findall(hook.command))
        found = {n for n in named if n in (".", "..") or os.path.lexists(folder / n)}
        names |= found
        if through.search(hook.command) and not found:
            why = f"no entry {', '.join(sorted(named))} in it" if named else "no entry named"
            unresolved.append(f"{hook.command} ({why})")
    paths = [folder / name for name in sorted(names)]  # `.` and `..` lead to the folder or above
    refused = tuple(p for p in paths if kept_from_scratch(p, folder))
    kept = tuple(p for p in paths if p not in refused)
    return HomeEntries(kept, refused, tuple(unresolved))


def kept_from_scratch(path: Path | str, folder: Path) -> bool:
    """Whether ``path`` (in the user's agent ``folder``), followed through its links, is
    something no scratch home receives: a credential file (:data:`SECRET_FILES`), anything in
    a folder of keys (:data:`SECRET_FOLDERS`) or in an agent folder's session records
    (:data:`HOME_WITHHELD`), the agent folder itself or a folder above it, or nothing at all
    (a dangling link, a loop)."""
    real = Path(os.path.realpath(path))
    if not real.exists():
        return True
    if real.name in SECRET_FILES or not SECRET_FOLDERS.isdisjoint(real.parts):
        return True
    top = Path(os.path.realpath(folder))
    if top.is_relative_to(real):
        return True
    home = folder.parent
    return any(
        real.is_relative_to(os.path.realpath(home / agent / entry))
        for agent, entries in HOME_WITHHELD.items()
        for entry in entries
    )


def _plugin_hooks(folder: Path) -> HookSource:
    """A Claude Code plugin's hooks: ``hooks/hooks.json`` plus those its manifest declares,
    the manifest read as the audit reads it (:func:`.read_manifest`): one Claude Code cannot
    read (a folder, a link in a loop) or that is not JSON, and one its schema refuses, make
    it skip the whole plugin; a path that leads out of the plugin's folder, or to a file
    loaded before, adds nothing (:func:`.manifest_hooks`)."""
    from proctor.addons.audit.claude_code import NO_MANIFEST, leads_out, read_manifest
    from proctor.addons.audit.reading import Reader

    manifest = folder / ".claude-plugin" / "plugin.json"
    reader = Reader(Path(folder.anchor or "/"), None)  # what the user named, wherever it leads
    data, unread = read_manifest(reader, manifest)
    if unread is not None:
        raise ConfigError(reader.problems[-1])
    has_manifest = data is not NO_MANIFEST
    refusal = manifest_refusal(data) if has_manifest else None
    if refusal is not None:
        raise ConfigError(f"{manifest}: {refusal}; {CLAUDE_SKIPS['manifest']}")
    default = folder / "hooks" / "hooks.json"
    files: list[tuple[Path, Any]] = [(default, _read_json(default))] if default.is_file() else []
    loaded = {os.path.realpath(default)}
    declared = data.get("hooks") if isinstance(data, dict) else None
    items = declared if isinstance(declared, list) else [] if declared is None else [declared]
    out: list[str] = []
    for item in items:  # each a ./….json path or an object of events: the schema passed
        if isinstance(item, dict):  # inline hooks, run with the others
            files.append((manifest, {"hooks": item}))
            continue
        if leads_out(folder, item):
            out.append(item)
            continue
        file = folder / item
        if os.path.realpath(file) in loaded:
            continue  # hooks/hooks.json, read anyway, or a file named before: loaded once
        if not file.is_file():
            raise ConfigError(f"{manifest}: field 'hooks' names {item}, which is not a file")
        loaded.add(os.path.realpath(file))
        files.append((file, _read_json(file)))
    if not files and out:
        raise ConfigError(
            f"{manifest}: field 'hooks' names {out[0]}, which leads out of the plugin's folder; "
            "Claude Code does not load it, and the plugin declares no other hooks"
        )
    if not files and has_manifest:
        raise ConfigError(
            f"{folder}: no hooks/hooks.json and no 'hooks' in .claude-plugin/plugin.json in this "
            "claude plugin"
        )
    if not files:
        raise ConfigError(f"{folder}: {_not_a_source(folder)}")
    sources = [
        _from_data(file, content, "claude-plugin", folder.resolve(), claude=True)
        for file, content in files
    ]
    return HookSource(
        sources[0].path,
        "claude-plugin",
        tuple(h for s in sources for h in s.hooks),
        (
            *(
                f"hooks file {item} (not loaded: it leads out of the plugin's folder)"
                for item in dict.fromkeys(out)
            ),
            *(k for s in sources for k in s.skipped),
        ),
        agent="claude-code" if has_manifest else None,
    )


SETTINGS_NAMES = (
    *("settings.json", "settings.local.json", "hooks.json", "config.toml"),
    *(".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json"),
    *(".codex/hooks.json", ".codex/config.toml"),
)
"""Settings files a folder given in their place may hold: named in the refusal."""


def _not_a_source(folder: Path) -> str:
    """Why ``folder`` is no hook source: neither plugin nor extension, and the settings files
    in it that were likely meant."""
    held = [name for name in SETTINGS_NAMES if (folder / name).is_file()]
    meant = f"; to test its settings, give the file: {folder / held[0]}" if held else ""
    return (
        "not a Claude Code plugin (no hooks/hooks.json, no .claude-plugin/plugin.json) nor a "
        "Gemini CLI extension (no gemini-extension.json); expected one of those folders or a "
        f"settings file{meant}"
    )


def _read_json(path: Path, *, comments: bool = False) -> Any:
    """A JSON file's value; ``comments``: its ``//`` and ``/* */`` comments are blanks, as Gemini
    CLI reads its ``settings.json`` (the audit's :func:`.strip_json_comments`)."""
    from proctor.addons.audit.reading import strip_json_comments

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    return parse_json_text(strip_json_comments(text) if comments else text, path)


CLAUDE_SKIPS = {
    "claude-plugin": "Claude Code skips every hook of this file",
    "settings": "Claude Code skips this whole settings file, so none of its hooks runs",
    "manifest": "Claude Code skips this whole plugin (its manifest is invalid)",
}
"""What Claude Code 2.1.197 does with a file its hooks schema refuses (:mod:`.claude_schema`):
a plugin's hooks file, a settings file, a plugin's manifest."""


def _from_data(
    path: Path, data: Any, kind: str, root: Path | None, *, claude: bool = False
) -> HookSource:
    """The hooks of a file's ``hooks`` table; ``claude``: the file is Claude Code's (a plugin's,
    a settings file in ``.claude``), whose schema refuses the whole file for one bad field."""
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        raise ConfigError(f"{path}: field 'hooks' must be an object of event → matcher groups")
    refusal = None
    if claude and kind == "claude-plugin":
        refusal = hooks_file_refusal(data)
    elif claude:
        refusal = claude_refusal(hooks)
    if refusal is not None:
        raise ConfigError(f"{path}: {refusal}; {CLAUDE_SKIPS[kind]}")
    specs: list[HookSpec] = []
    skipped: list[str] = []
    disabled = _disabled_hooks(data)
    for event, groups in hooks.items():
        if event in ("enabled", "disabled") and not isinstance(groups, list):
            continue  # Gemini CLI's older on/off switch inside ``hooks``
        if not isinstance(groups, list):
            raise ConfigError(f"{path}: field 'hooks.{event}' must be a list of matcher groups")
        for n, group in enumerate(groups):
            where = f"hooks.{event}[{n}]"
            if not isinstance(group, dict):
                raise ConfigError(
                    f"{path}: field '{where}' must be a matcher group (an object with 'hooks'), "
                    f"got {json_kind(group)}"
                )
            if not isinstance(group.get("hooks"), list):
                raise ConfigError(f"{path}: field '{where}.hooks' must be a list of handlers")
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):  # (0, false, [] too)
                raise ConfigError(f"{path}: field '{where}.matcher' must be a string")
            matcher = matcher or ""
            for m, handler in enumerate(group["hooks"]):
                spec = _handler(path, f"{where}.hooks[{m}]", handler, event, matcher, kind, root)
                if not isinstance(spec, HookSpec):
                    skipped.append(spec)
                elif disabled and _hook_key(handler) in disabled:
                    skipped.append(f"{event}: {spec.command} (disabled: hooksConfig.disabled)")
                else:
                    specs.append(spec)
    off = _switched_off(data)
    if off is not None:  # the CLI would run none of them: neither does the test
        skipped += [f"{s.event}: {s.command} (switched off: {off})" for s in specs]
        specs = []
    return HookSource(path, kind, tuple(specs), tuple(skipped))


def _disabled_hooks(data: Any) -> set[str]:
    """The hooks Gemini CLI's ``hooksConfig.disabled`` switches off, by name or command."""
    config = data.get("hooksConfig") if isinstance(data, dict) else None
    listed = config.get("disabled") if isinstance(config, dict) else None
    return {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else set()


def _hook_key(handler: dict[str, Any]) -> Any:
    """What Gemini CLI's ``hooksConfig.disabled`` names a hook by: its name, else its
    command."""
    return handler.get("name") or handler.get("command")


def _switched_off(data: Any) -> str | None:
    """Why the file's hooks are all off (Claude Code's ``disableAllHooks``, Gemini CLI's
    ``hooksConfig.enabled: false`` or its older ``hooks.enabled: false``), or None."""
    if not isinstance(data, dict):
        return None
    if data.get("disableAllHooks") is True:
        return "disableAllHooks is true"
    config = data.get("hooksConfig")
    if isinstance(config, dict) and config.get("enabled") is False:
        return "hooksConfig.enabled is false"
    hooks = data.get("hooks")
    if isinstance(hooks, dict) and hooks.get("enabled") is False:
        return "hooks.enabled is false"
    return None


def _handler(
    path: Path, where: str, handler: Any, event: str, matcher: str, kind: str, root: Path | None
) -> HookSpec | str:
    if not isinstance(handler, dict):
        raise ConfigError(f"{path}: field '{where}' must be an object")
    htype = handler.get("type")
    if htype is not None and htype != "command":
        called = mcp_tool_called(handler) if htype == "mcp_tool" else None
        # its server and tool names as the audit shows them: a line break or a control
        # character in one neither starts a note line of its own nor reaches the terminal
        return f"{event}: {htype}" + (f" (calls {escaped_line(called)})" if called else "")
    command = handler.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{path}: field '{where}.command' must be a non-empty string")
    args = handler.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        import shlex

        command = shlex.join([command, *args])
    timeout = handler.get("timeout")
    if timeout is not None and not positive_number(timeout):
        raise ConfigError(f"{path}: field '{where}.timeout' must be a positive number")
    condition = handler.get("if")
    if condition is not None and (not isinstance(condition, str) or parse_rule(condition) is None):
        raise ConfigError(
            f"{path}: field '{where}.if' must be a permission rule such as 'Bash(git push *)'"
        )
    background = handler.get("async", False)
    if not isinstance(background, bool):
        raise ConfigError(f"{path}: field '{where}.async' must be true or false")
    if htype is None:  # Claude Code and Gemini CLI refuse such a handler and run nothing
        raise ConfigError(
            f"{path}: the hook at '{where}' has no 'type'; the CLI never runs it "
            '(expected "type": "command")'
        )
    if kind == "gemini-extension" and root is not None:
        command = hydrate_extension(command, root)
    return HookSpec(event, matcher, command, timeout, kind, root, condition, background)


def hydrate_extension(text: str, root: Path, workspace: str = "${workspacePath}") -> str:
    """Gemini CLI's ``${name}`` substitution in an extension's hooks (``${workspacePath}`` is
    left for the run, which knows the project folder)."""
    values = {
        "extensionPath": str(root),
        "/": os.sep,
        "pathSeparator": os.sep,
        "workspacePath": workspace,
    }
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    return text
