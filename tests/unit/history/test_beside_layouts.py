"""Every session file under a PATH is replayed or listed unavailable: one beside a CLI's
history folders (a Codex rollout beside a Claude Code ``projects/``, a Gemini CLI chat beside
``tmp/``) is read, and an ACP recording is said to be one, never a session of an agent left
out by --agent."""

from __future__ import annotations

import shutil
from pathlib import Path

from proctor.history.sources import NOT_A_CLI_SESSION, sessions_under

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
AGENTS = ["claude-code", "codex", "gemini-cli"]


def test_rollouts_beside_a_claude_projects_folder_are_read(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE, project)
    for rollout in sorted((FIXTURES / "codex").glob("rollout-*.jsonl")):
        shutil.copy(rollout, tmp_path)
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert sorted(s.agent for s in sessions) == ["claude-code", "codex", "codex"]
    assert unavailable == []


def test_a_chat_beside_a_gemini_tmp_folder_is_read() -> None:
    sessions, unavailable = sessions_under([FIXTURES / "gemini"], AGENTS)
    assert sorted(s.path.relative_to(FIXTURES / "gemini").parts[0] for s in sessions) == [
        "opened-early",
        "tmp",
    ]
    assert unavailable == []


def test_acp_recordings_are_said_to_be_no_cli_session(tmp_path: Path) -> None:
    shutil.copy(CLAUDE, tmp_path)
    for log in sorted((FIXTURES / "acp").glob("*.jsonl")):
        shutil.copy(log, tmp_path)
    sessions, unavailable = sessions_under([tmp_path], AGENTS)
    assert [s.agent for s in sessions] == ["claude-code"]
    assert [(Path(u.path).name, u.reason) for u in unavailable] == [
        ("claude-code-acp-0.16.2.jsonl", NOT_A_CLI_SESSION),
        ("gemini-cli-0.61.0.jsonl", NOT_A_CLI_SESSION),
    ]
    alone = FIXTURES / "acp" / "gemini-cli-0.61.0.jsonl"
    sessions, unavailable = sessions_under([alone], AGENTS)
    assert sessions == [] and [u.reason for u in unavailable] == [NOT_A_CLI_SESSION]
    assert "ACP recording" in NOT_A_CLI_SESSION and "--agent" not in NOT_A_CLI_SESSION
