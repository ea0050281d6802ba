"""Reading Gemini CLI's own TUI (``gemini`` without ``-p``) in a PTY.

Signals, as observed with Gemini CLI 0.61:

* **Idle / busy**: the window title (OSC 0) reads ``◇  Ready (<folder>)`` when idle,
  ``✦  Working… (<folder>)`` while a turn runs and ``✋  Action Required (<folder>)`` while a
  confirmation waits. Busy screens also show a spinner line ``… (esc to cancel, 0s)``.
* **Ready for a message**: idle, and the input box (under the last horizontal rule) shows its
  placeholder ``Type your message or @path/to/file``.
* **Turn end**: the chat file (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) holds, after
  the N-th prompt, a ``gemini`` message without ``toolCalls`` (or an ``error`` record, or the
  ``info`` "Request cancelled." written when a confirmation is refused), and the TUI is idle.
  Idle is required because a ``gemini`` message is first written without its ``toolCalls`` and
  rewritten with them once the tools ran. When the TUI is idle, ready and
  unchanged for :data:`QUIET_SEC` after a prompt the chat never answered (an API error shown
  only on screen), the turn counts as ended too.
* **Questions**: tool confirmations drawn in a box (``Allow execution of [Shell]?`` or ``Apply
  this change?`` … ``● 1. Allow once`` …), complete once the box's bottom border is drawn under
  the options; answered with arrow keys and Enter. The model's own ``ask_user`` tool draws a
  box titled ``Answer Questions`` (:func:`ask_user_on_screen`): the question, its options
  (``● 1.  Red``, each with its description under it) and a last numbered entry for an answer
  of one's own (``Enter a custom value``, or the question's placeholder), complete once the
  footer (``Enter to select · … · Esc to cancel``) and the bottom border are drawn. A ``text``
  question shows an input (``> Enter your response``) instead of options; several questions
  show a tab row (``← □ Color │ □ Size │ ≡ Review →``) and, once each is answered, a review
  (``Review your answers:`` … ``Enter to submit``). A multiple-choice question (``(Select all
  that apply)``) draws checkboxes (``● 1. [ ] Cheese``, ``[x]`` once ticked), ``All of the
  above``, the entry for an answer of one's own and an unnumbered ``Done`` (``●  Done``), a few
  entries at a time (the list scrolls).
* **Messages**: a bracketed paste, then Enter. Without the kitty keyboard protocol (pyte does not
  answer its query) Gemini takes an Enter within 40 ms of a paste as a newline, so Enter waits
  until the input shows the text and a little longer, and is repeated while the input still
  holds it (the message is trimmed on submit, so a stray newline is harmless).
* pyte 0.8 crashes on the ``CSI > 4 ; ? m`` query Gemini sends at start-up;
  proctor's terminal (:mod:`proctor.drive.pty_session`) ignores such sequences.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.agents.protocol import Question
from proctor.util.jsonl import JsonlTail
from proctor.util.native_paths import gemini_chat

READY_MARK = "◇"
CONFIRM_MARK = "✋"
PLACEHOLDER = "Type your message"
BUSY = "esc to cancel"
PASTED = "[Pasted Text:"
PASTE_SETTLE_SEC = 0.1
QUIET_SEC = 2.0
CANCELLED = "Request cancelled"
HARNESS_PREFIXES = ("<session_context>", "<system-reminder>", "<environment_context>")

_OPTION = re.compile(r"^(●\s*)?(\d+)\.\s+(.*?)\s*$")
ASK_TITLE = "Answer Questions"
"""The title of the box the ``ask_user`` tool draws."""
ASK_FOOTER = "Esc to cancel"
ASK_REVIEW = "Review your answers:"
ASK_MULTI = "(Select all that apply)"
ASK_ALL = "All of the above"
ASK_INPUT = "> "
_CHECKBOX = re.compile(r"^\[([ x])\]\s*")
_DONE = re.compile(r"^(●| )  Done$")
"""A multiple-choice picker's last entry, unnumbered, from the box's content column (``●  Done``),
its description (``Finish selection``) under it."""
ASK_DONE_NOTE = "Finish selection"
_TICKED = re.compile(r"\s*✓$")
"""The mark after the option chosen (a question answered before, shown again)."""
_SCROLL_MARKS = ("▲", "▼")
_RULE = re.compile(r"^─{20,}$")
_BOX_SIDES = "│ "


def input_box(screen: str) -> str | None:
    """The input box's text: the lines under the last full-width rule that has any, down to
    the footer (``workspace (/directory) …``); None when no input box is drawn. Drawn without
    colours (``NO_COLOR``), the box has a rule under it too, with only the footer below."""
    lines = screen.splitlines()
    rules = [i for i in range(len(lines) - 1, -1, -1) if _RULE.match(lines[i].strip())]
    if not rules:
        return None
    for rule in rules:
        box = []
        for line in lines[rule + 1 :]:
            text = line.strip()
            if text.startswith("workspace (") or text.startswith("~/") or _RULE.match(text):
                break
            if text:
                box.append(text)
        if box:
            return "\n".join(box)
    return ""


def busy(screen: str) -> bool:
    return BUSY in screen


def input_ready(screen: str) -> bool:
    box = input_box(screen)
    return box is not None and PLACEHOLDER in box and not busy(screen)


def idle(title: str, screen: str) -> bool:
    """Not working: the title says Ready (or, with no title, nothing spins)."""
    title = title.strip()
    if title:
        return title.startswith(READY_MARK)
    return not busy(screen)


def unbox(line: str) -> str:
    """A line of a (possibly nested) bordered box without its borders."""
    return line.strip().strip(_BOX_SIDES).strip()


def _option(text: str | None) -> re.Match[str] | None:
    return _OPTION.match(text) if text is not None else None


def _dialog(screen: str) -> tuple[list[str], int, int] | None:
    """(unboxed lines, first option, last option) of a completely drawn confirmation."""
    raw = screen.splitlines()
    lines = [unbox(line) if line.lstrip().startswith("│") else None for line in raw]
    cursor_rows = [i for i, text in enumerate(lines) if (m := _option(text)) and m[1]]
    if len(cursor_rows) != 1:
        return None
    first = last = cursor_rows[0]
    while first > 0 and _option(lines[first - 1]):
        first -= 1
    while last + 1 < len(lines) and _option(lines[last + 1]):
        last += 1
    after = last + 1
    while after < len(raw) and lines[after] == "":
        after += 1
    if after >= len(raw) or not raw[after].lstrip().startswith("╰"):
        return None  # the box is still being drawn
    return [text or "" for text in lines], first, last


_ENTRY = re.compile(r"^(●| ) ( {0,2})(\d{1,3})\. (.*)$")
"""An entry of the ``ask_user`` picker, as its selection list draws it from the box's content
column: the cursor column (``●`` or a space, two wide), the number right-aligned to the width
of the largest, ``.``, a space, then the label after a space (``● 1.  Red``) or a checkbox
(``  2. [ ] Ham``). A numbered list in the question, drawn as Markdown, starts one column
further in (`` 1. Keep the old API``), nested ones further still, with one space after the
number; an option's description starts four or more columns in."""


@dataclass(frozen=True)
class AskUser:
    """The ``ask_user`` picker on screen, completely drawn."""

    text: str
    """The question (its lines as drawn, without the tab row), a numbered list in it
    included."""
    entries: list[str]
    """Every numbered entry, the last one for an answer of one's own included (checkboxes
    left out)."""
    multi: bool = False
    """A multiple-choice question (``(Select all that apply)``)."""
    typed: bool = False
    """A ``text`` question: an input, no entries."""
    review: bool = False
    """The review of several answers (``Review your answers:``), waiting for Enter."""
    cursor: int | None = None
    """Index of the entry the ``●`` is on, from its number (the list scrolls: the first entry
    drawn is not always the first); None when it is on none drawn. A multiple-choice
    question's ``Done``, after every numbered entry, has the index after theirs."""
    first: int = 0
    """Index of the first entry drawn (the list scrolls)."""
    ticked: frozenset[int] = frozenset()
    """Indexes of the entries drawn whose box is ticked (``[x]``, multiple-choice)."""
    done: bool = False
    """A multiple-choice question's ``Done`` is drawn: the entries drawn are the list's last."""
    several: bool = False
    """One of several questions of a call (a tab row above it): its review comes after the
    last."""

    @property
    def options(self) -> list[str]:
        """The agent's options: the entries without the one for an answer of one's own (and,
        multiple-choice, without ``All of the above``)."""
        if self.multi and ASK_ALL in self.entries:
            return self.entries[: self.entries.index(ASK_ALL)]
        return self.entries[:-1]


def _entry(line: str) -> tuple[bool, int, str, bool] | None:
    """(under the cursor, number, label, box ticked) of a line of the picker's content that is
    one of its entries (:data:`_ENTRY`); None for any other line."""
    match = _ENTRY.match(line)
    if match is None:
        return None
    rest = match[4]
    box = _CHECKBOX.match(rest)
    if rest.startswith(" "):
        label = rest
    elif box:
        label = _CHECKBOX.sub("", rest)
    else:
        return None  # a Markdown list item: one space after its number
    ticked = box is not None and box[1] == "x"
    return match[1] == "●", int(match[3]), _TICKED.sub("", label).strip(), ticked


def _entries(body: list[str]) -> tuple[int, list[tuple[bool, int, str, bool]]]:
    """Where the picker's list starts in ``body`` (the content above the footer) and its
    entries: the last run of entry lines, with their descriptions and scroll marks between,
    numbered one after the other. The question (a numbered list in it too) is above that run,
    a blank line between."""
    end = len(body)
    while end > 0 and (not body[end - 1].strip() or body[end - 1].strip() in _SCROLL_MARKS):
        end -= 1
    start = end
    found: list[tuple[bool, int, str, bool]] = []
    for i in range(end - 1, -1, -1):
        line = body[i]
        entry = _entry(line)
        if entry is not None:
            if found and entry[1] != found[0][1] - 1:
                break
            found.insert(0, entry)
            start = i
        elif not line.strip():
            break
        elif line.strip() in _SCROLL_MARKS or line.startswith("    "):
            continue  # a scroll mark, an option's description
        else:
            break
    while start > 0 and body[start - 1].strip() in _SCROLL_MARKS:
        start -= 1
    return start, found


def _content(line: str, column: int) -> str:
    """A line of the picker's box from its content column, without the right border."""
    return re.sub(r"[\s│]+$", "", line[column:])


def ask_user_on_screen(screen: str) -> AskUser | None:
    """The ``ask_user`` picker: the last box titled ``Answer Questions`` whose footer (``… Esc
    to cancel``, or ``Enter to submit`` on the review) and bottom border are drawn. Its
    entries are the last run of numbered lines drawn as entries (:func:`_entries`); numbered
    lines of the question above them are part of its text."""
    raw = screen.splitlines()
    title = next(
        (
            i
            for i in range(len(raw) - 1, -1, -1)
            if raw[i].lstrip().startswith("│") and unbox(raw[i]) == ASK_TITLE
        ),
        None,
    )
    if title is None:
        return None
    column = raw[title].index(ASK_TITLE)
    body: list[str] = []
    for line in raw[title + 1 :]:
        if line.lstrip().startswith("╰"):
            break
        if not line.lstrip().startswith("│"):
            return None
        body.append(_content(line, column))
    else:
        return None  # the box is still being drawn
    footer = next((i for i in range(len(body) - 1, -1, -1) if body[i].strip()), None)
    if footer is None:
        return None
    stripped = [line.strip() for line in body]
    if ASK_REVIEW in stripped:
        if "Enter to submit" not in stripped[footer]:
            return None
        return AskUser("", [], review=True)
    if not stripped[footer].endswith(ASK_FOOTER):
        return None
    listed, on_done = _without_done(body[:footer]) if ASK_MULTI in stripped else (None, False)
    start, found = _entries(body[:footer] if listed is None else listed)
    question = stripped[:start]
    inputs = [i for i, line in enumerate(question) if line.startswith(ASK_INPUT)]
    typed = not found and bool(inputs)
    if not found and not typed:
        return None
    if typed:
        question = question[: inputs[-1]]  # the input under the question
    tabs = [i for i, x in enumerate(question) if x.startswith("← ") and x.endswith(" →")]
    if tabs:
        question = question[tabs[0] + 1 :]  # the tab row above the question
    multi = ASK_MULTI in question
    if multi:
        question = question[: len(question) - question[::-1].index(ASK_MULTI) - 1]
    cursor = next((number - 1 for on, number, _, _ in found if on), None)
    if on_done and found:
        cursor = found[-1][1]
    return AskUser(
        "\n".join(question).strip(),
        [label for _, _, label, _ in found],
        multi=multi,
        typed=typed,
        cursor=cursor,
        first=found[0][1] - 1 if found else 0,
        ticked=frozenset(number - 1 for _, number, _, ticked in found if ticked),
        done=listed is not None,
        several=bool(tabs),
    )


def _without_done(body: list[str]) -> tuple[list[str] | None, bool]:
    """A multiple-choice picker's content without its ``Done`` entry and that entry's
    description, and whether the cursor is on it; (None, False) when ``Done`` is not drawn
    (the list scrolls)."""
    for i in range(len(body) - 1, -1, -1):
        match = _DONE.match(body[i])
        if match:
            end = i + 2 if i + 1 < len(body) and body[i + 1].strip() == ASK_DONE_NOTE else i + 1
            return body[:i] + body[end:], match[1] == "●"
    return None, False


def ask_cursor(screen: str) -> int | None:
    """Index of the ``ask_user`` entry the ``●`` is on, from its number (the list scrolls:
    the first entry drawn is not always the first)."""
    picker = ask_user_on_screen(screen)
    return None if picker is None else picker.cursor


def question_on_screen(screen: str) -> Question | None:
    """A tool confirmation (:func:`confirmation_on_screen`), or the question of the
    ``ask_user`` picker with the agent's options (not its review)."""
    picker = ask_user_on_screen(screen)
    if picker is not None:
        return None if picker.review else Question(picker.text, picker.options)
    return confirmation_on_screen(screen)


def confirmation_on_screen(screen: str) -> Question | None:
    """A tool confirmation: the question line (``…?``) and the tool line (``Shell  cmd``) above
    it as the text, and the numbered options."""
    found = _dialog(screen)
    if found is None:
        return None
    lines, first, last = found
    options = [m[3] for text in lines[first : last + 1] if (m := _OPTION.match(text))]
    asked = next((i for i in range(first - 1, -1, -1) if lines[i].endswith("?")), None)
    if asked is None:
        return None
    text = lines[asked]
    for i in range(asked - 1, -1, -1):
        if lines[i].startswith("? "):
            text += "\n" + lines[i][2:].strip()
            break
        if not lines[i] and i < asked - 12:
            break
    return Question(text, options, kind="permission")


def cursor(screen: str) -> int | None:
    """Index of the option the ``●`` is on."""
    if ask_user_on_screen(screen) is not None:
        return ask_cursor(screen)
    found = _dialog(screen)
    if found is None:
        return None
    lines, first, last = found
    for index, text in enumerate(lines[first : last + 1]):
        match = _OPTION.match(text)
        if match and match[1]:
            return index
    return None


# -- the chat file -----------------------------------------------------------------------------


def _is_prompt(message: dict[str, Any]) -> bool:
    if message.get("type") != "user":
        return False
    content = message.get("content")
    parts = content if isinstance(content, list) else [content]
    texts = [
        p if isinstance(p, str) else p.get("text")
        for p in parts
        if isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str))
    ]
    return bool(texts) and not str(texts[0]).lstrip().startswith(HARNESS_PREFIXES)


def _ends_turn(message: dict[str, Any]) -> bool:
    kind = message.get("type")
    if kind == "error":
        return True
    if kind == "info":
        return str(message.get("content", "")).startswith(CANCELLED)
    return kind == "gemini" and not message.get("toolCalls")


@dataclass
class ChatWatch:
    """Follows the session's chat file and counts finished turns, with the screen's help.

    Records are upserts by ``id`` (a ``gemini`` message is rewritten once its tools ran);
    ``$set.messages`` lists are read the same way. Nothing is ever forgotten: after a refused
    tool call Gemini CLI cancels the request and rewrites the history without that turn, but the
    turn still happened. Each message belongs to the prompt before its first appearance.
    """

    gemini_dir: Path
    copy: Path | None = None
    """Kept in step with the chat file: Gemini CLI deletes a chat left without a prompt (after
    a refused first turn) when it exits."""
    tail: JsonlTail | None = None
    session_id: str | None = None
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)
    prompts: list[str] = field(default_factory=list)
    last_screen: str = ""
    changed_at: float = 0.0

    def chat(self) -> Path | None:
        if self.tail is None:
            found = gemini_chat(self.gemini_dir)
            if found is None or found.suffix != ".jsonl":
                return None
            self.tail = JsonlTail(found, self.copy)
        return self.tail.path

    def _message(self, message: dict[str, Any]) -> None:
        key = str(message.get("id"))
        if key not in self.latest:
            if _is_prompt(message):
                self.prompts.append(key)
            elif self.prompts:
                self.owner[key] = self.prompts[-1]
        self.latest[key] = message

    def feed(self, record: dict[str, Any]) -> None:
        replaced = record.get("$set", {}).get("messages") if "$set" in record else None
        if isinstance(replaced, list):
            for message in replaced:
                if isinstance(message, dict) and "id" in message:
                    self._message(message)
        elif isinstance(record.get("id"), str):
            self._message(record)
        elif isinstance(record.get("sessionId"), str) and self.session_id is None:
            self.session_id = record["sessionId"]

    def outcomes(self) -> list[bool]:
        """For every prompt so far, in order: whether a message that ends a turn answered it."""
        if self.chat() is not None and self.tail is not None:
            for record in self.tail.new_records():
                self.feed(record)
        ended = {self.owner[k] for k, m in self.latest.items() if k in self.owner and _ends_turn(m)}
        return [p in ended for p in self.prompts]

    def turns(self, title: str, screen: str) -> int | None:
        """Finished turns when the TUI is idle and ready for a message, else None."""
        now = time.monotonic()
        if screen != self.last_screen:
            self.last_screen, self.changed_at = screen, now
        outcomes = self.outcomes()
        if not (idle(title, screen) and input_ready(screen)):
            return None
        done = sum(outcomes)
        if outcomes and not outcomes[-1] and now - self.changed_at >= QUIET_SEC:
            done += 1  # answered on screen only (an API error): the TUI has settled
        return done


def submitted(probe: str, title: str, screen: str) -> bool:
    """The message left the input box (or a confirmation already replaced it)."""
    if title.strip().startswith(CONFIRM_MARK) or question_on_screen(screen) is not None:
        return True
    box = input_box(screen)
    return box is not None and probe not in box and PASTED not in box


def shown(probe: str, screen: str) -> bool:
    box = input_box(screen) or ""
    return probe in box or PASTED in box
