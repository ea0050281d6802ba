"""One turn of an eval's conversation: what the test context keeps of it (:class:`TurnState`)
and what the test sees of it (:class:`TurnResult`, the result of ``await t.send(...)``, with
the gates of ``t`` scoped to that turn)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from proctor.agents.protocol import Question
from proctor.drive.driver import TurnOutcome
from proctor.evaluators.gates.assertions import Assertion, Handle
from proctor.evaluators.gates.matching import CallView
from proctor.evaluators.gates.snooping import ReadScope
from proctor.evaluators.gates.vocabulary import Gates
from proctor.models.trajectory import Event

if TYPE_CHECKING:
    from proctor.evals.context import TestContext


EXITED = "agent exited before its turn ended"
"""The reason of a turn the agent exited in, its exit code not known yet (a terminal
session's is known when the session ends; the verdict puts it in)."""


@dataclass
class TurnState:
    index: int
    message: str
    outcome: TurnOutcome
    events: list[Event]
    session_id: str | None
    sent: str = ""
    """The user message that started the turn."""
    diff: str | None = None
    """What changed in the workspace during the turn (unified diff)."""
    exit_code: int | None = None
    """The agent's exit code as the driver knew it when the turn ended (headless: that turn's
    process; a terminal session's is known only when the session ends)."""
    failure: str | None = None
    """Why the agent failed, as its own output said (headless, ACP), when the turn exited."""
    at: str | None = None
    """Where the test sent it (``FILE:LINE`` of the eval file), when known."""
    exit_expected: bool = False
    """The test declared the agent's exit in this turn expected (``turn.expect_exit()``): an
    exit it did not declare makes the trial ``agent-error``."""

    def agent_failure(self, of: int) -> str | None:
        """Why the agent failed in this turn (of ``of``), when it exited and the test did not
        say it expected that."""
        if self.outcome.kind != "exited" or self.exit_expected:
            return None
        if self.exit_code == 0 and not self.failure:
            return None  # it quit cleanly (the test's /exit, or its plan's end): no crash
        # Worded as a case folder's agent-error is (the agent's own failure first).
        if self.failure:
            why = self.failure
        elif self.exit_code is not None and self.exit_code != 0:
            why = f"agent exited with code {self.exit_code} before its turn ended"
        else:
            why = EXITED  # a terminal session's code is known when the session ends
        return f"{why} (turn {self.index} of {of})"


class TurnResult(Gates):
    """One turn: ``message`` (the assistant's text in it), ``events``, ``tool_calls``, ``ok``,
    ``index`` (1-based), ``session_id``; the gates of ``t`` scoped to this turn."""

    _caller = "turn."

    def __init__(self, t: TestContext, state: TurnState) -> None:
        self._t = t
        self._state = state

    @property
    def index(self) -> int:
        return self._state.index

    @property
    def message(self) -> str:
        return self._state.message

    @property
    def events(self) -> list[Event]:
        return list(self._state.events)

    @property
    def tool_calls(self) -> list[CallView]:
        return self._views()

    @property
    def ok(self) -> bool:
        return self._state.outcome.kind == "turn-end"

    @property
    def outcome(self) -> str:
        return self._state.outcome.kind

    @property
    def pending(self) -> Question | None:
        return self._state.outcome.question if self._state.outcome.kind == "unanswered" else None

    @property
    def session_id(self) -> str | None:
        return self._state.session_id

    def expect_ok(self) -> Handle:
        """Gate: this turn completed."""
        return self._gate("expect_ok()", self.ok, f"the turn ended: {self.outcome}")

    def expect_exit(self) -> Handle:
        """Gate: the agent exited (or failed) in this turn instead of completing it. Without
        it, an agent that exits in a turn makes the trial ``agent-error``; with it, the exit
        is what the test meant to provoke, and the gates decide."""
        self._state.exit_expected = True
        exited = self._state.outcome.kind == "exited"
        return self._gate("expect_exit()", exited, f"the turn ended: {self.outcome}")

    def _events(self) -> list[Event]:
        return self._state.events

    def _reply(self) -> str:
        return self._state.message

    def _outcomes(self) -> list[tuple[bool, Question | None]]:
        return [(self.ok, self.pending)]

    def _roots(self) -> tuple[str, ...]:
        return self._t._roots()

    def _read_scope(self) -> ReadScope:
        return self._t._read_scope()

    def _diff(self) -> str | None:
        return self._state.diff

    def _record(self, assertion: Assertion) -> Handle:
        assertion.turn = self.index
        assertion.name = f"turn {self.index}: {assertion.name}"
        return self._t._record(assertion)
