"""Materialising add-ons (plugins, skills, MCP servers, hooks) for an agent's scratch home.

Relative ``path`` values resolve against the case folder. A plugin or skill may be a directory
or a ``.zip``; zips are extracted (safely) into the trial's scratch folder.
"""

from __future__ import annotations

import difflib
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from proctor.errors import WorkspaceError
from proctor.models.config import McpEntry, ProvisionEntry
from proctor.util.masking import MASK, arguments_masked, register_secret
from proctor.workspace.environment import names_credential, url_passwords
from proctor.workspace.fixture import materialise_fixture

TOOL_WORD = re.compile(r"(?<!\\)[A-Za-z_][A-Za-z0-9_]*")
"""A tool name inside a hook matcher (matchers are regexes such as ``Write|Edit``); the letter
of an escape such as ``\\b`` is not the start of one."""


def entry_field(entry: ProvisionEntry, name: str) -> Any:
    """The entry's extra field ``name``, or ``None``."""
    return entry.field(name)


def resolve_path(entry: ProvisionEntry, case_dir: Path | None, kind: str) -> Path:
    raw = entry_field(entry, "path")
    if not isinstance(raw, str) or not raw:
        raise WorkspaceError(f"provision.{kind} '{entry.name}': field 'path' is required")
    path = Path(raw).expanduser()
    if not path.is_absolute() and case_dir is not None:
        path = case_dir / path
    if not path.exists():
        raise WorkspaceError(f"provision.{kind} '{entry.name}': path {path} does not exist")
    return path


def materialise_addon(entry: ProvisionEntry, case_dir: Path | None, kind: str, dest: Path) -> Path:
    """Copy (or extract) an add-on folder to ``dest`` (``<root>/<entry.name>``) and return it."""
    source = resolve_path(entry, case_dir, kind)
    check_dest(entry, kind, dest)
    if dest.exists():
        shutil.rmtree(dest)
    if source.is_file() and source.suffix == ".zip":
        materialise_fixture(source, "zip", dest)
    elif source.is_dir():
        shutil.copytree(source, dest, symlinks=True)
    else:
        raise WorkspaceError(
            f"provision.{kind} '{entry.name}': {source} is neither a directory nor a .zip"
        )
    return dest


def check_dest(entry: ProvisionEntry, kind: str, dest: Path) -> None:
    """Refuse a ``dest`` that is not one folder directly inside its root, before anything there
    is deleted: a name such as ``/abs/path`` or ``..`` (or a symlink) would lead elsewhere."""
    root = dest.parent.resolve()
    if dest.name != entry.name or dest.resolve().parent != root:
        raise WorkspaceError(
            f"provision.{kind} '{entry.name}': field 'name' must name one folder inside {root}"
        )


def mcp_server_config(entry: McpEntry, headers_key: str = "headers") -> dict[str, Any]:
    """``{command, args, env}`` for a stdio server, or ``{type, url}`` (``type`` http by default)
    plus the ``headers`` under ``headers_key`` (the name the CLI's config uses) for a remote one.

    The entry's fields were checked when the case was loaded (:class:`McpEntry`). The secrets
    it holds are registered for masking (see :func:`register_mcp_secrets`).
    """
    register_mcp_secrets(entry)
    url, command = entry.field("url"), entry.field("command")
    if isinstance(url, str):
        config: dict[str, Any] = {"type": entry.field("type") or "http", "url": url}
        if entry.field("headers"):
            config[headers_key] = dict(entry.field("headers"))
        return config
    if not isinstance(command, str) or not command:
        raise WorkspaceError(f"provision.mcps '{entry.name}': give 'command' (stdio) or 'url'")
    config = {"command": command, "args": list(entry.field("args") or [])}
    if entry.field("env"):
        config["env"] = dict(entry.field("env"))
    return config


_SECRET_HEADER = re.compile(
    r"authorization|cookie|auth|token|key|secret|password|passwd|credential|session|signature",
    re.IGNORECASE,
)
"""A header whose value is a credential (``Authorization``, ``X-Api-Key``, ``Cookie``)."""


def register_mcp_secrets(entry: McpEntry) -> None:
    """Register for masking the credentials an MCP server's entry hands the agent: a value of
    its ``env`` under a credential's name (``API_TOKEN``; a URL's password in any), a value of
    a header that carries one (``Authorization``, ``X-Api-Key``; the token after its scheme,
    ``Bearer …``, alone too), and what proctor masks of its arguments and URL in
    ``resolved.json`` (``--token …``, ``https://me:…@host``, ``?key=…``). The agent's
    configuration holds them in the clear, and an agent may read it or list its processes."""
    env, headers = entry.field("env"), entry.field("headers")
    for name, value in (env or {}).items() if isinstance(env, Mapping) else ():
        if isinstance(value, str):
            if names_credential(str(name)):
                register_secret(value)
            for password in url_passwords(value):
                register_secret(password)
    for name, value in (headers or {}).items() if isinstance(headers, Mapping) else ():
        if isinstance(value, str) and _SECRET_HEADER.search(str(name)):
            register_secret(value)
            scheme, _, token = value.strip().partition(" ")
            if token.strip() and scheme.isalpha():
                register_secret(token.strip())
    command, args, url = entry.field("command"), entry.field("args"), entry.field("url")
    if isinstance(url, str):
        _register_credentials([url])
    if isinstance(command, str):
        words = [a for a in args or [] if isinstance(a, str)] if isinstance(args, list) else []
        _register_credentials([command, *words], command)


def _register_credentials(texts: list[str], command: str | None = None) -> None:
    """Register as secrets the credentials :func:`~proctor.util.masking.arguments_masked`
    finds in ``texts`` (a command's arguments, or one URL): each stretch it masks, taken from
    the text as it was.
    For a credential given in a configuration proctor hands on (an MCP server's arguments or
    URL), so that it is masked wherever else it shows (the agent reads its configuration, or
    lists its processes)."""
    for text, masked in zip(texts, arguments_masked(list(texts), command), strict=True):
        if masked == text:
            continue
        if masked == MASK:
            register_secret(text)
            continue
        matcher = difflib.SequenceMatcher(None, text, masked, autojunk=False)
        for op, i1, i2, _, _ in matcher.get_opcodes():
            if op != "equal" and i2 > i1:  # what was masked: the rest is kept as it is
                register_secret(text[i1:i2])


def hook_groups(
    entries: Sequence[ProvisionEntry],
    events: Mapping[str, str] | None = None,
    tools: Mapping[str, str] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``provision.hooks`` entries (``{name, event, command, matcher}``) as the event → matcher
    group → handlers structure Claude Code, Codex and Gemini CLI share.

    Entries speak Claude Code's vocabulary (``PreToolUse`` by default, matchers naming ``Bash``,
    ``Write``, ...). ``events`` and ``tools`` translate it for a CLI that names things otherwise;
    names they do not list (a CLI's own, the rest of a regex) pass through unchanged.
    """
    events, tools = events or {}, tools or {}
    hooks: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        command = entry_field(entry, "command")
        if not isinstance(command, str) or not command:
            raise WorkspaceError(f"provision.hooks '{entry.name}': field 'command' is required")
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
        matcher = entry_field(entry, "matcher")
        if matcher:
            group["matcher"] = TOOL_WORD.sub(lambda m: tools.get(m[0], m[0]), str(matcher))
        event = str(entry_field(entry, "event") or "PreToolUse")
        hooks.setdefault(events.get(event, event), []).append(group)
    return hooks
