"""Driving an agent through a conversation: send a message, wait for the turn to end, answer
questions on the way. This is the basic operation; a single-prompt case is one ``send``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from proctor.agents.base import AgentAdapter, Launch, Question
from proctor.drive.policy import PolicyAnswer
from proctor.drive.pty_session import PtySession
from proctor.models.trial import QuestionRecord

SCREEN_EXCERPT_LINES = 12


def question_record(
    question: Question,
    decided: PolicyAnswer,
    latency_ms: float,
    where: str = "turn-end",
    screen: str = "",
) -> QuestionRecord:
    """One line of ``questions.jsonl``: the question and how the policy answered it."""
    return QuestionRecord(
        question=question.text,
        options=question.options,
        answer=decided.answer.text,
        policy=decided.answer.policy,
        rule=decided.answer.rule,
        screen=screen,
        latency_ms=round(latency_ms, 3),
        where=where,
        model=decided.model,
        input_tokens=decided.input_tokens,
        output_tokens=decided.output_tokens,
        reason=decided.reason,
    )


@dataclass
class TurnOutcome:
    kind: Literal["turn-end", "exited", "timeout", "unanswered"]
    question: Question | None = None
    elapsed_ms: float = 0.0


@dataclass
class Conversation:
    adapter: AgentAdapter
    launch: Launch
    session: PtySession
    answerer: Callable[[Question, str], PolicyAnswer]
    turns: int = 0
    answered: int = 0
    questions: list[QuestionRecord] = field(default_factory=list)
    react_ms: float = 0.0
    """Time the harness spent reacting (deciding answers), excluded from the agent's time."""

    def _screen_excerpt(self) -> str:
        lines = self.session.screen_text().rstrip("\n").splitlines()
        return "\n".join(lines[-SCREEN_EXCERPT_LINES:])

    def wait_ready(self, deadline: float) -> TurnOutcome:
        """Wait for the agent to show that it accepts a message."""
        ok = self.session.wait_until(
            lambda: self.adapter.state(self.session, self.launch).kind == "ready", deadline
        )
        if ok:
            return TurnOutcome("turn-end")
        return TurnOutcome("exited" if self.session.eof else "timeout")

    def send(self, message: str, deadline: float) -> TurnOutcome:
        """Type ``message``; return when the turn ends, the agent exits, time runs out, or a
        question cannot be answered by the policy."""
        started = time.monotonic()
        target = self.turns + 1
        self.adapter.send_message(self.session, message)
        while True:
            state = self.adapter.state(self.session, self.launch)
            if state.kind == "ready" and state.turns >= target:
                self.turns = state.turns
                return TurnOutcome("turn-end", elapsed_ms=(time.monotonic() - started) * 1000)
            if state.kind == "question" and state.question > self.answered:
                outcome = self._answer(state.question)
                if outcome is not None:
                    return outcome
                continue
            if time.monotonic() >= deadline:
                return TurnOutcome("timeout")
            wait = min(0.05, max(deadline - time.monotonic(), 0))
            if not self.session.pump(wait) and self.session.eof:
                return TurnOutcome("exited")

    def _answer(self, index: int) -> TurnOutcome | None:
        t0 = time.monotonic()
        question = self.adapter.pending_question(self.session, self.launch)
        if question is None:
            return None
        screen = self._screen_excerpt()
        decided = self.answerer(question, screen)
        self.record(question, decided, screen, (time.monotonic() - t0) * 1000, "mid-turn")
        if decided.answer.text is None:
            return TurnOutcome("unanswered", question=question)
        self.adapter.answer(self.session, question, decided.answer.text)
        self.adapter.note_answered(self.launch)
        self.answered = index
        return None

    def record(
        self, question: Question, decided: PolicyAnswer, screen: str, latency: float, where: str
    ) -> None:
        self.react_ms += latency
        self.questions.append(question_record(question, decided, latency, where, screen))
