"""An ACP agent's permission requests as proctor questions, and answers as the option chosen.

A request becomes a :class:`~proctor.agents.protocol.Question` whose text is the tool's name and
what the call does (``Write /work/notes.txt``, ``Bash: `rm -rf build```) and whose options are
the agent's option names (``Always Allow``, ``Allow``, ``Reject``). An answer (a ``qna.md`` rule's,
the answering model's, or the next message sent while the request is pending) picks an option
by its name, its id or its kind (``allow_once``…), or by a plain word: ``yes``/``allow``/
``approve``/``allow once`` → allow once, ``always`` → allow always, ``no``/``deny``/``reject`` →
reject once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
)

from proctor.agents.protocol import Question
from proctor.agents.terminal import APPROVE_WORDS, DENY_WORDS
from proctor.transcripts.acp import OpenCall, permission_question

WORDS: dict[str, tuple[str, ...]] = {
    "allow_once": APPROVE_WORDS,
    "allow_always": ("always", "allow always", "always allow", "yes, always"),
    "reject_once": (*DENY_WORDS, "reject once"),
    "reject_always": ("never", "reject always", "always reject"),
}
REJECTS = ("reject_once", "reject_always")


@dataclass
class PendingPermission:
    """A permission request the agent waits on: answered by resolving ``reply``."""

    question: Question
    options: list[PermissionOption]
    reply: asyncio.Future[RequestPermissionResponse]
    tool_call: dict[str, Any]


def question_for(tool_call: dict[str, Any], options: Sequence[PermissionOption]) -> Question:
    """The question a request asks (the same text the transcript's ``question`` event has)."""
    call = OpenCall(str(tool_call.get("toolCallId") or ""))
    call.merge(tool_call)
    names = [o.name for o in options]
    return Question(permission_question(call), names, call.id or None, "permission")


def choose_option(options: Sequence[PermissionOption], answer: str) -> PermissionOption | None:
    """The option ``answer`` names (see the module docstring), or None."""
    said = answer.strip().rstrip(".!").strip().casefold()
    for option in options:
        if said in (option.name.strip().casefold(), option.option_id.casefold(), str(option.kind)):
            return option
    for kind, words in WORDS.items():
        if said in words:
            found = next((o for o in options if o.kind == kind), None)
            if found is None and kind.endswith("_always"):
                found = next((o for o in options if o.kind == kind.replace("always", "once")), None)
            if found is not None:
                return found
    return None


def reject_option(options: Sequence[PermissionOption]) -> PermissionOption | None:
    return next((o for o in options if o.kind in REJECTS), None)


def response_for(option: PermissionOption | None) -> RequestPermissionResponse:
    """The reply that selects ``option``; without one, the request is cancelled."""
    if option is None:
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
    return RequestPermissionResponse(
        outcome=AllowedOutcome(option_id=option.option_id, outcome="selected")
    )
