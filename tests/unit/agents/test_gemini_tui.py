"""Gemini CLI TUI screen parsers and chat-file turn counting, on screens captured from
Gemini CLI 0.61 (box borders rebuilt to the captured 160-column width)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pyte
import pytest

from proctor.agents.gemini_cli import approval_args, reported_usage, tui
from proctor.agents.gemini_cli.adapter import GeminiCli, GeminiSession
from proctor.agents.protocol import Launch, NotChosen, Question
from proctor.agents.terminal import DOWN, ENTER, UP
from proctor.errors import AgentError
from tests.unit.agents.test_gemini_left_out import _launch as _left_out_launch

WIDTH = 160
READY_TITLE = "◇  Ready (workspace)"
WORKING_TITLE = "✦  Working… (workspace)"
CONFIRM_TITLE = "✋  Action Required (workspace)"


def rule() -> str:
    return "─" * WIDTH


def box(*rows: str) -> list[str]:
    """The dialog's box, as wide as the screen."""
    lines = ["╭" + "─" * (WIDTH - 2) + "╮"]
    lines += ["│ " + row.ljust(WIDTH - 4) + " │" for row in rows]
    return [*lines, "╰" + "─" * (WIDTH - 2) + "╯"]


def nested(*rows: str) -> list[str]:
    """A box inside the dialog's box (the command or diff)."""
    inner = WIDTH - 8
    return (
        ["╭" + "─" * (inner + 2) + "╮"]
        + ["│ " + row.ljust(inner) + " │" for row in rows]
        + ["╰" + "─" * (inner + 2) + "╯"]
    )


def input_area(text: str = "  Type your message or @path/to/file") -> list[str]:
    return [
        " " * 144 + "? for shortcuts",
        rule(),
        " Shift+Tab to accept edits",
        "▄" * WIDTH,
        " > " + text,
        "▀" * WIDTH,
        " workspace (/directory)" + " " * 63 + "sandbox" + " " * 60 + "/model",
        " /tmp/exp/workspace" + " " * 67 + "no sandbox" + " " * 59 + "Auto",
    ]


HISTORY = [
    " ▝▜▄     Gemini CLI v0.61.0",
    "Tips for getting started:",
    "1. Create GEMINI.md files to customize your interactions",
    "2. /help for more information",
    "",
    "▄" * WIDTH,
    " > Do the task in this folder.",
    "▀" * WIDTH,
]
READY = "\n".join(input_area()) + "\n"
TYPED = "\n".join(input_area("Do the task in this folder.")) + "\n"
BUSY = "\n".join([*HISTORY, " ⠋ Thinking... (esc to cancel, 0s)", *input_area()[1:]]) + "\n"


def dialog_rows(cursor: int = 0) -> list[str]:
    options = ["1. Allow once", "2. Allow for this session", "3. No, suggest changes (esc)"]
    rows = [("● " if i == cursor else "  ") + o for i, o in enumerate(options)]
    inner = nested("echo risky > risky.txt && ls")
    return [
        "? Shell  echo risky > risky.txt && ls",
        *inner,
        "Allow execution of [Shell]?",
        "Redirection detected. To auto-accept, press Shift+Tab",
        "",
        *rows,
    ]


def shell_dialog(cursor: int = 0) -> str:
    return "\n".join([*HISTORY, *box(*dialog_rows(cursor))]) + "\n"


EDIT_DIALOG = (
    "\n".join(
        [
            *HISTORY,
            "✦ I'll create the file and check it.",
            *box(
                "? WriteFile  Writing to hello.txt",
                *nested("1 hello"),
                "Apply this change?",
                "",
                "● 1. Allow once",
                "  2. Allow for this session",
                "  3. Modify with external editor",
                "  4. No, suggest changes (esc)",
            ),
        ]
    )
    + "\n"
)


def test_ready_screen_and_input_box() -> None:
    assert tui.input_ready(READY)
    assert "Do the task" in (tui.input_box(TYPED) or "")
    assert not tui.input_ready(TYPED), "the box holds text"
    assert not tui.input_ready(BUSY), "a turn is running"
    assert tui.idle(READY_TITLE, READY)
    assert not tui.idle(WORKING_TITLE, READY)
    assert not tui.idle(CONFIRM_TITLE, READY)
    assert tui.idle("", READY) and not tui.idle("", BUSY)


def plain_input_area(text: str = "  Type your message or @path/to/file") -> list[str]:
    """The input area as Gemini CLI draws it without colours (``NO_COLOR`` set): rules, not
    half-blocks, around the box, and one more rule under it, above the footer."""
    return [
        " " * 144 + "? for shortcuts",
        rule(),
        " Shift+Tab to accept edits",
        rule(),
        " > " + text,
        rule(),
        " workspace (/directory)" + " " * 63 + "sandbox" + " " * 60 + "/model",
        " /tmp/exp/workspace" + " " * 67 + "no sandbox" + " " * 59 + "Auto",
    ]


def test_the_input_box_drawn_without_colours_is_read() -> None:
    ready = "\n".join([*HISTORY, *plain_input_area()]) + "\n"
    typed = "\n".join(plain_input_area("Do the task in this folder.")) + "\n"
    assert tui.input_ready(ready)
    assert tui.input_box(typed) == "> Do the task in this folder."
    assert not tui.input_ready(typed)


def test_shell_confirmation_is_a_question() -> None:
    question = tui.question_on_screen(shell_dialog())
    assert question is not None
    assert question.kind == "permission"
    assert question.text == "Allow execution of [Shell]?\nShell  echo risky > risky.txt && ls"
    assert question.options == ["Allow once", "Allow for this session", "No, suggest changes (esc)"]
    assert tui.cursor(shell_dialog()) == 0
    assert tui.cursor(shell_dialog(2)) == 2


def test_edit_confirmation_is_a_question() -> None:
    question = tui.question_on_screen(EDIT_DIALOG)
    assert question is not None
    assert question.text == "Apply this change?\nWriteFile  Writing to hello.txt"
    assert question.options[-1] == "No, suggest changes (esc)" and len(question.options) == 4


def test_half_drawn_confirmation_is_not_a_question() -> None:
    """Control: the box's bottom border under the options completes the dialog."""
    lines = shell_dialog().splitlines()
    assert tui.question_on_screen("\n".join(lines[:-1]) + "\n") is None
    assert tui.question_on_screen("\n".join(lines[:-2]) + "\n") is None
    assert tui.cursor("\n".join(lines[:-1]) + "\n") is None


def test_numbered_tips_are_not_a_question() -> None:
    assert tui.question_on_screen("\n".join([*HISTORY, *input_area()]) + "\n") is None


def test_submitted_when_the_box_lets_go_or_a_dialog_shows() -> None:
    probe = "Do the task in this folder."
    assert not tui.submitted(probe, READY_TITLE, TYPED)
    assert tui.submitted(probe, WORKING_TITLE, BUSY)
    assert tui.submitted(probe, CONFIRM_TITLE, shell_dialog())
    assert tui.shown(probe, TYPED) and not tui.shown(probe, READY)


def _write(path: Path, *records: dict[str, object]) -> None:
    with open(path, "a") as fh:
        for record in records:
            fh.write(json.dumps(record) + "\n")


CONTEXT = {"id": "ctx", "type": "user", "content": [{"text": "<session_context>\nThis is"}]}
PROMPT = {"id": "p1", "type": "user", "content": [{"text": "Do the task in this folder."}]}
CALL = {"id": "g1", "type": "gemini", "content": "I'll create the file."}
RESULT = {"id": "r1", "type": "user", "content": [{"functionResponse": {"id": "c1"}}]}
FINAL = {"id": "g2", "type": "gemini", "content": "Done."}


@pytest.fixture
def chat(tmp_path: Path) -> tuple[tui.ChatWatch, Path]:
    folder = tmp_path / ".gemini" / "tmp" / "workspace" / "chats"
    folder.mkdir(parents=True)
    path = folder / "session-2026-11-29T15-42-0cf506c8.jsonl"
    _write(path, {"sessionId": "0cf506c8-9ef0", "kind": "main"}, {"$set": {"messages": [CONTEXT]}})
    return tui.ChatWatch(tmp_path / ".gemini", tmp_path / "copy.jsonl"), path


def test_a_turn_ends_with_a_final_message_once_idle(chat: tuple[tui.ChatWatch, Path]) -> None:
    watch, path = chat
    assert watch.turns(READY_TITLE, READY) == 0
    assert watch.session_id == "0cf506c8-9ef0"
    _write(path, PROMPT, CALL)  # the call is first written without its toolCalls
    assert watch.turns(WORKING_TITLE, BUSY) is None
    assert watch.turns(CONFIRM_TITLE, shell_dialog()) is None
    _write(path, {**CALL, "toolCalls": [{"id": "c1", "name": "write_file"}]}, RESULT)
    assert watch.outcomes() == [False]
    _write(path, FINAL)
    assert watch.turns(WORKING_TITLE, BUSY) is None, "not idle yet"
    assert watch.turns(READY_TITLE, READY) == 1
    assert (watch.copy is not None) and watch.copy.read_text() == path.read_text()


def test_a_refused_call_ends_the_turn_though_the_history_is_rewritten(
    chat: tuple[tui.ChatWatch, Path],
) -> None:
    watch, path = chat
    _write(path, PROMPT, {**CALL, "toolCalls": [{"id": "c1", "status": "cancelled"}]})
    _write(path, {"id": "i1", "type": "info", "content": "Request cancelled."})
    _write(path, {"$set": {"messages": [{**CONTEXT, "id": "ctx2"}]}})
    assert watch.turns(READY_TITLE, READY) == 1


def test_an_unanswered_prompt_ends_once_the_screen_settles(
    chat: tuple[tui.ChatWatch, Path],
) -> None:
    """An API error shows on screen only: the idle, settled TUI ends the turn."""
    watch, path = chat
    _write(path, PROMPT)
    assert watch.turns(READY_TITLE, READY) == 0
    watch.changed_at -= tui.QUIET_SEC
    assert watch.turns(READY_TITLE, READY) == 1


def test_pyte_screen_survives_gemini_startup_queries() -> None:
    from proctor.drive.pty_session import _TitledScreen

    screen = _TitledScreen(80, 5)
    pyte.ByteStream(screen).feed(b"\x1b[8m\x1b[?u\x1b]11;?\x1b\\\x1b[>q\x1b[>4;?m\x1b[c\x1b[0mok")
    assert "ok" in screen.display[0]


@pytest.mark.parametrize(
    ("mode", "args"),
    [
        (None, ["--yolo"]),  # unset: as Claude Code and Codex, no confirmation to answer
        ("default", []),
        ("yolo", ["--yolo"]),
        ("auto_edit", ["--approval-mode", "auto_edit"]),
        ("acceptEdits", ["--approval-mode", "auto_edit"]),
        ("plan", ["--approval-mode", "plan"]),
    ],
)
def test_permission_modes_are_approval_modes(mode: str | None, args: list[str]) -> None:
    assert approval_args(mode) == args


def test_unknown_permission_mode_names_the_choices() -> None:
    with pytest.raises(AgentError, match="auto_edit"):
        approval_args("bypassPermissions")


def test_reported_usage_is_counted_like_the_chat() -> None:
    stats = {"models": {"m": {"input_tokens": 100, "output_tokens": 7, "cached": 40}}}
    assert reported_usage(stats) == {
        "m": {"inputTokens": 60, "outputTokens": 7, "cacheReadTokens": 40, "cacheWriteTokens": 0}
    }
    assert reported_usage(None) is None


SCREENS = Path(__file__).parents[2] / "fixtures" / "screens"
"""Screens captured from Gemini CLI 0.61.0's TUI (160 columns) while its ``ask_user`` picker
waited, the model having called the tool (proctor's scripted model)."""


def captured(name: str) -> str:
    return (SCREENS / f"gemini-cli-0.61.0-ask-user-{name}.txt").read_text()


def test_the_ask_user_picker_is_a_question_not_a_permission() -> None:
    """Its options have descriptions under them and a footer under the last: read as
    ``ask_user``'s question with the agent's options, the custom-value entry left out."""
    screen = captured("choice")
    question = tui.question_on_screen(screen)
    assert question is not None
    assert question.kind == "question"
    assert question.text == "Which color should the button be?"
    assert question.options == ["Red", "Blue"]
    picker = tui.ask_user_on_screen(screen)
    assert picker is not None and picker.entries == ["Red", "Blue", "Enter a custom value"]
    assert tui.cursor(screen) == 0
    moved = screen.replace("│ ● 1.  Red", "│   1.  Red").replace("│   2.  Blue", "│ ● 2.  Blue")
    assert tui.cursor(moved) == 1


def test_a_yes_no_question_and_several_questions_are_read() -> None:
    yes_no = tui.question_on_screen(captured("yesno"))
    assert yes_no is not None and yes_no.kind == "question"
    assert (yes_no.text, yes_no.options) == ("Shall I add tests?", ["Yes", "No"])
    first = tui.question_on_screen(captured("two"))
    assert first is not None and (first.text, first.options) == ("Which color?", ["Red", "Blue"])


def test_a_text_question_has_no_options() -> None:
    screen = captured("text")
    question = tui.question_on_screen(screen)
    assert question is not None and question.kind == "question"
    assert (question.text, question.options) == ("What should the file be called?", [])
    picker = tui.ask_user_on_screen(screen)
    assert picker is not None and picker.typed


def test_a_multiple_choice_question_is_a_question() -> None:
    """Its list scrolls (``▲``/``▼``); the options are those above ``All of the above``."""
    screen = captured("multi")
    question = tui.question_on_screen(screen)
    assert question is not None and question.kind == "question"
    assert (question.text, question.options) == ("Which toppings?", ["Cheese", "Ham"])
    picker = tui.ask_user_on_screen(screen)
    assert picker is not None and picker.multi


def test_a_half_drawn_ask_user_picker_is_not_a_question() -> None:
    """Control: the footer and the bottom border complete the picker."""
    lines = captured("choice").rstrip("\n").splitlines()
    assert tui.question_on_screen("\n".join(lines[:-1]) + "\n") is None
    assert tui.question_on_screen("\n".join(lines[:-3]) + "\n") is None


def test_the_review_of_several_answers_is_no_question() -> None:
    review = [
        "← ✓ Color │ ✓ Size │ ≡ Review →",
        "",
        "Review your answers:",
        "",
        "Color → Blue",
        "Size → Large",
        "",
        "Enter to submit · Tab/Shift+Tab to edit answers · Esc to cancel",
    ]
    screen = "\n".join([*HISTORY, *box("Answer Questions", "", *review)]) + "\n"
    picker = tui.ask_user_on_screen(screen)
    assert picker is not None and picker.review
    assert tui.question_on_screen(screen) is None


LISTED = (
    "I see two ways:\n\n1. Keep the old API\n2. Replace it\n\n- either works\n\n"
    "Which color should the button be?"
)


def test_a_numbered_list_in_the_question_is_part_of_its_text() -> None:
    """Gemini CLI draws the question as Markdown: its numbered list (`` 1. Keep the old
    API``) is told from the picker's entries (``● 1.  Red``), which are the last run of them;
    a description that starts with a number (``2. needs two coats``) is no entry."""
    screen = captured("listed")
    question = tui.question_on_screen(screen)
    assert question is not None and question.kind == "question"
    assert (question.text, question.options) == (LISTED, ["Red", "Blue"])
    picker = tui.ask_user_on_screen(screen)
    assert picker is not None and picker.entries == ["Red", "Blue", "Enter a custom value"]
    assert tui.cursor(screen) == 0
    assert tui.cursor(captured("listed-blue")) == 1
    assert tui.question_on_screen(captured("listed-blue")) == question


def picker_screen(question: list[str], entries: list[str], tabs: bool = False) -> str:
    """An ``ask_user`` picker drawn as Gemini CLI 0.61 draws one (from the box's content
    column: entries at column 0, a Markdown list item one column in)."""
    rows = ["", *(["← □ Color │ □ Size │ ≡ Review →", ""] if tabs else []), *question, ""]
    rows += [*entries, "", "Enter to select · ↑/↓ to navigate · Esc to cancel"]
    return "\n".join([*HISTORY, *box("Answer Questions", *rows)]) + "\n"


def test_numbered_lines_of_a_question_are_not_entries() -> None:
    """Numbered and nested numbered lists in the question, a bullet list, a question ending
    with a list, several questions' tab row: the entries are still the picker's own."""
    entries = ["● 1.  Red", "      1 coat", "  2.  Blue", "      2. two coats", "  3.  Other"]
    nested = ["Steps:", "", " 1. Plan", "    1. Read", "    2. Write", " 2. Ship", "", "Color?"]
    bullets = ["Notes:", "", " - one", " * two", "", "Color?"]
    ending = ["Pick after these:", "", " 1. Keep the old API", " 2. Replace it"]
    for question in (nested, bullets, ending):
        for tabs in (False, True):
            picker = tui.ask_user_on_screen(picker_screen(question, entries, tabs))
            assert picker is not None, question
            assert picker.options == ["Red", "Blue"]
            assert picker.text == "\n".join(line.strip() for line in question)
            assert picker.cursor == 0
    moved = [e.replace("● 1.", "  1.") if "1." in e else e for e in entries]
    moved[2] = "● 2.  Blue"
    assert tui.ask_cursor(picker_screen(nested, moved)) == 1


def test_a_long_list_numbers_its_entries_right_aligned() -> None:
    """Ten entries or more: `` 1.`` … ``10.``, the ``●`` before them."""
    labels = [f"Option {i}" for i in range(1, 12)]
    entries = [f"  {i:>2}.  {label}" for i, label in enumerate(labels, 1)]
    entries[9] = "● 10.  Option 10"
    picker = tui.ask_user_on_screen(picker_screen(["Which?"], entries))
    assert picker is not None and picker.options == labels[:-1]
    assert (picker.text, picker.cursor) == ("Which?", 9)


def test_a_multiple_choice_description_that_starts_with_a_number_is_no_entry() -> None:
    entries = ["● 1. [ ] Cheese", "         1. melted", "  2. [x] Ham", "         2 slices"]
    entries += ["  3. [ ] All of the above", "         Select all options"]
    question = ["Which toppings?", "(Select all that apply)"]
    picker = tui.ask_user_on_screen(picker_screen(question, entries))
    assert picker is not None and picker.multi
    assert (picker.text, picker.options) == ("Which toppings?", ["Cheese", "Ham"])


MULTI = [("Cheese", "c"), ("Ham", "h"), ("Olives", "o"), (tui.ASK_ALL, "Select all options")]


class MultiTerminal:
    """Gemini CLI's multiple-choice picker as captured (``multi-three``): Cheese, Ham, Olives,
    ``All of the above``, the entry for an answer of one's own and ``Done``, three entries
    shown at a time. Up and Down move the cursor (the list scrolls to keep it shown), Enter
    toggles an entry's box, or answers on ``Done``."""

    def __init__(self, drops_done: bool = False) -> None:
        self.at, self.top, self.ticks, self.keys = 0, 0, set[int](), list[str]()
        self.answered: str | None = None
        self.title, self.eof, self.bytes_read = "", False, 0
        self.drops_done = drops_done
        """Enter on ``Done`` is ignored."""

    def _items(self) -> list[list[str]]:
        items = []
        for i, (label, note) in enumerate(MULTI):
            ticked = i in self.ticks or (i == 3 and self.ticks >= {0, 1, 2})
            cursor = "●" if self.at == i else " "
            items.append([f"{cursor} {i + 1}. [{'x' if ticked else ' '}] {label}", f"{'':9}{note}"])
        items.append([f"{'●' if self.at == 4 else ' '} 5. [ ] Enter a custom value"])
        items.append([f"{'●' if self.at == 5 else ' '}  Done", "   Finish selection"])
        return items

    def screen_text(self) -> str:
        if self.answered is not None:
            return "✦ Done."
        lines = captured("multi-three").splitlines()
        up = next(i for i, line in enumerate(lines) if tui.unbox(line) == "▲")
        down = next(i for i, line in enumerate(lines) if tui.unbox(line) == "▼")
        shown = [row for item in self._items()[self.top : self.top + 3] for row in item]
        boxed = [f"│ {row}".ljust(len(lines[up - 1]) - 1) + "│" for row in shown]
        return "\n".join([*lines[: up + 1], *boxed, *lines[down:]])

    def write(self, text: str) -> None:
        self.keys.append(text)
        if text in (DOWN, UP):
            self.at = (self.at + (1 if text == DOWN else -1)) % 6
            self.top = min(max(self.top, self.at - 2), self.at)
        elif text == ENTER and self.at == 5 and not self.drops_done:
            labels = [MULTI[i][0] for i in sorted(self.ticks)]
            self.answered = ", ".join(labels)
        elif text == ENTER and self.at == 3:
            self.ticks = set() if self.ticks >= {0, 1, 2} else {0, 1, 2}
        elif text == ENTER and self.at < 3:
            self.ticks ^= {self.at}

    def pump(self, timeout: float) -> bool:
        return True

    def wait_until(self, predicate: object, deadline: float) -> bool:
        return bool(predicate())  # type: ignore[operator]


def _listed(screen: str) -> list[str]:
    """The lines of the picker's list, ``▲`` to ``▼``."""
    lines = [tui.unbox(line) for line in screen.splitlines()]
    return lines[lines.index("▲") : lines.index("▼") + 1]


def test_the_fake_multiple_choice_picker_draws_as_gemini_cli_does() -> None:
    """Control: the fake draws the captured screens' lists for the same state."""
    terminal = MultiTerminal()
    for name, at, top, ticks in [
        ("three", 2, 0, set()),
        ("ticked", 2, 0, {0, 2}),
        ("custom", 4, 2, set()),
        ("done", 5, 3, set()),
    ]:
        terminal.at, terminal.top, terminal.ticks = at, top, ticks
        assert _listed(terminal.screen_text()) == _listed(captured(f"multi-{name}")), name
    assert terminal.screen_text().splitlines()[-1] == captured("multi-three").splitlines()[-1]


def test_a_multiple_choice_list_is_read_with_done_ticks_and_scroll() -> None:
    """``Done`` (unnumbered, its description under it) ends the list: drawn, the picker is
    still read, and the cursor on it is past every numbered entry; ticked boxes are read by
    their entries' numbers, wherever the list has scrolled to."""
    done = tui.ask_user_on_screen(captured("multi-done"))
    assert done is not None and done.multi and done.done
    assert (done.entries, done.first, done.cursor) == (
        [tui.ASK_ALL, "Enter a custom value"],
        3,
        5,
    )
    assert tui.question_on_screen(captured("multi-done")) is not None
    ticked = tui.ask_user_on_screen(captured("multi-ticked"))
    assert ticked is not None and (ticked.ticked, ticked.cursor, ticked.done) == ({0, 2}, 2, False)
    custom = tui.ask_user_on_screen(captured("multi-custom"))
    assert custom is not None and (custom.first, custom.cursor) == (2, 4)


def _gemini_launch(tmp_path: Path) -> Launch[GeminiSession]:
    return _left_out_launch(tmp_path, "yolo", "interactive")


def test_a_multiple_choice_question_is_read_whole_by_scrolling(tmp_path: Path) -> None:
    """The list shows three entries at a time: the question's options are read by moving the
    cursor down to ``Done`` and back up, nothing ticked."""
    terminal = MultiTerminal()
    question = GeminiCli().pending_question(terminal, _gemini_launch(tmp_path))
    assert question == Question("Which toppings?", ["Cheese", "Ham", "Olives"])
    assert ENTER not in terminal.keys and not terminal.ticks


@pytest.mark.parametrize(
    ("answer", "chosen"),
    [
        ("Cheese, Olives", "Cheese, Olives"),
        ("olives, cheese", "Cheese, Olives"),
        ("Ham", "Ham"),
        ("Cheese, Ham, Olives", "Cheese, Ham, Olives"),
        ("2, 3", "Ham, Olives"),
        ("All of the above", "Cheese, Ham, Olives"),
        ("all", "Cheese, Ham, Olives"),
    ],
)
def test_a_multiple_choice_answer_ticks_each_option_named_then_done(
    tmp_path: Path, answer: str, chosen: str
) -> None:
    terminal = MultiTerminal()
    launch = _gemini_launch(tmp_path)
    question = GeminiCli().pending_question(terminal, launch)
    assert question is not None
    assert GeminiCli().answer(terminal, launch, question, answer)
    assert terminal.answered == chosen


@pytest.mark.parametrize("answer", ["", " , "])
def test_an_empty_multiple_choice_answer_presses_nothing(tmp_path: Path, answer: str) -> None:
    """An answer with no part at all ticks and types nothing (one naming no option is typed
    into the entry for an answer of one's own: :func:`option_parts`)."""
    terminal = MultiTerminal()
    launch = _gemini_launch(tmp_path)
    question = Question("Which toppings?", ["Cheese", "Ham", "Olives"])
    assert not GeminiCli().answer(terminal, launch, question, answer)
    assert terminal.keys == [] and terminal.answered is None


def test_a_multiple_choice_answer_the_picker_does_not_take_is_not_chosen(tmp_path: Path) -> None:
    """Enter on ``Done`` that leaves the question shown: the answer was not given."""
    terminal = MultiTerminal(drops_done=True)
    launch = _gemini_launch(tmp_path)
    question = GeminiCli().pending_question(terminal, launch)
    assert question is not None
    with pytest.raises(NotChosen, match="still shown after Enter on Done"):
        GeminiCli().answer(terminal, launch, question, "Ham")


class LateReviewTerminal:
    """The first of two ``ask_user`` questions as captured (``two``, the cursor on Red): Enter
    answers it, and Gemini CLI draws the review of the answers only after a few looks at the
    screen found nothing drawn yet (a loaded machine); Enter on the review submits it."""

    def __init__(self, blank_looks: int) -> None:
        self.state, self.blank, self.keys = "asking", blank_looks, list[str]()
        self.title, self.eof, self.bytes_read = "", False, 0

    def screen_text(self) -> str:
        if self.state == "asking":
            return captured("two")
        if self.state == "answered":
            if self.blank > 0:
                self.blank -= 1
                return "\n".join(HISTORY) + "\n"
            self.state = "review"
        if self.state == "review":
            review = ["← ✓ Color │ ✓ Size │ ≡ Review →", "", "Review your answers:", ""]
            review += ["Color → Red", "", "Enter to submit · Esc to cancel"]
            return "\n".join([*HISTORY, *box("Answer Questions", "", *review)]) + "\n"
        return "✦ Done."

    def write(self, text: str) -> None:
        self.keys.append(text)
        if text == ENTER and self.state in ("asking", "review"):
            self.state = "answered" if self.state == "asking" else "submitted"

    def pump(self, timeout: float) -> bool:
        return True

    def wait_until(self, predicate: object, deadline: float) -> bool:
        while not predicate():  # type: ignore[operator]
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True


def test_the_review_drawn_late_after_the_last_answer_is_submitted() -> None:
    """A review drawn only after the screen showed nothing for a while is still submitted (it
    was left waiting, and the trial with it, until its deadline)."""
    terminal = LateReviewTerminal(blank_looks=3)
    question = tui.question_on_screen(terminal.screen_text())
    assert question is not None
    assert GeminiCli().answer(terminal, None, question, "Red")  # type: ignore[arg-type]
    assert terminal.state == "submitted", terminal.keys


def test_a_review_on_screen_is_submitted_when_the_state_is_read() -> None:
    """A review still on screen when the driver next looks (drawn after the answer gave up
    waiting for it) is submitted then, as Claude Code's is."""
    terminal = LateReviewTerminal(blank_looks=0)
    terminal.state = "review"
    assert GeminiCli().state(terminal, None).kind == "working"  # type: ignore[arg-type]
    assert terminal.state == "submitted" and terminal.keys == [ENTER]
