"""A session's main file and subagent files parsed together (inline, as the stream goes)."""

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.parse import command
from proctor.errors import ConfigError
from proctor.transcripts.claude import claude_usage_totals, parse_claude_session


def user(uid: str, parent: str | None, content: Any, side: bool = False, **extra: Any) -> dict:
    record = {"type": "user", "uuid": uid, "parentUuid": parent, "sessionId": "S"}
    record.update(message={"role": "user", "content": content}, isSidechain=side, **extra)
    return record


def assistant(
    uid: str, parent: str, msg: str, req: str, block: dict, tokens: int, **kw: Any
) -> dict:
    message = {
        "id": msg,
        "model": "m",
        "content": [block],
        "stop_reason": "end_turn" if kw.pop("final", True) else None,
        "usage": {"input_tokens": tokens, "output_tokens": 1},
    }
    return {
        "type": "assistant",
        "uuid": uid,
        "parentUuid": parent,
        "requestId": req,
        **kw,
        "message": message,
    }


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


TASK = {"type": "tool_use", "id": "t1", "name": "Task", "input": {}}


def result(uid: str, parent: str, agent: str, side: bool = False) -> dict:
    content = [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]
    return user(uid, parent, content, side, toolUseResult={"agentId": agent})


RUNS_X = [
    user("m1", None, "hi"),
    assistant("m2", "m1", "msg0", "r0", TASK, 0),
    result("m3", "m2", "x"),
]
"""A main file whose Task call ran subagent ``x``."""


def test_a_subagent_run_by_an_unnamed_subagent_is_parsed_once_inside_it(tmp_path: Path) -> None:
    main = write(tmp_path / "S.jsonl", [user("m1", None, "hi")])
    a = write(
        tmp_path / "agent-a.jsonl",
        [
            user("a1", None, "task", True),
            assistant("a2", "a1", "msgA", "rA", TASK, 1, isSidechain=True),
            result("a3", "a2", "b", True),
        ],
    )
    b = write(tmp_path / "agent-b.jsonl", [user("b1", None, "nested", True)])
    events = parse_claude_session(main, [a, b]).events
    texts = [(e.text, e.sidechain) for e in events if e.type == "user_message"]
    assert texts == [("hi", None), ("task", True), ("nested", True)]


def test_a_main_copy_after_the_subagent_copy_is_still_one_response(tmp_path: Path) -> None:
    text = {"type": "text", "text": "x"}
    main = write(
        tmp_path / "S.jsonl",
        [
            *RUNS_X,
            assistant("m4", "m3", "msgM", "r1", text, 10, final=False),
            assistant("m5", "m4", "msgM", "r1", text, 20),
        ],
    )
    sub = write(
        tmp_path / "agent-x.jsonl",
        [
            user("x1", None, "task", True),
            assistant("x2", "x1", "msgM", "rX", text, 30, isSidechain=True),
        ],
    )
    usage = parse_claude_session(main, [sub]).usage["m"]
    assert (usage.input_tokens, usage.responses) == (20, 2)
    assert claude_usage_totals(main, sub)["m"] == usage


def test_a_subagent_record_whose_parent_never_came_stays_in_the_subagent(tmp_path: Path) -> None:
    main = write(tmp_path / "S.jsonl", RUNS_X)
    sub = write(
        tmp_path / "agent-x.jsonl",
        [user("x1", None, "task", True), user("x2", "gone", "orphan", True)],
    )
    events = parse_claude_session(main, [sub]).events
    texts = [
        (getattr(e, "text", None), e.sidechain)
        for e in events
        if e.type in ("user_message", "tool_result")
    ]
    assert texts == [("hi", None), ("task", True), ("orphan", True), (None, None)]


def test_the_session_id_is_kept_when_the_first_versioned_record_has_none(tmp_path: Path) -> None:
    first = {
        "type": "user",
        "uuid": "u1",
        "version": "2.1.197",
        "message": {"role": "user", "content": "a"},
    }
    path = write(tmp_path / "s.jsonl", [first, user("u2", "u1", "b")])
    t = parse_claude_session(path)
    assert (t.session_id, t.agent_version) == ("S", "2.1.197")


def test_text_output_of_bookkeeping_only_has_one_header(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [{"type": "summary", "summary": "x", "sessionId": "S"}])
    out = CliRunner().invoke(command, [str(path), "--agent", "claude-code"]).output
    assert out.count("format claude-code") == 1


def test_an_unreadable_subagent_file_is_named(tmp_path: Path) -> None:
    main = write(tmp_path / "S.jsonl", RUNS_X)
    sub = tmp_path / "agent-x.jsonl"
    sub.mkdir()  # reading a folder fails
    with pytest.raises(ConfigError, match="agent-x.jsonl: cannot be read"):
        parse_claude_session(main, [sub])


def test_control_an_error_of_the_sink_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [user("u1", None, "hi")])

    def full_disk(event: dict) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        parse_claude_session(path, sink=full_disk)
