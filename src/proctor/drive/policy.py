"""The full answering policy: ``qna.md`` rules, then the workhorse model, then abort.

The model sees the question (and its options), the policy prose of ``qna.md``, the task prompt
and the end of the agent's screen, and replies with JSON: answer it, pick an option,
approve/deny, or ``ABORT``. A model call that fails (quota, auth, network after retries) is
not an answer: it raises :class:`AnsweringFailed`, and the trial ends ``infra-error``, because
an unanswered question there says nothing about the agent.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass

from proctor.drive.answering import Answer, answer_question
from proctor.errors import ProctorError
from proctor.llm.failures import ProviderError
from proctor.llm.roles import RoleSet
from proctor.models.case import QnaRule
from proctor.util.cutting import mask_wrapped

ANSWER_SYSTEM = (
    "A coding agent working on a task has stopped to ask its user something. You answer for "
    "the user, following the user's written policy. Never invent requirements the policy and "
    "the task do not support; when you are unsure, abort. Reply with one JSON object only: "
    '{"action": "answer" | "choose" | "approve" | "deny" | "abort", "answer": "<text to type, '
    'or the exact option chosen>", "reason": "<one sentence>"}.'
)
CLASSIFY_SYSTEM = (
    "Classify the last message of a coding agent's turn. Reply with one word: question (it "
    "needs an answer from the user before it can go on), statement (it reports a result), or "
    "progress (it describes work still under way)."
)
ANSWER_MAX_TOKENS = 400
"""The answering (``workhorse``) model's reply limit, unless its ``maxOutputTokens`` is set."""
CLASSIFY_MAX_TOKENS = 5
"""The classifier's (``fast``) reply limit, one word, unless its ``maxOutputTokens`` is set."""
INTERROGATIVE = re.compile(
    r"^(should|shall|do|does|did|would|could|can|may|will|is|are|which|what|how|where|when|"
    r"who|why|want|ok|okay|proceed)\b",
    re.IGNORECASE,
)


class AnsweringFailed(ProctorError):
    """The answering model could not be reached or refused the call."""


@dataclass(frozen=True)
class PolicyAnswer:
    answer: Answer
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    reason: str = ""


@dataclass
class AnswerPolicy:
    rules: list[QnaRule]
    prose: str | None
    task: str
    roles: RoleSet | None = None

    def answer(self, question: str, options: list[str], screen: str = "") -> PolicyAnswer:
        ruled = answer_question(question, self.rules)
        if ruled.text is not None:
            return PolicyAnswer(ruled, reason=f"matched rule '{ruled.rule}'")
        if self.roles is None or not self.roles.has("workhorse"):
            return PolicyAnswer(Answer(None, "abort"), reason="no rule matched and no model")
        client = self.roles.client("workhorse")
        shown = mask_wrapped(screen)[-2000:]  # every key masked, one a line wrapped too
        user = (
            f"# The user's policy (qna.md)\n\n{self.prose or '(none given)'}\n\n"
            f"# The task\n\n{self.task}\n\n# The agent's screen (end)\n\n{shown}\n\n"
            f"# The question\n\n{question}\n\nOptions: {json.dumps(options)}\n"
        )
        started = time.monotonic()
        try:
            limit = self.roles.max_output_tokens("workhorse", ANSWER_MAX_TOKENS)
            reply = client.complete(ANSWER_SYSTEM, user, max_tokens=limit)
        except ProviderError as exc:
            raise AnsweringFailed(f"answering model {client.ref} failed: {exc}") from exc
        latency = (time.monotonic() - started) * 1000
        action, text, reason = _parse_reply(reply.text, options)
        answer = Answer(None, "abort") if action == "abort" or not text else Answer(text, "model")
        if not reason.strip():  # the model answered, or chose nothing, and said not why
            said = "answered" if answer.text is not None else "gave no answer to type"
            reason = f"the model {said}, giving no reason"
        return PolicyAnswer(
            answer, str(client.ref), reply.input_tokens, reply.output_tokens, latency, reason
        )


def _parse_reply(text: str, options: list[str]) -> tuple[str, str, str]:
    """(action, text to type, reason); anything unusable is an abort."""
    if text.strip().upper().startswith("ABORT"):
        return "abort", "", "the model said ABORT"
    match = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        data = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return "abort", "", "the model's reply was not the JSON asked for"
    action = str(data.get("action", "abort")).lower()
    answer = str(data.get("answer") or "").strip()
    reason = str(data.get("reason") or "")
    if action == "approve":
        answer = answer or _pick(options, ("yes", "allow", "approve")) or "yes"
    elif action == "deny":
        answer = answer or _pick(options, ("no", "deny", "reject")) or "no"
    elif action == "choose" and options and answer not in options:
        answer = (_pick(options, (answer.casefold(),)) if answer else None) or ""
    if action not in ("answer", "choose", "approve", "deny"):
        return "abort", "", reason or "the model chose to abort"
    return action, answer, reason


def _pick(options: list[str], words: tuple[str, ...]) -> str | None:
    """The option that is one of ``words`` (any case), else the first that starts with one of
    them as a whole word: ``no`` picks ``No, keep it`` but never ``Nope, delete it``."""
    for option in options:
        if option.strip().casefold() in words:
            return option
    for option in options:
        lowered = option.casefold()
        for word in words:
            rest = lowered[len(word) :]
            if word and lowered.startswith(word) and not rest[:1].isalnum():
                return option
    return None


OPTION_LINE = re.compile(r"^(?:\d{1,2}[.)]|[a-z][.)]|[-*•])\s+(\S.*)$", re.IGNORECASE)
"""One line of a list of options: ``1. Yes``, ``2) No``, ``a) Keep``, ``- Delete``."""


def split_options(text: str) -> tuple[str, list[str]]:
    """A message that ends in a list of two or more options (a question followed by its
    choices, as an agent asks in text when it has no question tool): the message without the
    list, and the options. Otherwise the message and no options."""
    lines = text.strip().splitlines()
    options: list[str] = []
    while lines and (match := OPTION_LINE.match(lines[-1].strip())):
        options.insert(0, match.group(1).strip())
        lines.pop()
    if len(options) < 2 or not "".join(lines).strip():
        return text.strip(), []
    return "\n".join(lines).strip(), options


def looks_like_question(text: str) -> bool | None:
    """Deterministic first: True for a clear question, False for a clear statement, None when
    it is ambiguous (a model may decide). A trailing list of options is read past: the line
    before it decides."""
    asked, _options = split_options(text)
    lines = [line.strip() for line in asked.splitlines() if line.strip()]
    if not lines:
        return False
    last = lines[-1]
    if last.endswith("?"):
        return True if INTERROGATIVE.match(last) or len(last) < 200 else None
    return None if "?" in last else False


def classify_turn_end(text: str, roles: RoleSet | None) -> tuple[bool, str]:
    """(is it a question, how it was decided: ``rule`` or ``fast`` or ``default``)."""
    verdict = looks_like_question(text)
    if verdict is not None:
        return verdict, "rule"
    if roles is None or not roles.has("fast"):
        return False, "default"
    try:
        limit = roles.max_output_tokens("fast", CLASSIFY_MAX_TOKENS)
        reply = roles.client("fast").complete(CLASSIFY_SYSTEM, text[-3000:], max_tokens=limit)
    except ProviderError:
        return False, "default"
    return reply.text.strip().lower().startswith("question"), "fast"
