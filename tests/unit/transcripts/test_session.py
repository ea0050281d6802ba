import json
import os
import time
from pathlib import Path

from proctor.util.native_paths import (
    claude_session_files,
    claude_subagent_files,
    codex_rollout,
    gemini_chat,
    project_dir_name,
)

SESSION = "11111111-2222-3333-4444-555555555555"


def touch(path: Path, text: str = "{}\n", age: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_claude_session_files_main_first_then_subagents(tmp_path: Path) -> None:
    config, cwd = tmp_path / ".claude", "/work/my_app.v2"
    project = config / "projects" / project_dir_name(cwd)
    main = touch(project / f"{SESSION}.jsonl")
    b = touch(project / SESSION / "subagents" / "agent-b.jsonl")
    a = touch(project / SESSION / "subagents" / "agent-a.jsonl")
    touch(project / SESSION / "subagents" / "agent-a.meta.json")
    assert project.name == "-work-my-app-v2"
    assert claude_session_files(config, cwd, SESSION) == [main, a, b]
    assert claude_session_files(config, cwd, "other-session") == []
    assert claude_session_files(tmp_path / "missing", cwd, SESSION) == []


def test_claude_session_found_through_the_real_path_or_any_project(tmp_path: Path) -> None:
    real = tmp_path / "real_ws"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    config = tmp_path / "cfg"
    main = touch(config / "projects" / project_dir_name(str(real)) / f"{SESSION}.jsonl")
    assert claude_session_files(config, link, SESSION) == [main]
    assert claude_session_files(config, "/somewhere/else", SESSION) == [main]


def test_older_sibling_agent_files_are_matched_by_session_id(tmp_path: Path) -> None:
    main = touch(tmp_path / f"{SESSION}.jsonl")
    mine = touch(tmp_path / "agent-1.jsonl", json.dumps({"sessionId": SESSION}) + "\n")
    touch(tmp_path / "agent-2.jsonl", json.dumps({"sessionId": "someone-else"}) + "\n")
    assert claude_subagent_files(main) == [mine]


def test_codex_rollout_by_thread_id_or_newest(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "11" / "29"
    old = touch(day / "rollout-2026-11-29T10-00-00-aaaa.jsonl", age=60)
    new = touch(day / "rollout-2026-11-29T10-05-00-bbbb.jsonl")
    archived = touch(
        tmp_path / "archived_sessions" / "2026" / "rollout-2026-01-01T00-00-00-cccc.jsonl"
    )
    assert codex_rollout(tmp_path) == new
    assert codex_rollout(tmp_path, "aaaa") == old
    assert codex_rollout(tmp_path, "cccc") == archived
    assert codex_rollout(tmp_path, "dddd") is None
    assert codex_rollout(tmp_path / "nothing") is None


def test_gemini_chat_by_session_id_or_newest_skipping_subagents(tmp_path: Path) -> None:
    chats = tmp_path / ".gemini" / "tmp" / "proj" / "chats"
    header = {"sessionId": "5b2c9e41-aaaa", "projectHash": "h"}
    first = touch(chats / "session-2026-11-29T11-00-5b2c9e41.jsonl", json.dumps(header) + "\n", 60)
    second = touch(chats / "session-2026-11-29T12-00-77777777.jsonl", age=30)
    touch(chats / "5b2c9e41-aaaa" / "sub-session.jsonl")
    assert gemini_chat(tmp_path) == second
    assert gemini_chat(tmp_path / ".gemini") == second
    assert gemini_chat(tmp_path, "5b2c9e41-aaaa") == first
    assert gemini_chat(tmp_path, "77777777-rest-of-id") == second
    assert gemini_chat(tmp_path, "99999999") is None
    assert gemini_chat(tmp_path / "nothing") is None
