"""Driving an agent's own terminal UI in a PTY: type each message, watch the screen until the
turn ends, answer pickers and permission prompts by the policy on the way."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, BinaryIO

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch, NotChosen, Question
from proctor.drive.budget import BudgetWatch
from proctor.drive.driver import SessionLog, TurnOutcome
from proctor.drive.policy import AnswerPolicy
from proctor.drive.pty_session import PtySession
from proctor.drive.questions import decide
from proctor.models.trial import ANSWERED_BY_CONVERSATION, QuestionRecord
from proctor.util.cutting import mask_wrapped

SCREEN_EXCERPT_LINES = 12
EXIT_GRACE_SEC = 10.0
"""How long a terminal program asked to quit after its turn (``/quit``) may take to exit. The
pinned CLIs exit within a second on an idle machine; Gemini CLI, on a machine busy with other
trials (two CPUs, a test suite beside it), once took more than 3 s and its trial was an
agent-error. A program that has exited is not waited for: the margin costs only a program that
never exits."""
SAME_QUESTION_ANSWERS = 3
"""How many times a question the program does not number is answered while it stays on screen
unchanged (a key the program dropped is pressed again) before the turn ends ``unanswered``."""


class TerminalDriver:
    def __init__(
        self,
        adapter: AgentAdapter[Any],
        launch: Launch[Any],
        policy: AnswerPolicy,
        deadline: float,
        mirror: BinaryIO | None = None,
        watch: BudgetWatch | None = None,
    ) -> None:
        self.adapter = adapter
        self.watch = watch
        self.launch = launch
        self.policy = policy
        self.deadline = deadline
        self.mirror = mirror
        self.log = SessionLog()
        self.stop_turn: threading.Event | None = None
        self.session: PtySession | None = None
        self.turns_done = 0
        self.answered = 0
        self.still: tuple[Question, int] | None = None
        """A question the program does not number that was still pending, unchanged, once its
        answer was given, with how many times it was answered; None once anything else shows.
        Shown again, it is the same question, not a new one to record."""

    def _terminal(self) -> PtySession:
        if self.session is None:
            self.session = PtySession(
                self.launch.argv, cwd=self.launch.cwd, env=self.launch.env, mirror=self.mirror
            )
        return self.session

    def screen_excerpt(self) -> str:
        if self.session is None:
            return ""
        lines = self.session.screen_text().rstrip("\n").splitlines()
        return "\n".join(lines[-SCREEN_EXCERPT_LINES:])

    def start(self) -> TurnOutcome:
        """Start the program and wait until it shows that it accepts a message."""
        session = self._terminal()
        ready = session.wait_until(
            lambda: self.adapter.state(session, self.launch).kind == "ready", self.deadline
        )
        if ready:
            return TurnOutcome("turn-end")
        return TurnOutcome("exited" if session.eof else "timeout")

    def send(self, message: str) -> TurnOutcome:
        """Type ``message``; return when the turn ends, the agent exits, time runs out, or a
        question cannot be answered by the policy."""
        session = self._terminal()
        started = time.monotonic()
        target = self.turns_done + 1
        self.log.turns += 1
        pending = self._answer_pending(session, message)
        if isinstance(pending, TurnOutcome):
            return pending
        if not pending:
            self.adapter.send_message(session, self.launch, message)
        while True:
            state = self.adapter.state(session, self.launch)
            if state.kind != "question":
                self.still = None
            if state.kind == "ready" and state.turns >= target:
                self.turns_done = state.turns
                return TurnOutcome("turn-end", elapsed_ms=(time.monotonic() - started) * 1000)
            # The deadline and the budget before a question: a picker that keeps coming back
            # (a new one at each answer) must not hold the turn past them.
            if time.monotonic() >= self.deadline:
                return TurnOutcome("timeout")
            if self.stop_turn is not None and self.stop_turn.is_set():
                session.kill()  # (a terminal has no way to stop a turn every agent knows)
                return TurnOutcome("interrupted", elapsed_ms=(time.monotonic() - started) * 1000)
            if self.watch is not None and self.watch.check() is not None:
                self.log.stopped = self.watch.stopped
                session.kill()
                return TurnOutcome("over-budget", elapsed_ms=(time.monotonic() - started) * 1000)
            if state.kind == "question" and (state.question == 0 or state.question > self.answered):
                outcome = self._answer(session, state.question)
                if outcome is not None:
                    return outcome
                continue
            wait = min(0.05, max(self.deadline - time.monotonic(), 0))
            if not session.pump(wait) and session.eof:
                return TurnOutcome("exited")

    def _answer_pending(self, session: PtySession, message: str) -> bool | TurnOutcome:
        """When the agent waits on a question nobody answered (an earlier ``send`` returned
        ``unanswered``), ``message`` is the answer: the same turn goes on. An ``unanswered``
        outcome when ``message`` names none of the picker's options or the picker did not
        take it."""
        state = self.adapter.state(session, self.launch)
        if state.kind != "question":
            return False
        question = self.adapter.pending_question(session, self.launch, self.deadline)
        if question is None:
            return False
        record = QuestionRecord(  # masked as the policy's record of it is (see question_record)
            question=mask_wrapped(question.text),
            options=[mask_wrapped(option) for option in question.options],
            answer=message,
            policy="rule",
            rule=ANSWERED_BY_CONVERSATION,
            where="mid-turn",
            kind=question.kind,
            tool_call_id=question.id,
            reason="the conversation's next message answered it",
        )
        failed = self._give(session, question, record, message)
        if failed is not None:
            return failed
        self.log.record(record)
        self.answered = state.question
        self._note_still(session, question, state.question, 1)
        return True

    def _answer(self, session: PtySession, index: int) -> TurnOutcome | None:
        question = self.adapter.pending_question(session, self.launch, self.deadline)
        if question is None:
            return None
        if index == 0 and self.still is not None and self.still[0] == question:
            return self._answer_again(session, question, self.still[1])
        record = decide(self.policy, question, "mid-turn", self.screen_excerpt())
        if record.answer is None:
            self.log.record(record)
            return TurnOutcome("unanswered", question=question)
        failed = self._give(session, question, record, record.answer)
        if failed is not None:
            return failed
        self.log.record(record)
        self.answered = index
        self._note_still(session, question, index, 1)
        return None

    def _note_still(self, session: PtySession, question: Question, index: int, times: int) -> None:
        """Remember an unnumbered ``question`` answered ``times`` times when the program still
        asks it once the answer was given (the adapter waits for the answer to show)."""
        asked = index == 0 and self.adapter.state(session, self.launch).kind == "question"
        shown = (
            self.adapter.pending_question(session, self.launch, self.deadline) if asked else None
        )
        self.still = (question, times) if shown == question else None

    def _answer_again(
        self, session: PtySession, question: Question, times: int
    ) -> TurnOutcome | None:
        """The question answered last is still on screen, unchanged, with nothing else shown
        since: the same question (its answer did not take), recorded once. It is answered again
        with the answer recorded, until it was answered :data:`SAME_QUESTION_ANSWERS` times;
        then its record says the answer did not take and the turn ends ``unanswered``, as it
        does at once when an answer given again is not chosen (:class:`NotChosen`, its reason
        said)."""
        record = self.log.questions[-1]
        answer = json.dumps(record.answer, ensure_ascii=False)
        detail = (
            f"the answer {answer} did not take: the question was still shown after {_tries(times)}"
        )
        if times < SAME_QUESTION_ANSWERS and record.answer is not None:
            try:
                self.adapter.answer(session, self.launch, question, record.answer)
            except NotChosen as failure:
                detail = f"the answer {answer} did not take after {_tries(times + 1)}: {failure}"
            else:
                self._note_still(session, question, 0, times + 1)
                return None
        self.log.questions[-1] = record.model_copy(
            update={
                "answer": None,
                "policy": "abort",
                "reason": f"{detail}; nothing more was pressed",
            }
        )
        self.still = None
        return TurnOutcome("unanswered", question=question, detail=detail)

    def _give(
        self, session: PtySession, question: Question, record: QuestionRecord, answer: str
    ) -> TurnOutcome | None:
        """Answer the question with ``answer`` (the record's); the ``unanswered`` outcome, with the
        question recorded once as unanswered, when the picker did not take it (an answer that
        names none of its options, or one the screen did not take: the picker is not answered
        again at each look at it)."""
        try:
            if self.adapter.answer(session, self.launch, question, answer):
                return None
        except NotChosen as failure:
            detail = (
                f"the answer {json.dumps(answer, ensure_ascii=False)} was not chosen: {failure}"
            )
            return self._unanswered(record, question, detail)
        return self._not_an_option(record, question)

    def _not_an_option(self, record: QuestionRecord, question: Question) -> TurnOutcome:
        """An answer that names none of a picker's options (``Deny`` on ``Yes, proceed`` and
        ``No, …``) chooses nothing: guessing one could approve what the policy refused. The
        question is recorded unanswered, with the answer given in its reason."""
        detail = (
            f"the answer {json.dumps(record.answer, ensure_ascii=False)} is none of its options "
            f"({', '.join(json.dumps(o, ensure_ascii=False) for o in question.options)})"
        )
        return self._unanswered(record, question, detail, "; nothing was chosen")

    def _unanswered(
        self, record: QuestionRecord, question: Question, detail: str, more: str = ""
    ) -> TurnOutcome:
        """Record the question unanswered, ``detail`` (and ``more``) its reason."""
        self.log.record(
            record.model_copy(update={"answer": None, "policy": "abort", "reason": detail + more})
        )
        return TurnOutcome("unanswered", question=question, detail=detail)

    def finish(self, last: TurnOutcome) -> None:
        """After a finished turn, ask the program to quit; collect its exit code, the final
        screen and the raw terminal stream."""
        session = self.session
        if session is None:
            return
        self.log.screen = session.screen_text()
        if last.kind == "turn-end":
            self.adapter.request_exit(session, self.launch)
            self.log.exit_code = session.wait_exit(time.monotonic() + EXIT_GRACE_SEC)
        elif last.kind == "exited":
            self.log.exit_code = session.wait_exit(time.monotonic() + EXIT_GRACE_SEC)
        if last.kind not in ("over-budget", "interrupted"):  # that session is killed already
            session.pump(0)
        self.close()

    def close(self) -> None:
        """Kill the program. A session cut short before :meth:`finish` (Ctrl-C, an error)
        keeps its screen as it was then, and the bytes it had written, for the trial folder."""
        session = self.session
        if session is None:
            return
        if not self.log.screen:
            try:
                session.pump(0)  # what the program wrote last, not yet read
            except (OSError, ValueError):
                pass
            self.log.screen = session.screen_text()
        session.kill()
        self.log.terminal = bytes(session.raw)


def _tries(count: int) -> str:
    """``1 try``, ``3 tries``."""
    return f"{count} {'try' if count == 1 else 'tries'}"
