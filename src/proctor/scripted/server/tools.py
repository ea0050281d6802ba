"""Generic plan actions mapped onto the tools a request offers.

Each action lists candidate tools across CLIs (Claude Code, Codex, Gemini CLI, opencode) and
uses the first one offered, taking parameter names from the tool's declared schema; when none is
offered it falls back to a shell command through the offered shell tool.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.scripted.plan import filled_input
from proctor.scripted.server import patches
from proctor.scripted.server.exchange import ToolCall, ToolSpec
from proctor.scripted.server.workspace import resolve

ASK_TOOL = "AskUserQuestion"
SHELL_TOOLS = ("Bash", "exec_command", "shell", "local_shell", "run_shell_command", "bash")
WRITE_TOOLS = ("Write", "write_file", "write")
EDIT_TOOLS = ("Edit", "replace", "edit")
READ_TOOLS = ("Read", "read_file", "read")
SEARCH_TOOLS = ("Grep", "grep_search", "search_file_content", "grep")
PATH_KEYS = ("file_path", "filePath", "absolute_path", "path")
DIR_KEYS = ("path", "dir_path", "directory")
ALL_KEYS = ("replace_all", "replaceAll", "allow_multiple")


@dataclass(frozen=True)
class Context:
    """The offered tools and the workspace directory (None: keep plan paths relative)."""

    tools: Mapping[str, ToolSpec]
    cwd: str | None
    results: Sequence[str] = ()
    """The texts of the conversation's tool results, oldest first."""

    def offered(self, names: tuple[str, ...]) -> ToolSpec | None:
        return next((self.tools[n] for n in names if n in self.tools), None)

    def path(self, rel: str) -> str:
        return resolve(self.cwd, rel)


def _key(spec: ToolSpec, names: tuple[str, ...]) -> str:
    return next((n for n in names if n in spec.params), names[0])


def shell_call(command: str, ctx: Context, timeout: float | None = None) -> ToolCall:
    """``command`` through the offered shell tool (Claude's ``Bash`` when none is offered)."""
    spec = ctx.offered(SHELL_TOOLS) or ToolSpec("Bash")
    argv = ["bash", "-lc", command]
    if spec.kind == "local_shell":
        return ToolCall(spec.name, {"command": argv}, kind="local_shell")
    if spec.name == "shell":
        return ToolCall(spec.name, {"command": argv})
    default = ("cmd", "command") if spec.name == "exec_command" else ("command", "cmd")
    args: dict[str, Any] = {_key(spec, default): command}
    if "description" in spec.params:
        args["description"] = (command.splitlines() or [""])[0][:60]
    if timeout is not None and "timeout" in spec.params:
        args["timeout"] = int(timeout * 1000)
    return ToolCall(spec.name, args)


def _patch_call(spec: ToolSpec, patch: str) -> ToolCall:
    if spec.kind == "custom":
        return ToolCall(spec.name, {"input": patch}, kind="custom")
    return ToolCall(spec.name, {"input": patch})


def _shell(step: dict[str, Any], ctx: Context) -> ToolCall:
    timeout = step.get("timeoutSec")
    return shell_call(step["shell"], ctx, float(timeout) if timeout is not None else None)


def _write(step: dict[str, Any], ctx: Context) -> ToolCall:
    path, content = step["write"]["path"], step["write"]["content"]
    spec = ctx.offered(WRITE_TOOLS)
    if spec is not None:
        return ToolCall(spec.name, {_key(spec, PATH_KEYS): ctx.path(path), "content": content})
    patcher = ctx.offered(("apply_patch",))
    if patcher is not None and patches.patchable_write(content):
        return _patch_call(patcher, patches.add_file_patch(path, content))
    return shell_call(patches.write_command(path, content), ctx)


def _edit(step: dict[str, Any], ctx: Context) -> ToolCall:
    spec_ = step["edit"]
    path, old, new, every = spec_["path"], spec_["old"], spec_["new"], bool(spec_.get("replaceAll"))
    spec = ctx.offered(EDIT_TOOLS)
    all_key = next((k for k in ALL_KEYS if spec is not None and k in spec.params), None)
    if spec is not None and (all_key is not None or not every):
        args: dict[str, Any] = {
            _key(spec, PATH_KEYS): ctx.path(path),
            _key(spec, ("old_string", "oldString")): old,
            _key(spec, ("new_string", "newString")): new,
        }
        if all_key is not None:
            args[all_key] = every
        if "instruction" in spec.params:  # Gemini CLI's replace requires one
            args["instruction"] = f"Replace the planned text in {path}."
        return ToolCall(spec.name, args)
    patcher = ctx.offered(("apply_patch",))
    if patcher is not None and not every and patches.patchable_edit(old, new):
        return _patch_call(patcher, patches.update_file_patch(path, old, new))
    return shell_call(patches.edit_command(path, old, new, every), ctx)


def _read(step: dict[str, Any], ctx: Context) -> ToolCall:
    spec = ctx.offered(READ_TOOLS)
    if spec is not None:
        return ToolCall(spec.name, {_key(spec, PATH_KEYS): ctx.path(step["read"])})
    return shell_call(f"cat {shlex.quote(step['read'])}", ctx)


def _search(step: dict[str, Any], ctx: Context) -> ToolCall:
    pattern, base = step["search"], step.get("path", ".")
    spec = ctx.offered(SEARCH_TOOLS)
    if spec is not None:
        return ToolCall(spec.name, {"pattern": pattern, _key(spec, DIR_KEYS): ctx.path(base)})
    return shell_call(f"grep -rnE -- {shlex.quote(pattern)} {shlex.quote(base)}", ctx)


def ask_options(step: dict[str, Any]) -> list[str]:
    """The plan's options, padded to the two AskUserQuestion needs."""
    options = list(step.get("options", []))
    for filler in ("Yes", "No"):
        if len(options) < 2 and filler not in options:
            options.append(filler)
    return options


def _ask(step: dict[str, Any], ctx: Context) -> ToolCall | None:
    if ASK_TOOL not in ctx.tools:
        return None
    question = {
        "question": step["ask"],
        "header": "Question",
        "options": [{"label": o, "description": o} for o in ask_options(step)],
        "multiSelect": False,
    }
    return ToolCall(ASK_TOOL, {"questions": [question]})


def ask_text(step: dict[str, Any]) -> str:
    """An ``ask`` step as a plain-text question (no question tool offered)."""
    options = step.get("options", [])
    return "\n".join([step["ask"], *(f"{i}. {o}" for i, o in enumerate(options, 1))])


def _raw(step: dict[str, Any], ctx: Context) -> ToolCall:
    name, args = step["tool"], filled_input(step, ctx.results)
    spec = ctx.tools.get(name)
    if spec is not None and spec.kind == "custom" and isinstance(args.get("input"), str):
        return ToolCall(name, args, kind="custom")
    return ToolCall(name, args)


ACTIONS: dict[str, Callable[[dict[str, Any], Context], ToolCall | None]] = {
    "shell": _shell,
    "write": _write,
    "edit": _edit,
    "read": _read,
    "search": _search,
    "ask": _ask,
    "tool": _raw,
}
"""Plan actions that become a tool call; ``ask`` gives None when no question tool is offered."""


def action_of(step: dict[str, Any]) -> str | None:
    """The tool-producing action of a step, or None (say, sleep, endTurn, exit)."""
    return next((k for k in step if k in ACTIONS), None)


def tool_call(step: dict[str, Any], ctx: Context) -> ToolCall | None:
    action = action_of(step)
    return None if action is None else ACTIONS[action](step, ctx)


def search_for(call: ToolCall | None, tools: Mapping[str, ToolSpec]) -> ToolCall | None:
    """A search for ``call``'s tool when the request does not offer that tool but offers a
    search over deferred tools (Codex defers MCP tools until the model searches for them); the
    next request then offers the tool. The query is the tool's name split into words."""
    if call is None or call.name in tools:
        return None
    search = next((spec for spec in tools.values() if spec.kind == "tool_search"), None)
    if search is None:
        return None
    words = [w for w in call.name.split("_") if w and w != "mcp"]
    query = " ".join(words) or call.name
    return ToolCall(search.name, {"query": query, "limit": 8}, kind="tool_search")
