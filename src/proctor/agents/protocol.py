"""What an agent adapter works with: the terminal it reads and types into, the questions it
finds, the state it reports, and what it needs to start and hands back.

This module imports nothing from :mod:`proctor.drive`: the driver's terminal (a PTY rendered by
pyte) satisfies :class:`Terminal` by its shape, and tests can drive an adapter with any object
that does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from proctor.models.config import AgentProfile, Provision

Mode = Literal["headless", "interactive"]


class Terminal(Protocol):
    """A program in a pseudo-terminal: its rendered screen, its title, and keys to send."""

    @property
    def title(self) -> str:
        """The window title the program last set (OSC 0/2)."""
        ...

    @property
    def eof(self) -> bool:
        """True once the program closed its terminal."""
        ...

    @property
    def bytes_read(self) -> int:
        """How many bytes the program has written so far (to tell output from quiet)."""
        ...

    def screen_text(self) -> str:
        """The rendered screen, right-trimmed, without trailing empty lines."""
        ...

    def write(self, text: str) -> None:
        """Send keys (or a paste) to the program."""
        ...

    def pump(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; False at EOF."""
        ...

    def wait_until(self, predicate: Callable[[], bool], deadline: float) -> bool:
        """Pump output until ``predicate()`` holds (True), EOF or ``deadline`` (False)."""
        ...


class NotChosen(Exception):
    """A picker's answer that names one of its entries was not taken: the cursor did not reach
    the entry, or the picker was still on screen after Enter. The message says which."""


@dataclass(frozen=True)
class Question:
    """A question the agent asked: a picker, a permission prompt, or text ending its turn."""

    text: str
    options: list[str] = field(default_factory=list)
    id: str | None = None
    """The tool call it belongs to, when the transcript names one (the pending
    ``AskUserQuestion``'s ``tool_use`` id, an ACP request's ``toolCallId``)."""
    kind: Literal["question", "permission"] = "question"
    """``permission`` for a prompt to approve a tool call (a terminal's approval or permission
    prompt, an ACP permission request), ``question`` for one the agent asked."""


@dataclass(frozen=True)
class AgentState:
    """What the terminal shows of the agent right now."""

    kind: Literal["starting", "ready", "working", "question"]
    turns: int = 0
    """Turns completed so far (for ``ready``)."""
    question: int = 0
    """Index of the pending question (for ``question``), counting from 1; 0 when the program
    does not number its questions (each one on screen is then a new one)."""


@dataclass(frozen=True)
class LaunchContext:
    """Everything an adapter needs to start one trial's agent."""

    workspace: Path
    home: Path
    scratch: Path
    env: Mapping[str, str]
    profile: AgentProfile
    plan: dict[str, Any] | None
    repeat: int
    session_id: str
    condition: str = "default"
    agent_model: str | None = None
    agent_effort: str | None = None
    provision: Provision | None = None
    mode: Mode = "interactive"
    model_base_url: str | None = None
    """The scripted model server's URL when the trial runs on it, else None (real provider)."""
    trial_dir: Path | None = None
    case_dir: Path | None = None
    max_turns: int | None = None
    """The trial's turn budget, for CLIs that enforce one themselves."""


S = TypeVar("S")


@dataclass
class Launch(Generic[S]):
    """How the agent is started, and the adapter's own state for this session (``state``, one
    typed object per adapter)."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    state: S
    transcript: Path | None = None
    """The native transcript when its path is known at launch (Claude Code, scripted); adapters
    whose CLI names it later find it in ``transcript_files`` from the ids in ``state``."""
    mode: Mode = "interactive"


@dataclass(frozen=True)
class HeadlessReport:
    """What an adapter read from one headless turn's stdout and stderr."""

    error: str | None = None
    """Why the turn failed, naming the cause (API, auth, quota, crash), or None."""
    reported_cost_usd: float | None = None
    reported_usage: dict[str, dict[str, int]] | None = None
    """Tokens the CLI itself reported, per model: ``inputTokens``, ``outputTokens``,
    ``cacheReadTokens``, ``cacheWriteTokens``."""
    usage_is_cumulative: bool = False
    """The report counts the whole session so far (a resumed Codex session reports the thread's
    totals), so it replaces the earlier turns' reports instead of adding to them."""
