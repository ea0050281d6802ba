"""A Gemini CLI subagent's chat is part of the chat that started it: its steps and tokens are
that session's, and it is no session of its own. The chats are the ones Gemini CLI 0.61 wrote
(``tests/fixtures/transcripts/gemini-subagent``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from proctor.history.cache import SummaryCache
from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions, sessions_under
from proctor.models.pricing import PriceTable

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "gemini-subagent"
SUB = "37fa6668-a093-47ba-9afe-342b4e75e2ab/81d99572-a4d5-4ce5-8a8b-78dafd0a1096.jsonl"


def gemini_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(FIXTURE / "tmp", home / ".gemini" / "tmp")
    return home


def measured(home: Path, cache: SummaryCache | None = None) -> list[SessionRecord]:
    sessions, unavailable = find_sessions(["gemini-cli"], home, {})
    assert unavailable == []
    found = list(replay(sessions, Filters(), PriceTable(), workers=1, cache=cache))
    if cache is not None:
        cache.save(s.file for s in sessions)
    assert all(isinstance(s, SessionRecord) for s in found), found
    return found  # type: ignore[return-value]


def test_a_subagents_chat_counts_in_the_session_that_started_it(tmp_path: Path) -> None:
    home = gemini_home(tmp_path)
    (summary,) = measured(home)
    assert {m: u.responses for m, u in summary.usage.items()} == {
        "gemini-3.8-flash": 3,
        "gemini-3-flash-preview": 4,
    }
    assert summary.usage["gemini-3-flash-preview"].input_tokens == 13585  # as Gemini CLI reported
    # echo parent > parent.txt, invoke_agent; the subagent's calls to run_shell_command (the
    # same command, its arguments from the main chat's invoke_agent result) and invoke_agent,
    # refused as not available to it (no toolCalls entry in its chat).
    assert summary.steps.by_kind == {"write": 2, "subagent": 2}


def test_a_plain_folder_lists_the_main_chat_only(tmp_path: Path) -> None:
    chats = gemini_home(tmp_path) / ".gemini" / "tmp" / "workspace" / "chats"
    found, unavailable = sessions_under([chats], ["gemini-cli"])
    assert [s.path.name for s in found] == ["session-2026-12-02T19-14-37fa6668.jsonl"]
    assert unavailable == []


def test_a_grown_subagent_chat_replays_its_session_from_the_cache(tmp_path: Path) -> None:
    home = gemini_home(tmp_path)
    db = tmp_path / "cache.sqlite"
    measured(home, SummaryCache(db, PriceTable()))
    warm = SummaryCache(db, PriceTable())
    measured(home, warm)
    assert warm.hits == 1
    sub = home / ".gemini" / "tmp" / "workspace" / "chats" / SUB
    stat = sub.stat()
    os.utime(sub, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = SummaryCache(db, PriceTable())
    measured(home, again)
    assert again.hits == 0
