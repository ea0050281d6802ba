"""Planted command histories are native transcripts: proctor's own parsers read each one back
with the same commands and the same failures, and they sit where each CLI keeps them."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.addons.hooks.cases import HistoryEntry
from proctor.addons.hooks.transcript import write_transcript
from proctor.transcripts.detect import detect_format, locate_and_parse

HISTORY = [
    HistoryEntry(command="npm test", exit_code=1, output="1 failing"),
    HistoryEntry(command="ls", exit_code=0, output="src"),
    HistoryEntry(command="npm test", exit_code=2, output="2 failing"),
]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_history_round_trips_through_proctors_parser(tmp_path: Path, agent: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = write_transcript(agent, tmp_path / "home", project, "0f1e2d3c-aaaa-bbbb", HISTORY)
    assert path.is_relative_to(tmp_path / "home")
    assert detect_format(path) == agent
    _, trajectory = locate_and_parse(path, agent)
    events = [e.model_dump(by_alias=True) for e in trajectory.events]
    calls = [e for e in events if e["type"] == "tool_call"]
    results = [e for e in events if e["type"] == "tool_result"]
    commands = [str(c["input"].get("command") or c["input"].get("cmd")) for c in calls]
    assert commands == ["npm test", "ls", "npm test"]
    assert [r["isError"] for r in results] == [True, False, True]


def test_each_cli_keeps_its_transcript_in_its_own_place(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "p"
    claude = write_transcript("claude-code", home, project, "s1", [])
    codex = write_transcript("codex", home, project, "s2", [])
    gemini = write_transcript("gemini-cli", home, project, "abcdefgh-1", [])
    assert claude.parent.parent == home / ".claude" / "projects" and claude.name == "s1.jsonl"
    assert codex.name.startswith("rollout-") and (home / ".codex" / "sessions") in codex.parents
    assert gemini.parent.name == "chats" and gemini.name.endswith("-abcdefgh.jsonl")
