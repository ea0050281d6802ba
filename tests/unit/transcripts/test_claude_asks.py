"""The question a Claude Code (or scripted agent) session waits on, read from its transcript
while the agent writes it."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.transcripts.claude.asks import pending_ask


def ask(tool_id: str, question: str) -> str:
    block = {
        "type": "tool_use",
        "id": tool_id,
        "name": "AskUserQuestion",
        "input": {"questions": [{"question": question, "options": [{"label": "Yes"}]}]},
    }
    return json.dumps({"type": "assistant", "message": {"content": [block]}})


def test_a_half_flushed_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(ask("q1", "Go on?") + "\n" + ask("q2", "Really?")[:25])
    assert pending_ask(transcript) == ("Go on?", ["Yes"], "q1")


def test_an_answered_question_is_no_longer_pending(tmp_path: Path) -> None:
    result = {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "q1"}]},
    }
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(ask("q1", "Go on?") + "\n" + json.dumps(result) + "\n")
    assert pending_ask(transcript) is None


def test_a_malformed_call_is_a_question_without_text(tmp_path: Path) -> None:
    block = {"type": "tool_use", "id": "q1", "name": "AskUserQuestion", "input": {"questions": 3}}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"type": "assistant", "message": {"content": [block]}}))
    assert pending_ask(transcript) == ("", [], "q1")
