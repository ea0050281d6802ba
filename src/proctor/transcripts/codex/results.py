"""What the result of a Codex call says: its output, and whether the call failed or was denied.

Calls pair with results by ``call_id``. ``isError`` comes from the structured status of the
same call when the rollout has one (``item_completed`` CommandExecution/FileChange/McpToolCall,
older ``exec_command_end``/``patch_apply_end``/``mcp_tool_call_end``, read by :mod:`.facts`),
else from the output text ("Process exited with code N", "Exit code: N", JSON
``metadata.exit_code``), else it is None (unknown). "approval policy is Never; reject command",
"aborted by user" and "rejected by user" outputs, and ``declined`` statuses, are denials
(``denied`` true, ``isError`` false). A ``request_user_input`` call's output is judged as
:mod:`.questions` says. Tools the API runs itself (``tool_search``, web search, image
generation) write their result as an item of their own, with a status.
"""

from __future__ import annotations

from typing import Any

from proctor.transcripts.codex.facts import KILLED, Status, status_after, status_before
from proctor.transcripts.codex.questions import question_verdict
from proctor.transcripts.codex.shapes import _exit_code, _is_denial, _unwrap_output

UNSUPPORTED_CALL = "unsupported call: "
PATCH_REFUSED = "apply_patch verification failed"
"""How Codex answers a patch it could not apply (lines it expected are not in the file, a
body it cannot read): no exit code, no status item, and no file changed."""
STATUS_EVENTS = frozenset({"exec_command_end", "patch_apply_end", "mcp_tool_call_end"})
"""The older event messages that give a call's structured status."""


def output_of(item: dict[str, Any]) -> tuple[str, int | None]:
    """The text of a ``function_call_output`` (or custom one) and the exit code it states."""
    text, code = _unwrap_output(item.get("output"))
    return text, _exit_code(text) if code is None else code


def ended_output(status: dict[str, Any]) -> tuple[str, int | None]:
    """The output and exit code of a command, from the structured status Codex wrote when it
    ended (``exec_command_end``, ``item_completed`` CommandExecution)."""
    output = status.get("aggregated_output")
    if not isinstance(output, str):
        output = status.get("formatted_output")
    code = status.get("exit_code")
    return (output if isinstance(output, str) else ""), (code if type(code) is int else None)


def verdict(
    text: str,
    code: int | None,
    before: Status | None,
    after: list[Status],
    question: bool = False,
) -> tuple[bool | None, bool]:
    """``(isError, denied)`` of a call's result: its output ``text`` and the exit code ``code``
    it states (:data:`~.facts.KILLED`, a process killed before it ended, says nothing), the
    structured statuses of the call before and after the output, and, for a ``question`` call,
    what its output says (see :func:`.questions.question_verdict`)."""
    is_error: bool | None = None if code is None or code == KILLED else code != 0
    is_error, denied = status_before(_is_denial(text), is_error, before)
    if question:
        is_error, denied = question_verdict(text, is_error, denied)
    if is_error is None and text.startswith((UNSUPPORTED_CALL, PATCH_REFUSED)):
        is_error = True  # a call of a tool Codex does not have, or a patch it refused
    return status_after(denied, is_error, after)


def tool_search_result(item: dict[str, Any]) -> tuple[str, bool]:
    """The output and ``isError`` of a ``tool_search_output``: the deferred tools the search
    made callable, named as their calls will be."""
    found = []
    for entry in item.get("tools") or []:
        if not isinstance(entry, dict):
            continue
        inner = entry.get("tools") if entry.get("type") == "namespace" else [entry]
        for tool in inner if isinstance(inner, list) else []:
            if isinstance(tool, dict) and tool.get("name"):
                prefix = f"{entry['name']}." if entry.get("type") == "namespace" else ""
                found.append(f"{prefix}{tool['name']}")
    status = item.get("status")
    failed = isinstance(status, str) and status not in ("completed", "in_progress")
    return ("\n".join(found) if found else "no tools found"), failed


def server_call_failed(status: str) -> bool:
    """Whether the status of a call the API ran itself (web search, image generation) says
    it failed."""
    return status not in ("completed", "in_progress", "searching")
