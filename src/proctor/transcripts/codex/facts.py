"""What a Codex rollout says about a call after the call was written: read in a first, quick
pass, so that the parse can give each event its final form the moment it writes it (and can
stream in flat memory).

* **Statuses.** ``item_completed`` (CommandExecution, FileChange, McpToolCall) and the older
  ``exec_command_end``/``patch_apply_end``/``mcp_tool_call_end`` say whether a call failed or was
  declined, before or after its output line.
* **MCP calls.** A completed ``McpToolCall`` makes its call an ``mcp`` call.
* **Mirrors.** ``event_msg`` user/agent messages and reasoning repeat response items; a mirror is
  dropped when an item with the same text exists anywhere in the rollout (counted: each item
  answers one mirror).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from proctor.transcripts.builder import MALFORMED
from proctor.transcripts.codex.shapes import (
    HARNESS_PREFIXES,
    RESPONSE_TYPES,
    _content_text,
)
from proctor.transcripts.lines import decode_line

Status = tuple[int, bool | None, bool]
"""(line number, failed or None when unknown, declined)."""
_NEEDLES = (b'"message"', b'"reasoning"', b"item_completed", b"_end")
_TEXT_NEEDLES = tuple(n.decode() for n in _NEEDLES)


def text_key(role: str, text: str) -> int:
    return hash((role, text.strip()))


@dataclass
class CodexFacts:
    statuses: dict[str, list[Status]] = field(default_factory=dict)
    mcp_marks: dict[str, int] = field(default_factory=dict)
    """Call id → the last line that completed it as an MCP call."""
    item_texts: Counter[int] = field(default_factory=Counter)
    """How many response items hold each (role, text)."""

    def status_at(
        self, call_id: str, line: int, *, held: bool = False
    ) -> tuple[Status | None, list[Status]]:
        """(the last status before ``line``, the statuses after it, in order); ``held``: the
        status ``line`` itself holds counts as before it."""
        seen = self.statuses.get(call_id, [])
        before = [s for s in seen if s[0] < line or (held and s[0] == line)]
        return (before[-1] if before else None), [s for s in seen if s[0] > line]

    def is_mcp(self, call_id: str, line: int) -> bool:
        return self.mcp_marks.get(call_id, -1) > line

    def take_mirror(self, role: str, text: str) -> bool:
        """Whether a mirror of ``text`` has an item to answer it (and use that item up)."""
        key = text_key(role, text)
        if self.item_texts[key] > 0:
            self.item_texts[key] -= 1
            return True
        return False


KILLED = -1
"""The exit code Codex gives a command it killed before it ended (as it exits): how the
command would have gone is unknown. Any other code, negative ones too (a crash), is the
command's own."""


def _status(facts: CodexFacts, line: int, call_id: Any, failed: bool | None, denied: bool) -> None:
    if isinstance(call_id, str):
        facts.statuses.setdefault(call_id, []).append((line, failed, denied))


def _item_completed(facts: CodexFacts, line: int, item: Any) -> None:
    if not isinstance(item, dict):
        return
    itype, status = item.get("type"), item.get("status")
    if itype == "CommandExecution":
        code = item.get("exit_code")
        failed: bool | None = code != 0 if isinstance(code, int) else None
        if code == KILLED:
            failed = None  # killed before it ended (Codex exiting): how it went is unknown
        elif status == "failed":
            failed = True
        elif status == "completed" and failed is None:
            failed = False
        _status(facts, line, item.get("id"), failed, status == "declined")
    elif itype in ("FileChange", "McpToolCall"):
        failed = {"failed": True, "completed": False}.get(str(status))
        if itype == "McpToolCall" and item.get("error"):
            failed = True
        _status(facts, line, item.get("id"), failed, status == "declined")
        if itype == "McpToolCall" and isinstance(item.get("id"), str):
            facts.mcp_marks[item["id"]] = line


def _mcp_end(facts: CodexFacts, line: int, payload: dict[str, Any]) -> None:
    result = payload.get("result")
    failed: bool | None = None
    if isinstance(result, dict):
        if "Err" in result:
            failed = True
        elif isinstance(result.get("Ok"), dict):
            ok = result["Ok"]
            failed = bool(ok.get("isError") or ok.get("is_error"))
    _status(facts, line, payload.get("call_id"), failed, False)
    if isinstance(payload.get("call_id"), str):
        facts.mcp_marks[payload["call_id"]] = line


def _event_msg(facts: CodexFacts, line: int, payload: dict[str, Any]) -> None:
    etype = payload.get("type")
    if etype == "item_completed":
        _item_completed(facts, line, payload.get("item"))
    elif etype == "exec_command_end":
        code = payload.get("exit_code")
        failed = code != 0 if isinstance(code, int) and code != KILLED else None
        _status(facts, line, payload.get("call_id"), failed, False)
    elif etype == "patch_apply_end":
        success = payload.get("success")
        _status(
            facts,
            line,
            payload.get("call_id"),
            (not success) if success is not None else None,
            False,
        )
    elif etype == "mcp_tool_call_end":
        _mcp_end(facts, line, payload)


def _response_item(facts: CodexFacts, item: dict[str, Any]) -> None:
    itype = item.get("type")
    if itype == "message":
        role = item.get("role")
        text = _content_text(item.get("content"))
        if role == "assistant":
            facts.item_texts[text_key("assistant", text)] += 1
        elif role == "user" and not text.lstrip().startswith(HARNESS_PREFIXES):
            facts.item_texts[text_key("user", text)] += 1
    elif itype == "reasoning":
        texts = [_content_text(item.get("summary")), _content_text(item.get("content"))]
        facts.item_texts[text_key("reasoning", "\n".join(t for t in texts if t))] += 1


def read_facts(lines: Iterable[str | bytes]) -> CodexFacts:
    """The facts of a rollout's non-blank lines, numbered from 1 as the parse numbers them."""
    facts = CodexFacts()
    for number, line in enumerate(lines, start=1):
        needles = _NEEDLES if isinstance(line, bytes) else _TEXT_NEEDLES
        if not any(n in line for n in needles):  # type: ignore[operator]
            continue
        record = decode_line(line)
        if not isinstance(record, dict):
            continue
        payload = record.get("payload")
        try:
            if "payload" not in record:
                if record.get("type") in RESPONSE_TYPES:
                    _response_item(facts, record)
            elif isinstance(payload, dict) and record.get("type") == "response_item":
                _response_item(facts, payload)
            elif isinstance(payload, dict) and record.get("type") == "event_msg":
                _event_msg(facts, number, payload)
        except MALFORMED:
            continue  # the parse counts it
    return facts


def status_before(
    denied: bool, is_error: bool | None, before: Status | None
) -> tuple[bool | None, bool]:
    """(isError, denied) of a result when its output is read: the last status before the
    output line decides, with the output's own exit code and refusal text."""
    if not denied and before is not None:
        denied = before[2]
        if not denied and before[1] is not None:
            is_error = before[1]
    return (False if denied else is_error), denied


def status_after(
    denied: bool, is_error: bool | None, after: list[Status]
) -> tuple[bool | None, bool]:
    """Each status after the output line can still deny the call or settle its outcome."""
    for _line, failed, declined in after:
        if denied:
            break
        if declined:
            denied, is_error = True, False
        elif failed is not None:
            is_error = failed
    return is_error, denied
