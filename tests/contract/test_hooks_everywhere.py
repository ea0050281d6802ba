"""One ``provision.hooks`` list, written in Claude Code's vocabulary, fires on every CLI.

Codex shares Claude Code's event names and takes ``Bash``/``Write``/``Edit`` matchers for its own
tools; Gemini CLI names events and tools otherwise (``BeforeTool``, ``run_shell_command``, ...)
and proctor translates them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.contract.conftest import require_cli

PLAN = {
    "turns": [{"shell": "echo hi"}, {"write": {"path": "a.txt", "content": "x\n"}}, {"say": "ok"}]
}
HOOKS = [
    ("session-start", "SessionStart", None),
    ("prompt", "UserPromptSubmit", None),
    ("pre-bash", "PreToolUse", "Bash"),
    ("post-write", "PostToolUse", "Write|Edit"),
    ("pre-read", "PreToolUse", "Read"),
    ("stop", "Stop", None),
]
"""(mark, event, matcher): every mark but ``pre-read`` must appear (the plan reads nothing)."""


def hooks(marks: Path) -> list[dict[str, Any]]:
    entries = []
    for mark, event, matcher in HOOKS:
        entry = {"name": mark, "event": event, "command": f"touch {marks}/{mark}"}
        if matcher:
            entry["matcher"] = matcher
        entries.append(entry)
    return entries


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_claude_vocabulary_hooks_fire_on_every_cli(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Path, agent: str
) -> None:
    require_cli(agent)
    marks = tmp_path / "marks"
    marks.mkdir()
    config = {"provision": {"hooks": hooks(marks)}}
    top = {"codingagents": {"gemini-cli": {"permissionMode": "yolo"}}}
    out = run_cli(agent, PLAN, config=config, top=top)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    expected = sorted(mark for mark, _, _ in HOOKS if mark != "pre-read")
    assert sorted(p.name for p in marks.iterdir()) == expected
