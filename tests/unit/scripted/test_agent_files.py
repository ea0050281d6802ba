"""The scripted agent's file steps stay in the trial's workspace and never wait on a named pipe:
a link to elsewhere is refused (or, in a search, passed over) and a pipe is a failed tool call."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.agent import Agent, Transcript


class Screen:
    """What the agent writes to its terminal."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def title(self, text: str) -> None:
        pass


def play(workspace: Path, steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """Play ``steps`` in ``workspace`` (in a thread, failing after 10 s rather than hanging):
    the tool results written to the transcript, and the terminal's text."""
    transcript = Transcript(workspace.parent / "t.jsonl", "s" * 36, str(workspace), "scripted")
    screen = Screen()
    agent = Agent(steps, transcript, screen)  # type: ignore[arg-type]
    player = threading.Thread(target=agent.run_turn, daemon=True)
    player.start()
    player.join(10)
    assert not player.is_alive(), "the step waited on the file"
    transcript.fh.close()
    lines = [json.loads(line) for line in transcript.path.read_text().splitlines()]
    results = [
        block
        for line in lines
        if line["type"] == "user" and isinstance(line["message"]["content"], list)
        for block in line["message"]["content"]
    ]
    return results, screen.text


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("BEGIN here\n")
    return ws


def test_a_search_through_a_link_to_a_folder_elsewhere_is_refused(
    workspace: Path, tmp_path: Path
) -> None:
    """``{"search": "BEGIN", "path": "lnk"}`` with ``lnk -> /`` walked the whole machine."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret").write_text("BEGIN PRIVATE KEY\n")
    (workspace / "lnk").symlink_to(elsewhere)
    results, screen = play(workspace, [{"search": "BEGIN", "path": "lnk"}])
    assert results[0]["is_error"] is True
    assert "Path is outside the workspace." in results[0]["content"]
    assert "Search(BEGIN)" in screen
    assert "Path is outside the workspace." in screen


def test_a_search_passes_over_links_and_named_pipes(workspace: Path, tmp_path: Path) -> None:
    """A file link to the machine's file (``key -> ~/.ssh/id_rsa``) was read and reported as a
    hit; a named pipe blocked the search until the turn timed out."""
    key = tmp_path / "id_rsa"
    key.write_text("BEGIN OPENSSH PRIVATE KEY\n")
    (workspace / "key").symlink_to(key)
    os.mkfifo(workspace / "pipe")
    results, _ = play(workspace, [{"search": "BEGIN"}])
    assert results[0]["content"] == "Found 1 files\na.txt"


@pytest.mark.parametrize("action", ["read", "edit", "write"])
def test_a_named_pipe_is_a_failed_tool_call_not_a_wait(workspace: Path, action: str) -> None:
    os.mkfifo(workspace / "pipe")
    step: dict[str, Any] = {
        "read": {"read": "pipe"},
        "edit": {"edit": {"path": "pipe", "old": "a", "new": "b"}},
        "write": {"write": {"path": "pipe", "content": "x"}},
    }[action]
    results, screen = play(workspace, [step])
    assert results[0]["is_error"] is True
    assert "Path is not a regular file (a named pipe or a device)." in results[0]["content"]
    assert "Path is not a regular file" in screen


def test_a_write_outside_the_workspace_is_shown_on_the_terminal(
    workspace: Path, tmp_path: Path
) -> None:
    """Read and edit showed their refusal; write's refusal was only in the transcript."""
    (workspace / "out").symlink_to(tmp_path)
    results, screen = play(workspace, [{"write": {"path": "out/x", "content": "x"}}])
    assert results[0]["is_error"] is True
    assert not (tmp_path / "x").exists()
    assert "Write(out/x)" in screen
    assert "Path is outside the workspace." in screen


def test_file_steps_in_the_workspace_still_work(workspace: Path) -> None:
    (workspace / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    steps = [
        {"read": "a.txt"},
        {"edit": {"path": "crlf.txt", "old": "one\ntwo", "new": "1\n2"}},
        {"write": {"path": "sub/new.txt", "content": "made\n"}},
        {"write": {"path": "a.txt", "content": "short\n"}},
        {"read": "missing"},
    ]
    results, _ = play(workspace, steps)
    assert results[0]["content"] == "     1\tBEGIN here"
    assert (workspace / "crlf.txt").read_bytes() == b"1\r\n2\r\n"
    assert (workspace / "sub" / "new.txt").read_text() == "made\n"
    assert (workspace / "a.txt").read_text() == "short\n"
    assert [r["is_error"] for r in results] == [False, False, False, False, True]
    assert "File does not exist." in results[4]["content"]


def test_a_search_for_a_pattern_that_does_not_compile_is_a_failed_call(workspace: Path) -> None:
    """``{"search": "("}`` stopped the agent with re.error; a search tool answers a bad
    pattern with an error, and the turn goes on. The pattern is quoted as the plan holds it
    (Python's repr wrote ``'say "(\\d'``, in quotes of its own choosing)."""
    results, screen = play(workspace, [{"search": 'say "(\\d'}, {"search": "BEGIN"}])
    assert results[0]["is_error"] is True
    said = 'Invalid regular expression "say \\"(\\\\d": missing ), unterminated subpattern'
    assert said in results[0]["content"]
    assert said in screen
    assert results[1]["is_error"] is False and "a.txt" in results[1]["content"]
