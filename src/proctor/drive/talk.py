"""A conversation other than the case's own: by default a trial sends its prompt and answers the
questions its agent ends turns with (:func:`proctor.drive.followups.converse`); an eval written
as code drives the session itself, one ``send`` at a time, and judges as it goes. Such a
conversation gets a :class:`Talk` (the session, not yet started) and returns :class:`Talked`:
how the last turn ended, the assertions it recorded and its warnings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch
from proctor.drive.driver import Driver, TurnOutcome
from proctor.drive.policy import AnswerPolicy
from proctor.llm.roles import RoleSet
from proctor.models.trial import EvaluatorResult


@dataclass
class Talk:
    driver: Driver
    """Not started: the conversation starts it (after writing any files it wants first)."""
    adapter: AgentAdapter[Any]
    launch: Launch[Any]
    policy: AnswerPolicy
    roles: RoleSet | None
    workspace: Path
    trial_dir: Path
    deadline: float
    """``time.monotonic()`` value the conversation must end by."""
    repeat: int = 1
    rebaseline: Callable[[], None] | None = None
    """Call after writing the files the conversation starts from: the trial's
    ``workspace.diff`` then shows what the agent changed, not those files."""


@dataclass
class Talked:
    outcome: TurnOutcome
    """How the last turn ended (``turn-end`` when no turn was sent)."""
    results: list[EvaluatorResult] = field(default_factory=list)
    skipped: str | None = None
    """Why the conversation ended the trial as skipped, when it did."""
    error: str | None = None
    """Why the conversation itself failed (not the agent), when it did."""
    turns_done: int = 0
    """Turns that ended normally."""
    agent_error: str | None = None
    """Why the agent failed in a turn the conversation did not expect it to (it exited, or
    its own output reported an error), when it did: the trial is then ``agent-error``."""
    stopped_at: str | None = None
    """Where the conversation was when its time ran out (``FILE:LINE``, and the turn it was
    sending), for the timeout's reason."""
    warnings: list[str] = field(default_factory=list)
    """What the conversation noticed that decides nothing (plan steps no message reached):
    the trial's record lists them as it lists a case folder's."""


Conversation = Callable[[Talk], Talked]
