"""The one follow-up loop, for every driver: send the first message, and while the agent ends
its turn with a question the policy can answer, send the answer as the next message; then the
case's ``followUps``, each a further user turn answered the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proctor.agents.base import AgentAdapter
from proctor.agents.gemini_cli import said_turn_limit
from proctor.agents.protocol import Launch, Question
from proctor.drive.driver import Driver, TurnOutcome
from proctor.drive.policy import AnswerPolicy, classify_turn_end, split_options
from proctor.drive.questions import decide
from proctor.llm.roles import RoleSet

MAX_FOLLOWUPS = 3
"""Answers sent as new turns per user message, at most (an agent asking forever is cut off)."""


def turn_end_question(
    adapter: AgentAdapter[Any], launch: Launch[Any], roles: RoleSet | None
) -> Question | None:
    """The free-text question the agent ended its last turn with, if it did."""
    files = adapter.transcript_files(launch)
    if not files:
        return None
    events = adapter.parse(files[0]).events
    last_user = max((i for i, e in enumerate(events) if e.type == "user_message"), default=-1)
    texts = [e.text for e in events[last_user + 1 :] if e.type == "assistant_text" and e.text]
    if not texts:
        return None
    is_question, _how = classify_turn_end(texts[-1], roles)
    if not is_question:
        return None
    asked, options = split_options(texts[-1])
    return Question(asked, options)


def converse(
    driver: Driver,
    message: str,
    *,
    adapter: AgentAdapter[Any],
    launch: Launch[Any],
    policy: AnswerPolicy,
    roles: RoleSet | None,
    follow_ups: Sequence[str] = (),
) -> TurnOutcome:
    """Start the agent, send ``message``, then answer turn-end questions (at most
    :data:`MAX_FOLLOWUPS` per user message); then each of ``follow_ups`` the same way, each only
    when the turn before it ended normally. The outcome of the last turn."""
    outcome = driver.start()
    if outcome.kind != "turn-end":
        return outcome
    for number, text in enumerate([message, *follow_ups]):
        if outcome.kind != "turn-end":
            break
        if number and _stopped_at_turn_limit(adapter, launch):
            break  # the CLI ended the session itself (maxTurns): it takes no further prompt
        outcome = _turn(driver, text, adapter=adapter, launch=launch, policy=policy, roles=roles)
    return outcome


def _stopped_at_turn_limit(adapter: AgentAdapter[Any], launch: Launch[Any]) -> bool:
    """Whether the agent's transcript says it stopped the session at its turn limit."""
    files = adapter.transcript_files(launch)
    return bool(files) and said_turn_limit(adapter.parse(files[0]).events)


def _turn(
    driver: Driver,
    message: str,
    *,
    adapter: AgentAdapter[Any],
    launch: Launch[Any],
    policy: AnswerPolicy,
    roles: RoleSet | None,
) -> TurnOutcome:
    """One user message, and the answers to the questions the agent ends its turns with."""
    outcome = driver.send(message)
    for _ in range(MAX_FOLLOWUPS):
        if outcome.kind != "turn-end":
            break
        question = turn_end_question(adapter, launch, roles)
        if question is None:
            break
        record = decide(policy, question, "turn-end", driver.screen_excerpt())
        driver.log.record(record)
        if record.answer is None:
            return TurnOutcome("unanswered", question=question)
        outcome = driver.send(record.answer)
    else:
        question = turn_end_question(adapter, launch, roles) if outcome.kind == "turn-end" else None
        if question is not None:
            driver.log.warnings.append(
                f"the agent ended its turn with a question after {MAX_FOLLOWUPS} answered ones "
                f"to one message, the most proctor answers; left unanswered: {question.text}"
            )
    return outcome
