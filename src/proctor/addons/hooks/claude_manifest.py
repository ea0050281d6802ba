"""Claude Code's schema for a plugin's manifest (``.claude-plugin/plugin.json``; 2.1.197, the
zod object its bundled code builds from the manifest's parts): why it refuses a manifest, and
so loads nothing of the plugin. The manifest's ``hooks`` are checked as a hooks table is
(:mod:`proctor.addons.hooks.claude_schema`)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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
    finite_number,
    js_number,
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
# :func:`manifest_refusal` on each case of the unit tests, these parts' too. A refusal names the
# entry at fault by its path (``mcpServers.docs.command``, ``monitors[1].name``), where
# ``claude plugin validate`` says "mcpServers: Invalid input" of a union it could not match.

DEPENDENCY = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._]*(@[A-Za-z0-9][-A-Za-z0-9._]*)?(@\^[^@]*)?")
PLUGIN_NAME_PART = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._]*")
OPTION_KEY = re.compile(r"[A-Za-z_]\w*", re.ASCII)

Refuse = Callable[[str, Any], str | None]
"""Why the value at a field path (``mcpServers.docs``) fails, or None."""


@dataclass(frozen=True)
class Part:
    """A field holding named entries (servers, monitors, options): ``refuse`` names the entry
    that fails (``mcpServers.docs.command``), ``expected`` says what the field must be."""

    refuse: Refuse
    expected: str


Rule = Check | Part


def _refusal(where: str, rule: Rule, value: Any) -> str | None:
    """Why ``value``, the field at ``where``, fails ``rule``, or None."""
    if isinstance(rule, Part):
        return rule.refuse(where, value)
    test, expected = rule
    return None if test(value) else f"field '{where}' must be {expected}, got {json_kind(value)}"


def _expected(rule: Rule) -> str:
    return rule.expected if isinstance(rule, Part) else rule[1]


def _object(
    noun: str, needed: dict[str, Rule], allowed: dict[str, Rule], *, strict: bool
) -> Refuse:
    """The refusal of ``noun``: an object with each ``needed`` field, its fields of their
    rule and, when ``strict`` (zod's ``strictObject``), no field besides."""

    def refuse(where: str, value: Any) -> str | None:
        if not isinstance(value, dict):
            return f"field '{where}' must be {noun}, got {json_kind(value)}"
        for key, rule in needed.items():
            if key not in value:
                return f"field '{where}.{key}' is missing ({noun} needs {_expected(rule)})"
        fields = {**needed, **allowed}
        for key in value if strict else ():
            if key not in fields:
                return (
                    f"field '{where}.{key}' is not allowed in {noun} (Claude Code takes only the "
                    "fields it names)"
                )
        for key, rule in fields.items():
            refusal = _refusal(f"{where}.{key}", rule, value[key]) if key in value else None
            if refusal is not None:
                return refusal
        return None

    return refuse


def _each(noun: str, rule: Rule) -> Part:
    """An object of named entries, each checked by ``rule`` at ``<where>.<name>``."""

    def refuse(where: str, value: Any) -> str | None:
        if not isinstance(value, dict):
            return f"field '{where}' must be {noun}, got {json_kind(value)}"
        return _first(_refusal(f"{where}.{name}", rule, item) for name, item in value.items())

    return Part(refuse, noun)


def _listed(noun: str, rule: Rule) -> Part:
    """A list, each item checked by ``rule`` at ``<where>[<index>]``."""

    def refuse(where: str, value: Any) -> str | None:
        if not isinstance(value, list):
            return f"field '{where}' must be {noun}, got {json_kind(value)}"
        return _first(_refusal(f"{where}[{i}]", rule, item) for i, item in enumerate(value))

    return Part(refuse, noun)


def _first(refusals: Iterable[str | None]) -> str | None:
    return next((r for r in refusals if r is not None), None)


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


COMMAND_FIELDS: dict[str, Rule] = {
    "source": _path(),
    "content": STRING,
    "description": STRING,
    "argumentHint": STRING,
    "model": STRING,
    "allowedTools": STRINGS,
}
COMMAND_NOUN = "a command (an object with 'source', a ./ path, or 'content', its markdown)"


def _command_entry(where: str, value: Any) -> str | None:
    """A ``commands`` object's entry: its ``source`` (a ``./`` path) or its ``content``
    (inline markdown), not both, and its other fields of their type."""
    refusal = _object(COMMAND_NOUN, {}, COMMAND_FIELDS, strict=False)(where, value)
    if refusal is not None or bool(value.get("source")) != bool(value.get("content")):
        return refusal
    if value.get("source"):
        return f"field '{where}' has both 'source' and 'content' (Claude Code takes one of them)"
    return f"field '{where}' needs a non-empty 'source' (a ./ path) or 'content' (its markdown)"


def _whole(value: Any, least: int) -> bool:
    """A JSON number zod's ``int()`` takes (a safe integer), at least ``least``."""
    number = js_number(value)
    if number is None or not math.isfinite(number):
        return False
    return number == int(number) and least <= number <= 2**53 - 1


def _one_of(*names: str) -> Check:
    quoted = [f'"{n}"' for n in names]
    return (lambda v: v in names, f"{', '.join(quoted[:-1])} or {quoted[-1]}")


POSITIVE_INT: Check = (lambda v: _whole(v, 1), "a positive integer")
OPTIONAL_ANY: Check = (lambda v: True, "anything")
PERMISSIONS = _each(
    'an object of tool names and "allow", "ask" or "blocked"', _one_of("allow", "ask", "blocked")
)
OAUTH: dict[str, Rule] = {
    "clientId": STRING,
    "callbackPort": POSITIVE_INT,
    "authServerMetadataUrl": (lambda v: web_url(v) and v.startswith("https://"), "an https URL"),
    "scopes": NON_EMPTY,
    "xaa": BOOLEAN,
}
TOOL = _object(
    "a tool",
    {"name": STRING},
    {"permission_policy": _one_of("always_allow", "always_ask", "always_deny")},
    strict=False,
)
SERVED: dict[str, Rule] = {"timeout": POSITIVE_INT, "alwaysLoad": BOOLEAN}
REMOTE: dict[str, Rule] = {
    **SERVED,
    "headers": STRING_VALUES,
    "headersHelper": STRING,
    "oauth": Part(_object("an object", {}, OAUTH, strict=False), "an object"),
    "tools": _listed("a list of tools", Part(TOOL, "a tool")),
    "toolPermissions": PERMISSIONS,
}
IDE: dict[str, Rule] = {**SERVED, "ideRunningInWindows": BOOLEAN}
MCP_SERVERS: dict[str, tuple[dict[str, Rule], dict[str, Rule]]] = {
    "stdio": ({"command": NON_EMPTY}, {**SERVED, "args": STRINGS, "env": STRING_VALUES}),
    "sse": ({"url": STRING}, REMOTE),
    "sse-ide": ({"url": STRING, "ideName": STRING}, IDE),
    "ws-ide": ({"url": STRING, "ideName": STRING}, {**IDE, "authToken": STRING}),
    "http": ({"url": STRING}, REMOTE),
    "streamable-http": ({"url": STRING}, REMOTE),
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
            "cachedInitResponse": (lambda v: v is None or isinstance(v, dict), "an object"),
        },
    ),
}
"""An MCP server's ``type`` (absent: ``stdio``) → the fields it needs and may have."""
MCP_SERVER = "an MCP server (an object with a 'command', or a 'type' and its 'url')"


def mcp_server_refusal(where: str, value: Any) -> str | None:
    """Why an MCP server object at ``where`` fails Claude Code's schema, or None."""
    if not isinstance(value, dict):
        return f"field '{where}' must be {MCP_SERVER}, got {json_kind(value)}"
    kind = value.get("type", "stdio")  # (null is no absence)
    if not isinstance(kind, str) or kind not in MCP_SERVERS:
        return _refusal(f"{where}.type", _one_of(*MCP_SERVERS), kind)
    needed, allowed = MCP_SERVERS[kind]
    noun = f'an MCP server of type "{kind}"'
    return _object(noun, needed, allowed, strict=False)(where, value)


LSP_FIELDS: dict[str, Rule] = {
    "args": (
        lambda v: isinstance(v, list) and all(isinstance(a, str) and a != "" for a in v),
        "a list of non-empty strings",
    ),
    "transport": _one_of("stdio", "socket"),
    "env": STRING_VALUES,
    "initializationOptions": OPTIONAL_ANY,
    "settings": OPTIONAL_ANY,
    "workspaceFolder": STRING,
    "startupTimeout": POSITIVE_INT,
    "shutdownTimeout": POSITIVE_INT,
    "restartOnCrash": BOOLEAN,
    "maxRestarts": (lambda v: _whole(v, 0), "a whole number"),
    "diagnostics": BOOLEAN,
}
LSP_COMMAND: Check = (
    lambda v: isinstance(v, str) and v != "" and (" " not in v or v.startswith("/")),
    "a non-empty string with no space (unless it starts with /; arguments go in 'args')",
)
LANGUAGES = 'a non-empty object of file extensions and languages, such as {".ts": "typescript"}'


def _languages(where: str, value: Any) -> str | None:
    """``extensionToLanguage``: at least one ``.ext`` key, each a non-empty language name."""
    if not isinstance(value, dict) or not value:
        return f"field '{where}' must be {LANGUAGES}, got {json_kind(value)}"
    for key, language in value.items():
        if len(key) < 2 or not key.startswith("."):
            return (
                f"field '{where}' has a key that is no file extension (a dot and a name, such "
                f'as ".ts"), got {json_kind(key)}'
            )
        if not isinstance(language, str) or language == "":
            return f"field '{where}.{key}' must be a non-empty string, got {json_kind(language)}"
    return None


LSP_SERVER = _object(
    "an LSP server",
    {"command": LSP_COMMAND, "extensionToLanguage": Part(_languages, LANGUAGES)},
    LSP_FIELDS,
    strict=True,
)
"""An LSP server object (strict: no field the schema does not name)."""
MONITOR = _object(
    "a monitor",
    {"name": NON_EMPTY, "command": NON_EMPTY, "description": NON_EMPTY},
    {
        "when": (
            lambda v: (
                v == "always"
                or (isinstance(v, str) and v.startswith("on-skill-invoke:") and len(v) > 16)
            ),
            '"always" or "on-skill-invoke:" and a skill\'s name',
        )
    },
    strict=True,
)
MONITORS = "a ./….json path or a list of monitors"


def _monitors(where: str, value: Any) -> str | None:
    """``monitors``: a ``./….json`` file, or a list of monitors with names unique."""
    if _path(".json")[0](value):
        return None
    refusal = _listed(MONITORS, Part(MONITOR, "a monitor")).refuse(where, value)
    if refusal is not None:
        return refusal
    seen: dict[str, int] = {}
    for index, monitor in enumerate(value):
        first = seen.setdefault(monitor["name"], index)
        if first != index:
            return (
                f"field '{where}[{index}].name' is {json_kind(monitor['name'])}, the name of "
                f"'{where}[{first}]' too (Claude Code wants monitor names unique in a plugin)"
            )
    return None


OPTION_KINDS = _one_of("string", "number", "boolean", "directory", "file")
OPTION = _object(
    "a userConfig option",
    {"type": OPTION_KINDS, "title": STRING, "description": STRING},
    {
        "required": BOOLEAN,
        "default": (
            lambda v: isinstance(v, str | bool) or finite_number(v) or STRINGS[0](v),
            "a string, a number, true, false or a list of strings",
        ),
        "multiple": BOOLEAN,
        "sensitive": BOOLEAN,
        "min": (finite_number, "a number"),
        "max": (finite_number, "a number"),
    },
    strict=True,
)
"""A ``userConfig`` option (strict)."""
OPTIONS = "an object of options (each with 'type', 'title' and 'description')"
CHANNEL = _object(
    "a channel",
    {"server": NON_EMPTY},
    {"displayName": STRING, "userConfig": _each(OPTIONS, Part(OPTION, "an option"))},
    strict=True,
)


def _user_config(where: str, value: Any) -> str | None:
    """The manifest's ``userConfig``: options whose keys are identifiers."""
    if isinstance(value, dict):
        for key in value:
            if not OPTION_KEY.fullmatch(key):
                return (
                    f"field '{where}' has a key that is no identifier (letters, digits and "
                    f"underscores, no leading digit), got {json_kind(key)}"
                )
    return _each(OPTIONS, Part(OPTION, "an option")).refuse(where, value)


SERVER_FILES = (
    "a ./….json path, an .mcpb or .dxt bundle (a ./ path or a URL), or an object of MCP servers"
)


def _server_files(where: str, value: Any) -> str | None:
    """``mcpServers``: a ``./….json`` file, a ``./`` path or URL to an ``.mcpb``/``.dxt``
    bundle, an object of servers, or a list of those."""

    def one(where: str, item: Any) -> str | None:
        if isinstance(item, dict):
            return _each(SERVER_FILES, Part(mcp_server_refusal, MCP_SERVER)).refuse(where, item)
        if isinstance(item, str):
            bundle = item.endswith((".mcpb", ".dxt"))
            local = item.startswith("./") and (bundle or item.endswith(".json"))
            if local or (bundle and web_url(item)):
                return None
        return f"field '{where}' must be {SERVER_FILES}, got {json_kind(item)}"

    if isinstance(value, list):
        return _first(one(f"{where}[{i}]", item) for i, item in enumerate(value))
    return one(where, value)


LSP_FILES = "a ./….json path or an object of LSP servers"


def _lsp_servers(where: str, value: Any) -> str | None:
    """``lspServers``: a ``./….json`` file, an object of LSP servers, or a list of those."""

    def one(where: str, item: Any) -> str | None:
        if _path(".json")[0](item):
            return None
        return _each(LSP_FILES, Part(LSP_SERVER, "an LSP server")).refuse(where, item)

    if isinstance(value, list):
        return _first(one(f"{where}[{i}]", item) for i, item in enumerate(value))
    return one(where, value)


EXPERIMENTAL: dict[str, Rule] = {
    "themes": _one_or_list(_path()),
    "monitors": Part(_monitors, MONITORS),
    "outputStyles": _one_or_list(_path()),
    "evals": (lambda v: isinstance(v, str) or STRINGS[0](v), "a string or a list of strings"),
}
"""What ``experimental`` checks of an object (its other fields pass; anything else than an
object is dropped)."""

COMMANDS = "a path starting with ./, a list of those, or an object of commands"

MANIFEST_FIELDS: dict[str, Rule] = {
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
    "dependencies": _listed(
        "a list of plugin names",
        (
            _dependency,
            'a plugin name ("name" or "name@marketplace"), or an object with its \'name\' '
            "(and 'marketplace')",
        ),
    ),
    "commands": Part(
        lambda where, v: (
            None
            if _one_or_list(_path())[0](v)
            else _each(COMMANDS, Part(_command_entry, COMMAND_NOUN)).refuse(where, v)
        ),
        COMMANDS,
    ),
    "agents": _one_or_list(_path(".md")),
    "skills": _one_or_list(_path()),
    "outputStyles": _one_or_list(_path()),
    "themes": _one_or_list(_path()),
    "workflows": _one_or_list(_path()),
    "mcpServers": Part(_server_files, SERVER_FILES),
    "lspServers": Part(_lsp_servers, LSP_FILES),
    "monitors": Part(_monitors, MONITORS),
    "channels": _listed("a list of channels", Part(CHANNEL, "a channel")),
    "settings": OBJECT,
    "userConfig": Part(_user_config, OPTIONS),
    "experimental": Part(
        lambda where, v: (
            _object("an object", {}, EXPERIMENTAL, strict=False)(where, v)
            if isinstance(v, dict)
            else None
        ),
        "an object",
    ),
}
"""The manifest's fields besides ``name`` and ``hooks``, with their rules."""


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
    for key, rule in MANIFEST_FIELDS.items():
        refusal = _refusal(key, rule, data[key]) if key in data else None
        if refusal is not None:
            return refusal
    return manifest_hooks_refusal(data["hooks"]) if "hooks" in data else None
