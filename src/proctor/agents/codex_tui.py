"""Driving Codex's own TUI (``codex`` without ``exec``) in a PTY.

Signals, as observed with Codex 0.171:

* **Ready for the first prompt**: the composer (a line starting with ``›``) with the status line
  under it (``GPT-5.5 default · <cwd>``). Before the session is configured the line under the
  composer only says ``? for shortcuts``.
* **Turn end**: each finished turn appends an ``event_msg`` ``task_complete`` record to the
  rollout (``turn_aborted`` when the user refused an approval with "No"); they are counted like
  Claude Code's Stop-hook log. The rollout is created with the first turn, so it is pinned to the
  first ``rollout-*.jsonl`` that appears under ``$CODEX_HOME/sessions``.
* **Questions**: the approval prompt (``Would you like to run the following command?`` …
  ``› 1. Yes, proceed (y)`` … ``Press enter to confirm or esc to cancel``), complete only once
  that last line is drawn; answered with arrow keys and Enter.
* **Messages**: a bracketed paste, then, once the composer shows it, a separate Enter (checked:
  the composer no longer holds the text, else Enter again). ``/quit`` is typed, then Enter.

The helpers in the first section are shared with :mod:`proctor.agents.gemini_tui`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proctor.agents.base import Question
from proctor.drive.pty_session import PtySession

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
UP, DOWN = "\x1b[A", "\x1b[B"
ECHO_WAIT_SEC = 3.0
"""How long a key press may take to show on screen."""
SUBMIT_TRIES = 3
SUBMIT_WAIT_SEC = 1.0
KEY_TRIES = 3
KEY_WAIT_SEC = 1.0
QUIET_SEC = 0.15
"""How long a dialog must stay unchanged before proctor presses a key on it."""
TYPED_SETTLE_SEC = 0.1
"""Pause between typed keys and their Enter: both TUIs take an Enter that follows other keys
within a few milliseconds as part of a paste (a newline)."""

# -- shared TUI helpers ------------------------------------------------------------------------


def probe_of(text: str) -> str:
    """A short piece of ``text`` (its first non-empty line) to look for on screen."""
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()[:30]
    return ""


def pump_for(session: PtySession, seconds: float) -> None:
    """Keep reading the terminal for ``seconds`` (lets a TUI finish handling a key)."""
    session.wait_until(lambda: False, time.monotonic() + seconds)


def submit(
    session: PtySession,
    keys: str,
    *,
    echoed: Callable[[str], bool],
    submitted: Callable[[str], bool],
    settle: float = 0.0,
) -> bool:
    """Send ``keys``, wait until the input shows them (``echoed``), then press Enter until the
    input is empty again (``submitted``) or the program ended. An Enter the TUI took as a
    newline (both TUIs guard against an Enter that arrives with a paste) is harmless: the
    message is trimmed when it is sent. False when it never left the input."""
    session.write(keys)
    session.wait_until(lambda: echoed(session.screen_text()), time.monotonic() + ECHO_WAIT_SEC)
    if settle:
        pump_for(session, settle)
    for _ in range(SUBMIT_TRIES):
        session.write("\r")
        if session.wait_until(
            lambda: session.eof or submitted(session.screen_text()),
            time.monotonic() + SUBMIT_WAIT_SEC,
        ):
            return True
    return False


def paste_and_submit(
    session: PtySession,
    text: str,
    *,
    echoed: Callable[[str], bool],
    submitted: Callable[[str], bool],
    settle: float = 0.0,
) -> bool:
    """:func:`submit` ``text`` as a bracketed paste."""
    keys = PASTE_START + text + PASTE_END
    return submit(session, keys, echoed=echoed, submitted=submitted, settle=settle)


def quit_command(
    session: PtySession,
    command: str,
    held: Callable[[str], str | None],
    settle: float = TYPED_SETTLE_SEC,
) -> None:
    """Type a quit command (``/quit``) and press Enter until the input lets go of it."""
    submit(
        session,
        command,
        echoed=lambda screen: command in (held(screen) or ""),
        submitted=lambda screen: command not in (held(screen) or ""),
        settle=settle,
    )


def option_index(options: list[str], answer: str) -> int:
    """The option an answer means: equal, else a prefix either way, else its number, else the
    first option."""
    wanted = answer.strip().lower()
    labels = [o.strip().lower() for o in options]
    for i, label in enumerate(labels):
        if label == wanted:
            return i
    for i, label in enumerate(labels):
        if wanted and (label.startswith(wanted) or wanted.startswith(label)):
            return i
    if wanted.isdigit() and 1 <= int(wanted) <= len(labels):
        return int(wanted) - 1
    return 0


def wait_quiet(session: PtySession, quiet: float = QUIET_SEC, limit: float = ECHO_WAIT_SEC) -> None:
    """Pump until the program has written nothing for ``quiet`` seconds (at most ``limit``)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and not session.eof:
        seen = len(session.raw)
        pump_for(session, quiet)
        if len(session.raw) == seen:
            return


def choose(
    session: PtySession, options: list[str], answer: str, cursor: Callable[[str], int | None]
) -> bool:
    """Move the cursor to the option ``answer`` means with the arrow keys, watching the screen
    after every key as a person would, then press Enter.

    Keys are only sent once the dialog has stopped drawing (a key that arrives with the dialog
    may be dropped); a key the screen does not answer is sent again. Enter is pressed only with
    the cursor on the chosen option, and again while the screen stays exactly as it was (the
    Enter was dropped). False when the option could not be reached (nothing was chosen)."""
    target = option_index(options, answer)
    wait_quiet(session)
    for _ in range(len(options) * KEY_TRIES):
        current = cursor(session.screen_text())
        if current is None:
            return False
        if current == target:
            break
        session.write(DOWN if target > current else UP)
        session.wait_until(
            lambda b=current: cursor(session.screen_text()) not in (None, b),  # type: ignore[misc]
            time.monotonic() + KEY_WAIT_SEC,
        )
    else:
        return False
    if cursor(session.screen_text()) != target:
        return False
    for _ in range(KEY_TRIES):
        before = session.screen_text()
        session.write("\r")
        if session.wait_until(
            lambda b=before: session.screen_text() != b,  # type: ignore[misc]
            time.monotonic() + KEY_WAIT_SEC,
        ):
            return True
    return True


@dataclass
class JsonlTail:
    """Reads the complete lines a growing JSONL file gained since the last call."""

    path: Path
    copy: Path | None = None
    """Where every byte read is appended too (the CLI may delete its file on exit)."""
    offset: int = 0
    partial: bytes = b""

    def new_records(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return []
        self.offset += len(chunk)
        if self.copy is not None and chunk:
            with open(self.copy, "ab") as out:
                out.write(chunk)
        data = self.partial + chunk
        *lines, self.partial = data.split(b"\n")
        records = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records


# -- Codex's screen ----------------------------------------------------------------------------

_OPTION = re.compile(r"^\s*(›\s*)?(\d+)\.\s+(.*?)\s*$")
_HOTKEY = re.compile(r"\s*\((?:[a-z]|esc|enter)\)$")
CONFIRM_LINE = "Press enter to confirm or esc to cancel"
PASTED = "[Pasted Content"
MAX_BODY_LINES = 8
HISTORY_MARKS = ("•", "›", "─", "✔", "✗")
"""Marks of transcript lines above a dialog (its question never starts with one)."""
QUESTION_STARTS = ("Would you like", "Do you want", "Allow", "Approve")


def _composer_index(lines: list[str]) -> int | None:
    """The composer: the last line starting with ``›`` that is not a numbered option."""
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("›") and not _OPTION.match(lines[i]):
            return i
    return None


def composer_text(screen: str) -> str | None:
    """What the composer holds (its first line), None when no composer is shown."""
    lines = screen.splitlines()
    i = _composer_index(lines)
    return None if i is None else lines[i][1:].strip()


def input_ready(screen: str) -> bool:
    """The composer is shown with the session's status line (``model · cwd``) under it."""
    lines = screen.splitlines()
    i = _composer_index(lines)
    if i is None:
        return False
    return any(" · " in line for line in lines[i + 1 : i + 4])


def _option_block(lines: list[str], end: int) -> tuple[int, list[str]] | None:
    """The numbered options right above line ``end``: (first line, labels)."""
    i = end - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    block: list[str] = []
    start = None
    while i >= 0:
        match = _OPTION.match(lines[i])
        if match:
            block.insert(0, lines[i])
            start = i
        elif lines[i].startswith("     ") and lines[i].strip():
            block.insert(0, lines[i])  # a wrapped option
        else:
            break
        i -= 1
    if start is None:
        return None
    labels: list[str] = []
    for line in lines[start:end]:
        match = _OPTION.match(line)
        if match:
            labels.append(match.group(3))
        elif line.strip() and labels:
            labels[-1] += " " + line.strip()
    return start, [_HOTKEY.sub("", label).strip() for label in labels]


def question_on_screen(screen: str) -> Question | None:
    """The approval prompt, once completely drawn: its question and body (reason, command) as
    the text, and its options without their hotkeys."""
    lines = screen.splitlines()
    confirm = next((i for i in range(len(lines) - 1, -1, -1) if CONFIRM_LINE in lines[i]), None)
    if confirm is None:
        return None
    block = _option_block(lines, confirm)
    if block is None:
        return None
    start, options = block
    if cursor(screen) is None:
        return None
    asked = [
        i
        for i in range(start - 1, max(start - 40, -1), -1)
        if lines[i].strip().endswith("?")
        and not any(lines[j].lstrip().startswith(HISTORY_MARKS) for j in range(i, start))
    ]
    if not asked:
        return None
    head = next((i for i in asked if lines[i].strip().startswith(QUESTION_STARTS)), asked[0])
    body = [line.strip() for line in lines[head:start] if line.strip()]
    return Question("\n".join(body[: MAX_BODY_LINES + 1]), options)


def cursor(screen: str) -> int | None:
    """Index of the option the ``›`` cursor is on, in the block above the confirm line."""
    lines = screen.splitlines()
    confirm = next((i for i in range(len(lines) - 1, -1, -1) if CONFIRM_LINE in lines[i]), None)
    if confirm is None:
        return None
    block = _option_block(lines, confirm)
    if block is None:
        return None
    start = block[0]
    index = -1
    for line in lines[start:confirm]:
        match = _OPTION.match(line)
        if match:
            index += 1
            if match.group(1):
                return index
    return None


# -- Codex's rollout ---------------------------------------------------------------------------

TURN_END_EVENTS = frozenset({"task_complete", "turn_aborted"})


@dataclass
class RolloutWatch:
    """Counts finished turns in the session's rollout as it grows."""

    codex_home: Path
    tail: JsonlTail | None = None
    thread_id: str | None = None
    turns: int = 0

    def rollout(self) -> Path | None:
        if self.tail is None:
            from proctor.transcripts.session import codex_rollout

            found = codex_rollout(self.codex_home)
            if found is None or not found.name.startswith("rollout-"):
                return None
            self.tail = JsonlTail(found)
        return self.tail.path

    def poll(self) -> int:
        if self.rollout() is None or self.tail is None:
            return 0
        for record in self.tail.new_records():
            payload = record.get("payload")
            if not isinstance(payload, dict):
                continue
            if record.get("type") == "session_meta" and self.thread_id is None:
                self.thread_id = str(payload.get("id") or "") or None
            elif record.get("type") == "event_msg" and payload.get("type") in TURN_END_EVENTS:
                self.turns += 1
        return self.turns
