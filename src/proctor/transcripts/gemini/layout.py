"""The first pass over a Gemini CLI chat: which record holds the final form of each message,
in what order, and random access to the lines that hold them.

A record whose ``id`` was seen before replaces it in place (last write wins, position of first
appearance) and ``{"$set": {...}}`` updates metadata. A ``$set`` ``messages`` list and a
``{"$rewindTo": id}`` rewrite the conversation Gemini CLI sends next (a resumed session appends a
second header and the history in the model's wire form, without token counts or tool results;
after a refused call the history is written again without that turn; a rewind drops a message
and what followed), but what was recorded on its own line was sent, answered and billed, and
its tools ran: every recorded message stays, where it first appeared, and only the messages
known from a list alone follow the rewrites. The layout keeps only where each record is, never
the record: the second pass (:mod:`.parser`) reads just those records.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proctor.errors import ConfigError
from proctor.transcripts.builder import UNTYPED
from proctor.transcripts.lines import decode_line

Where = tuple[str, int, int]
"""(what, line, index): ``("line", n, 0)`` a whole line, ``("set", n, i)`` the i-th message of
a ``$set`` line, ``("unparsed", n, 0)`` / ``("unknown", n, 0)`` a line kept as ``other``."""


@dataclass
class ChatLayout:
    """The slots of a chat in order (``m:<id>`` for messages, ``#<n>`` for unknown or broken
    lines) and where each one's record is; the session id and project folder."""

    slots: dict[str, Where] = field(default_factory=dict)
    recorded: dict[str, Where] = field(default_factory=dict)
    unknown_types: dict[int, str] = field(default_factory=dict)
    session_id: str | None = None
    cwd: str | None = None
    kind: str | None = None
    """The header's ``kind``: ``main``, or ``subagent`` for a subagent's chat."""
    lines: int = 0
    extra: int = 0

    def add_extra(self, where: Where) -> None:
        self.extra += 1
        self.slots[f"#{self.extra}"] = where

    def metadata(self, meta: dict[str, Any], line: int) -> None:
        if isinstance(meta.get("sessionId"), str):
            self.session_id = self.session_id or meta["sessionId"]
        if self.kind is None and isinstance(meta.get("kind"), str):
            self.kind = meta["kind"]
        directories = meta.get("directories")
        if self.cwd is None and isinstance(directories, list) and directories:
            self.cwd = str(directories[0])
        messages = meta.get("messages")
        if isinstance(messages, list):
            # The history rewritten (a resumed session's, in the model's wire form, without
            # token counts or tool results; the history after a refused call, without that
            # turn): a message recorded on its own line happened, and stays where it was; of
            # the messages known only from an earlier list, those this one drops go.
            self.slots = self._relisted(messages, line)

    def _relisted(self, messages: list[Any], line: int) -> dict[str, Where]:
        """The slots after a ``$set.messages`` list: the recorded messages where they were, and
        the messages known from the list alone in the list's order, each placed before the
        recorded message that follows it in the list (a resumed session's context first)."""
        anchored: dict[str, list[tuple[str, Where]]] = {}
        waiting: list[tuple[str, Where]] = []
        for index, message in enumerate(messages):
            if not (isinstance(message, dict) and isinstance(message.get("id"), str)):
                continue
            key = "m:" + message["id"]
            if key in self.recorded:
                if waiting:
                    anchored.setdefault(key, []).extend(waiting)
                    waiting = []
            else:
                waiting.append((key, ("set", line, index)))
        slots: dict[str, Where] = {}
        for key, where in self.slots.items():
            if self._listed(key):
                continue  # known from an earlier list only: this one says where it goes
            for listed, at in anchored.pop(key, ()):
                slots[listed] = at
            slots[key] = where
        for listed, at in [*(pair for pairs in anchored.values() for pair in pairs), *waiting]:
            slots[listed] = at
        return slots

    def rewind(self, message_id: str) -> None:
        """The conversation taken back to before ``message_id``: what the model is sent next.
        The messages recorded after it were sent, answered and billed, and their tools ran:
        they stay (as ccusage counts them); of those known only from a history list, the
        ones from that message on go."""
        keys = list(self.slots)
        target = "m:" + message_id
        start = keys.index(target) if target in self.slots else 0
        for key in keys[start:]:
            if self._listed(key):
                del self.slots[key]

    def _listed(self, key: str) -> bool:
        """Whether a slot holds a message known only from a ``$set.messages`` list."""
        return not key.startswith("#") and key not in self.recorded

    def record(self, record: Any, line: int) -> None:
        self.lines += 1
        if not isinstance(record, dict):
            self.add_extra(("unparsed", line, 0))
        elif isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"])
        elif isinstance(record.get("$set"), dict):
            self.metadata(record["$set"], line)
        elif isinstance(record.get("id"), str):
            self.slots["m:" + record["id"]] = self.recorded["m:" + record["id"]] = ("line", line, 0)
        elif isinstance(record.get("sessionId"), str) and "projectHash" in record:
            self.metadata(record, line)
        else:
            kind = record.get("type")
            self.unknown_types[line] = UNTYPED if kind is None else str(kind)
            self.add_extra(("unknown", line, 0))


def _read_lines(path: Path) -> Iterator[bytes]:
    """A file's lines with their line ends; a read error names the file."""
    try:
        with open(path, "rb") as fh:
            yield from fh
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc


class ChatLines:
    """Random access to a chat's non-blank lines: by offset in a file, or in a list."""

    def __init__(self, path: Path | None = None, lines: list[str | bytes] | None = None) -> None:
        self.path = path
        self.lines = lines
        self.offsets: list[int] = []
        self._fh: Any = None
        self._cached: tuple[int, Any] | None = None

    def scan(self) -> Iterator[tuple[int, str | bytes]]:
        """(line number, text) of every non-blank line, remembering where each one is."""
        if self.lines is not None:
            yield from enumerate(self.lines)
            return
        if self.path is None:
            return
        offset = 0
        for raw in _read_lines(self.path):
            if raw.strip():
                self.offsets.append(offset)
                yield len(self.offsets) - 1, raw
            offset += len(raw)

    def text(self, number: int) -> str | bytes:
        if self.lines is not None:
            return self.lines[number]
        try:
            if self._fh is None and self.path is not None:
                self._fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
            self._fh.seek(self.offsets[number])
            return bytes(self._fh.readline())
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot be read ({exc.strerror or exc})") from exc

    def decoded(self, number: int) -> Any:
        if self._cached is None or self._cached[0] != number:
            self._cached = (number, decode_line(self.text(number)))
        return self._cached[1]

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()


def message_at(lines: ChatLines, where: Where) -> Any:
    """The message record in a slot (``None`` for a line kept as ``other``)."""
    what, number, index = where
    if what == "line":
        return lines.decoded(number)
    return lines.decoded(number)["$set"]["messages"][index] if what == "set" else None
