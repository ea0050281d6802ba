"""Claude Code's schema for a plugin's manifest (``.claude-plugin/plugin.json``; 2.1.197, the
zod object its bundled code builds from the manifest's parts): why it refuses a manifest, and
so loads nothing of the plugin. The manifest's ``hooks`` are checked as a hooks table is
(:mod:`proctor.addons.hooks.claude_schema`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from proctor.addons.hooks.claude_schema import (
    BOOLEAN,
    NON_EMPTY,
    OBJECT,
    STRING,
    STRING_VALUES,
    STRINGS,
    URL,
    Check,
    manifest_hooks_refusal,
    web_url,
)
from proctor.models.errors_format import json_kind

# The rest of a plugin manifest's schema (Claude Code 2.1.197: the zod object its bundled code
# builds from the manifest's parts, checked by ``safeParse`` as it loads the plugin; a failure
# throws "Plugin … has an invalid manifest file at …" and the plugin is not loaded). Measured
# strings: ``name:H.string().min(1,"Plugin name cannot be empty").refine((e)=>!e.includes(" ")``,
# ``author`` ``name:H.string().min(1,"Author name cannot be empty")``, ``homepage:
# H.string().url()``, ``keywords:H.array(H.string())``, ``defaultEnabled:H.boolean()``, the
# dependency pattern ``/^[A-Za-z0-9][-A-Za-z0-9._]*(@[A-Za-z0-9][-A-Za-z0-9._]*)?(@\^[^@]*)?$/``,
# paths ``H.string().startsWith("./")`` (an agent's also ``.endsWith(".md")``, a file of
# servers ``.endsWith(".json")``). Fields it does not know are ignored; ``null`` is no absence.
# ``claude plugin validate`` (the same check) agreed with :func:`manifest_refusal` on every
# case of the unit tests, passing and failing. A name of capitals, dots or underscores passes
# ("Claude Code accepts it"; only the marketplace sync asks kebab-case).
# The parts inside, from the same code: an MCP server is one of a union of objects by ``type``
# (``command:H.string().min(1,"Command cannot be empty")`` with ``type`` absent or ``"stdio"``;
# ``url:H.string()`` for ``sse``, ``http``, ``streamable-http``, ``ws``, ``ws-ide``,
# ``sse-ide`` and ``claudeai-proxy``, ``timeout:H.number().int().positive()``, ...); an LSP
# server, a monitor, a channel and a ``userConfig`` option are ``H.strictObject`` (a key the
# schema does not name fails): an LSP server needs ``command`` (no space unless it starts
# with ``/``: "Command should not contain spaces") and a non-empty ``extensionToLanguage`` of
# ``.ext`` keys ("extensionToLanguage must have at least one mapping"); a monitor ``name``,
# ``command`` and ``description``, names unique ("Monitor names must be unique within a
# plugin"); a channel ``server``; an option ``type`` (``string``, ``number``, ``boolean``,
# ``directory``, ``file``), ``title`` and ``description``. ``experimental`` is
# ``H.preprocess`` of an object (anything else is dropped, and passes) whose ``themes``,
# ``monitors``, ``outputStyles`` and ``evals`` are checked as at the top level. ``binaries``
# is ``H.unknown().transform(...)``: anything passes. ``claude plugin validate`` agreed with
# :func:`manifest_refusal` on each case of the unit tests, these parts' too.

DEPENDENCY = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._]*(@[A-Za-z0-9][-A-Za-z0-9._]*)?(@\^[^@]*)?")
PLUGIN_NAME_PART = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._]*")
OPTION_KEY = re.compile(r"[A-Za-z_]\w*", re.ASCII)


def _path(suffix: str = "") -> Check:
    ending = f" and ending in {suffix}" if suffix else ""
    return (
        lambda v: isinstance(v, str) and v.startswith("./") and v.endswith(suffix),
        f"a path starting with ./{ending}",
    )


def _one_or_list(check: Check) -> Check:
    test, expected = check
    return (
        lambda v: test(v) or (isinstance(v, list) and all(test(item) for item in v)),
        f"{expected}, or a list of those",
    )


def _dependency(value: Any) -> bool:
    if isinstance(value, str):
        return DEPENDENCY.fullmatch(value) is not None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return False
    parts = [value["name"], *([value["marketplace"]] if "marketplace" in value else [])]
    return all(isinstance(p, str) and PLUGIN_NAME_PART.fullmatch(p) for p in parts)


def _command_entry(value: Any) -> bool:
    """A ``commands`` object's entry: its ``source`` (a ``./`` path) or its ``content``
    (inline markdown), not both, and its other fields of their type."""
    if not isinstance(value, dict):
        return False
    fields: dict[str, Check] = {
        "source": _path(),
        "content": STRING,
        "description": STRING,
        "argumentHint": STRING,
        "model": STRING,
        "allowedTools": STRINGS,
    }
    if any(key in value and not test(value[key]) for key, (test, _) in fields.items()):
        return False
    return bool(value.get("source")) != bool(value.get("content"))


def _whole(value: Any, least: int) -> bool:
    """A JSON number zod's ``int()`` takes (a safe integer), at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value == int(value) and least <= value <= 2**53 - 1


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _fits(value: Any, needed: dict[str, Check], allowed: dict[str, Check], strict: bool) -> bool:
    """An object with each ``needed`` field, its fields of their type and, when ``strict``,
    no field besides."""
    if not isinstance(value, dict) or any(key not in value for key in needed):
        return False
    fields = {**needed, **allowed}
    if strict and any(key not in fields for key in value):
        return False
    return all(test(value[key]) for key, (test, _) in fields.items() if key in value)


def _record(test: Callable[[Any], bool]) -> Check:
    return (lambda v: isinstance(v, dict) and all(test(item) for item in v.values()), "")


def _of(test: Callable[[Any], bool]) -> Check:
    return (lambda v: isinstance(v, list) and all(test(item) for item in v), "")


POSITIVE_INT: Check = (lambda v: _whole(v, 1), "a positive integer")
OPTIONAL_ANY: Check = (lambda v: True, "anything")
PERMISSIONS = _record(lambda v: v in ("allow", "ask", "blocked"))
OAUTH: dict[str, Check] = {
    "clientId": STRING,
    "callbackPort": POSITIVE_INT,
    "authServerMetadataUrl": (lambda v: web_url(v) and v.startswith("https://"), "an https URL"),
    "scopes": NON_EMPTY,
    "xaa": BOOLEAN,
}
TOOL: dict[str, Check] = {
    "permission_policy": (lambda v: v in ("always_allow", "always_ask", "always_deny"), "")
}
SERVED: dict[str, Check] = {"timeout": POSITIVE_INT, "alwaysLoad": BOOLEAN}
REMOTE: dict[str, Check] = {
    **SERVED,
    "headers": STRING_VALUES,
    "headersHelper": STRING,
    "oauth": (lambda v: _fits(v, {}, OAUTH, strict=False), "an object"),
    "tools": _of(lambda v: _fits(v, {"name": STRING}, TOOL, strict=False)),
    "toolPermissions": PERMISSIONS,
}
IDE: dict[str, Check] = {**SERVED, "ideRunningInWindows": BOOLEAN}
MCP_SERVERS: dict[str | None, tuple[dict[str, Check], dict[str, Check]]] = {
    None: ({"command": NON_EMPTY}, {**SERVED, "args": STRINGS, "env": STRING_VALUES}),
    "sse": ({"url": STRING}, REMOTE),
    "sse-ide": ({"url": STRING, "ideName": STRING}, IDE),
    "ws-ide": ({"url": STRING, "ideName": STRING}, {**IDE, "authToken": STRING}),
    "http": ({"url": STRING}, REMOTE),
    "ws": ({"url": STRING}, {**SERVED, "headers": STRING_VALUES, "headersHelper": STRING}),
    "sdk": ({"name": STRING}, SERVED),
    "claudeai-proxy": (
        {"url": STRING, "id": STRING},
        {
            **SERVED,
            "displayName": STRING,
            "iconUrl": STRING,
            "toolPermissions": PERMISSIONS,
            "stateless": BOOLEAN,
            "cachedInitResponse": (lambda v: v is None or isinstance(v, dict), ""),
        },
    ),
}
"""An MCP server's ``type`` (None: absent or ``stdio``) → the fields it needs and may have."""


def mcp_server(value: Any) -> bool:
    """An MCP server object Claude Code's schema takes."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type", "stdio")  # (null is no absence)
    if not isinstance(kind, str) or kind not in (*MCP_SERVERS, "stdio", "streamable-http"):
        return False
    kind = {"stdio": None, "streamable-http": "http"}.get(kind, kind)
    needed, allowed = MCP_SERVERS[kind]
    return _fits(value, needed, allowed, strict=False)


def lsp_server(value: Any) -> bool:
    """An LSP server object (strict: no field the schema does not name)."""
    languages = value.get("extensionToLanguage") if isinstance(value, dict) else None
    if not isinstance(languages, dict) or not languages:
        return False
    if not all(len(k) >= 2 and k.startswith(".") for k in languages):
        return False
    command: Check = (
        lambda v: isinstance(v, str) and v != "" and (" " not in v or v.startswith("/")),
        "",
    )
    allowed: dict[str, Check] = {
        "args": _of(lambda v: isinstance(v, str) and v != ""),
        "extensionToLanguage": OBJECT,  # (checked above)
        "transport": (lambda v: v in ("stdio", "socket"), ""),
        "env": STRING_VALUES,
        "initializationOptions": OPTIONAL_ANY,
        "settings": OPTIONAL_ANY,
        "workspaceFolder": STRING,
        "startupTimeout": POSITIVE_INT,
        "shutdownTimeout": POSITIVE_INT,
        "restartOnCrash": BOOLEAN,
        "maxRestarts": (lambda v: _whole(v, 0), ""),
        "diagnostics": BOOLEAN,
    }
    names = all(isinstance(v, str) and v != "" for v in languages.values())
    return names and _fits(value, {"command": command}, allowed, strict=True)


def _monitor(value: Any) -> bool:
    when: Check = (
        lambda v: (
            v == "always"
            or (isinstance(v, str) and v.startswith("on-skill-invoke:") and len(v) > 16)
        ),
        "",
    )
    needed = {"name": NON_EMPTY, "command": NON_EMPTY, "description": NON_EMPTY}
    return _fits(value, needed, {"when": when}, strict=True)


def monitors(value: Any) -> bool:
    """``monitors``: a ``./….json`` file, or a list of monitors with names unique."""
    if _path(".json")[0](value):
        return True
    if not (isinstance(value, list) and all(_monitor(m) for m in value)):
        return False
    return len({m["name"] for m in value}) == len(value)


def option(value: Any) -> bool:
    """A ``userConfig`` option (strict)."""
    default: Check = (lambda v: isinstance(v, str | bool) or _number(v) or STRINGS[0](v), "")
    kinds = ("string", "number", "boolean", "directory", "file")
    needed: dict[str, Check] = {
        "type": (lambda v: v in kinds, ""),
        "title": STRING,
        "description": STRING,
    }
    allowed: dict[str, Check] = {
        "required": BOOLEAN,
        "default": default,
        "multiple": BOOLEAN,
        "sensitive": BOOLEAN,
        "min": (_number, ""),
        "max": (_number, ""),
    }
    return _fits(value, needed, allowed, strict=True)


def _channel(value: Any) -> bool:
    options: Check = (lambda v: isinstance(v, dict) and all(option(o) for o in v.values()), "")
    return _fits(
        value, {"server": NON_EMPTY}, {"displayName": STRING, "userConfig": options}, strict=True
    )


def _server_files(value: Any) -> bool:
    """``mcpServers``: a ``./….json`` file, a ``./`` path or URL to an ``.mcpb``/``.dxt``
    bundle, an object of servers, or a list of those."""

    def one(item: Any) -> bool:
        if isinstance(item, dict):
            return all(mcp_server(server) for server in item.values())
        if not isinstance(item, str):
            return False
        bundle = item.endswith((".mcpb", ".dxt"))
        if item.startswith("./"):
            return item.endswith(".json") or bundle
        return bundle and web_url(item)

    return one(value) or (isinstance(value, list) and all(one(v) for v in value))


def _lsp_servers(value: Any) -> bool:
    """A ``./….json`` file or an object of LSP servers."""
    return _path(".json")[0](value) or _record(lsp_server)[0](value)


EXPERIMENTAL: dict[str, Check] = {
    "themes": _one_or_list(_path()),
    "monitors": (monitors, ""),
    "outputStyles": _one_or_list(_path()),
    "evals": (lambda v: isinstance(v, str) or STRINGS[0](v), ""),
}
"""What ``experimental`` checks of an object (its other fields pass)."""

MANIFEST_FIELDS: dict[str, Check] = {
    "$schema": STRING,
    "displayName": STRING,
    "version": STRING,
    "description": STRING,
    "author": (
        lambda v: (
            isinstance(v, dict)
            and isinstance(v.get("name"), str)
            and v["name"] != ""
            and all(isinstance(v[k], str) for k in ("email", "url") if k in v)
        ),
        "an object with a non-empty string 'name' (and string 'email', 'url')",
    ),
    "homepage": URL,
    "repository": STRING,
    "license": STRING,
    "keywords": STRINGS,
    "defaultEnabled": BOOLEAN,
    "dependencies": (
        lambda v: isinstance(v, list) and all(_dependency(d) for d in v),
        'a list of plugin names ("name" or "name@marketplace", or objects with them)',
    ),
    "commands": (
        lambda v: (
            _one_or_list(_path())[0](v)
            or (isinstance(v, dict) and all(_command_entry(e) for e in v.values()))
        ),
        "a path starting with ./, a list of those, or an object of commands each with "
        "'source' or 'content' (not both)",
    ),
    "agents": _one_or_list(_path(".md")),
    "skills": _one_or_list(_path()),
    "outputStyles": _one_or_list(_path()),
    "themes": _one_or_list(_path()),
    "workflows": _one_or_list(_path()),
    "mcpServers": (
        _server_files,
        "a ./….json path, an .mcpb or .dxt bundle, an object of servers (each an object with "
        "a non-empty string 'command', or a 'type' and its 'url', its fields of their type), "
        "or a list of those",
    ),
    "lspServers": (
        lambda v: _lsp_servers(v) or (isinstance(v, list) and all(_lsp_servers(i) for i in v)),
        "a ./….json path, an object of servers (each with a 'command' and a non-empty "
        '\'extensionToLanguage\' such as {".ts": "typescript"}, and no other field than '
        "Claude Code's), or a list of those",
    ),
    "monitors": (
        monitors,
        "a ./….json path or a list of monitors (each with 'name', 'command' and "
        "'description', and no other field than 'when'; names unique)",
    ),
    "channels": (
        lambda v: isinstance(v, list) and all(_channel(c) for c in v),
        "a list of channels (each with a 'server', and no other field than 'displayName' and "
        "'userConfig')",
    ),
    "settings": OBJECT,
    "userConfig": (
        lambda v: (
            isinstance(v, dict)
            and all(OPTION_KEY.fullmatch(k) for k in v)
            and all(option(o) for o in v.values())
        ),
        "an object whose keys are identifiers (letters, digits, underscore; no leading digit), "
        "each an option with 'type' (string, number, boolean, directory or file), 'title' and "
        "'description'",
    ),
    "experimental": (
        lambda v: (
            not isinstance(v, dict)
            or all(test(v[key]) for key, (test, _) in EXPERIMENTAL.items() if key in v)
        ),
        "an object whose 'themes', 'monitors', 'outputStyles' and 'evals' are as at the top "
        "level ('evals' a string or a list of them)",
    ),
}
"""The manifest's fields besides ``name`` and ``hooks``, with their checks."""


def manifest_refusal(data: Any) -> str | None:
    """Why Claude Code refuses a plugin manifest (``.claude-plugin/plugin.json``) and so loads
    nothing of the plugin, or None: no object, a ``name`` missing, no string, empty or with a
    space, a known field of the wrong type (above), ``hooks`` as
    :func:`manifest_hooks_refusal` says."""
    if not isinstance(data, dict):
        return f"the manifest must be a JSON object, got {json_kind(data)}"
    if "name" not in data:
        return "field 'name' is missing (the plugin's name, such as \"my-plugin\")"
    name = data["name"]
    if not isinstance(name, str) or name == "":
        return f"field 'name' must be a non-empty string, got {json_kind(name)}"
    if " " in name:
        return (
            f"field 'name' must not contain spaces (kebab-case, such as \"my-plugin\"), got "
            f"{json_kind(name)}"
        )
    for key, (test, expected) in MANIFEST_FIELDS.items():
        if key in data and not test(data[key]):
            return f"field '{key}' must be {expected}, got {json_kind(data[key])}"
    return manifest_hooks_refusal(data["hooks"]) if "hooks" in data else None
