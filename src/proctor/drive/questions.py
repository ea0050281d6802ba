"""Deciding a question the agent asked, and the line it leaves in ``questions.jsonl``."""

from __future__ import annotations

import time
from typing import Literal

from proctor.agents.protocol import Question
from proctor.drive.policy import AnswerPolicy, PolicyAnswer
from proctor.models.trial import QuestionRecord

Where = Literal["mid-turn", "turn-end"]


def question_record(
    question: Question,
    decided: PolicyAnswer,
    latency_ms: float,
    where: Where = "turn-end",
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


def decide(policy: AnswerPolicy, question: Question, where: Where, screen: str) -> QuestionRecord:
    """Ask the policy, timing how long the harness took to decide."""
    started = time.monotonic()
    decided = policy.answer(question.text, question.options, screen)
    return question_record(question, decided, (time.monotonic() - started) * 1000, where, screen)
