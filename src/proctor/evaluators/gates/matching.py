"""Matching the trajectory: a tool name against a call (its own name, its normalised kind, or an
MCP tool as ``server/tool``), literal / regex / predicate matchers, and each call paired with
its result."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from proctor.models.trajectory import Event, ToolCall, ToolResult, is_harness_call
from proctor.util.shellwords import looking_kind

MCP_NAME = (
    re.compile(r"^mcp__(?P<server>.+?)__(?P<tool>.+)$"),  # Claude Code
    re.compile(r"^(?P<server>[^/.]+)[/.](?P<tool>.+)$"),  # ACP titles
    re.compile(r"^(?P<server>[^_].*?)__(?P<tool>.+)$"),  # Codex and Gemini CLI: server__tool
)


def mcp_parts(call: ToolCall) -> tuple[str, str] | None:
    if call.kind != "mcp" and not call.name.startswith("mcp__"):
        return None
    for pattern in MCP_NAME:
        found = pattern.match(call.name)
        if found:
            return found["server"], found["tool"]
    return None


def kinds_of(call: ToolCall) -> set[str]:
    """The call's normalised kind, and what it also is on agents without a dedicated tool:
    a shell command that only reads files (``cat``, ``head``, ``sed -n`` …) is a ``read``,
    one that only searches or lists them (``grep -rn``, ``rg``, ``find``, ``ls`` …) a
    ``search``, as the process metrics count it (:func:`~proctor.util.shellwords.looking_kind`);
    a patch that adds a file is a ``write``."""
    kinds: set[str] = {call.kind} if call.kind else set()
    data = call.input or {}
    if call.kind == "shell":
        command = data.get("cmd") or data.get("command")
        looked = looking_kind(command) if command else None
        if looked is not None:
            kinds.add(looked)
    patch = data.get("input") or data.get("patch")
    if call.kind == "edit" and isinstance(patch, str) and "*** Add File:" in patch:
        kinds.add("write")
    return kinds


def name_matches(call: ToolCall, name: str) -> bool:
    """``name`` is the call's own tool name, its kind (``shell``, ``read``, ``edit``, ``mcp``…,
    see :func:`kinds_of`), or for an MCP tool ``server/tool``. A search of the agent's own tool
    list (:func:`~proctor.models.trajectory.is_harness_call`) is no step of its work: only its
    own name (``ToolSearch``, ``tool_search``) matches it, never its kind ``other``."""
    if name == call.name:
        return True
    if is_harness_call(call.name, call.kind):
        return False
    if name in kinds_of(call):
        return True
    parts = mcp_parts(call)
    return parts is not None and name in (f"{parts[0]}/{parts[1]}", f"mcp__{parts[0]}__{parts[1]}")


def value_matches(value: Any, matcher: Any) -> bool:
    """A literal (a dict matches when every given key matches; text equality otherwise), a
    compiled regex (searched in the value, or in its JSON), or a predicate."""
    if matcher is None:
        return True
    if isinstance(matcher, re.Pattern):
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return matcher.search(text) is not None
    if callable(matcher):
        try:
            return bool(matcher(value))
        except Exception:
            return False
    if isinstance(matcher, dict):
        return isinstance(value, dict) and all(
            k in value and value_matches(value[k], v) for k, v in matcher.items()
        )
    return bool(value == matcher)


def describe(matcher: Any) -> str:
    if isinstance(matcher, re.Pattern):
        return f"/{matcher.pattern}/"
    if isinstance(matcher, dict):
        return "{" + ", ".join(f"{k}: {describe(v)}" for k, v in matcher.items()) + "}"
    if callable(matcher):
        return str(getattr(matcher, "__name__", "predicate"))
    return json.dumps(matcher, default=str)


_FILE_KEYS = frozenset({"file_path", "path", "filePath", "notebook_path", "absolute_path"})
"""The keys an edit's input names its file by, on the agents that have an edit tool."""


@dataclass(frozen=True)
class CallView:
    """A tool call with its result, when it has one."""

    call: ToolCall
    result: ToolResult | None

    @property
    def name(self) -> str:
        return self.call.name

    @property
    def input(self) -> dict[str, Any]:
        """The call's input; a patch's (Codex CLI's ``apply_patch``, whose input is the patch
        text) also gives the first file it edits as ``file_path``, as an edit's input names it
        on the other agents: one eval's ``input={"file_path": …}`` holds on every agent. A
        shell call that gives its command line as ``cmd`` (Codex CLI's ``exec_command``) also
        gives it as ``command``, as Claude Code's ``Bash`` and Gemini CLI's
        ``run_shell_command`` name it."""
        data = self.call.input or {}
        files = self.call.files
        if self.call.kind == "edit" and files and _FILE_KEYS.isdisjoint(data):
            return {**data, "file_path": files[0]}
        line = data.get("cmd")
        if self.call.kind == "shell" and type(line) is str and "command" not in data:
            return {**data, "command": line}
        return data

    @property
    def output(self) -> str | None:
        return self.result.output if self.result is not None else None

    @property
    def status(self) -> str:
        """``completed``, ``failed``, ``denied`` or ``pending`` (no result seen)."""
        if self.result is None:
            return "pending"
        if self.result.denied:
            return "denied"
        return "failed" if self.result.is_error else "completed"

    @property
    def is_error(self) -> bool:
        return self.status == "failed"


def relative(value: Any, roots: Sequence[str]) -> Any:
    """``value`` with absolute paths inside the workspace made relative to it, so a test can
    say ``{"file_path": "app.py"}`` whichever absolute path the agent used."""
    if isinstance(value, str):
        for root in roots:
            if value.startswith(root + "/"):
                return value[len(root) + 1 :]
        return value
    if isinstance(value, dict):
        return {k: relative(v, roots) for k, v in value.items()}
    if isinstance(value, list):
        return [relative(v, roots) for v in value]
    return value


def calls_of(events: Sequence[Event], roots: Sequence[str] = ()) -> list[CallView]:
    """Each call with its result; with ``roots`` (the workspace), inputs use relative paths."""
    results = {e.id: e for e in events if isinstance(e, ToolResult) and e.id}
    views = []
    for e in events:
        if isinstance(e, ToolCall):
            call = e.model_copy(update={"input": relative(e.input, roots)}) if roots else e
            views.append(CallView(call, results.get(e.id) if e.id else None))
    return views


def event_matches(event: Event, type_: str, matcher: Any, roots: Sequence[str] = ()) -> bool:
    if event.type != type_:
        return False
    if matcher is None:
        return True
    if callable(matcher) and not isinstance(matcher, re.Pattern):
        try:
            return bool(matcher(event))
        except Exception:
            return False
    data = relative(event.model_dump(mode="json", by_alias=True, exclude_none=True), roots)
    if isinstance(matcher, re.Pattern):
        return matcher.search(json.dumps(data)) is not None
    return value_matches(data, matcher)
