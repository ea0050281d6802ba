"""The ACP session-log parser, on logs recorded from the real agents (Claude Code ACP adapter
0.16.2 and Gemini CLI 0.61.0 in ``--acp`` mode, both against the scripted model server: a
plan, a write the policy allowed, a shell command it rejected) and on planted records."""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.api import parse_transcript
from proctor.cli.parse import command
from proctor.models.trajectory import Trajectory
from proctor.transcripts.acp import parse_acp_log
from proctor.transcripts.detect import detect_format, stream_parse

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts" / "acp"
CLAUDE = FIXTURES / "claude-code-acp-0.16.2.jsonl"
GEMINI = FIXTURES / "gemini-cli-0.61.0.jsonl"


def kinds(t: Trajectory) -> list[str]:
    return [e.type for e in t.events]


def results(t: Trajectory) -> list[tuple[bool | None, bool | None]]:
    return [(e.is_error, e.denied) for e in t.events if e.type == "tool_result"]


def test_claude_session_events_in_order() -> None:
    t = parse_acp_log(CLAUDE)
    assert kinds(t) == [
        "user_message",
        "other",  # the plan
        "tool_call",
        "question",
        "answer",
        "tool_result",
        "assistant_text",
        "turn_end",
        "user_message",
        "tool_call",
        "question",
        "answer",
        "tool_result",
        "turn_end",
    ]
    assert t.format == "acp" and t.agent_version == "0.16.2" and t.session_id
    assert t.coverage.unknown_record_types == {} and t.coverage.unparsed_lines == 0
    assert [(c.name, c.kind, c.files) for c in t.tool_calls()] == [
        ("Write", "write", ["notes.txt"]),
        ("Bash", "shell", None),
    ]
    assert t.tool_calls()[1].input == {"command": "rm notes.txt", "description": "rm notes.txt"}
    plan = t.events[1]
    assert plan.type == "other" and plan.record_type == "plan"
    assert plan.text == "[in_progress] Write notes\n[pending] Check them"


def test_permission_requests_become_questions_and_a_rejection_a_denial() -> None:
    t = parse_acp_log(CLAUDE)
    questions = [(e.text, e.options) for e in t.events if e.type == "question"]
    assert questions[1] == ("Bash: `rm notes.txt`", ["Always Allow", "Allow", "Reject"])
    assert [e.text for e in t.events if e.type == "answer"] == ["Allow", "Reject"]
    assert results(t) == [(False, None), (False, True)]


def test_control_the_denial_comes_from_the_answer_in_the_log(tmp_path: Path) -> None:
    # Control: the same log with the rejection turned into an approval has no denial, so the
    # assertion above reads the answer, not a constant.
    tampered = tmp_path / "acp.jsonl"
    chosen = '"outcome":{"optionId":"reject"'
    tampered.write_text(CLAUDE.read_text().replace(chosen, chosen.replace("reject", "allow")))
    assert results(parse_acp_log(tampered))[1] == (True, None)


def test_a_shell_read_names_its_file_as_the_native_reader_does(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    log.write_text(CLAUDE.read_text().replace("rm notes.txt", "cat notes.txt"))
    calls = [e for e in parse_acp_log(log).events if e.type == "tool_call" and e.name == "Bash"]
    assert [c.files for c in calls] == [["notes.txt"]]
    # The control: the command that writes names no file read.
    original = [e for e in parse_acp_log(CLAUDE).events if e.type == "tool_call"]
    assert [c.files or [] for c in original if c.name == "Bash"] == [[]]


@pytest.mark.parametrize("key", ["dir_path", "directory", "workdir"])
def test_a_shell_read_in_a_folder_of_its_own_names_the_folder_s_file(
    tmp_path: Path, key: str
) -> None:
    """Gemini CLI's ``dir_path`` (and Codex's ``workdir``) say where the command ran: its
    relative operands are that folder's files, as the native readers join them."""
    log = tmp_path / "acp.jsonl"
    given = '"rawInput":{"command":"rm notes.txt","description":"rm notes.txt"}'
    ran_in = f'"rawInput":{{"command":"cat notes.txt","{key}":"docs"}}'
    log.write_text(CLAUDE.read_text().replace(given, ran_in))
    calls = [e for e in parse_acp_log(log).events if e.type == "tool_call" and e.name == "Bash"]
    assert [c.files for c in calls] == [["docs/notes.txt"]]


def test_gemini_session_usage_kinds_and_a_denial_never_reported_again() -> None:
    t = parse_acp_log(GEMINI)
    assert [(c.name, c.kind) for c in t.tool_calls()] == [
        ("write_file", "write"),
        ("run_shell_command", "shell"),
        ("run_shell_command", "shell"),
    ]
    assert t.tool_calls()[1].input == {"title": "rm notes.txt", "command": "rm notes.txt"}
    assert t.agent_version == "0.61.0"
    assert set(t.usage) == {"gemini-3.8-flash", "auto"}
    assert t.usage["gemini-3.8-flash"].responses == 2
    reported = [
        usage["token_count"]["input_tokens"]
        for record in map(json.loads, GEMINI.read_text().splitlines())
        for usage in record["message"]
        .get("result", {})
        .get("_meta", {})
        .get("quota", {})
        .get("model_usage", [])
        if usage["model"] == "gemini-3.8-flash"
    ]
    assert len(reported) == 2 and t.usage["gemini-3.8-flash"].input_tokens == sum(reported)
    # The refused rm has no update of its own: its denial is written when the turn ends.
    denied = [e for e in t.events if e.type == "tool_result" and e.denied]
    assert [e.id for e in denied] == [t.tool_calls()[1].id] and denied[0].output is None
    assert kinds(t)[-1] == "turn_end"


def line(source: str, message: dict[str, Any], ts: str = "2026-12-01T10:00:00.000+00:00") -> str:
    return json.dumps({"ts": ts, "from": source, "message": message})


def update(which: str, **fields: Any) -> str:
    params = {"sessionId": "s", "update": {"sessionUpdate": which, **fields}}
    return line("agent", {"jsonrpc": "2.0", "method": "session/update", "params": params})


def prompt(rid: int, text: str) -> str:
    params = {"sessionId": "s", "prompt": [{"type": "text", "text": text}]}
    return line(
        "client", {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params}
    )


def write_log(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "acp.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_chunks_merge_and_a_tool_call_told_in_pieces(tmp_path: Path) -> None:
    new = {"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": "/w"}}
    path = write_log(
        tmp_path,
        line("client", new),
        line("agent", {"jsonrpc": "2.0", "id": 0, "result": {"sessionId": "s-1"}}),
        prompt(1, "Fix it"),
        update("agent_thought_chunk", content={"type": "text", "text": "Let me "}),
        update("agent_thought_chunk", content={"type": "text", "text": "look."}),
        update("agent_message_chunk", content={"type": "text", "text": "Look"}),
        update("agent_message_chunk", content={"type": "text", "text": "ing."}),
        update("tool_call", toolCallId="c1", title="Read", kind="read", rawInput={}),
        update(
            "tool_call",
            toolCallId="c1",
            title="Read /w/a.py",
            kind="read",
            rawInput={"path": "/w/a.py"},
            locations=[{"path": "/w/a.py"}],
        ),
        update("tool_call_update", toolCallId="c1", status="failed", rawOutput="no such file"),
        line(
            "agent",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "stopReason": "end_turn",
                    "usage": {"inputTokens": 7, "outputTokens": 3},
                },
            },
            ts="2026-12-01T10:00:02.500+00:00",
        ),
    )
    t = parse_acp_log(path)
    assert kinds(t) == [
        "user_message",
        "thinking",
        "assistant_text",
        "tool_call",
        "tool_result",
        "usage",
        "turn_end",
    ]
    assert t.session_id == "s-1"
    assert t.events[1].text == "Let me look." and t.events[2].text == "Looking."
    call = t.tool_calls()[0]
    assert (call.name, call.kind, call.input, call.files) == (
        "Read /w/a.py",
        "read",
        {"path": "/w/a.py"},
        ["a.py"],
    )
    assert results(t) == [(True, None)] and t.events[4].output == "no such file"
    assert t.usage["acp"].input_tokens == 7
    assert t.events[-1].duration_ms == 2500.0 and t.events[-1].text == "end_turn"


def test_errors_unknown_updates_and_stray_lines_are_kept(tmp_path: Path) -> None:
    path = write_log(
        tmp_path,
        prompt(1, "Go"),
        update("brand_new_update", detail=1),
        json.dumps({"ts": "t", "from": "agent", "text": "debug: warming up"}),
        "not json at all",
        line("agent", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "quota"}}),
    )
    t = parse_acp_log(path)
    assert kinds(t) == ["user_message", "other", "other", "other", "api_error"]
    assert t.coverage.unknown_record_types == {"session/update:brand_new_update": 1, "text": 1}
    assert t.coverage.unparsed_lines == 1
    assert t.events[-1].text == "quota"


def test_detected_parsed_from_a_folder_and_streamed(tmp_path: Path) -> None:
    assert detect_format(CLAUDE) == "acp"
    (tmp_path / "acp.jsonl").write_bytes(CLAUDE.read_bytes())
    assert parse_transcript(tmp_path).tool_calls()[0].name == "Write"
    seen: list[dict[str, Any]] = []
    streamed = stream_parse(CLAUDE, "acp", seen.append)
    assert [e["type"] for e in seen] == kinds(parse_acp_log(CLAUDE)) and not streamed.events


@pytest.mark.parametrize("agent_flag", [[], ["--agent", "acp"]])
def test_proctor_parse_reads_an_acp_log(agent_flag: list[str]) -> None:
    result = CliRunner().invoke(command, [str(GEMINI), *agent_flag, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["format"] == "acp"
    assert next(e["name"] for e in data["events"] if e["type"] == "tool_call") == "write_file"
