"""The questions a Codex ``request_user_input`` call asks, and what its result answers.

The call gives a ``question`` event for each of its ``questions``, and its result, unless an
error that asked nothing, an ``answer`` event for each, in the same order: the answers its
output holds under the question's ``id`` (see :func:`answers_to`), else the output (a refused
or cancelled call's, for each question, as Claude Code's and Gemini CLI's are). Its output
states no exit code, and Codex does not write the ``success`` it gives the model with it: an
output that is the answers object (the only one a call answered gives) is a success
(``isError`` false); one cancelled before receiving a response (the turn interrupted while the
picker was up) a denial, as a Gemini CLI picker dismissed with Esc is; any other of the
sentences Codex writes for a failure, which name the tool first (:data:`QUESTION_FAILED`:
unavailable, options missing), an error.
"""

from __future__ import annotations

from typing import Any

from proctor.transcripts.kinds import answers_in, asked_questions, questions_of

QUESTION_FAILED = "request_user_input "
"""How Codex begins each failure of a ``request_user_input`` call it answers the model with:
the tool's name, then what went wrong (``is unavailable in Default mode``, ``requires non-empty
options for every question``, ``was cancelled before receiving a response``)."""
QUESTION_CANCELLED = "request_user_input was cancelled before receiving a response"
"""How Codex answers a ``request_user_input`` call whose questions got no response: the turn
was interrupted while they were asked (Esc or Ctrl-C on the picker interrupts it). The user
dismissed the question: a denial, as a Gemini CLI picker left with Esc is."""


def _response(output: str) -> dict[str, Any] | None:
    """The answers of a ``request_user_input`` call's output when it is the response Codex
    writes for a call answered, ``{"answers": {"<id>": {"answers": ["Blue"]}}}`` (its
    RequestUserInputResponse, the only output of a call that succeeded: each failure is a
    sentence, ``request_user_input is unavailable in Default mode``); else None."""
    return answers_in(output)


def _question_failed(output: str) -> bool:
    """Whether a ``request_user_input`` call's output is a failure Codex writes (see
    :data:`QUESTION_FAILED`: ``request_user_input is unavailable in Default mode``). An answer
    that holds the word (``{"answers": {"c": {"answers": ["Unavailable"]}}}``) is none."""
    return output.startswith(QUESTION_FAILED)


def answers_to(ids: list[str | None], output: str) -> list[str | None]:
    """What a ``request_user_input`` call's output says was answered to each of its questions
    (their ``id``s, in order): Codex writes ``{"answers": {"<id>": {"answers": ["Blue"]}}}``,
    the labels chosen (and a note typed, ``user_note: …``) under each question's id, given
    here joined by ``, ``; None for a question it holds none for, and for every question when
    the output is not such an object (see :func:`_response`)."""
    answers = _response(output)
    if answers is None:
        return [None] * len(ids)
    given = []
    for question in ids:
        answer = answers.get(question) if question is not None else None
        chosen = answer.get("answers") if isinstance(answer, dict) else None
        texts = [c for c in chosen if isinstance(c, str)] if isinstance(chosen, list) else []
        given.append(", ".join(texts) or None)
    return given


def question_verdict(text: str, is_error: bool | None, denied: bool) -> tuple[bool | None, bool]:
    """``(isError, denied)`` of a ``request_user_input`` call's result with output ``text``,
    from what the call's statuses said before it (see the module docstring)."""
    if text.startswith(QUESTION_CANCELLED):
        return False, True  # dismissed, as Gemini CLI's picker left with Esc
    if not denied and _question_failed(text):
        return True, denied
    if not denied and is_error is None and _response(text) is not None:
        return False, denied  # answered: the output no failure of the call writes
    return is_error, denied


class QuestionCalls:
    """The ``request_user_input`` calls of a rollout: the ids of each one's questions, in
    order, by the call's id."""

    def __init__(self) -> None:
        self.ids: dict[str, list[str | None]] = {}

    def __contains__(self, call_id: str) -> bool:
        return call_id in self.ids

    def asked(self, call_id: str, arguments: dict[str, Any]) -> list[tuple[str, list[str]]]:
        """The text and options of each question the call asks, in order."""
        ids = [q.get("id") for q in asked_questions(arguments)]
        self.ids[call_id] = [i if isinstance(i, str) else None for i in ids]
        return questions_of(arguments)

    def answers(self, call_id: str, text: str) -> list[str]:
        """The text of each question's ``answer`` event, given the call's result was answered,
        refused or cancelled: the answer the output ``text`` holds for it, else ``text``."""
        return [given or text for given in answers_to(self.ids[call_id], text)]
