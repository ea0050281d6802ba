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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from proctor.agents.protocol import Question
from proctor.util.jsonl import JsonlTail
from proctor.util.native_paths import codex_rollout

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


def _prompt(lines: list[str]) -> tuple[int, int, list[str]] | None:
    """The approval prompt's options: (first option line, confirm line, labels)."""
    confirm = next((i for i in range(len(lines) - 1, -1, -1) if CONFIRM_LINE in lines[i]), None)
    block = _option_block(lines, confirm) if confirm is not None else None
    if confirm is None or block is None:
        return None
    return block[0], confirm, block[1]


def question_on_screen(screen: str) -> Question | None:
    """The approval prompt, once completely drawn: its question and body (reason, command) as
    the text, and its options without their hotkeys."""
    lines = screen.splitlines()
    prompt = _prompt(lines)
    if prompt is None or cursor(screen) is None:
        return None
    start, _confirm, options = prompt
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
    return Question("\n".join(body[: MAX_BODY_LINES + 1]), options, kind="permission")


def cursor(screen: str) -> int | None:
    """Index of the option the ``›`` cursor is on, in the block above the confirm line."""
    lines = screen.splitlines()
    prompt = _prompt(lines)
    if prompt is None:
        return None
    start, confirm, _options = prompt
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
    """Counts finished turns in the session's rollout as it grows (anew when the file is cut
    shorter or replaced)."""

    codex_home: Path
    tail: JsonlTail | None = None
    thread_id: str | None = None
    turns: int = 0

    def rollout(self) -> Path | None:
        if self.tail is None:
            found = codex_rollout(self.codex_home)
            if found is None or not found.name.startswith("rollout-"):
                return None
            self.tail = JsonlTail(found)
        return self.tail.path

    def poll(self) -> int:
        if self.rollout() is None or self.tail is None:
            return 0
        records = self.tail.new_records()
        if self.tail.restarted:  # a rewritten rollout: its turns are counted anew
            self.turns = 0
        for record in records:
            payload = record.get("payload")
            if not isinstance(payload, dict):
                continue
            if record.get("type") == "session_meta" and self.thread_id is None:
                self.thread_id = str(payload.get("id") or "") or None
            elif record.get("type") == "event_msg" and payload.get("type") in TURN_END_EVENTS:
                self.turns += 1
        return self.turns


def shown(probe: str, screen: str) -> bool:
    """The composer holds the pasted message (or its ``[Pasted Content]`` placeholder)."""
    held = composer_text(screen) or ""
    return probe in held or PASTED in held


def submitted(probe: str, screen: str) -> bool:
    """The message left the composer (or an approval prompt already replaced it)."""
    if CONFIRM_LINE in screen:
        return True
    return composer_text(screen) is not None and not shown(probe, screen)
