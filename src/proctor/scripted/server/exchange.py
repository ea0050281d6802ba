"""The dialect-neutral view of one model request and of the reply the server gives to it.

Each API dialect parses its request body into a :class:`ModelRequest` and renders a
:class:`Reply` back; roles (the plan player, the side-request answerer) only see these types.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

HARNESS_PREFIXES = (
    "<system-reminder>",
    "[Request interrupted",
    "<command-",
    "<local-command-",
    "Caveat: The messages below",
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "This is the Gemini CLI.",
    "Base directory for this skill:",
    "<subagent_notification>",
)
"""User-side text a CLI injects by itself; a user message made only of these is no prompt."""


def is_prompt_text(text: str) -> bool:
    """True when ``text`` was typed by a person, not injected by the CLI harness."""
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith(HARNESS_PREFIXES)


ToolKind = Literal["function", "custom", "local_shell", "tool_search"]
"""How a tool is called on the wire. ``tool_search`` is Codex's search over deferred tools (MCP
tools it has not shown the model yet); a call to it carries ``query`` and ``limit``."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool the request offers: its name, wire kind and parameter names (if declared)."""

    name: str
    kind: ToolKind = "function"
    params: frozenset[str] = frozenset()
    namespace: str | None = None
    """For a tool offered inside a namespace (Codex's ``mcp__<server>``): the namespace; the
    tool is then known as ``<namespace>__<name>``."""


@dataclass(frozen=True)
class Turn:
    """One side of the conversation: a user turn (prompt or tool results) or a model response."""

    role: Literal["user", "assistant"]
    prompt: bool = False
    calls: int = 0
    searches: int = 0
    """Tool searches in a model response (not plan steps: they only make a tool callable)."""


def merge_turns(turns: Iterable[Turn]) -> tuple[Turn, ...]:
    """Merge consecutive turns of the same role (one prompt split over messages counts once)."""
    merged: list[Turn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role:
            last = merged.pop()
            turn = Turn(
                turn.role,
                last.prompt or turn.prompt,
                last.calls + turn.calls,
                last.searches + turn.searches,
            )
        merged.append(turn)
    return tuple(merged)


@dataclass(frozen=True)
class ModelRequest:
    """What one request asks for, whatever its dialect."""

    dialect: str
    model: str
    stream: bool
    tools: Mapping[str, ToolSpec]
    turns: tuple[Turn, ...]
    messages: int
    size: int
    system: str = ""
    texts: tuple[str, ...] = ()
    schema: dict[str, Any] | None = None
    results: tuple[str, ...] = ()
    """The texts of the tool results in the conversation, oldest first (what a plan's
    ``fromResults`` reads)."""


@dataclass(frozen=True)
class ToolCall:
    """A tool call to send. ``custom`` calls carry their raw text in ``arguments["input"]``;
    ``local_shell`` calls carry an argv in ``arguments["command"]``."""

    name: str
    arguments: dict[str, Any]
    kind: ToolKind = "function"

    @property
    def raw_input(self) -> str:
        return str(self.arguments.get("input", ""))

    def wire_size(self) -> int:
        text = self.raw_input if self.kind == "custom" else json.dumps(self.arguments)
        return len(text.encode())


@dataclass(frozen=True)
class Reply:
    """One model response: text blocks, then at most one tool call (none ends the turn)."""

    texts: tuple[str, ...]
    call: ToolCall | None = None
    delay: float = 0.0
    played: dict[str, Any] | str = field(default="side request")
    logprobs: tuple[float, ...] | None = None
    """Per-token log-probabilities of the text, sent where the dialect carries them."""

    @property
    def ends_turn(self) -> bool:
        return self.call is None


def usage(request: ModelRequest, reply: Reply) -> tuple[int, int]:
    """Deterministic token counts: request bytes // 4 in, response text bytes // 4 + 1 out."""
    out = sum(len(t.encode()) for t in reply.texts)
    if reply.call is not None:
        out += reply.call.wire_size()
    return request.size // 4, out // 4 + 1


class Role(Protocol):
    """Someone the server plays. ``respond`` returns None when the request is not for it."""

    def respond(self, request: ModelRequest) -> Reply | None: ...


def has_prompt(content: Any) -> bool:
    """True when a user content value (a string or a list of blocks/parts) holds a prompt."""
    if isinstance(content, list):
        return any(is_prompt_text(text_of(part)) for part in content if isinstance(part, Mapping))
    return is_prompt_text(text_of(content))


def text_of(value: Any) -> str:
    """The text of a content value: a string, or the ``text`` of its text blocks/parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        text = value.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(value, list):
        return "\n".join(t for t in (text_of(v) for v in value) if t)
    return ""
