"""Reading Claude Code's terminal UI: its pickers and permission prompts."""

from __future__ import annotations

from proctor.agents.claude_code.tui import cursor, question_on_screen

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
