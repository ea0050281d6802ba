import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from proctor.models.trajectory import ToolResult
from proctor.transcripts.gemini import parse_gemini_chat, parse_gemini_lines
from proctor.transcripts.kinds import gemini_kind
from proctor.util.native_paths import gemini_subagent_chats

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts" / "gemini"
CHAT = FIXTURES / "tmp" / "proj" / "chats" / "session-2026-11-29T11-00-5b2c9e41.jsonl"
HEADER = {"sessionId": "s1", "projectHash": "h", "startTime": "t", "lastUpdated": "t"}


def gemini(mid: str, text: str = "", **extra: Any) -> str:
    record = {"id": mid, "timestamp": "2026-01-01T00:00:00Z", "type": "gemini", "content": text}
    return json.dumps({**record, "model": "gm", **extra})


def user(mid: str, text: str) -> str:
    return json.dumps({"id": mid, "type": "user", "content": [{"text": text}]})


def test_chat_events_in_order() -> None:
    t = parse_gemini_chat(CHAT)
    assert [e.type for e in t.events] == [
        "user_message",
        "thinking",
        "tool_call",
        "usage",
        "tool_result",
        *["tool_call", "usage", "tool_result"] * 4,
        "other",
        "api_error",
        "other",
        "other",
        "assistant_text",
        "usage",
    ]
    assert t.session_id == "5b2c9e41-7d3a-4f0e-9b61-0c2d8e7f1a35"
    assert t.events[0].text == "Create notes.txt, run the tests, then tidy up"
    assert t.events[1].text == "Planning\nWrite the file, then test."


def test_tool_calls_kinds_files_and_outcomes() -> None:
    t = parse_gemini_chat(CHAT)
    assert [(c.name, c.kind, c.files) for c in t.tool_calls()] == [
        ("write_file", "write", ["notes.txt"]),
        ("run_shell_command", "shell", []),
        ("run_shell_command", "shell", ["notes.txt"]),
        ("run_shell_command", "shell", []),
        ("replace", "edit", ["README.md"]),
    ]
    outcomes = [(e.id, e.is_error, e.denied) for e in t.events if e.type == "tool_result"]
    assert outcomes == [
        ("write_file-1", False, False),
        ("run_shell_command-2", True, False),
        ("run_shell_command-3", False, False),
        ("run_shell_command-4", False, True),
        ("replace-5", True, False),
    ]


def test_control_exit_code_in_text_overrides_a_success_status() -> None:
    (shell,) = [
        e
        for e in parse_gemini_chat(CHAT).events
        if isinstance(e, ToolResult) and e.id == "run_shell_command-2"
    ]
    (raw,) = [x for x in CHAT.read_text().splitlines() if x.startswith('{"id":"g2"')]
    assert json.loads(raw)["toolCalls"][0]["status"] == "success"
    assert shell.is_error is True


def test_usage_per_message_with_cached_out_of_input_and_thoughts_in_output() -> None:
    u = parse_gemini_chat(CHAT).usage["gemini-3.1-pro-preview"]
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (7600, 43500, 225)
    assert (u.cache_write_tokens, u.responses) == (0, 6)


def test_control_counting_every_written_record_would_double_count() -> None:
    records = []
    for raw in CHAT.read_text().splitlines():
        try:
            records.append(json.loads(raw))
        except ValueError:
            continue
    written = [r for r in records if r.get("type") == "gemini" and r.get("tokens")]
    assert len(written) == 7
    assert sum(r["tokens"]["cached"] for r in written) == 45500 != 43500


def test_errors_info_unknown_and_broken_lines() -> None:
    t = parse_gemini_chat(CHAT)
    assert [e.text for e in t.events if e.type == "api_error"] == [
        "[API Error: 429 RESOURCE_EXHAUSTED: quota exceeded for gemini-3.1-pro-preview]"
    ]
    assert [e.record_type for e in t.events if e.type == "other"] == [
        "gemini/info",
        "telemetry_blob",
        "unparsed",
    ]
    assert t.coverage.unknown_record_types == {"telemetry_blob": 1}
    assert (t.coverage.lines, t.coverage.unparsed_lines) == (16, 1)


def test_upsert_keeps_the_first_position_and_the_last_content() -> None:
    lines = [
        json.dumps(HEADER),
        user("u1", "one"),
        gemini("g1", "draft"),
        user("u2", "two"),
        gemini("g1", "final", tokens={"input": 10, "output": 2, "cached": 4}),
    ]
    t = parse_gemini_lines(lines)
    assert [(e.type, e.text) for e in t.events if e.type != "usage"] == [
        ("user_message", "one"),
        ("assistant_text", "final"),
        ("user_message", "two"),
    ]
    assert (t.usage["gm"].input_tokens, t.usage["gm"].cache_read_tokens) == (6, 4)


def test_a_rewind_keeps_what_was_recorded_after_it() -> None:
    """The rewound turn was sent, answered and billed: its tokens count (as ccusage counts
    them) and its message stays."""
    lines = [
        json.dumps(HEADER),
        user("u1", "one"),
        gemini("g1", "a", tokens={"input": 5, "output": 1, "cached": 0}),
        user("u2", "two"),
        gemini("g2", "b", tokens={"input": 7, "output": 1, "cached": 0}),
        json.dumps({"$rewindTo": "u2"}),
        user("u3", "three"),
    ]
    t = parse_gemini_lines(lines)
    assert [e.text for e in t.events if e.type == "user_message"] == ["one", "two", "three"]
    assert (t.usage["gm"].input_tokens, t.usage["gm"].responses) == (12, 2)


def test_a_rewind_drops_what_only_a_history_list_held() -> None:
    listed = [{"id": "x1", "type": "user", "content": "from the list"}]
    lines = [
        json.dumps(HEADER),
        json.dumps({"$set": {"messages": listed}}),
        user("u1", "one"),
        json.dumps({"$rewindTo": "x1"}),
    ]
    assert [e.text for e in parse_gemini_lines(lines).events] == ["one"]


def test_a_history_list_adds_what_was_not_recorded_and_forgets_nothing_recorded() -> None:
    replacement = [{"id": "x", "type": "user", "content": "compressed"}]
    lines = [json.dumps(HEADER), user("u1", "one"), json.dumps({"$set": {"messages": replacement}})]
    assert [e.text for e in parse_gemini_lines(lines).events] == ["one", "compressed"]
    # A later list without it: a message known from a list alone goes.
    lines.append(json.dumps({"$set": {"messages": []}}))
    assert [e.text for e in parse_gemini_lines(lines).events] == ["one"]


def test_a_refused_call_stays_when_the_history_is_written_again_without_it() -> None:
    """After a refused call Gemini CLI cancels the request and writes the history again
    without that turn: the prompt, the refused call and its tokens were real."""
    refused = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}}
    context = {"id": "ctx2", "type": "user", "content": [{"text": "<session_context>"}]}
    lines = [
        json.dumps(HEADER),
        user("u1", "list the files"),
        gemini(
            "g1",
            tokens={"input": 9, "output": 1, "cached": 0},
            toolCalls=[{**refused, "status": "cancelled"}],
        ),
        json.dumps({"id": "i1", "type": "info", "content": "Request cancelled."}),
        json.dumps({"$set": {"messages": [context]}}),
    ]
    t = parse_gemini_lines(lines)
    assert [c.id for c in t.tool_calls()] == ["c1"]
    assert [(e.id, e.denied) for e in t.events if e.type == "tool_result"] == [("c1", True)]
    assert t.usage["gm"].input_tokens == 9


def test_a_resumed_session_keeps_the_recorded_turns() -> None:
    # Gemini CLI --resume: a second header, a $set holding only the context message, then a
    # $set holding the history in wire form (no tokens, no toolCalls), then the new turn.
    tokens = {"input": 10, "output": 2, "cached": 0}
    call = {"id": "c1", "name": "write_file", "args": {"file_path": "a"}, "status": "success"}
    wire = [
        {"id": "ctx", "type": "user", "content": [{"text": "<session_context>"}]},
        {"id": "u1", "type": "user", "content": [{"text": "one"}]},
        {"id": "g1", "type": "gemini", "content": [{"functionCall": {"name": "write_file"}}]},
        {"id": "g1_response", "type": "user", "content": [{"functionResponse": {}}]},
    ]
    lines = [
        json.dumps(HEADER),
        user("u1", "one"),
        gemini("g1", tokens=tokens, toolCalls=[call]),
        json.dumps(HEADER),
        json.dumps({"$set": {"messages": wire[:1]}}),
        json.dumps({"$set": {"messages": wire}}),
        user("u2", "two"),
        gemini("g2", "done", tokens=tokens),
    ]
    t = parse_gemini_lines(lines)
    assert [c.id for c in t.tool_calls()] == ["c1"]
    assert [e.text for e in t.events if e.type == "user_message"] == ["one", "two"]
    assert t.usage["gm"].input_tokens == 20
    assert t.usage["gm"].responses == 2


def test_policy_refusal_is_a_denial_and_pending_calls_have_no_result() -> None:
    refused = {
        "id": "c1",
        "name": "run_shell_command",
        "args": {"command": "rm -rf /"},
        "status": "error",
        "result": [
            {"functionResponse": {"response": {"error": "Tool execution denied by policy."}}}
        ],
    }
    pending = {"id": "c2", "name": "read_file", "args": {"file_path": "a"}, "status": "executing"}
    t = parse_gemini_lines([gemini("g", toolCalls=[refused, pending])])
    results = [(e.id, e.is_error, e.denied) for e in t.events if e.type == "tool_result"]
    assert results == [("c1", False, True)]
    assert [c.id for c in t.tool_calls()] == ["c1", "c2"]


def test_legacy_whole_json_session(tmp_path: Path) -> None:
    document = {
        **HEADER,
        "messages": [
            {"id": "u", "type": "user", "content": "hello"},
            {"id": "g", "type": "gemini", "content": "hi", "model": "gm"},
        ],
    }
    path = tmp_path / "session-2025-01-01T00-00-s1.json"
    path.write_text(json.dumps(document, indent=2))
    t = parse_gemini_chat(path)
    assert [e.type for e in t.events] == ["user_message", "assistant_text"]
    assert t.session_id == "s1"


def test_ask_user_gives_question_and_answer() -> None:
    ask = {
        "id": "q",
        "name": "ask_user",
        "args": {"questions": [{"question": "Color?", "options": [{"label": "red"}, "blue"]}]},
        "status": "success",
        "result": [{"functionResponse": {"response": {"output": "red"}}}],
    }
    events = parse_gemini_lines([gemini("g", toolCalls=[ask])]).events
    assert [e.type for e in events] == ["tool_call", "question", "tool_result", "answer"]
    assert (events[1].text, events[1].options, events[3].text) == ("Color?", ["red", "blue"], "red")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("run_shell_command", "shell"),
        ("read_file", "read"),
        ("read_many_files", "read"),
        ("write_file", "write"),
        ("replace", "edit"),
        ("glob", "search"),
        ("grep_search", "search"),
        ("search_file_content", "search"),
        ("list_directory", "search"),
        ("web_fetch", "web"),
        ("google_web_search", "web"),
        ("save_memory", "other"),
        ("ask_user", "question"),
        ("activate_skill", "skill"),
        ("delegate_to_agent", "subagent"),
        ("codebase_investigator", "subagent"),
        ("github__create_issue", "mcp"),
        ("mcp_github_create_issue", "mcp"),
        ("write_todos", "other"),
    ],
)
def test_gemini_kinds(name: str, kind: str) -> None:
    assert gemini_kind(name) == kind


SUBAGENT_HOME = Path(__file__).parents[2] / "fixtures" / "transcripts" / "gemini-subagent"
MAIN_CHAT = (
    SUBAGENT_HOME / "tmp" / "workspace" / "chats" / "session-2026-12-02T19-14-37fa6668.jsonl"
)
SUB_ID = "81d99572-a4d5-4ce5-8a8b-78dafd0a1096"


def test_a_chat_is_read_with_the_chat_of_the_subagent_it_started() -> None:
    (sub,) = gemini_subagent_chats(MAIN_CHAT)
    assert sub.name == f"{SUB_ID}.jsonl"
    t = parse_gemini_chat(MAIN_CHAT, subagents=[sub])
    assert t.session_id == "37fa6668-a093-47ba-9afe-342b4e75e2ab"
    assert {m: u.responses for m, u in t.usage.items()} == {
        "gemini-3.8-flash": 3,
        "gemini-3-flash-preview": 4,  # the subagent's own model
    }
    side = [e for e in t.events if e.sidechain]
    assert side and all(
        e.sidechain for e in t.events if e.type == "usage" and e.model == "gemini-3-flash-preview"
    )
    assert [e.name for e in t.events if e.type == "subagent"] == ["codebase_investigator"]
    times = [e.ts for e in t.events if e.sidechain]
    assert times == sorted(times)
    alone, sub_alone = parse_gemini_chat(MAIN_CHAT), parse_gemini_chat(sub)
    assert t.coverage.lines == alone.coverage.lines + sub_alone.coverage.lines
    assert list(alone.usage) == ["gemini-3.8-flash"] and not any(e.sidechain for e in alone.events)


def test_a_subagents_subagent_is_found_and_other_folders_are_not(tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    shutil.copytree(MAIN_CHAT.parent, chats)
    nested = chats / SUB_ID
    nested.mkdir()
    (nested / "deeper.jsonl").write_text(
        (chats / "37fa6668-a093-47ba-9afe-342b4e75e2ab" / f"{SUB_ID}.jsonl").read_text()
    )
    (chats / "another-session").mkdir()
    (chats / "another-session" / "x.jsonl").write_text("{}\n")
    main = chats / MAIN_CHAT.name
    assert [p.name for p in gemini_subagent_chats(main)] == sorted(
        ["deeper.jsonl", f"{SUB_ID}.jsonl"]
    )
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(MAIN_CHAT, lone / MAIN_CHAT.name)
    assert gemini_subagent_chats(lone / MAIN_CHAT.name) == []


def test_a_subagents_events_fall_between_the_call_that_started_it_and_its_result() -> None:
    (sub,) = gemini_subagent_chats(MAIN_CHAT)
    events = parse_gemini_chat(MAIN_CHAT, subagents=[sub]).events
    call = next(i for i, e in enumerate(events) if e.type == "tool_call" and e.kind == "subagent")
    done = next(
        i for i, e in enumerate(events) if e.type == "tool_result" and e.id == events[call].id
    )
    side = [i for i, e in enumerate(events) if e.sidechain]
    assert side and call < min(side) and max(side) < done
    # The call at the time the model asked for it, its result when it completed.
    assert (events[call].ts, events[done].ts) == (
        "2026-12-02T19:14:41.534Z",
        "2026-12-02T19:14:45.757Z",
    )
    times = [e.ts for e in events if e.ts is not None]
    assert times == sorted(times)


def test_calls_come_at_the_messages_time_and_results_when_each_completed() -> None:
    def entry(cid: str, done: str) -> dict[str, Any]:
        return {"id": cid, "name": "read_file", "args": {}, "status": "success", "timestamp": done}

    calls = [entry("a", "2026-01-01T00:00:09Z"), entry("b", "2026-01-01T00:00:05Z")]
    pending = {"id": "c", "name": "read_file", "args": {}, "status": "executing"}
    t = parse_gemini_lines(
        [json.dumps(HEADER), gemini("m1", tokens={"input": 5}, toolCalls=[*calls, pending])]
    )
    assert [(e.type, getattr(e, "id", None), e.ts) for e in t.events] == [
        ("tool_call", "a", "2026-01-01T00:00:00Z"),
        ("tool_call", "b", "2026-01-01T00:00:00Z"),
        ("tool_call", "c", "2026-01-01T00:00:00Z"),
        ("usage", None, "2026-01-01T00:00:00Z"),
        ("tool_result", "a", "2026-01-01T00:00:09Z"),
        ("tool_result", "b", "2026-01-01T00:00:05Z"),
    ]
    # A message without a time: its call takes the entry's.
    record = {"id": "m2", "type": "gemini", "content": "", "toolCalls": [calls[0]]}
    (call, result) = parse_gemini_lines([json.dumps(HEADER), json.dumps(record)]).events
    assert call.ts == result.ts == "2026-01-01T00:00:09Z"


def test_a_history_list_keeps_its_own_order_around_the_recorded_messages() -> None:
    """Resumed twice: each resume's context (known from the list alone) comes first, where the
    list puts it, not after the turns recorded since."""
    tokens = {"input": 10, "output": 2, "cached": 0}
    context = {"id": "ctx", "type": "user", "content": [{"text": "<session_context>"}]}
    first = [context, {"id": "u1", "type": "user", "content": [{"text": "one"}]}]
    second = [{**context, "id": "ctx2"}, *first[1:], {"id": "u2", "type": "user", "content": "two"}]
    lines = [
        json.dumps(HEADER),
        user("u1", "one"),
        gemini("g1", "a", tokens=tokens),
        json.dumps(HEADER),
        json.dumps({"$set": {"messages": first}}),
        user("u2", "two"),
        json.dumps(HEADER),
        json.dumps({"$set": {"messages": second}}),
        user("u3", "three"),
    ]
    events = parse_gemini_lines(lines).events
    assert [(e.type, getattr(e, "text", None)) for e in events if e.type != "usage"] == [
        ("other", "<session_context>"),
        ("user_message", "one"),
        ("assistant_text", "a"),
        ("user_message", "two"),
        ("user_message", "three"),
    ]


def _shell_call(cid: str, output: str, name: str = "run_shell_command", **args: Any) -> dict:
    response = {"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}
    return {
        "id": cid,
        "name": name,
        "args": {"command": "make test", **args} if name == "run_shell_command" else args,
        "result": [response],
        "status": "success",
        "timestamp": "2026-01-01T00:00:01Z",
    }


MOVED = "<untrusted_context>\nCommand moved to background (PID: 4760). Output hidden.\n</untrusted_context>"


@pytest.mark.parametrize(
    ("listing", "settled"),
    [
        ("- [PID 4760] EXITED: `make test` (Exit Code: 2)", (True, "exited with exit code 2")),
        ("- [PID 9] EXITED: `ls` (Exit Code: 1)\n- [PID 4760] EXITED: `make test` (Exit Code: 0)",
         (False, "exited with exit code 0")),
        ("- [PID 4760] RUNNING: `make test`", None),
        # The terminal UI's pseudo-terminal reports a process it killed with code 0.
        ("- [PID 4760] EXITED: `make test` (Exit Code: 0) (Signal: 15)", None),
        ("- [PID 4760] EXITED: `make \\\n  test` (Exit Code: 1)\n- [PID 5] RUNNING: `x`",
         (True, "exited with exit code 1")),  # a command of two lines
        ("- [PID 4760] EXITED: `make test` (Exit Code: " + "9" * 5000 + ")", None),
        ("- [PID 4760] KILLED: `make test` (Signal: SIGTERM)", None),
        ("- [PID 476] EXITED: `make test` (Exit Code: 2)", None),  # another process
        ("No background processes found.", None),
    ],
)  # fmt: skip
def test_a_command_moved_to_the_background_ends_as_a_process_listing_says(
    listing: str, settled: tuple[bool, str] | None
) -> None:
    """Gemini CLI 0.61.0's own texts: the first result says nothing of how the command ends
    (``isError`` null); a later ``list_background_processes`` line with its exit code does."""
    calls = [
        _shell_call("s1", MOVED, is_background=True),
        _shell_call("l1", listing, name="list_background_processes"),
        _shell_call("l2", listing, name="list_background_processes"),  # said once only
    ]
    t = parse_gemini_lines([json.dumps(HEADER), gemini("g1", toolCalls=calls)])
    results = [(e.id, e.is_error, e.output) for e in t.events if isinstance(e, ToolResult)]
    assert results[0] == ("s1", None, MOVED)
    later = [(failed, text) for i, failed, text in results[1:] if i == "s1"]
    assert later == ([(settled[0], f"Background command {settled[1]}")] if settled else [])


def test_only_a_result_that_starts_so_is_a_command_moved_to_the_background() -> None:
    quoted = "Output: Command moved to background (PID: 4760).\nExit Code: 1"
    calls = [
        _shell_call("s1", quoted),
        _shell_call("s2", "Command moved to background (PID: 7). Output hidden."),
    ]
    t = parse_gemini_lines([json.dumps(HEADER), gemini("g1", toolCalls=calls)])
    assert [e.is_error for e in t.events if isinstance(e, ToolResult)] == [True, None]


def test_an_exit_code_of_thousands_of_digits_loses_nothing() -> None:
    """``int`` refuses a text of more than 4,300 digits: such a code must not cost the
    message its other calls."""
    calls = [
        _shell_call("s1", "Output: x\nExit Code: " + "9" * 5000),
        _shell_call("s2", "Output: ok"),
    ]
    t = parse_gemini_lines([json.dumps(HEADER), gemini("g1", toolCalls=calls)])
    assert [(e.id, e.is_error) for e in t.events if isinstance(e, ToolResult)] == [
        ("s1", True),
        ("s2", False),
    ]
