"""The agent protocol and its registry.

An agent adapter knows how to provision a scratch home, launch its CLI in a terminal, tell from
the terminal or transcript when a turn has ended or a question is pending, answer it, exit
cleanly, and find and parse its native transcript. The run loop never asks which agent it is.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from proctor.drive.pty_session import PtySession
from proctor.models.config import AgentProfile, Provision
from proctor.models.trajectory import Trajectory


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
    mode: Literal["headless", "interactive"] = "interactive"
    prompt: str = ""
    model_base_url: str | None = None
    """The scripted model server's URL when the trial runs on it, else None (real provider)."""
    trial_dir: Path | None = None
    case_dir: Path | None = None


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    transcript: Path | None = None
    mode: Literal["headless", "interactive"] = "interactive"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HeadlessReport:
    """What an adapter read from a finished headless run's stdout and stderr."""

    error: str | None = None
    """Why the run failed, naming the cause (API, auth, quota, crash), or None."""
    reported_cost_usd: float | None = None
    reported_usage: dict[str, Any] | None = None
    session_id: str | None = None


@dataclass(frozen=True)
class AgentState:
    kind: Literal["starting", "ready", "working", "question"]
    turns: int = 0
    """Turns completed so far (for ``ready``)."""
    question: int = 0
    """Index of the pending question (for ``question``), counting from 1."""


@dataclass(frozen=True)
class Question:
    text: str
    options: list[str] = field(default_factory=list)


class AgentAdapter(Protocol):
    name: ClassVar[str]
    transcript_format: ClassVar[str]
    default_mode: ClassVar[Literal["headless", "interactive"]]
    modes: ClassVar[tuple[str, ...]]

    def version(self, profile: AgentProfile) -> str | None: ...

    def headless_report(self, launch: Launch, stdout: Path, stderr: Path) -> HeadlessReport: ...

    def prepare(self, ctx: LaunchContext) -> Launch: ...

    def state(self, session: PtySession, launch: Launch) -> AgentState: ...

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None: ...

    def answer(self, session: PtySession, question: Question, text: str) -> None: ...

    def send_message(self, session: PtySession, text: str) -> None: ...

    def note_answered(self, launch: Launch) -> None: ...

    def request_exit(self, session: PtySession) -> None: ...

    def transcript_files(self, launch: Launch) -> list[Path]: ...

    def parse(self, path: Path) -> Trajectory: ...


_REGISTRY: dict[str, type[AgentAdapter]] = {}
_BUILTIN_MODULES = (
    "proctor.agents.scripted",
    "proctor.agents.claude_code",
    "proctor.agents.codex",
    "proctor.agents.gemini_cli",
)
_loaded = False


def register(cls: type[AgentAdapter]) -> type[AgentAdapter]:
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[AgentAdapter]]:
    global _loaded
    if not _loaded:
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)
        _loaded = True
    return _REGISTRY


def adapter_for(agent_id: str, profiles: Mapping[str, AgentProfile]) -> AgentAdapter:
    """The adapter behind an agent id: a registered name, or a profile naming one."""
    profile = profiles.get(agent_id)
    name = profile.agent if profile is not None and profile.agent else agent_id
    return registry()[name]()


def known_agent_ids(profiles: Mapping[str, AgentProfile]) -> set[str]:
    ids = set(registry())
    for agent_id, profile in profiles.items():
        if profile.agent is None or profile.agent in registry():
            ids.add(agent_id)
    return ids
