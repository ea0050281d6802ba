"""Driving Gemini CLI's ``ask_user`` picker (the model's own questions, drawn in its TUI as
:mod:`.tui` reads them): answering a single-choice question (an option, or an answer of one's
own typed into its last entry), a ``text`` question (the answer typed), a multiple-choice one
(``(Select all that apply)``: each option named ticked, the rest of the answer typed into the
entry for one's own, then ``Done``), and submitting the
review drawn once each of several questions is answered.
"""

from __future__ import annotations

from proctor.agents import terminal as keys
from proctor.agents.gemini_cli import tui
from proctor.agents.protocol import NotChosen, Question, Terminal


def answer(terminal: Terminal, picker: tui.AskUser, options: list[str], text: str) -> bool:
    """Answer the ``ask_user`` question ``picker`` (answered as Claude Code's AskUserQuestion
    is): among every entry it draws, so an answer that is none of the agent's ``options`` is
    typed into its last entry (an answer of one's own); a ``text`` question takes the answer
    typed. Once the last of several questions is answered, the review is submitted with Enter.
    A multiple-choice question (``(Select all that apply)``) ticks each option the answer
    names, types the rest of it into the entry for an answer of one's own, then chooses
    ``Done`` (:func:`_answer_multi`). False, with no key pressed, when the answer names none
    of the entries (an empty one, on a multiple-choice question)."""
    if picker.typed:
        keys.wait_quiet(terminal)
        _type_answer(terminal, picker, text)
    elif picker.multi:
        if not _answer_multi(terminal, picker, options, text):
            return False
    else:
        entries = [*picker.options, keys.FREE_TEXT_ENTRY]
        target = keys.option_index(entries, text)
        if target is None:
            return False
        if target < len(picker.options) or text.strip() == keys.FREE_TEXT_ENTRY:
            keys.choose(terminal, entries, text, tui.ask_cursor)
        elif keys.move_cursor(terminal, target, len(entries), tui.ask_cursor):
            _type_answer(terminal, picker, text)
    if not picker.multi:
        keys.wait_for(terminal, lambda screen: not _still_asks(screen, picker))
    if picker.several:
        # The next question or the review comes once the picker let go of this one: the
        # review drawn after a first look found neither was left unsubmitted (the trial
        # then waited on it until its deadline).
        keys.wait_for(
            terminal, lambda screen: tui.ask_user_on_screen(screen) is not None, NEXT_ASK_SEC
        )
    for _ in range(keys.KEY_TRIES):
        if not _reviewing(terminal.screen_text()):
            break
        submit_review(terminal)
    return True


def _type_answer(terminal: Terminal, picker: tui.AskUser, text: str) -> None:
    """Type an answer of one's own into the ``ask_user`` picker's input (its last entry, or
    a ``text`` question's input) and press Enter until the picker lets go of it (it shows
    another question, its review, or nothing)."""
    probe = keys.probe_of(text)
    keys.submit(
        terminal,
        text,
        echoed=lambda screen: probe in screen,
        submitted=lambda screen: not _still_asks(screen, picker),
        settle=tui.PASTE_SETTLE_SEC,
    )


def _reviewing(screen: str) -> bool:
    """Whether the review of a call's ``ask_user`` answers is on screen."""
    picker = tui.ask_user_on_screen(screen)
    return picker is not None and picker.review


def submit_review(terminal: Terminal) -> None:
    """Press Enter on the review of a call's ``ask_user`` answers and wait until it leaves the
    screen."""
    keys.wait_quiet(terminal)
    terminal.write(keys.ENTER)
    keys.wait_for(terminal, lambda screen: not _reviewing(screen), keys.KEY_WAIT_SEC)


NEXT_ASK_SEC = 10.0
"""How long an answer to one of several questions waits for the next question or their review
to be drawn (on a loaded machine Gemini CLI took over a second)."""

MULTI_SCROLL_KEYS = 60
"""The most arrow keys pressed to read a multiple-choice list whole."""


def _multi_entries(terminal: Terminal) -> list[str] | None:
    """Every numbered entry of the multiple-choice ``ask_user`` list on screen, read by moving
    the cursor down until ``Done`` is drawn, then up until the first entry is (the list shows
    a few entries at a time). None when the picker went away or its entries did not add up."""
    seen: dict[int, str] = {}
    done = False
    for _ in range(MULTI_SCROLL_KEYS):
        picker = tui.ask_user_on_screen(terminal.screen_text())
        if picker is None or not picker.multi or picker.review:
            return None
        seen.update({picker.first + i: label for i, label in enumerate(picker.entries)})
        done = done or picker.done
        if done and 0 in seen:
            break
        keys.wait_quiet(terminal)
        terminal.write(keys.UP if done else keys.DOWN)
        keys.wait_for(
            terminal,
            lambda screen, b=picker.cursor: tui.ask_cursor(screen) not in (None, b),  # type: ignore[misc]
            keys.KEY_WAIT_SEC,
        )
    else:
        return None
    if not seen or set(seen) != set(range(max(seen) + 1)):
        return None
    return [seen[i] for i in range(len(seen))]


def _multi_options(entries: list[str]) -> list[str]:
    """The agent's options among a multiple-choice list's entries: those before ``All of the
    above`` (drawn for two options or more), else all but the last (an answer of one's own)."""
    if tui.ASK_ALL in entries:
        return entries[: entries.index(tui.ASK_ALL)]
    return entries[:-1]


ALL_ANSWERS = ("all", tui.ASK_ALL.casefold())
"""Answers that choose a multiple-choice list's ``All of the above`` (case aside)."""


def _answer_multi(terminal: Terminal, picker: tui.AskUser, options: list[str], text: str) -> bool:
    """Tick each option a multiple-choice answer names (:func:`keys.option_parts`: ``Cheese,
    Olives``; ``All of the above``, or ``all``, every option, as that entry does, on a list
    that draws it), type the rest of it, an answer of one's own (``Cheese, extra basil``), into
    the entry for it (which ticks it), then move the cursor to ``Done`` (after ``All of the
    above`` and that entry) and press Enter until the question leaves the screen; Gemini CLI
    answers with the labels ticked, then the answer of one's own, joined with ``, ``. False,
    with no key pressed, when the answer is empty. Raises :class:`NotChosen` when an entry
    could not be ticked, the answer of one's own did not show ticked, the cursor did not
    reach ``Done``, or the question was still shown after Enter."""
    targets, own = keys.option_parts(options, text)
    if not targets and len(options) > 1 and text.strip().rstrip(".").casefold() in ALL_ANSWERS:
        targets, own = list(range(len(options))), ""
    if not targets and not own:
        return False
    numbered = len(options) + (len(options) > 1) + 1

    def ticked(screen: str) -> frozenset[int] | None:
        shown = tui.ask_user_on_screen(screen)
        if shown is None or not shown.multi:
            return None
        return frozenset(i for i in shown.ticked if i < len(options))

    def still(screen: str) -> bool:
        shown = tui.ask_user_on_screen(screen)
        return shown is not None and shown.multi and shown.text == picker.text

    def own_ticked(screen: str) -> bool:
        shown = tui.ask_user_on_screen(screen)
        return shown is not None and shown.multi and numbered - 1 in shown.ticked

    if not keys.tick(terminal, targets, numbered + 1, tui.ask_cursor, ticked):
        raise NotChosen("its entries could not be ticked")
    if own:
        if not keys.move_cursor(terminal, numbered - 1, numbered + 1, tui.ask_cursor):
            raise NotChosen("the cursor did not reach the entry for an answer of its own")
        probe = keys.probe_of(own)
        terminal.write(own)
        if not keys.wait_for(terminal, lambda screen: probe in screen and own_ticked(screen)):
            raise NotChosen("the answer of its own did not show ticked")
    if not keys.move_cursor(terminal, numbered, numbered + 1, tui.ask_cursor):
        raise NotChosen("the cursor did not reach Done")
    keys.wait_quiet(terminal)
    for _ in range(keys.KEY_TRIES):
        terminal.write(keys.ENTER)
        if keys.wait_for(terminal, lambda screen: not still(screen), keys.KEY_WAIT_SEC):
            return True
    raise NotChosen(
        f"the question was still shown after Enter on Done, pressed {keys.KEY_TRIES} times"
    )


def _still_asks(screen: str, picker: tui.AskUser) -> bool:
    """Whether the ``ask_user`` picker still shows the question ``picker`` showed (with the
    same options; an option ticked or an answer being typed leaves it the same question)."""
    shown = tui.ask_user_on_screen(screen)
    return shown is not None and (shown.text, shown.options) == (picker.text, picker.options)


def multi_question(terminal: Terminal, picker: tui.AskUser) -> Question | None:
    """The multiple-choice question ``picker`` with its options read whole: its list scrolls,
    so the cursor is moved down to ``Done`` (and back up to the first entry when it is not
    drawn), no entry ticked (:func:`_multi_entries`). None when the entries could not be
    read."""
    entries = _multi_entries(terminal)
    return None if entries is None else Question(picker.text, _multi_options(entries))
