"""Every line of ``questions.jsonl`` says why the policy answered so, or aborted: a rule's
answer had an empty ``reason``, and so had a model's answer that gave no sentence of its own."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.drive.policy import AnswerPolicy
from proctor.llm.client import Completion
from proctor.llm.refs import ModelRef
from proctor.llm.roles import RoleSet
from proctor.models.case import QnaRule

RULES = [QnaRule(pattern="(?i)readme", answer="No", line=6)]


class _Client:
    def __init__(self, ref: ModelRef, reply: str) -> None:
        self.ref, self.reply = ref, reply
        self.deadline: float | None = None

    def complete(self, system: str, user: str, **_: Any) -> Completion:
        return Completion(self.reply, str(self.ref))


def _policy(reply: str | None, rules: list[QnaRule] = RULES) -> AnswerPolicy:
    if reply is None:
        return AnswerPolicy(rules=rules, prose=None, task="t")
    ref = ModelRef("openai", "o4-mini")
    roles = RoleSet(refs={"workhorse": ref})
    roles._clients[f"workhorse:{ref}"] = _Client(ref, reply)  # type: ignore[assignment]
    return AnswerPolicy(rules=rules, prose=None, task="t", roles=roles)


def test_a_rule_s_answer_says_which_rule_matched() -> None:
    decided = _policy(None).answer("Should I also update the README?", ["Yes", "No"])
    assert (decided.answer.text, decided.answer.policy) == ("No", "rule")
    assert decided.reason == "matched rule '(?i)readme => No'"


@pytest.mark.parametrize(
    ("reply", "policy", "reason"),
    [
        ('{"action": "answer", "answer": "SQLite"}', "model", "the model answered, giving no "),
        ('{"action": "answer", "answer": "SQLite", "reason": "the task says so"}', "model", "the "),
        ('{"action": "choose", "answer": "Maybe"}', "abort", "the model gave no answer to type"),
        ("ABORT", "abort", "the model said ABORT"),
        ("not json", "abort", "the model's reply was not the JSON asked for"),
    ],
)
def test_every_answer_of_the_model_has_a_reason(reply: str, policy: str, reason: str) -> None:
    decided = _policy(reply).answer("Which database?", ["Postgres", "MySQL"])
    assert decided.answer.policy == policy
    assert decided.reason.startswith(reason), decided.reason


def test_no_rule_and_no_model_says_so() -> None:
    decided = _policy(None).answer("Which database?", [])
    assert decided.answer.policy == "abort" and decided.reason == "no rule matched and no model"
