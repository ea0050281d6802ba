"""Reading Claude Code's terminal UI: its pickers and permission prompts, and when a finished
turn is closed in the transcript."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from proctor.agents.claude_code.adapter import ClaudeCode, ClaudeSession
from proctor.agents.claude_code.tui import cursor, question_on_screen
from proctor.agents.protocol import Launch

PICKER = """
 ☐ Question

Which color should the button be?

  1. Red
     Red
❯ 2. Blue
     Blue
  3. Type something.
────────────────────────────────
  4. Chat about this

Enter to select · ↑/↓ to navigate · Esc to cancel
"""


def test_claude_picker_is_read_whole_wherever_the_cursor_is() -> None:
    q = question_on_screen(PICKER)
    assert q is not None
    assert q.text == "Which color should the button be?"
    assert q.options == ["Red", "Blue", "Type something.", "Chat about this"]
    assert cursor(PICKER) == 1
    assert question_on_screen(PICKER.replace("Esc to cancel", "")) is None, (
        "half-drawn pickers wait"
    )


def _launch(tmp_path: Path) -> tuple[Launch[ClaudeSession], Path]:
    stop_log = tmp_path / "stop.jsonl"
    stop_log.write_text('{"hook_event_name": "Stop"}\n\n')  # the Stop hook ran once
    transcript = tmp_path / "session.jsonl"
    transcript.write_text(json.dumps({"type": "assistant", "message": {"content": []}}) + "\n")
    state = ClaudeSession(
        binary=Path("claude"), session_id="s", args=[], config_dir=tmp_path, stop_log=stop_log
    )
    return Launch(argv=[], env={}, cwd=tmp_path, state=state, transcript=transcript), transcript


def test_exit_waits_until_the_transcript_closes_the_finished_turn(tmp_path: Path) -> None:
    launch, transcript = _launch(tmp_path)
    assert ClaudeCode.await_closed_turns(launch, wait=0.2) is False  # not closed yet
    closing = json.dumps({"type": "system", "subtype": "turn_duration", "durationMs": 900})

    def close_the_turn() -> None:
        with transcript.open("a") as out:
            out.write(closing + "\n")

    later = threading.Timer(0.3, close_the_turn)
    later.start()
    try:
        assert ClaudeCode.await_closed_turns(launch, wait=10) is True
    finally:
        later.cancel()
    assert launch.state.turns.closed == 1


def test_control_an_interruption_does_not_close_a_turn(tmp_path: Path) -> None:
    launch, transcript = _launch(tmp_path)
    note = {
        "type": "user",
        "message": {"content": [{"type": "text", "text": "[Request interrupted by user]"}]},
    }
    with transcript.open("a") as out:
        out.write(json.dumps(note) + "\n")
    assert ClaudeCode.await_closed_turns(launch, wait=0.1) is False
    assert launch.state.turns.interrupted == 1
