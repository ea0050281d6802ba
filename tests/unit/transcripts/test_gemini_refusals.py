"""Which failed Gemini CLI calls are refusals (denials): Gemini CLI 0.61's own answer, which
is the whole output and begins it, and never a tool's own output that says the same words."""

from __future__ import annotations

import json

import pytest

from proctor.models.trajectory import ToolResult
from proctor.transcripts.gemini import parse_gemini_lines

HEADER = '{"sessionId": "s", "projectHash": "h", "kind": "main"}'


def outcome(error: str, status: str = "error") -> tuple[bool | None, bool | None]:
    """(isError, denied) of a ``run_shell_command`` call answered with ``error``."""
    response = {"functionResponse": {"response": {"error": error}}}
    call = {"id": "c", "name": "run_shell_command", "args": {"command": "x"}, "status": status}
    record = {
        "id": "g",
        "type": "gemini",
        "content": "",
        "toolCalls": [{**call, "result": [response]}],
    }
    (result,) = [
        e
        for e in parse_gemini_lines([HEADER, json.dumps(record)]).events
        if isinstance(e, ToolResult)
    ]
    return result.is_error, result.denied


@pytest.mark.parametrize(
    "error",
    [
        "Tool execution denied by policy.",
        "Tool execution denied by policy. No deleting in this repository.",
        'Tool execution for "Shell" denied by policy.',
        'Tool execution for "Shell" requires user confirmation, which is not supported in '
        "non-interactive mode.",
        "[Operation Cancelled] Reason: User did not allow tool call",
        "[Operation Cancelled] User cancelled tool execution.",
        "Tool execution blocked: secret files are off limits",
        "Agent execution stopped by hook: the guard stopped it",
    ],
)
def test_gemini_clis_refusals_are_denials(error: str) -> None:
    assert outcome(error) == (False, True)


@pytest.mark.parametrize(
    "error",
    [
        "Command failed: the user cancelled the build",
        "Error: notes.txt says: access denied by policy",
        "make: user did not allow tool call in test fixture",
        'curl: 403 "requires user confirmation"',
        "Output: Tool execution denied by policy.",
        'Exit Code: 1\nTool execution for "Shell" denied by policy.',
    ],
)
def test_a_tools_own_error_saying_the_same_words_stays_an_error(error: str) -> None:
    assert outcome(error) == (True, False)


def test_control_a_cancelled_call_is_a_denial_whatever_it_says() -> None:
    assert outcome("user cancelled", status="cancelled") == (False, True)
