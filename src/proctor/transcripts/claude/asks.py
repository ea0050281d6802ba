"""The question a Claude Code session is waiting on: its last ``AskUserQuestion`` call that has
no ``tool_result`` yet (the scripted agent writes the same records)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from proctor.transcripts.kinds import question_of
from proctor.util.jsonl import read_json_lines


class PendingAsk(NamedTuple):
    text: str
    options: list[str]
    id: str


def pending_ask(transcript: Path) -> PendingAsk | None:
    """The question, option labels and ``tool_use`` id of the last unanswered
    ``AskUserQuestion`` call, or None. Half-written lines are skipped, so a transcript still
    being written can be read."""
    pending: dict[str, PendingAsk] = {}
    for record in read_json_lines(transcript):
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                tool_id = str(block.get("id"))
                pending[tool_id] = PendingAsk(*question_of(block.get("input")), tool_id)
            elif block.get("type") == "tool_result":
                pending.pop(str(block.get("tool_use_id")), None)
    return next(reversed(pending.values()), None)
