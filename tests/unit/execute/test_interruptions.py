"""A question that parked a turn and that the conversation's next message answered is one
interruption, however its text reads: the policy's record of it has every registered key
masked, and the conversation's record is told apart from another question by its masked
text too."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.drive.driver import SessionLog
from proctor.drive.policy import Answer, PolicyAnswer
from proctor.drive.questions import Question, question_record
from proctor.execute.driving import Driven
from proctor.models.trial import ANSWERED_BY_CONVERSATION, QuestionRecord
from proctor.util import masking
from proctor.util.masking import register_secret

KEY = "sk-ant-api03-PARKEDQUESTIONKEY0123456789abcdef"


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(masking, "_SECRETS", set())
    register_secret(KEY)


def _driven(questions: list[QuestionRecord]) -> Driven:
    log = SessionLog(questions=questions)
    return Driven(outcome=None, log=log, launch=None)  # type: ignore[arg-type]


def _answered(text: str, **fields: Any) -> QuestionRecord:
    return QuestionRecord(
        question=text,
        options=["Yes", "No"],
        answer="Yes",
        policy="rule",
        rule=ANSWERED_BY_CONVERSATION,
        where="mid-turn",
        **fields,
    )


def test_a_parked_question_holding_a_key_counts_once() -> None:
    text = f'Allow Bash: curl -H "x-api-key: {KEY}"'
    parked = question_record(
        Question(text, ["Yes", "No"]), PolicyAnswer(Answer(None, "abort")), 0, "mid-turn"
    )
    assert KEY not in parked.question
    assert _driven([parked, _answered(text)]).interruptions == 1


def test_control_two_questions_count_twice() -> None:
    parked = question_record(
        Question("Deploy where?", ["Yes", "No"]), PolicyAnswer(Answer(None, "abort")), 0, "mid-turn"
    )
    assert _driven([parked, _answered("Another question?")]).interruptions == 2
