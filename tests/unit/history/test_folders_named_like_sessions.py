"""A folder named as a CLI names a session's file, where the CLI keeps its sessions (a
``rollout-….jsonl/`` folder in Codex's ``sessions/``, a ``<uuid>.jsonl/`` folder in a Claude
Code project, a ``session-….json/`` folder in a Gemini CLI ``chats/``), is no session: it is
listed under Unavailable, "a folder, not a session file", however the history is reached, and
never passed over without a word. Real recordings, laid out as each CLI keeps them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proctor.history.sources import find_sessions, sessions_under
from proctor.models.history import Unavailable
from tests.conftest import Run

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus"
NESTED = ROOT / "tests/fixtures/transcripts/claude/nested/-tmp-proctor-vhux1ro4-0-workspace"
SESSION = "2e315b70-a4cd-4086-8c5c-33ece1bf7bd1"
AGENTS = ["claude-code", "codex", "gemini-cli"]
FOLDER = "a folder, not a session file: left out"
ROLLOUT = "rollout-2026-12-01T14-30-50-01a23203-f8c7-7fb3-b9cd-fc8c29877a31.jsonl"
CHAT = "session-2026-12-01T14-30-75a4b4a3.jsonl"


def planted(home: Path) -> dict[str, Path]:
    """A session of each CLI where it keeps them, and beside each a folder named as the CLI
    names a session's file; the folders, by agent."""
    project = home / ".claude" / "projects" / NESTED.name
    project.mkdir(parents=True)
    shutil.copy(NESTED / f"{SESSION}.jsonl", project)
    shutil.copytree(NESTED / SESSION, project / SESSION)  # its subagents' folder: no session
    day = home / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    shutil.copy(CORPUS / "codex-0.171.0-basic.transcript.jsonl", day / ROLLOUT)
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl", chats / CHAT)
    folders = {
        "claude-code": project / "0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
        "codex": home
        / ".codex/sessions/2026/11/01/rollout-2026-11-01T10-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
        "gemini-cli": chats / "session-2026-11-01T10-00-0199a213.json",
    }
    for folder in folders.values():
        folder.mkdir(parents=True)
    (day / "notes").mkdir()  # a folder named otherwise: not a word about it
    (chats / "notes.json").mkdir()  # not named as Gemini CLI names a chat
    return folders


def said(unavailable: list[Unavailable]) -> list[tuple[str | None, str, str]]:
    return [(u.agent, u.path, u.reason) for u in unavailable]


def test_a_folder_named_like_a_session_in_a_history_folder_is_unavailable(
    tmp_path: Path,
) -> None:
    folders = planted(tmp_path / "home")
    sessions, unavailable = find_sessions(AGENTS, tmp_path / "home", {})
    assert sorted(Path(s.file).name for s in sessions) == sorted(
        [f"{SESSION}.jsonl", ROLLOUT, CHAT]
    )
    assert said(unavailable) == [(a, str(f), FOLDER) for a, f in folders.items()]


@pytest.mark.parametrize(
    ("agent", "given"),
    [
        ("claude-code", ".claude"),
        ("claude-code", f".claude/projects/{NESTED.name}"),
        ("claude-code", ".claude/projects"),
        ("codex", ".codex"),
        ("codex", ".codex/sessions"),
        ("gemini-cli", ".gemini/tmp"),
        ("gemini-cli", ".gemini/tmp/proj/chats"),
    ],
)
def test_the_same_folder_reached_through_a_path_is_said_alike(
    tmp_path: Path, agent: str, given: str
) -> None:
    """A history folder, or a folder read as laid out as that CLI's, given as a PATH."""
    folders = planted(tmp_path / "home")
    sessions, unavailable = sessions_under([tmp_path / "home" / given], AGENTS)
    assert len(sessions) == 1 and sessions[0].agent == agent
    assert said(unavailable) == [(agent, str(folders[agent]), FOLDER)]


def test_such_a_folder_given_alone_says_it_is_a_folder(tmp_path: Path) -> None:
    folders = planted(tmp_path / "home")
    for folder in folders.values():
        sessions, unavailable = sessions_under([folder], AGENTS)
        reason = "a folder, not a session file: it holds no session transcript"
        assert sessions == [] and said(unavailable) == [(None, str(folder), reason)]
    plain = tmp_path / "empty"
    plain.mkdir()
    _, unavailable = sessions_under([plain], AGENTS)  # the control: named as no file is
    assert [u.reason for u in unavailable] == ["no session transcript"]


def test_the_report_lists_it_and_counts_the_sessions_beside_it(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    folders = planted(tmp_path / "home")
    result = proctor("history", "--home", str(tmp_path / "home"), "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["total"]["sessions"] == 3
    assert [(u["agent"], u["path"], u["reason"]) for u in report["unavailable"]] == [
        (a, str(f), FOLDER) for a, f in folders.items()
    ]
    text = proctor("history", "--home", str(tmp_path / "home"), "--agent", "codex")
    assert f"- codex: {folders['codex']}: {FOLDER}" in text.out
