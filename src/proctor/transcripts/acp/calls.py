"""ACP tool calls as proctor events: one call is told in pieces (a ``tool_call`` placeholder, the
same id again with the full input, ``tool_call_update``s with the output and a final status),
and a permission request may carry it too. :class:`OpenCall` merges the pieces by id.

The tool's own name comes from the agent where it says it (Claude Code's adapter puts it in
``_meta.claudeCode.toolName``; Gemini CLI prefixes the call id with it, ``write_file__…``),
else from the call's title. Its kind is the agent's own mapping when the name is Claude Code's,
else the ACP ``kind``: ``execute`` → shell, ``read``, ``edit`` (``write`` when the tool writes
whole files), ``delete``/``move`` → edit, ``search``, ``fetch`` → web, the rest → other.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from proctor.models.trajectory import OUTPUT_CAP, ToolKind
from proctor.transcripts.builder import EventDict, ev
from proctor.transcripts.kinds import claude_kind, relativise, shell_files_in
from proctor.util.shellwords import shell_folder

ACP_KINDS: dict[str, ToolKind] = {
    "execute": "shell",
    "read": "read",
    "edit": "edit",
    "delete": "edit",
    "move": "edit",
    "search": "search",
    "fetch": "web",
}
FINAL = ("completed", "failed")
PREFIXED_ID = re.compile(r"^([A-Za-z][A-Za-z0-9_.-]*)__")
"""A call id that starts with the tool's name (Gemini CLI: ``run_shell_command__…``)."""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


@dataclass
class OpenCall:
    """What is known so far of one tool call (merged over its messages)."""

    id: str
    title: str = ""
    kind: str | None = None
    tool_name: str | None = None
    raw_input: dict[str, Any] = field(default_factory=dict)
    raw_output: Any = None
    content: list[Any] = field(default_factory=list)
    locations: list[Any] = field(default_factory=list)
    status: str | None = None
    denied: bool = False
    emitted: bool = False
    """Its ``tool_call`` event was written."""
    finished: bool = False
    """Its ``tool_result`` event was written."""

    def merge(self, update: dict[str, Any]) -> None:
        """Take the fields this message gives (an empty ``rawInput`` erases no input)."""
        if isinstance(update.get("title"), str) and update["title"]:
            self.title = update["title"]
        if isinstance(update.get("kind"), str):
            self.kind = update["kind"]
        if isinstance(update.get("status"), str):
            self.status = update["status"]
        if _dict(update.get("rawInput")):
            self.raw_input = update["rawInput"]
        if update.get("rawOutput") is not None:
            self.raw_output = update["rawOutput"]
        if isinstance(update.get("content"), list):
            self.content = update["content"]
        if isinstance(update.get("locations"), list):
            self.locations = update["locations"]
        named = _dict(_dict(update.get("_meta")).get("claudeCode")).get("toolName")
        if isinstance(named, str) and named:
            self.tool_name = named

    @property
    def name(self) -> str:
        if self.tool_name:
            return self.tool_name
        prefixed = PREFIXED_ID.match(self.id)
        return prefixed.group(1) if prefixed else (self.title or "tool")

    def proctor_kind(self) -> ToolKind:
        if self.tool_name:
            own = claude_kind(self.tool_name)
            if own != "other":
                return own
        kind = ACP_KINDS.get(self.kind or "", "other")
        if kind == "edit" and "write" in self.name.lower():
            return "write"
        return kind

    def diffs(self) -> list[dict[str, Any]]:
        return [_dict(c) for c in self.content if _dict(c).get("type") == "diff"]

    def input(self) -> dict[str, Any]:
        """The agent's raw input; without one, what the call's title, diff and locations say."""
        if self.raw_input:
            return self.raw_input
        made: dict[str, Any] = {"title": self.title} if self.title else {}
        if self.kind == "execute" and self.title:
            made["command"] = self.title
        diffs = self.diffs()
        if diffs:
            made["file_path"] = diffs[0].get("path")
            made["new_string"] = diffs[0].get("newText")
            if diffs[0].get("oldText") is not None:
                made["old_string"] = diffs[0].get("oldText")
        elif self.locations:
            made["path"] = _dict(self.locations[0]).get("path")
        return made

    def files(self, cwd: str | None) -> list[str]:
        paths = [_dict(loc).get("path") for loc in self.locations]
        paths += [d.get("path") for d in self.diffs()]
        unique = dict.fromkeys(relativise(p, cwd) for p in paths if isinstance(p, str) and p)
        if not unique and self.proctor_kind() == "shell":  # cat notes.txt: as a CLI's reader
            given = self.input()
            return shell_files_in(given.get("command"), shell_folder(given), cwd)
        return list(unique)

    def output(self) -> str | None:
        if isinstance(self.raw_output, str):
            return self.raw_output[:OUTPUT_CAP]
        texts = [
            str(_dict(c.get("content")).get("text", ""))
            for c in map(_dict, self.content)
            if c.get("type") == "content"
        ]
        if texts and any(texts):
            return "\n".join(texts)[:OUTPUT_CAP]
        if self.raw_output is not None:
            return json.dumps(self.raw_output)[:OUTPUT_CAP]
        return None

    def call_event(self, ts: Any, cwd: str | None) -> EventDict:
        self.emitted = True
        return ev(
            type="tool_call",
            ts=ts,
            id=self.id,
            name=self.name,
            kind=self.proctor_kind(),
            input=self.input(),
            files=self.files(cwd) or None,
        )

    def result_event(self, ts: Any) -> EventDict:
        """The call's result: failed is an error unless the user refused it (a denial)."""
        self.finished = True
        return ev(
            type="tool_result",
            ts=ts,
            id=self.id,
            output=self.output() if self.status in FINAL or not self.denied else None,
            isError=self.status == "failed" and not self.denied,
            denied=True if self.denied else None,
        )
