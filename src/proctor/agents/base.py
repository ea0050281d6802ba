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


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    transcript: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


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

    def version(self, profile: AgentProfile) -> str | None: ...

    def prepare(self, ctx: LaunchContext) -> Launch: ...

    def state(self, session: PtySession, launch: Launch) -> AgentState: ...

    def pending_question(self, session: PtySession, launch: Launch) -> Question | None: ...

    def answer(self, session: PtySession, question: Question, text: str) -> None: ...

    def request_exit(self, session: PtySession) -> None: ...

    def transcript_files(self, launch: Launch) -> list[Path]: ...

    def parse(self, path: Path) -> Trajectory: ...


_REGISTRY: dict[str, type[AgentAdapter]] = {}
_BUILTIN_MODULES = ("proctor.agents.scripted",)
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
