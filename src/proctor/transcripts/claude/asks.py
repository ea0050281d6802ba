"""The question a Claude Code session is waiting on: its last ``AskUserQuestion`` call that has
no ``tool_result`` yet (the scripted agent writes the same records)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from proctor.transcripts.kinds import question_of, questions_of
from proctor.util.jsonl import JsonlTail, read_json_lines


class PendingAsk(NamedTuple):
    text: str
    options: list[str]
    id: str
    questions: tuple[str, ...] = ()
    """Every question of the call (the TUI shows them one after another), the first's
    ``text`` included."""


def _is_prompt(record: dict[str, Any], content: object) -> bool:
    """A user entry that is a message typed to the agent (or the note of an interruption), not
    a tool's result nor a line Claude Code adds of its own (``isMeta``)."""
    if record.get("type") != "user" or record.get("isMeta"):
        return False
    if isinstance(content, str):
        return bool(content.strip())
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    return bool(blocks) and all(b.get("type") == "text" for b in blocks)


class AskWatch:
    """The unanswered ``AskUserQuestion`` calls of a transcript that is still being written,
    read a piece at a time: each :meth:`poll` reads only the bytes written since the last one
    (a last line not finished yet is read once its newline is). A transcript cut shorter or
    replaced by another file is read again from its start. See :func:`pending_asks`.

    A plain class, not a dataclass: this module is on the scripted agent's import path."""

    def __init__(self, transcript: Path) -> None:
        self.tail = JsonlTail(transcript)
        self.pending: dict[str, tuple[PendingAsk, str]] = {}
        self.last_prompt = ""

    def poll(self) -> list[PendingAsk]:
        """The calls still unanswered, oldest first, with what the transcript gained since."""
        records = self.tail.new_records()
        if self.tail.restarted:
            self.pending, self.last_prompt = {}, ""
        for record in records:
            self.add(record)
        return self.waiting()

    def waiting(self) -> list[PendingAsk]:
        """The calls read so far that are unanswered and not older than the last prompt."""
        # ISO 8601 times in UTC, as Claude Code writes them, sort as text
        return [a for a, stamp in self.pending.values() if not stamp or stamp >= self.last_prompt]

    def add(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        stamp = record.get("timestamp")
        stamp = stamp if isinstance(stamp, str) else ""
        if _is_prompt(record, content):
            self.last_prompt = max(self.last_prompt, stamp)
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("name") == "AskUserQuestion":
                tool_id = str(block.get("id"))
                text, options = question_of(block.get("input"))
                ask = PendingAsk(text, options, tool_id, _questions(block))
                self.pending[tool_id] = (ask, stamp)
            elif block.get("type") == "tool_result":
                self.pending.pop(str(block.get("tool_use_id")), None)


def pending_asks(transcript: Path) -> list[PendingAsk]:
    """The unanswered ``AskUserQuestion`` calls the session may still be waiting on, oldest
    first. A call made before a later message to the agent (a killed session that was resumed,
    an interrupted turn) waits no more: told by the entries' timestamps, as Claude Code may
    write a turn's prompt after the turn's first calls. Half-written lines are skipped, so a
    transcript still being written can be read."""
    watch = AskWatch(transcript)
    for record in read_json_lines(transcript):
        watch.add(record)
    return watch.waiting()


def pending_ask(transcript: Path) -> PendingAsk | None:
    """The question, option labels and ``tool_use`` id of the last unanswered
    ``AskUserQuestion`` call (see :func:`pending_asks`), or None."""
    return next(reversed(pending_asks(transcript)), None)


def _questions(block: dict[str, Any]) -> tuple[str, ...]:
    return tuple(text for text, _ in questions_of(block.get("input")))
