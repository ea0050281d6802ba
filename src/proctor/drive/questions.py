"""Deciding a question the agent asked, and the line it leaves in ``questions.jsonl``."""

from __future__ import annotations

import time
from typing import Literal

from proctor.agents.protocol import Question
from proctor.drive.policy import AnswerPolicy, PolicyAnswer
from proctor.models.trial import QuestionRecord
from proctor.util.cutting import mask_wrapped

Where = Literal["mid-turn", "turn-end"]


def question_record(
    question: Question,
    decided: PolicyAnswer,
    latency_ms: float,
    where: Where = "turn-end",
    screen: str = "",
) -> QuestionRecord:
    """One line of ``questions.jsonl``: the question and how the policy answered it. Each
    text read from the screen has every registered key masked, one the terminal wrapped over
    two lines too (the file's own masking finds whole keys only)."""
    return QuestionRecord(
        question=mask_wrapped(question.text),
        options=[mask_wrapped(option) for option in question.options],
        answer=decided.answer.text,
        policy=decided.answer.policy,
        rule=decided.answer.rule,
        screen=mask_wrapped(screen),
        latency_ms=round(latency_ms, 3),
        where=where,
        kind=question.kind,
        tool_call_id=question.id,
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
