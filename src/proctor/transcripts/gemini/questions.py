"""The questions a Gemini CLI ``ask_user`` call asks, and what its result answers.

The call gives a ``question`` event for each of its ``questions``, and its ``success`` or
refused result an ``answer`` event for each, in the same order: the answer its output holds
under the question's index (see :func:`ask_user_answers`), else the output (a refusal's, for
each question, as Claude Code's are).
"""

from __future__ import annotations

import json
from typing import Any

from proctor.transcripts.kinds import answers_in, numbered_questions, questions_of


def ask_user_answers(indices: list[int], output: str) -> list[str | None]:
    """What the result of an ``ask_user`` call says was answered to each of its questions, in
    order, the questions at ``indices`` in its ``questions`` (an entry that is not a question
    object asks none, yet holds its place). Gemini CLI 0.61 writes its answers as the output
    ``{"answers": {"0": "Blue", "1": "Medium, please"}}``, each under its question's index, and
    leaves out a question that was not answered: None for that one, and for every question when
    the output is not such an object (``User dismissed ask_user dialog without answering.``).
    An answer that is not a string is given as its JSON."""
    answers = answers_in(output)
    if answers is None:
        return [None] * len(indices)
    given = [answers.get(str(index)) for index in indices]
    return [g if g is None or isinstance(g, str) else json.dumps(g) for g in given]


class AskedQuestions:
    """The ``ask_user`` calls of a chat whose result is still to come: the index in its
    ``questions`` of each question a call asks, in order, by the call's id."""

    def __init__(self) -> None:
        self.indices: dict[str, list[int]] = {}

    def asked(self, call_id: str, args: dict[str, Any]) -> list[tuple[str, list[str]]]:
        """The text and options of each question the call asks, in order."""
        self.indices[call_id] = [index for index, _ in numbered_questions(args)]
        return questions_of(args)

    def answers(self, call_id: str, output: str) -> list[str]:
        """The text of each question's ``answer`` event, for a call that succeeded or was
        refused, in the order asked: the answer its output holds under the question's index,
        else the output itself (a refused call's, ``[Operation Cancelled] Reason: User denied
        execution.`` when the picker was dismissed with Esc, answers each of its questions, its
        result's ``denied`` saying so)."""
        return [
            given or output for given in ask_user_answers(self.indices.pop(call_id, [0]), output)
        ]
