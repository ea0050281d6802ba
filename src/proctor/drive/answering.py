"""Answering the agent's questions by a case's written rules (``qna.md``, read by
:mod:`proctor.discover.qna`): the first rule whose pattern is found in the question answers;
when none matches, the policy goes on to a model or aborts (:mod:`proctor.drive.policy`).
"""

from __future__ import annotations

from dataclasses import dataclass

from proctor.models.case import QnaRule


@dataclass(frozen=True)
class Answer:
    text: str | None
    policy: str  # "rule" | "model" | "abort"
    rule: str | None = None


def answer_question(question: str, rules: list[QnaRule]) -> Answer:
    """Apply the policy: the first matching rule, else abort."""
    for rule in rules:
        if rule.matches(question):
            return Answer(rule.answer, "rule", f"{rule.pattern} => {rule.answer}")
    return Answer(None, "abort")
