"""The terminal toolkit every terminal UI driver uses: paste a message and submit it, type a
command, choose an option with the arrow keys, wait for the screen to settle.

Each helper watches the screen after every key, as a person would: TUIs drop keys that arrive
while they draw, and take an Enter that follows a paste within milliseconds as a newline.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from proctor.agents.protocol import NotChosen, Terminal

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
UP, DOWN, ENTER = "\x1b[A", "\x1b[B", "\r"
ECHO_WAIT_SEC = 3.0
"""How long a key press may take to show on screen."""
SUBMIT_TRIES = 3
SUBMIT_WAIT_SEC = 1.0
KEY_TRIES = 3
KEY_WAIT_SEC = 1.0
QUIET_SEC = 0.15
"""How long a dialog must stay unchanged before a key is pressed on it."""
TYPED_SETTLE_SEC = 0.1
"""Pause between typed keys and their Enter (see the module docstring)."""
FREE_TEXT_OPTION = "type something"
"""How a picker labels its free-text entry (Claude Code: ``Type something.``)."""
FREE_TEXT_ENTRY = "Type something."
"""A free-text entry's label for a picker whose own label for it varies (Gemini CLI's
``ask_user`` shows the question's placeholder there)."""

ScreenTest = Callable[[str], bool]
CursorReader = Callable[[str], int | None]


def bracketed(text: str) -> str:
    """``text`` as a bracketed paste."""
    return PASTE_START + text + PASTE_END


def probe_of(text: str) -> str:
    """A short piece of ``text`` (its first non-empty line) to look for on screen."""
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:30]
    return ""


def pump_for(terminal: Terminal, seconds: float) -> None:
    """Keep reading the terminal for ``seconds`` (lets a TUI finish handling a key)."""
    terminal.wait_until(lambda: False, time.monotonic() + seconds)


def wait_quiet(terminal: Terminal, quiet: float = QUIET_SEC, limit: float = ECHO_WAIT_SEC) -> None:
    """Pump until the program has written nothing for ``quiet`` seconds (at most ``limit``)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not terminal.eof:
        seen = terminal.bytes_read
        pump_for(terminal, quiet)
        if terminal.bytes_read == seen:
            return


def wait_for(terminal: Terminal, test: ScreenTest, seconds: float = ECHO_WAIT_SEC) -> bool:
    """Pump until ``test(screen)`` holds; False when it did not within ``seconds``."""
    return terminal.wait_until(lambda: test(terminal.screen_text()), time.monotonic() + seconds)


def submit(
    terminal: Terminal,
    keys: str,
    *,
    echoed: ScreenTest,
    submitted: ScreenTest,
    settle: float = 0.0,
    echo_wait: float = ECHO_WAIT_SEC,
) -> bool:
    """Send ``keys``, wait until the input shows them (``echoed``), then press Enter until the
    input is empty again (``submitted``) or the program ended. An Enter the TUI took as a
    newline is harmless: messages are trimmed when sent. False when it never left the input."""
    terminal.write(keys)
    wait_for(terminal, echoed, echo_wait)
    if settle:
        pump_for(terminal, settle)
    for _ in range(SUBMIT_TRIES):
        terminal.write(ENTER)
        if terminal.wait_until(
            lambda: terminal.eof or submitted(terminal.screen_text()),
            time.monotonic() + SUBMIT_WAIT_SEC,
        ):
            return True
    return False


def paste_and_submit(
    terminal: Terminal,
    text: str,
    *,
    echoed: ScreenTest,
    submitted: ScreenTest,
    settle: float = 0.0,
    echo_wait: float = ECHO_WAIT_SEC,
) -> bool:
    """:func:`submit` ``text`` as a bracketed paste."""
    return submit(
        terminal,
        bracketed(text),
        echoed=echoed,
        submitted=submitted,
        settle=settle,
        echo_wait=echo_wait,
    )


def paste_then_enter(terminal: Terminal, text: str) -> None:
    """A paste and its Enter in one write, for a program that reads both in order."""
    terminal.write(bracketed(text) + ENTER)


def quit_command(
    terminal: Terminal,
    command: str,
    held: Callable[[str], str | None],
    settle: float = TYPED_SETTLE_SEC,
) -> None:
    """Type a quit command (``/quit``) and press Enter until the input lets go of it."""
    submit(
        terminal,
        command,
        echoed=lambda screen: command in (held(screen) or ""),
        submitted=lambda screen: command not in (held(screen) or ""),
        settle=settle,
    )


APPROVE_WORDS = ("yes", "y", "allow", "approve", "allow once", "ok", "proceed", "accept")
"""Plain words that approve: on a prompt none of whose options they name, they choose its
first option that approves (``Allow once`` for ``yes``), as an ACP agent's permission request
takes them (:mod:`proctor.drive.acp_permissions`)."""
DENY_WORDS = ("no", "n", "deny", "reject", "refuse", "decline")
"""Plain words that refuse, likewise: its first option that refuses (``No, …`` for ``deny``)."""
_APPROVING = ("yes", "allow", "approve", "proceed", "accept")
_DENYING = ("no", "deny", "reject", "decline", "cancel")


def option_index(options: list[str], answer: str) -> int | None:
    """The option an answer means: the equal label, else a label that the answer starts (``yes``
    means ``Yes, proceed``), else a label that starts the answer as a whole word (``No, not now``
    means ``No``; ``Blue-ish green`` never means ``Blue``), else one whose first word is the
    answer's (``No. Run the tests first`` means ``No, and tell Codex…``), else its number, else
    the picker's free-text entry, else, for a plain word that approves or refuses
    (:data:`APPROVE_WORDS`, :data:`DENY_WORDS`), the first option that does (``yes`` means
    ``Allow once``, ``deny`` means ``No, …``), else None: the answer names none of the options
    (``Maybe later`` on a prompt of ``Yes, proceed`` and ``No, …``), and no option may be
    guessed for it.

    Where the picker has a free-text entry, an answer that only starts with a label and goes on
    with words of its own is free text, typed as the user would type it."""
    wanted = answer.strip().casefold()
    labels = [o.strip().casefold() for o in options]
    free_text = next(
        (i for i, label in enumerate(labels) if label.startswith(FREE_TEXT_OPTION)), None
    )
    for i, label in enumerate(labels):
        if label == wanted:
            return i
    for i, label in enumerate(labels):
        if wanted and label.startswith(wanted):
            return i
    for i, label in enumerate(labels):
        rest = wanted[len(label) :]
        if label and wanted.startswith(label) and _ends_a_word(rest, free_text is not None):
            return i
    if free_text is None and (first := _first_word(wanted)):
        for i, label in enumerate(labels):
            if _first_word(label) == first:
                return i
    if wanted.isascii() and wanted.isdigit() and 1 <= int(wanted) <= len(labels):
        return int(wanted) - 1
    if free_text is not None:
        return free_text
    said = wanted.rstrip(".!").strip()
    for words, starts in ((APPROVE_WORDS, _APPROVING), (DENY_WORDS, _DENYING)):
        if said in words:
            for i, label in enumerate(labels):
                if any(_begins_with_word(label, start) for start in starts):
                    return i
    return None


def option_indices(options: list[str], answer: str) -> list[int] | None:
    """The options a multiple-choice answer names when it is nothing else (:func:`option_parts`
    with no answer of one's own), else None."""
    named, own = option_parts(options, answer)
    return None if own or not named else named


def option_parts(options: list[str], answer: str) -> tuple[list[int], str]:
    """The options a multiple-choice answer names, in the options' order, and the rest of it,
    an answer of one's own: its comma-separated parts, each exactly an option's label (case and
    the spaces around it aside) or its number, names that option (``Cheese, olives`` means
    ``Cheese`` and ``Olives``; ``1, 3`` the first and the third; a label holding a comma is
    taken whole, ``Yes, and more``). The parts that name none, joined again with ``, `` in the
    answer's order, are the rest (``Cheese, extra basil``: ``Cheese``, then ``extra basil`` of
    one's own). A part is not read as a single choice's answer is (``Cheese and Olives``,
    ``Green tea`` for ``Green salad`` are answers of one's own), as nothing is guessed."""
    labels = [label.strip().casefold() for label in options]
    parts = answer.split(",")
    found: set[int] = set()
    rest: list[str] = []
    at = 0
    while at < len(parts):
        if not parts[at].strip():
            at += 1
            continue
        for end in range(len(parts), at, -1):
            wanted = ",".join(parts[at:end]).strip().casefold()
            if wanted in labels:
                found.add(labels.index(wanted))
                break
        else:
            wanted = parts[at].strip()
            if wanted.isascii() and wanted.isdigit() and 1 <= int(wanted) <= len(options):
                found.add(int(wanted) - 1)
            else:
                rest.append(wanted)
            end = at + 1
        at = end
    return sorted(found), ", ".join(rest)


def _begins_with_word(label: str, word: str) -> bool:
    """Whether ``label`` is ``word`` or begins with it as a whole word (``no, stop``, not
    ``nope``)."""
    return label.startswith(word) and not label[len(word) : len(word) + 1].isalnum()


def _first_word(text: str) -> str:
    """The first word of a text without the punctuation that ends it: ``no.`` → ``no``."""
    words = text.split(maxsplit=1)
    return words[0].rstrip(".,;:!?") if words else ""


def _ends_a_word(rest: str, strict: bool) -> bool:
    """Whether what follows a label in an answer leaves the label a whole word: a space or
    punctuation, not a letter, a digit, a hyphen or an apostrophe. ``strict`` (a picker that
    takes free text): only punctuation and spaces may follow."""
    if strict:
        return not any(ch.isalnum() for ch in rest)
    return not rest or not (rest[0].isalnum() or rest[0] in "-'’")


def move_cursor(terminal: Terminal, target: int, count: int, cursor: CursorReader) -> bool:
    """Move a picker's cursor to entry ``target`` (of ``count``) with the arrow keys, once the
    dialog has stopped drawing; a key the screen does not answer is sent again. False when it
    could not be reached."""
    wait_quiet(terminal)
    for _ in range(count * KEY_TRIES):
        current = cursor(terminal.screen_text())
        if current is None:
            return False
        if current == target:
            break
        terminal.write(DOWN if target > current else UP)
        terminal.wait_until(
            lambda b=current: cursor(terminal.screen_text()) not in (None, b),  # type: ignore[misc]
            time.monotonic() + KEY_WAIT_SEC,
        )
    else:
        return False
    return cursor(terminal.screen_text()) == target


def choose(terminal: Terminal, options: list[str], answer: str, cursor: CursorReader) -> bool:
    """Move the cursor to the option ``answer`` means with the arrow keys, then press Enter.

    Keys are sent only once the dialog has stopped drawing, and one the screen does not answer
    is sent again. On a free-text entry the answer is typed before Enter. Enter is pressed with
    the cursor on the chosen option, and again while the screen stays exactly as it was (the
    Enter was dropped). False when the option could not be reached (nothing was chosen).
    """
    target = option_index(options, answer)
    if target is None or not move_cursor(terminal, target, len(options), cursor):
        return False
    label = options[target].strip()
    if (
        label.casefold().startswith(FREE_TEXT_OPTION)
        and label.casefold() != answer.strip().casefold()
    ):
        terminal.write(answer)
        pump_for(terminal, TYPED_SETTLE_SEC)
    for _ in range(KEY_TRIES):
        before = terminal.screen_text()
        terminal.write(ENTER)
        if terminal.wait_until(
            lambda b=before: terminal.screen_text() != b,  # type: ignore[misc]
            time.monotonic() + KEY_WAIT_SEC,
        ):
            return True
    return True


TickReader = Callable[[str], frozenset[int] | None]


def tick(
    terminal: Terminal, targets: list[int], count: int, cursor: CursorReader, ticked: TickReader
) -> bool:
    """Leave exactly the entries ``targets`` ticked on a multiple-choice picker (of ``count``
    entries the cursor moves over): the cursor is moved onto each target and each entry shown
    ticked, and Enter toggles one whose box is not as it should be, sent again while the box
    does not change. ``ticked(screen)`` reads the ticked entries drawn (None when the picker is
    gone). False when an entry could not be reached or toggled."""
    now = ticked(terminal.screen_text())
    if now is None:
        return False
    for index in sorted(set(targets) | now):
        if not move_cursor(terminal, index, count, cursor):
            return False
        want = index in targets

        def right(i: int = index, w: bool = want) -> bool:
            return (i in (ticked(terminal.screen_text()) or ())) == w

        for _ in range(KEY_TRIES):
            if right():
                break
            terminal.write(ENTER)
            terminal.wait_until(right, time.monotonic() + KEY_WAIT_SEC)
        if not right():
            return False
    return True


def answer_picker(
    terminal: Terminal,
    options: list[str],
    answer: str,
    cursor: CursorReader,
    on_screen: Callable[[str], object | None],
    seconds: float = ECHO_WAIT_SEC,
) -> bool:
    """:func:`choose` the option, then wait (at most ``seconds``) until the dialog is gone or
    another took its place (``on_screen(screen)`` is None or differs: the next question of the
    call). False, with no key pressed, when the answer names none of the options
    (:func:`option_index`). Raises :class:`NotChosen` when the cursor did not reach the option,
    or the same dialog was still on screen ``seconds`` after Enter."""
    if option_index(options, answer) is None:
        return False
    before = on_screen(terminal.screen_text())
    if not choose(terminal, options, answer, cursor):
        raise NotChosen("the cursor did not reach its entry")

    def gone(screen: str) -> bool:
        shown = on_screen(screen)
        return shown is None or shown != before

    if not wait_for(terminal, gone, seconds):
        raise NotChosen(f"the picker was still on screen {seconds:g} s after Enter")
    return True
