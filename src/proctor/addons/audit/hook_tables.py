"""Hooks as the three CLIs lay them out (an ``{event: [{matcher, hooks: [{type, command}]}]}``
table): each handler read as a component or a decoy with the reason, the events each CLI
fires (with the near valid name for one it does not), and what a handler runs."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from proctor.addons.audit.reading import Reader, Scope, as_dict
from proctor.addons.hooks.cases import EVENTS
from proctor.addons.hooks.claude_schema import mcp_tool_called
from proctor.addons.hooks.sources import CLAUDE_SKIPS

NO_COMMAND = "matcher with no hook command behind it"
NO_TYPE = "a hook handler needs a type"
CLAUDE_SKIPS_HOOKS = CLAUDE_SKIPS["claude-plugin"]
"""What Claude Code 2.1.197 does with a plugin's hooks file whose schema check fails (a
``hook-load-failed`` error): the whole file's hooks, the plugin's other parts kept."""


def hooks(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    off: str | None = None,
    disabled_commands: Collection[str] = (),
    *,
    agent: str,
    skipped: str | None = None,
    refusal: str | None = None,
) -> None:
    """Hooks of an ``{event: [{matcher, hooks: [{type, command}]}]}`` table; ``off`` is why
    none of them runs (hooks switched off in that file), when they do not. A hook under an
    event ``agent`` never fires is a problem and a decoy; a wrong-shaped part is a problem.
    ``skipped`` is why the agent skips the whole file they are in (each hook is a decoy for it);
    ``refusal`` is why Claude Code's schema refuses a plugin's hooks file
    (:func:`~proctor.addons.hooks.claude_schema.hooks_file_refusal`): one problem, and every
    hook a decoy, as Claude Code loads none of the file's hooks. A skipped file's refusal is
    its one problem: the wrong-shaped parts in it are not listed again."""
    if refusal is not None:
        reader.problems.append(f"{file}: {refusal}; {CLAUDE_SKIPS_HOOKS}")
        skipped = f"{CLAUDE_SKIPS_HOOKS} ({refusal})"
    problems, components = len(reader.problems), len(reader.components)
    table_hooks(reader, table, file, scope, off, disabled_commands, agent=agent)
    if skipped is not None:  # why none of them runs, whatever else is wrong with one
        del reader.problems[problems:]
        for component in reader.components[components:]:
            component.decoy = skipped


def table_hooks(
    reader: Reader,
    table: Any,
    file: Path,
    scope: Scope,
    off: str | None,
    disabled_commands: Collection[str],
    *,
    agent: str,
) -> None:
    """The hooks of a table as :func:`hooks` lists them, ``off`` the decoy of those that run."""
    for event, groups in as_dict(table).items():
        if not reader.shape(file, f"hooks.{event}", groups, list):
            continue
        unknown = unknown_event(agent, str(event))
        if unknown:
            reader.problems.append(f"{file}: hook event '{event}' {unknown}; never runs")
        for index, group in enumerate(groups or []):
            if not reader.shape(file, f"hooks.{event}[{index}]", group, dict, item=True):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            name = f"{event}:{matcher}" if matcher else str(event)
            listed = group.get("hooks")
            field = f"hooks.{event}[{index}].hooks"
            raw = listed if reader.shape(file, field, listed, list) and listed else []
            shaped = {
                i: h
                for i, h in enumerate(raw)
                if reader.shape(file, f"{field}[{i}]", h, dict, item=True)
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
    ``agent``), for Claude Code's ``type: http`` a ``url`` and for its ``type: mcp_tool`` a
    ``server`` and a ``tool``."""
    value = hook_command(handler)
    return isinstance(value, str) and bool(value.strip())


def mistyped_key(handler: Mapping[str, Any]) -> str | None:
    """The field that holds what a typed handler runs (``command``, ``url``, ``prompt``, an
    ``mcp_tool``'s ``server`` and ``tool``) when it is there but not a string (a command
    written as a list of words); else None."""
    kind = handler.get("type")
    if not isinstance(kind, str):
        return None
    keys = RUN_BY.get(kind, ("prompt",))
    return next(
        (k for k in keys if handler.get(k) is not None and not isinstance(handler[k], str)), None
    )


RUN_BY = {"command": ("command",), "http": ("url",), "mcp_tool": ("server", "tool")}
"""A handler type → the fields saying what it runs (else its ``prompt``)."""


def hook_command(handler: Mapping[str, Any]) -> str | None:
    """What a handler runs: its command line, its prompt, the url an http hook posts to, the
    MCP tool an ``mcp_tool`` hook calls (``MCP tool 'check' of server 'guard'``); None for a
    handler without a ``type``, which the CLIs never run."""
    kind = handler.get("type")
    if kind == "mcp_tool":
        return mcp_tool_called(handler)
    key = {"command": "command", "http": "url"}.get(kind, "prompt") if isinstance(kind, str) else ""
    value = handler.get(key)
    return value if isinstance(value, str) else None
