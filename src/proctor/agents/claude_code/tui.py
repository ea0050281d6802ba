"""Reading Claude Code's terminal UI (2.1.197).

* **Ready**: the input box, a line starting with ``❯`` right under a horizontal rule.
* **Turn end**: the Stop hook proctor provisions appends one JSON line per finished turn. A
  turn the user interrupted (a refused permission prompt) ends without the Stop hook: the
  transcript then gains a ``[Request interrupted by user…]`` user entry, counted too. The
  transcript closes a finished turn a moment after its Stop hook ran (a ``turn_duration``
  system line); ``/exit`` sent before that loses the turn's closing lines.
* **Questions**: pickers and permission prompts, numbered options with the ``❯`` cursor on one
  of them under the question line, complete once ``Esc to cancel`` is drawn. Their entries are
  read from the dialog alone (:func:`_entries`): a numbered list the agent wrote above it, still
  on screen, is none of them. The question's full
  text and id come from the transcript's pending ``AskUserQuestion`` call, which the CLI writes
  a moment after it draws the picker (the adapter waits for it, briefly). The
  AskUserQuestion picker draws two entries of its own after the agent's options: ``Type
  something.`` (free text) and ``Chat about this`` (leaves the picker). The question's options
  are the agent's only; answering navigates all the entries drawn (:func:`picker_entries`), so
  an answer that is none of the options is typed into ``Type something.``. A call with several
  questions draws one picker per question (tabs along the top), then a review of the answers
  to submit (:func:`answers_review`), which proctor submits as it is; the call's one
  ``tool_result`` holds every answer. A question with ``multiSelect`` draws checkboxes
  (:func:`multi_picker`): Enter ticks the entry under the cursor, ``Submit`` below the entries
  submits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from proctor.agents.protocol import Question
from proctor.util.jsonl import JsonlTail, read_json_lines

_OPTION = re.compile(r"^\s*(❯\s*)?(\d+)\.\s+(.*?)\s*$")
PICKER_OWN_ENTRIES = ("Type something.", "Chat about this")
"""The entries the AskUserQuestion picker draws after the agent's options."""


INTERRUPTED = "[Request interrupted by user"


def count_turns(stop_log: Path) -> int:
    """Finished turns: the Stop hook's JSON lines."""
    return len(read_json_lines(stop_log))


def is_interruption(record: dict[str, object]) -> bool:
    """A user entry Claude Code writes when the user interrupted the turn."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return (
        record.get("type") == "user"
        and isinstance(content, list)
        and any(
            isinstance(b, dict) and str(b.get("text", "")).startswith(INTERRUPTED) for b in content
        )
    )


def is_turn_closed(record: dict[str, object]) -> bool:
    """The system line Claude Code writes once a finished turn is closed."""
    return record.get("type") == "system" and record.get("subtype") == "turn_duration"


@dataclass
class TranscriptTurns:
    """Counts interrupted and closed turns in the transcript as it grows (anew when the file is
    cut shorter or replaced)."""

    tail: JsonlTail | None = None
    interrupted: int = 0
    closed: int = 0

    def poll(self, transcript: Path | None) -> None:
        if self.tail is None and transcript is not None and transcript.is_file():
            self.tail = JsonlTail(transcript)
        if self.tail is not None:
            records = self.tail.new_records()
            if self.tail.restarted:  # a rewritten transcript: its records are counted anew
                self.interrupted = self.closed = 0
            for record in records:
                self.interrupted += is_interruption(record)
                self.closed += is_turn_closed(record)


def cursor(screen: str) -> int | None:
    """Index of the entry the ``❯`` cursor is on, among the entries of the picker, prompt or
    review it is in (:func:`_entries`): a numbered list the agent wrote above it is none of
    them."""
    found = _entries(screen.splitlines())
    return found.cursor if found else None


def input_ready(screen: str) -> bool:
    """The TUI shows its input box: a line starting with ``❯`` right under a horizontal rule."""
    lines = screen.splitlines()
    return any(
        line.startswith("❯") and i > 0 and lines[i - 1].startswith("─")
        for i, line in enumerate(lines)
    )


@dataclass(frozen=True)
class _Entries:
    """The numbered entries of the dialog the ``❯`` cursor is in."""

    start: int
    """The row of its first entry."""
    labels: list[str]
    cursor: int
    """Index of the entry the cursor is on."""
    complete: bool
    """Whether the dialog's ``Esc to cancel`` line is drawn below them."""


def _number(line: str) -> int | None:
    match = _OPTION.match(line)
    return int(match.group(2)) if match else None


def _entries(lines: list[str]) -> _Entries | None:
    """The dialog the cursor is in: the last numbered line marked ``❯`` (the dialog is drawn at
    the bottom of the screen; the user's own message above keeps its ``❯`` too) and the entries
    numbered on from 1 around it, over their description lines and the rule drawn before
    ``Chat about this``. A numbered list the agent wrote above the dialog is no part of it: it
    is above the dialog's ``1.``, its question and its header."""
    rows = [i for i, line in enumerate(lines) if (m := _OPTION.match(line)) and m.group(1)]
    if not rows:
        return None
    at = rows[-1]
    start = _run_start(lines, at)
    labels: list[str] = []
    expected = _number(lines[start])
    complete = False
    for line in lines[start:]:
        match = _OPTION.match(line)
        if match:
            if int(match.group(2)) != expected:
                break
            labels.append(match.group(3).strip())
            expected = (expected or 0) + 1
        elif "Esc to cancel" in line:
            complete = True
            break
        elif not _inside(line):
            break
    cursor = sum(1 for line in lines[start:at] if _OPTION.match(line))
    return _Entries(start, labels, cursor, complete)


def _run_start(lines: list[str], at: int) -> int:
    """The row of the first entry (numbered 1, else as far up as the numbers run) of the run of
    numbered entries row ``at`` is in, or ends (a line under them: ``Submit``), over the lines
    that may come between entries (:func:`_inside`). Lines above that entry are no part of the
    dialog."""
    start = at
    for i in range(at - 1, -1, -1):
        number = _number(lines[start])
        if number is not None and number <= 1:
            break
        above = _number(lines[i])
        if above is not None and (number is None or above == number - 1):
            start = i
        elif above is not None or not _inside(lines[i]):
            break
    return start


def _inside(line: str) -> bool:
    """A line that may come between a dialog's entries: a description (indented), a blank
    one, or the rule above ``Chat about this``."""
    return not line.strip() or line.startswith((" ", "─"))


def _picker(screen: str) -> tuple[str, list[str]] | None:
    """The question line and every numbered entry of a fully drawn picker or prompt."""
    lines = screen.splitlines()
    found = _entries(lines)
    if found is None or not found.complete:
        return None
    text = ""
    for line in reversed(lines[: found.start]):
        stripped = line.strip("│╭╮╰╯─ ").strip()
        if stripped:
            text = stripped
            break
    return text, found.labels


def agent_options(entries: list[str]) -> list[str]:
    """The entries without the picker's own trailing ``Type something.`` and ``Chat about
    this``."""
    options = list(entries)
    while options and options[-1] in PICKER_OWN_ENTRIES:
        options.pop()
    return options


def picker_entries(screen: str) -> list[str] | None:
    """Every numbered entry of the picker or prompt on screen, the picker's own included (what
    the cursor moves over)."""
    picker = _picker(screen)
    return picker[1] if picker else None


def question_on_screen(screen: str) -> Question | None:
    """A picker or permission prompt: numbered options with the ``❯`` cursor on one of them,
    under the question line. Its options are the agent's: not the picker's own entries. A
    picker with entries of its own (``Type something.``) is AskUserQuestion's; one without is
    a permission prompt. A multiple-choice picker's options are the labels of its checkbox
    entries (:func:`multi_picker`)."""
    multi = multi_picker(screen)
    if multi is not None:
        return Question(text=multi.text, options=multi.options)
    picker = _picker(screen)
    if picker is None:
        return None
    options = agent_options(picker[1])
    if len(options) < len(picker[1]):
        return Question(text=picker[0], options=options)
    return Question(text=picker[0], options=options, kind="permission")


REVIEW = "Ready to submit your answers?"
SUBMIT = "Submit answers"


def answers_review(screen: str) -> bool:
    """The screen an AskUserQuestion call with several questions ends with, once each
    question's picker was answered: the answers listed, ``Ready to submit your answers?``, and
    the cursor on ``1. Submit answers`` (or ``2. Cancel``). It has no ``Esc to cancel`` line,
    so it is no picker of :func:`question_on_screen`."""
    lines = screen.splitlines()
    found = _entries(lines)
    return (
        found is not None
        and found.labels[:1] == [SUBMIT]
        and any(REVIEW in line for line in lines[: found.start])
    )


def shows_text(screen: str, probe: str) -> bool:
    """The input box holds the pasted message (or its ``[Pasted text]`` placeholder)."""
    return probe in screen or "Pasted text" in screen


_BOXED = re.compile(r"^\s*(❯\s*)?(\d+)\.\s+\[(.)\]\s*(.*?)\s*$")
"""An entry of a multiple-choice picker: its number, its checkbox (``[ ]``, ``[✔]`` once
ticked), then its label (``❯ 1. [ ] Cheese``)."""
MULTI_FREE_TEXT = "Type something"
"""A multiple-choice picker's free-text entry (no full stop, unlike a single choice's)."""
_SUBMIT_FOCUSED = re.compile(r"^\s*❯\s+(Submit|Next)\s*$")
"""The multiple-choice picker's button under its entries, with the cursor on it."""


@dataclass(frozen=True)
class MultiPicker:
    """An AskUserQuestion question with ``multiSelect``, fully drawn: each agent option with a
    checkbox (``1. [ ] Cheese``, its description under it), then ``[ ] Type something``, an
    unnumbered ``Submit`` (``Next`` when more questions follow) and, below a rule, ``Chat about
    this``. Entries are told by their numbers, wherever the cursor is."""

    text: str
    """The question: the line above the first entry."""
    options: list[str]
    ticked: frozenset[int]
    """Indexes of the entries whose box is ticked."""
    cursor: int | None
    """Index of the entry the ``❯`` is on; None when it is on none (``Submit``)."""


def multi_picker(screen: str) -> MultiPicker | None:
    """The multiple-choice picker on screen (entries drawn with checkboxes, numbered from 1,
    ``Esc to cancel`` under them), else None. It is read from the dialog alone, the run of
    numbered entries the ``❯`` cursor is in (or, on ``Submit``, ends), as :func:`_entries`
    finds it: a checklist the agent wrote above a picker (``1. [ ] Add a button``) is none of
    its entries."""
    lines = screen.splitlines()
    anchors = [
        i
        for i, line in enumerate(lines)
        if ((match := _OPTION.match(line)) and match[1]) or _SUBMIT_FOCUSED.match(line)
    ]
    if not anchors:
        return None
    start = _run_start(lines, anchors[-1])
    rows: list[re.Match[str]] = []
    for line in lines[start:]:
        if "Esc to cancel" in line:
            break
        if boxed := _BOXED.match(line):
            rows.append(boxed)
        elif not (_inside(line) or _OPTION.match(line) or _SUBMIT_FOCUSED.match(line)):
            return None
    else:
        return None
    if not rows:
        return None
    options: list[str] = []
    ticked: set[int] = set()
    cursor = None
    for index, match in enumerate(rows):
        if int(match[2]) != index + 1:
            return None
        if match[1]:
            cursor = index
        if match[3].strip():
            ticked.add(index)
        if match[4] == MULTI_FREE_TEXT:
            break
        options.append(match[4])
    text = next((line.strip() for line in reversed(lines[:start]) if line.strip()), "")
    return MultiPicker(text, options, frozenset(ticked), cursor)


def multi_cursor(screen: str) -> int | None:
    """Index of the multiple-choice picker's entry the ``❯`` is on."""
    multi = multi_picker(screen)
    return None if multi is None else multi.cursor


def submit_focused(screen: str) -> bool:
    """The cursor is on the multiple-choice picker's ``Submit`` (or ``Next``)."""
    return any(_SUBMIT_FOCUSED.match(line) for line in screen.splitlines())
