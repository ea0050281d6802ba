"""The question a Claude Code (or scripted agent) session waits on, read from its transcript
while the agent writes it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from proctor.transcripts.claude.asks import AskWatch, pending_ask


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
    assert pending_ask(transcript) == ("Go on?", ["Yes"], "q1", ("Go on?",))


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
    assert pending_ask(transcript) == ("", [], "q1", ("",))


def stamped(line: str, at: str) -> str:
    return json.dumps({**json.loads(line), "timestamp": f"2026-12-07T11:41:{at}Z"})


@pytest.mark.parametrize(
    "prompt",
    ["Carry on with the tests.", [{"type": "text", "text": "[Request interrupted by user]"}]],
)
def test_a_call_made_before_a_later_message_waits_no_more(tmp_path: Path, prompt: object) -> None:
    """A session killed on a question and resumed: its next message leaves the call behind."""
    said = json.dumps({"type": "user", "message": {"role": "user", "content": prompt}})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        stamped(ask("q1", "Go on?"), "01.000") + "\n" + stamped(said, "09.000") + "\n"
    )
    assert pending_ask(transcript) is None
    with transcript.open("a") as out:
        out.write(stamped(ask("q2", "Go on?"), "09.500") + "\n")
    asked = pending_ask(transcript)
    assert asked is not None and asked.id == "q2"


def test_a_prompt_written_after_its_turns_first_call_leaves_the_call_pending(
    tmp_path: Path,
) -> None:
    """Claude Code may write a turn's prompt after the turn's first call: the prompt's time,
    not its place in the file, tells."""
    said = json.dumps({"type": "user", "message": {"content": "Do the task in this folder."}})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        stamped(ask("q1", "Go on?"), "58.779") + "\n" + stamped(said, "58.588") + "\n"
    )
    asked = pending_ask(transcript)
    assert asked is not None and asked.id == "q1"


def test_a_line_claude_code_adds_of_its_own_leaves_the_call_pending(tmp_path: Path) -> None:
    meta = {"type": "user", "isMeta": True, "message": {"content": "<system-reminder>"}}
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        stamped(ask("q1", "Go on?"), "01.000") + "\n" + stamped(json.dumps(meta), "02.000") + "\n"
    )
    asked = pending_ask(transcript)
    assert asked is not None and asked.id == "q1"


def test_a_watch_reads_what_the_transcript_gained_and_a_line_once_it_is_whole(
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(ask("q1", "Go on?") + "\n")
    watch = AskWatch(transcript)
    assert [a.id for a in watch.poll()] == ["q1"]
    line = ask("q2", "Really?") + "\n"
    with transcript.open("a") as out:
        out.write(line[:25])
    assert [a.id for a in watch.poll()] == ["q1"]
    with transcript.open("a") as out:
        out.write(line[25:])
    assert [a.id for a in watch.poll()] == ["q1", "q2"]
    assert watch.tail.offset == transcript.stat().st_size


def test_a_watch_starts_over_on_a_transcript_cut_short(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(ask("q1", "Go on?") + "\n" + ask("q2", "Really?") + "\n")
    watch = AskWatch(transcript)
    assert [a.id for a in watch.poll()] == ["q1", "q2"]
    transcript.write_text(ask("q3", "Stop?") + "\n")  # truncated, then written again
    assert [a.id for a in watch.poll()] == ["q3"]


def test_a_watch_starts_over_on_a_transcript_replaced(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(ask("q1", "Go on?") + "\n")
    watch = AskWatch(transcript)
    assert [a.id for a in watch.poll()] == ["q1"]
    other = tmp_path / "new.jsonl"
    other.write_text(ask("q2", "Really? " + "x" * 200) + "\n")  # longer than what was read
    os.replace(other, transcript)
    assert [a.id for a in watch.poll()] == ["q2"]
