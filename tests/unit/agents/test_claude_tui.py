"""Reading Claude Code's terminal UI: its pickers and permission prompts, and when a finished
turn is closed in the transcript."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.claude_code import adapter as adapter_module
from proctor.agents.claude_code.adapter import ClaudeCode, ClaudeSession
from proctor.agents.claude_code.tui import (
    answers_review,
    cursor,
    multi_picker,
    picker_entries,
    question_on_screen,
    submit_focused,
)
from proctor.agents.protocol import Launch, NotChosen, Question
from proctor.agents.terminal import DOWN, ENTER, UP
from proctor.util import jsonl

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
    assert q.options == ["Red", "Blue"], "the picker's own entries are not the agent's options"
    assert cursor(PICKER) == 1
    assert question_on_screen(PICKER.replace("Esc to cancel", "")) is None, (
        "half-drawn pickers wait"
    )


class PickerTerminal:
    """The picker above: Up and Down move the cursor, Enter closes it."""

    def __init__(self) -> None:
        self.at, self.closed, self.typed = 1, False, ""
        self.title, self.eof, self.bytes_read = "", False, 0

    def screen_text(self) -> str:
        if self.closed:
            return "────\n❯ "
        lines = []
        for line in PICKER.splitlines():
            label = line.lstrip("❯ ")
            number = label.split(".", 1)[0]
            if number.isdigit():
                mark = "❯ " if int(number) - 1 == self.at else "  "
                line = mark + label
            lines.append(line)
        return "\n".join(lines)

    def write(self, text: str) -> None:
        if text == DOWN:
            self.at += 1
        elif text == UP:
            self.at -= 1
        elif text == ENTER:
            self.closed = True
        else:
            self.typed += text

    def pump(self, timeout: float) -> bool:
        return True

    def wait_until(self, predicate: object, deadline: float) -> bool:
        return bool(predicate())  # type: ignore[operator]


def test_an_answer_none_of_the_options_is_typed_into_type_something(tmp_path: Path) -> None:
    terminal = PickerTerminal()
    launch, _ = _launch(tmp_path)
    question = question_on_screen(terminal.screen_text())
    assert question == Question("Which color should the button be?", ["Red", "Blue"])
    ClaudeCode().answer(terminal, launch, question, "Green, like the logo")
    assert (terminal.at, terminal.typed, terminal.closed) == (2, "Green, like the logo", True)


def test_an_answer_naming_an_option_chooses_it(tmp_path: Path) -> None:
    terminal = PickerTerminal()
    launch, _ = _launch(tmp_path)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    ClaudeCode().answer(terminal, launch, question, "Red")
    assert (terminal.at, terminal.typed, terminal.closed) == (0, "", True)


@pytest.mark.parametrize(
    ("answer", "at", "typed"),
    [
        ("Blue", 1, ""),
        ("blue.", 1, ""),
        ("Blue-ish green", 2, "Blue-ish green"),
        ("Blue, because it matches the logo", 2, "Blue, because it matches the logo"),
        ("Reddish", 2, "Reddish"),
        ("2", 1, ""),
    ],
)
def test_an_answer_that_only_starts_with_a_label_is_free_text(
    tmp_path: Path, answer: str, at: int, typed: str
) -> None:
    terminal = PickerTerminal()
    launch, _ = _launch(tmp_path)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    ClaudeCode().answer(terminal, launch, question, answer)
    assert (terminal.at, terminal.typed, terminal.closed) == (at, typed, True)


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


PERMISSION = """
 Bash command

   echo risky > risky.txt

 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to workspace/ from this project
   3. No

 Esc to cancel · Tab to amend · ctrl+e to explain
"""


def test_a_prompt_without_the_pickers_own_entries_is_a_permission() -> None:
    asked = question_on_screen(PERMISSION)
    assert asked is not None
    assert (asked.text, asked.kind) == ("Do you want to proceed?", "permission")
    assert len(asked.options) == 3
    picker = question_on_screen(PICKER)
    assert picker is not None and picker.kind == "question"


def _ask_line(tool_id: str, *questions: str) -> str:
    asked = [{"question": q, "options": [{"label": "Red"}, {"label": "Blue"}]} for q in questions]
    block = {
        "type": "tool_use",
        "id": tool_id,
        "name": "AskUserQuestion",
        "input": {"questions": asked},
    }
    return json.dumps({"type": "assistant", "message": {"content": [block]}}) + "\n"


class LateCallTerminal(PickerTerminal):
    """The picker drawn before the CLI writes its call: ``line`` reaches the transcript after
    ``after`` reads of the terminal (never when None); ``screen`` in place of the picker."""

    def __init__(
        self, transcript: Path, line: str, after: int | None = 3, screen: str | None = None
    ) -> None:
        super().__init__()
        self.transcript, self.line, self.after, self.screen, self.pumps = (
            transcript,
            line,
            after,
            screen,
            0,
        )

    def screen_text(self) -> str:
        return self.screen if self.screen is not None else super().screen_text()

    def pump(self, timeout: float) -> bool:
        self.pumps += 1
        if self.pumps == self.after:
            with self.transcript.open("a") as out:
                out.write(self.line)
        time.sleep(min(timeout, 0.01))
        return True


def test_a_picker_drawn_before_its_call_is_written_waits_for_the_call(tmp_path: Path) -> None:
    """Claude Code draws the picker before it writes the call: the call is waited for, and
    gives the question its id and its whole text (the screen shows a wrapped one's last line)."""
    launch, transcript = _launch(tmp_path)
    whole = "The header needs a colour too. Which color should the button be?"
    terminal = LateCallTerminal(transcript, _ask_line("toolu_1", whole))
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked == Question(whole, ["Red", "Blue"], "toolu_1", "question")
    assert terminal.pumps == 3


def test_a_call_never_written_is_not_waited_for_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(adapter_module, "ASK_WAIT_SEC", 0.2)
    launch, transcript = _launch(tmp_path)
    terminal = LateCallTerminal(transcript, "", after=None)
    started = time.monotonic()
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked == Question("Which color should the button be?", ["Red", "Blue"])
    assert time.monotonic() - started < 2


def test_a_terminal_that_closes_ends_the_wait(tmp_path: Path) -> None:
    launch, transcript = _launch(tmp_path)
    terminal = LateCallTerminal(transcript, "", after=None)
    terminal.pump = lambda timeout: False  # type: ignore[method-assign]
    started = time.monotonic()
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and asked.id is None
    assert time.monotonic() - started < 1


def test_a_permission_prompt_is_never_waited_on(tmp_path: Path) -> None:
    launch, transcript = _launch(tmp_path)
    with transcript.open("a") as out:
        out.write(_ask_line("toolu_1", "Do you want to proceed?"))
    terminal = LateCallTerminal(transcript, "", after=None, screen=PERMISSION)
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and (asked.kind, asked.id, terminal.pumps) == ("permission", None, 0)


def test_an_older_unanswered_call_is_not_the_new_pickers(tmp_path: Path) -> None:
    """A call left unanswered earlier (a killed session, resumed) asks something else: the
    picker waits for its own call rather than take the old one's id."""
    launch, transcript = _launch(tmp_path)
    with transcript.open("a") as out:
        out.write(_ask_line("toolu_old", "Which file should I delete?"))
    terminal = LateCallTerminal(
        transcript, _ask_line("toolu_new", "Which color should the button be?")
    )
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and asked.id == "toolu_new"


def test_a_call_answered_whose_result_is_not_written_yet_is_not_the_next_pickers(
    tmp_path: Path,
) -> None:
    """The same question asked again right after it was answered: the first call's result may
    reach the transcript after the second picker is drawn; the first call is not taken."""
    launch, transcript = _launch(tmp_path)
    with transcript.open("a") as out:
        out.write(_ask_line("toolu_1", "Which color should the button be?"))
    first = PickerTerminal()
    asked = ClaudeCode().pending_question(first, launch)  # type: ignore[arg-type]
    assert asked is not None and asked.id == "toolu_1"
    assert ClaudeCode().answer(first, launch, asked, "Blue")  # type: ignore[arg-type]
    terminal = LateCallTerminal(
        transcript, _ask_line("toolu_2", "Which color should the button be?")
    )
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and asked.id == "toolu_2"


def test_each_question_of_one_call_is_its_own_text(tmp_path: Path) -> None:
    """A call with several questions: the picker shows them one after another, all of the
    same call."""
    launch, transcript = _launch(tmp_path)
    with transcript.open("a") as out:
        out.write(_ask_line("toolu_1", "Which font?", "Which color should the button be?"))
    asked = ClaudeCode().pending_question(PickerTerminal(), launch)  # type: ignore[arg-type]
    assert asked == Question("Which color should the button be?", ["Red", "Blue"], "toolu_1")


def test_the_wait_for_the_call_ends_at_the_trials_deadline(tmp_path: Path) -> None:
    """A trial whose deadline falls inside the wait is not held past it: the picker is taken
    as the screen shows it, and the call written later is not waited for."""
    launch, transcript = _launch(tmp_path)
    terminal = LateCallTerminal(
        transcript, _ask_line("toolu_1", "Which color should the button be?")
    )
    asked = ClaudeCode().pending_question(  # type: ignore[arg-type]
        terminal, launch, deadline=time.monotonic()
    )
    assert asked is not None and (asked.id, terminal.pumps) == (None, 0)


def test_each_look_at_the_transcript_reads_only_what_it_gained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long session's transcript is not read again at each look while the call is waited
    for: every line is decoded once, the call written last included."""
    launch, transcript = _launch(tmp_path)
    earlier = [{"type": "assistant", "message": {"content": [{"type": "text", "text": "ok"}]}}]
    transcript.write_text("".join(json.dumps(r) + "\n" for r in earlier * 200))
    decoded: list[object] = []
    real = jsonl.decode_object

    def counting(line: str | bytes) -> dict[str, Any] | None:
        decoded.append(line)
        return real(line)

    monkeypatch.setattr(jsonl, "decode_object", counting)
    terminal = LateCallTerminal(
        transcript, _ask_line("toolu_1", "Which color should the button be?"), 5
    )
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and asked.id == "toolu_1"
    assert len(decoded) == 201


def test_the_transcripts_last_line_is_read_once_its_newline_is_written(tmp_path: Path) -> None:
    launch, transcript = _launch(tmp_path)
    line = _ask_line("toolu_1", "Which color should the button be?")

    class HalfWritten(LateCallTerminal):
        def pump(self, timeout: float) -> bool:
            if self.pumps == 1:
                with self.transcript.open("a") as out:
                    out.write(line[:40])
            return super().pump(timeout)

    terminal = HalfWritten(transcript, line[40:], after=4)
    asked = ClaudeCode().pending_question(terminal, launch)  # type: ignore[arg-type]
    assert asked is not None and (asked.id, terminal.pumps) == ("toolu_1", 4)


REVIEW = """
←  ☒ color  ☒ size  ✔ Submit  →

Review your answers

 ● Which color should the button be?
   → Blue
 ● Which size should the button be?
   → Large

Ready to submit your answers?

❯ 1. Submit answers
  2. Cancel
"""


class ReviewTerminal(PickerTerminal):
    """The review a call with several questions ends with (Claude Code 2.1.197): no ``Esc to
    cancel`` line; Enter submits the answers the cursor is on."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def screen_text(self) -> str:
        if self.closed:
            return "working…"
        marks = ("❯ 1. Submit answers", "  2. Cancel")
        if self.at == 1:
            marks = ("  1. Submit answers", "❯ 2. Cancel")
        return REVIEW.replace("❯ 1. Submit answers\n  2. Cancel", "\n".join(marks))


@pytest.mark.parametrize("at", [0, 1])
def test_the_review_of_a_calls_answers_is_submitted(tmp_path: Path, at: int) -> None:
    """After a picker per question, a call with several questions shows its answers for
    review, which is no question of its own: proctor submits it, ``Submit answers``."""
    launch, _ = _launch(tmp_path)
    terminal = ReviewTerminal(at)
    assert question_on_screen(terminal.screen_text()) is None
    state = ClaudeCode().state(terminal, launch)  # type: ignore[arg-type]
    assert (state.kind, terminal.at, terminal.closed) == ("working", 0, True)


SCREENS = Path(__file__).parents[2] / "fixtures" / "screens"


def _screen(name: str) -> str:
    """A screen of Claude Code 2.1.197 on the scripted model: the agent said a numbered list
    (``1. Add a button``…), then asked."""
    return (SCREENS / f"claude-code-2.1.197-{name}.txt").read_text()


@pytest.mark.parametrize(
    ("name", "text", "entries", "at"),
    [
        ("picker-below-a-list", "Which color should the button be?", ["Red", "Blue"], 0),
        ("picker-on-type-something", "Which color should the button be?", ["Red", "Blue"], 2),
        ("picker-of-two-below-a-list", "Which size should the button be?", ["Small", "Large"], 1),
    ],
)
def test_the_agents_numbered_list_above_a_picker_is_none_of_its_entries(
    name: str, text: str, entries: list[str], at: int
) -> None:
    screen = _screen(name)
    assert question_on_screen(screen) == Question(text, entries)
    assert picker_entries(screen) == [*entries, "Type something.", "Chat about this"]
    assert cursor(screen) == at


def test_the_review_below_a_list_has_the_cursor_on_submit() -> None:
    screen = _screen("review-below-a-list")
    assert answers_review(screen) and question_on_screen(screen) is None
    assert cursor(screen) == 0
    assert (
        cursor(screen.replace("❯ 1. Submit", "  1. Submit").replace("  2. Cancel", "❯ 2. Cancel"))
        == 1
    )


class ScreenTerminal(PickerTerminal):
    """A saved screen with the ``❯`` cursor drawn on entry ``at`` of its dialog (the entries
    below its header row); Up stops at the first entry, as Claude Code's review does; the keys
    sent are kept. Enter closes it unless ``stuck``."""

    def __init__(self, screen: str, at: int, stuck: bool = False) -> None:
        super().__init__()
        self.lines, self.at, self.stuck, self.keys = screen.splitlines(), at, stuck, []
        header = max(i for i, line in enumerate(self.lines) if "☐" in line or "☒" in line)
        self.rows = [
            i for i, line in enumerate(self.lines) if i > header and re.match(r"^[❯ ] \d+\. ", line)
        ]

    def screen_text(self) -> str:
        if self.closed:
            return "working…"
        lines = list(self.lines)
        for n, row in enumerate(self.rows):
            lines[row] = ("❯" if n == self.at else " ") + lines[row][1:]
        return "\n".join(lines)

    def write(self, text: str) -> None:
        self.keys.append(text)
        if text == UP:
            self.at = max(0, self.at - 1)
        elif text == DOWN:
            self.at = min(len(self.rows) - 1, self.at + 1)
        elif text == ENTER:
            self.closed = not self.stuck
        else:
            self.typed += text


@pytest.mark.parametrize(("at", "keys"), [(0, [ENTER]), (1, [UP, ENTER])])
def test_the_review_below_a_list_is_submitted(tmp_path: Path, at: int, keys: list[str]) -> None:
    """The cursor on ``Submit answers`` is read as on it: Enter alone submits (an Up first
    would be a key the review does not need)."""
    launch, _ = _launch(tmp_path)
    terminal = ScreenTerminal(_screen("review-below-a-list"), at)
    state = ClaudeCode().state(terminal, launch)  # type: ignore[arg-type]
    assert (state.kind, terminal.keys, terminal.closed) == ("working", keys, True)


@pytest.mark.parametrize("answer", ["Red", "Blue", "Green, like the logo"])
def test_a_picker_below_the_agents_list_is_answered(tmp_path: Path, answer: str) -> None:
    launch, _ = _launch(tmp_path)
    terminal = ScreenTerminal(_screen("picker-below-a-list"), 0)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    assert ClaudeCode().answer(terminal, launch, question, answer)  # type: ignore[arg-type]
    at = {"Red": 0, "Blue": 1}.get(answer, 2)
    assert (terminal.at, terminal.closed, terminal.keys[-1]) == (at, True, ENTER)


def test_a_picker_still_on_screen_after_enter_is_not_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Enter that the picker did not take: the answer is not taken as given (the driver then
    records the question once, unanswered, rather than answer it again at every look)."""
    monkeypatch.setattr(adapter_module, "ECHO_WAIT_SEC", 0.1)
    launch, _ = _launch(tmp_path)
    terminal = ScreenTerminal(_screen("picker-below-a-list"), 0, stuck=True)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    with pytest.raises(NotChosen, match="still on screen"):
        ClaudeCode().answer(terminal, launch, question, "Blue")  # type: ignore[arg-type]
    assert launch.state.answered_asks == set()


def test_a_transcript_replaced_has_its_turns_counted_anew(tmp_path: Path) -> None:
    """A transcript rewritten whole (renamed over the old): the closed and interrupted turns
    are the new file's, not both files' added up."""
    launch, transcript = _launch(tmp_path)
    closing = json.dumps({"type": "system", "subtype": "turn_duration"}) + "\n"
    transcript.write_text(closing)
    assert ClaudeCode.await_closed_turns(launch, wait=0)
    replacement = tmp_path / "new.jsonl"
    replacement.write_text(closing * 2)
    os.replace(replacement, transcript)
    ClaudeCode.await_closed_turns(launch, wait=0)
    assert launch.state.turns.closed == 2


def _captured(name: str) -> str:
    """A screen captured from Claude Code 2.1.197 on the scripted model (an AskUserQuestion
    question with ``multiSelect``: Cheese, Ham, Olives)."""
    return (SCREENS / f"claude-code-2.1.197-ask-{name}.txt").read_text()


def test_a_multiple_choice_picker_is_read_with_its_checkboxes() -> None:
    """Its options are the checkbox entries' labels, without ``Type something``, wherever the
    cursor is; a ticked box is read as ticked; the cursor on ``Submit`` is on no entry."""
    for name in ("multi", "multi-ticked"):
        question = question_on_screen(_captured(name))
        assert question == Question("Which toppings do you want?", ["Cheese", "Ham", "Olives"])
    fresh, ticked = multi_picker(_captured("multi")), multi_picker(_captured("multi-ticked"))
    assert fresh is not None and (fresh.ticked, fresh.cursor) == (frozenset(), 0)
    assert ticked is not None and (ticked.ticked, ticked.cursor) == (frozenset({0}), 2)
    on_submit = multi_picker(_captured("multi-submit"))
    assert on_submit is not None and (on_submit.ticked, on_submit.cursor) == ({0, 2}, None)
    assert submit_focused(_captured("multi-submit"))
    assert not submit_focused(_captured("multi-ticked"))
    assert multi_picker(PICKER) is None, "a single choice has no checkboxes"


class MultiTerminal:
    """The captured multiple-choice picker: Up and Down move the cursor over its four entries
    and ``Submit``, Enter toggles an entry's box, or submits on ``Submit``."""

    def __init__(self, drops: str = "") -> None:
        self.at, self.ticks, self.submitted, self.keys = 0, set[int](), False, []
        self.title, self.eof, self.bytes_read = "", False, 0
        self.drops = drops
        """Keys the picker ignores: ``"tick"`` (Enter on an entry), ``"submit"`` (Enter on
        ``Submit``), ``"down"``."""

    def screen_text(self) -> str:
        if self.submitted:
            return "Ready to submit your answers?\n❯ 1. Submit answers\n  2. Cancel"
        lines = []
        for line in _captured("multi").splitlines():
            label = line.lstrip("❯ ")
            number = label.split(".", 1)[0]
            if number.isdigit() and "[ ]" in label:
                index = int(number) - 1
                box = "[✔]" if index in self.ticks else "[ ]"
                line = ("❯ " if index == self.at else "  ") + label.replace("[ ]", box)
            elif label == "Submit":
                line = ("❯    " if self.at == 4 else "     ") + label
            lines.append(line)
        return "\n".join(lines)

    def write(self, text: str) -> None:
        self.keys.append(text)
        if text == DOWN and self.drops != "down":
            self.at = min(self.at + 1, 4)
        elif text == UP:
            self.at = max(self.at - 1, 0)
        elif text == ENTER and self.at == 4:
            self.submitted = self.drops != "submit"
        elif text == ENTER and self.drops != "tick":
            self.ticks ^= {self.at}

    def pump(self, timeout: float) -> bool:
        return True

    def wait_until(self, predicate: object, deadline: float) -> bool:
        return bool(predicate())  # type: ignore[operator]


@pytest.mark.parametrize(
    ("answer", "ticks"),
    [("Cheese, Olives", {0, 2}), ("olives,cheese", {0, 2}), ("Ham", {1}), ("1, 3", {0, 2})],
)
def test_a_multiple_choice_answer_ticks_each_option_named_then_submits(
    tmp_path: Path, answer: str, ticks: set[int]
) -> None:
    terminal = MultiTerminal()
    launch, _ = _launch(tmp_path)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    assert ClaudeCode().answer(terminal, launch, question, answer)
    assert (terminal.ticks, terminal.submitted) == (ticks, True)


@pytest.mark.parametrize("answer", ["", " , "])
def test_an_empty_multiple_choice_answer_presses_nothing(tmp_path: Path, answer: str) -> None:
    """An answer with no part at all chooses nothing: the driver records it as none of its
    options (one naming no option is typed into ``Type something``: :func:`option_parts`)."""
    terminal = MultiTerminal()
    launch, _ = _launch(tmp_path)
    question = question_on_screen(terminal.screen_text())
    assert question is not None
    assert not ClaudeCode().answer(terminal, launch, question, answer)
    assert terminal.keys == []


@pytest.mark.parametrize(
    ("drops", "reason"),
    [
        ("tick", "could not be ticked"),
        ("down", "could not be ticked"),
        ("submit", "Submit was still chosen"),
    ],
)
def test_a_multiple_choice_answer_the_picker_does_not_take_is_not_chosen(
    tmp_path: Path, drops: str, reason: str
) -> None:
    """A box that does not tick, a cursor that does not move or an Enter on ``Submit`` that
    does not submit: the answer was not given, and the call is not taken as answered (its
    picker, still shown, keeps the call's id)."""
    terminal = MultiTerminal(drops)
    launch, _ = _launch(tmp_path)
    question = Question("Which toppings do you want?", ["Cheese", "Ham", "Olives"], "toolu_1")
    with pytest.raises(NotChosen, match=reason):
        ClaudeCode().answer(terminal, launch, question, "Ham, Olives")
    assert launch.state.answered_asks == set()


def _checklist(screen: str) -> str:
    """``screen`` with the agent's checklist said above its dialog, under the user's message:
    ``1. [ ] Add a button``…, written as Claude Code draws a Markdown task list."""
    said = "\n● Here is the plan:\n\n  1. [ ] Add a button\n  2. [ ] Style it\n  3. [ ] Test it"
    message = "❯ Do the task in this folder."
    return screen.replace(message, message + "\n" + said, 1)


@pytest.mark.parametrize("name", ["picker-below-a-list", "picker-of-two-below-a-list"])
def test_a_checklist_above_a_single_choice_picker_is_no_multiple_choice(name: str) -> None:
    screen = _checklist(_screen(name))
    assert "1. [ ] Add a button" in screen
    assert multi_picker(screen) is None
    question = question_on_screen(screen)
    assert question is not None and question.text.startswith("Which")
    assert "Add a button" not in question.options


@pytest.mark.parametrize(
    ("name", "ticked", "at"),
    [("multi", set(), 0), ("multi-ticked", {0}, 2), ("multi-submit", {0, 2}, None)],
)
def test_a_checklist_above_a_multiple_choice_picker_is_none_of_its_entries(
    name: str, ticked: set[int], at: int | None
) -> None:
    screen = _checklist(_captured(name))
    assert "1. [ ] Add a button" in screen
    multi = multi_picker(screen)
    assert multi is not None
    assert (multi.text, multi.options) == (
        "Which toppings do you want?",
        ["Cheese", "Ham", "Olives"],
    )
    assert (multi.ticked, multi.cursor) == (ticked, at)
