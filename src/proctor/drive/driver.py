"""How a trial talks to its agent: a :class:`Driver` sends one user message at a time and
returns when the turn ends. Headless drivers run the CLI once per turn (later turns resume the
session); terminal drivers type into the CLI's own UI and answer its questions on the way. Both
serve the one follow-up loop (:mod:`proctor.drive.followups`), and ``send`` may be called as
often as a conversation needs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal, Protocol

from proctor.agents.protocol import Question
from proctor.models.trial import QuestionRecord

TurnKind = Literal["turn-end", "exited", "timeout", "unanswered", "over-budget", "interrupted"]


@dataclass(frozen=True)
class TurnOutcome:
    """How one turn ended: the agent finished it (``turn-end``), exited, ran out of time, asked
    something the policy could not answer (``unanswered``, with the ``question``), went over
    the trial's step budget and was stopped (``over-budget``, the reason in ``SessionLog.stopped``),
    or was stopped because the conversation no longer waited for it (``interrupted``: its
    ``Driver.stop_turn`` was set, as when an eval's ``t.send`` is cancelled).
    """

    kind: TurnKind
    question: Question | None = None
    elapsed_ms: float = 0.0
    detail: str = ""
    """Why an ``unanswered`` question stayed so when the policy did answer it (its answer named
    none of the options)."""


@dataclass
class SessionLog:
    """What a driver learned over the session, for the trial's record."""

    questions: list[QuestionRecord] = field(default_factory=list)
    react_ms: float = 0.0
    """Time the harness spent deciding answers while the agent waited."""
    turns: int = 0
    """User turns sent."""
    exit_code: int | None = None
    failure: str | None = None
    """Why the agent failed, naming the cause, when its own output said so (headless)."""
    reported_usage: dict[str, dict[str, int]] = field(default_factory=dict)
    """Tokens the CLI itself reported, summed over turns."""
    reported_cost_usd: float | None = None
    stopped: str | None = None
    """Why proctor stopped the agent mid-turn (its step budget), when it did."""
    screen: str = ""
    """The final terminal screen (terminal drivers)."""
    terminal: bytes = b""
    """Every byte the agent wrote to its terminal (terminal drivers)."""
    warnings: list[str] = field(default_factory=list)
    """What the trial's record warns of, deciding nothing (a question left unanswered past the
    follow-up limit)."""

    def record(self, question: QuestionRecord) -> None:
        self.react_ms += question.latency_ms
        self.questions.append(question)


class Driver(Protocol):
    """One agent session. ``start`` waits until the agent accepts a message, ``send`` runs one
    turn, ``finish`` asks the agent to quit (after a finished turn) and collects its exit,
    ``close`` kills whatever is left (always safe, also after ``finish``)."""

    log: SessionLog
    stop_turn: threading.Event | None
    """Given by the conversation before a ``send`` (a new event each send); once it is set,
    the turn ``send`` runs ends at once, as at the deadline, and its agent's process is
    stopped (a headless turn's own; a terminal or ACP session's, which ends the session):
    ``send`` returns ``interrupted``."""

    def start(self) -> TurnOutcome: ...

    def send(self, message: str) -> TurnOutcome: ...

    def screen_excerpt(self) -> str: ...

    def finish(self, last: TurnOutcome) -> None: ...

    def close(self) -> None: ...
