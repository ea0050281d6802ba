import json
import os
import re
import shutil
from pathlib import Path

import pytest

from proctor.api import parse_transcript
from proctor.errors import ConfigError
from proctor.models.trajectory import ToolResult
from proctor.transcripts.claude import claude_usage_totals, parse_claude_transcript
from proctor.transcripts.detect import detect_format, locate, parse_any, session_file
from proctor.util.native_paths import claude_subagent_files

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts"
SESSION = "7f3c2a10-0000-4000-8000-000000000001"
CLAUDE = FIXTURES / "claude" / f"{SESSION}.jsonl"
SUBAGENT = FIXTURES / "claude" / SESSION / "subagents" / "agent-a1b2c3.jsonl"
CODEX = (
    FIXTURES / "codex" / "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
)
GEMINI = FIXTURES / "gemini" / "tmp" / "proj" / "chats" / "session-2026-11-29T11-00-5b2c9e41.jsonl"


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (CLAUDE, "claude-code"),
        (SUBAGENT, "claude-code"),
        (FIXTURES / "claude" / SESSION, "claude-code"),
        (FIXTURES / "claude", "claude-code"),
        (CODEX, "codex"),
        (FIXTURES / "codex", "codex"),
        (GEMINI, "gemini-cli"),
        (FIXTURES / "gemini", "gemini-cli"),
    ],
)
def test_detect_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


def test_missing_and_foreign_paths_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        parse_any(tmp_path / "nope.jsonl")
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": "world"}\n')
    with pytest.raises(ConfigError, match="not a Claude Code, Codex or Gemini CLI transcript"):
        parse_any(other)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no session transcript"):
        parse_transcript(tmp_path / "empty")
    with pytest.raises(ConfigError, match="unknown transcript format 'cursor'"):
        parse_any(CLAUDE, "cursor")
    with pytest.raises(ConfigError, match="unknown agent"):
        parse_transcript(CLAUDE, "cursor")


def test_agent_forces_the_format_and_scripted_means_claude() -> None:
    assert parse_transcript(CLAUDE, "scripted").format == "claude-code"
    assert parse_transcript(CLAUDE, "claude").format == "claude-code"
    assert parse_any(CODEX, "codex").format == "codex"
    assert parse_any(GEMINI, "gemini-cli").format == "gemini-cli"


def test_claude_main_file_merges_its_subagents_as_sidechain() -> None:
    t = parse_any(CLAUDE)
    side = [e for e in t.events if e.sidechain]
    assert [e.type for e in side] == [
        "user_message",
        "tool_call",
        "usage",
        "tool_result",
        "assistant_text",
        "assistant_text",
        "usage",
    ]
    # The subagent's events sit between the Agent call and its result.
    agent_result = next(
        i for i, e in enumerate(t.events) if isinstance(e, ToolResult) and e.id == "toolu_t5"
    )
    assert t.events[agent_result - 1].sidechain is True
    assert t.events[agent_result - len(side)].text == "Review greet.py for bugs"
    assert parse_transcript(FIXTURES / "claude" / SESSION).events == t.events


@pytest.mark.parametrize("folder", ["claude", f"claude/{SESSION}", "codex", "gemini", "empty"])
def test_parse_any_refuses_a_folder_and_names_parse_transcript(tmp_path: Path, folder: str) -> None:
    """parse_any read a folder's session by its own choice (the newest file of each CLI's
    locator), which is not always the one `proctor parse` and proctor.parse_transcript read
    (the newest session as `proctor history` lists it): it reads a transcript file only, and
    a folder is refused with a sentence naming the function that reads one."""
    path = tmp_path if folder == "empty" else FIXTURES / folder
    message = f"{path}: a folder, not a transcript file; proctor.parse_transcript"
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_any(path)
    with pytest.raises(ConfigError, match=re.escape(message)):
        locate(path, "claude-code")


def test_claude_usage_is_deduplicated_across_files() -> None:
    t = parse_any(CLAUDE)
    opus, haiku = t.usage["claude-opus-4-8"], t.usage["claude-haiku-4-5"]
    assert (opus.input_tokens, opus.output_tokens, opus.responses) == (8, 485, 6)
    assert (opus.cache_read_tokens, opus.cache_write_tokens) == (110350, 13300)
    assert (haiku.input_tokens, haiku.output_tokens, haiku.responses) == (4, 170, 2)
    assert (haiku.cache_read_tokens, haiku.cache_write_tokens) == (5000, 5100)


def test_control_parsing_the_files_separately_counts_the_replay_twice() -> None:
    separate = parse_claude_transcript(CLAUDE).usage["claude-opus-4-8"].responses
    separate += parse_claude_transcript(SUBAGENT).usage["claude-opus-4-8"].responses
    assert separate == 7 != parse_any(CLAUDE).usage["claude-opus-4-8"].responses


def test_usage_fast_path_agrees_with_the_parser() -> None:
    fast = claude_usage_totals(CLAUDE, *claude_subagent_files(CLAUDE))
    assert fast == parse_any(CLAUDE).usage
    assert claude_usage_totals(CLAUDE) == parse_claude_transcript(CLAUDE).usage


def test_main_copy_wins_over_a_sidechain_copy_seen_first(tmp_path: Path) -> None:
    def assistant(req: str, side: bool, out: int) -> str:
        message = {
            "id": "msg_1",
            "model": "m",
            "content": [{"type": "text", "text": "x"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": out},
        }
        record = {"type": "assistant", "requestId": req, "isSidechain": side, "message": message}
        return json.dumps(record) + "\n"

    main = tmp_path / "s.jsonl"
    main.write_text(assistant("req_main", False, 5))
    subagents = tmp_path / "s" / "subagents"
    subagents.mkdir(parents=True)
    (subagents / "agent-x.jsonl").write_text(assistant("req_replay", True, 9))
    assert parse_any(main).usage["m"].output_tokens == 5
    assert claude_usage_totals(main, subagents / "agent-x.jsonl")["m"].output_tokens == 5


def test_unanchored_subagent_files_go_last(tmp_path: Path) -> None:
    session = tmp_path / SESSION
    shutil.copy(CLAUDE, tmp_path / f"{SESSION}.jsonl")
    (session / "subagents").mkdir(parents=True)
    stray = '{"type":"user","isSidechain":true,"message":{"role":"user","content":"stray"}}\n'
    (session / "subagents" / "agent-zz.jsonl").write_text(stray)
    t = parse_any(tmp_path / f"{SESSION}.jsonl")
    assert (t.events[-1].text, t.events[-1].sidechain) == ("stray", True)


def test_a_folder_holding_sessions_of_two_clis_gives_the_newest_of_them(tmp_path: Path) -> None:
    fixtures = Path(__file__).parents[2] / "fixtures" / "transcripts"
    codex = tmp_path / "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
    shutil.copy(fixtures / "codex" / codex.name, codex)
    claude = tmp_path / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
    shutil.copy(fixtures / "claude" / claude.name, claude)
    os.utime(codex, (1_700_000_000, 1_700_000_000))
    os.utime(claude, (1_900_000_000, 1_900_000_000))
    assert session_file(tmp_path) == (claude, "claude-code")
    os.utime(codex, (2_000_000_000, 2_000_000_000))
    assert session_file(tmp_path) == (codex, "codex")  # control: the other way round
