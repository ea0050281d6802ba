"""What a Gemini CLI chat's records say: a message's text, a tool's output, a response's
tokens, and whether a call that failed was refused (a denial) rather than run."""

from __future__ import annotations

import json
import re
from typing import Any

from proctor.transcripts.builder import token_count

TEXT_CAP = 2000
"""The most characters of a text kept where an event caps it (an error, an answer)."""
REFUSAL = re.compile(
    r"Tool execution denied by policy\."
    r'|Tool execution for "[^\n]*?" (?:denied by policy\.|requires user confirmation, which is not'
    r" supported in non-interactive mode\.)"
    r"|\[Operation Cancelled\] "
)
"""How Gemini CLI 0.61 begins the answer to a call it refused, which is the whole of the
output (``response.error``): a policy's ``deny`` (``Tool execution denied by policy.``, then
the rule's ``denyMessage``), a tool's own check of the policy (``Tool execution for "NAME"
denied by policy.``), a call that would need a confirmation, headless (``… requires user
confirmation, which is not supported in non-interactive mode.``), and the scheduler's
cancelled answer (``[Operation Cancelled] Reason: User did not allow tool call``, ``…
User cancelled tool execution.``; its status is ``cancelled``, a denial whatever it says).
Only at the start: a tool's own output or error that says these words later (a shell
command's, a file's) is not a refusal."""
HOOK_REFUSALS = ("Tool execution blocked: ", "Agent execution stopped by hook: ")
"""How Gemini CLI 0.61 answers a call a ``BeforeTool`` hook refused (exit code 2, or
``decision: "deny"``/``"block"``), or at which it stopped the agent (``continue: false``): the
tool did not run (a denial, not an error)."""


USER_CANCELLED = re.compile(
    r"\[Operation Cancelled\] (?:Reason: )?"
    r"(?:User cancelled tool execution\.|Operation cancelled(?:\.| by user))"
)
"""How Gemini CLI 0.61 answers the calls it cancelled because the person pressed Esc or Ctrl-C
while they ran or waited (``[Operation Cancelled] User cancelled tool execution.``, ``…
Operation cancelled.``, ``… Reason: Operation cancelled by user``): its record of an
interrupted turn (what it shows, ``Request cancelled.``, is not in the chat). A call the person
refused at its prompt (``… Reason: User denied execution.``) and the calls queued behind it
(``… Reason: User cancelled operation``) are denials, not an interruption."""
GEMINI_CANCELLED = "Request cancelled."
"""The ``info`` message Gemini CLI shows when the person cancels a request."""


def cancelled_by_user(output: str) -> bool:
    """Whether a call's answer says the person interrupted the turn (see
    :data:`USER_CANCELLED`)."""
    return USER_CANCELLED.match(output) is not None


def refused(output: str) -> bool:
    """Whether a call whose status is ``error`` was refused, by the user, a policy or a
    ``BeforeTool`` hook (whose answer begins the output: see :data:`REFUSAL`), rather than
    run and failed."""
    return REFUSAL.match(output) is not None or output.startswith(HOOK_REFUSALS)


def parts_text(content: Any) -> str:
    """Text of a ``PartListUnion``: a string, one part or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    texts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
        ):
            texts.append(part["text"])
    return "\n".join(texts)


def result_text(result: Any, display: Any) -> str:
    """What the tool returned: ``functionResponse.response`` output/error, else the display."""
    texts = []
    parts = [result] if isinstance(result, dict) else result
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        response = (part.get("functionResponse") or {}).get("response")
        if isinstance(response, dict):
            value = response.get("output", response.get("error", response.get("llmContent")))
            texts.append(value if isinstance(value, str) else json.dumps(response))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    if not texts and isinstance(display, str):
        texts.append(display)
    return "\n".join(texts)


def gemini_usage(tokens: dict[str, Any]) -> tuple[int, int, int]:
    """(input, output, cache read) with cached tokens taken out of the input."""
    cached = token_count(tokens.get("cached"))
    prompt = token_count(tokens.get("input"))
    inputs = prompt - min(cached, prompt) + token_count(tokens.get("tool"))
    return inputs, token_count(tokens.get("output")) + token_count(tokens.get("thoughts")), cached
