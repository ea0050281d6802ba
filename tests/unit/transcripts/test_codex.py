import json
from pathlib import Path
from typing import Any

import pytest

from proctor.models.trajectory import Event, OtherEvent, ToolResult
from proctor.transcripts.codex import (
    codex_usage_check,
    parse_codex_lines,
    parse_codex_rollout,
    parse_codex_rollout_plain,
    parse_codex_threads_plain,
)
from proctor.transcripts.kinds import codex_kind

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts" / "codex"
ROLLOUT_0171 = FIXTURES / "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
ROLLOUT_OLD = FIXTURES / "rollout-2025-10-02T09-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl"


def line(kind: str, payload: dict[str, Any], ts: str = "2026-01-01T00:00:00.000Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload})


def call(call_id: str, name: str = "exec_command", **arguments: Any) -> str:
    payload = {"type": "function_call", "name": name, "call_id": call_id}
    return line("response_item", {**payload, "arguments": json.dumps(arguments)})


def output(call_id: str, text: str) -> str:
    return line(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": text}
    )


def command_done(call_id: str, status: str, exit_code: int | None) -> str:
    item = {"type": "CommandExecution", "id": call_id, "status": status, "exit_code": exit_code}
    return line("event_msg", {"type": "item_completed", "item": item})


def usage(inp: int, cached: int, out: int) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "cached_input_tokens": cached,
        "output_tokens": out,
        "reasoning_output_tokens": 0,
        "total_tokens": inp + out,
    }


def token_count(total: dict[str, int], last: dict[str, int]) -> str:
    info = {"total_token_usage": total, "last_token_usage": last}
    return line("event_msg", {"type": "token_count", "info": info})


def results(events: list[Event]) -> dict[str, tuple[bool | None, bool | None]]:
    return {e.id or "": (e.is_error, e.denied) for e in events if e.type == "tool_result"}


def test_tool_calls_of_a_0171_rollout_get_kinds_files_and_outcomes() -> None:
    t = parse_codex_rollout(ROLLOUT_0171)
    calls = [(c.id, c.name, c.kind, c.files) for c in t.tool_calls()]
    assert calls == [
        ("call_patch_1", "apply_patch", "edit", ["hello.py", "src/app.py"]),
        ("call_sed_2", "exec_command", "shell", ["src/app.py"]),
        ("call_pytest_3", "exec_command", "shell", []),
        ("call_rm_4", "exec_command", "shell", []),
    ]
    assert results(t.events) == {
        "call_patch_1": (False, False),
        "call_sed_2": (False, False),
        "call_pytest_3": (True, False),
        "call_rm_4": (False, True),
    }
    assert t.tool_calls()[1].input == {
        "cmd": "sed -n '1,20p' src/app.py",
        "workdir": "/ws/proj",
        "yield_time_ms": 10000,
    }
    assert (t.session_id, t.agent_version) == ("019ad3f0-5c1e-7a02-9c4b-3e1f00000001", "0.171.0")


def test_control_a_denial_is_not_an_error() -> None:
    events = parse_codex_rollout(ROLLOUT_0171).events
    (result,) = [e for e in events if e.type == "tool_result" and e.id == "call_rm_4"]
    assert result.denied is True
    assert result.is_error is False


def test_only_real_prompts_are_user_messages_and_mirrors_are_dropped() -> None:
    t = parse_codex_rollout(ROLLOUT_0171)
    prompts = [e.text for e in t.events if e.type == "user_message"]
    assert prompts == [
        "Add hello.py, look at src/app.py, run the tests and clean the build folder",
        "Now add a docstring",
    ]
    harness = [
        e.text or ""
        for e in t.events
        if isinstance(e, OtherEvent) and e.record_type == "harness-message"
    ]
    assert [h.split("\n")[0] for h in harness] == [
        "<permissions instructions>",
        "<environment_context>",
    ]
    assert [e.type for e in t.events if e.type in ("thinking", "assistant_text")] == [
        "thinking",
        "assistant_text",
    ]


def test_usage_comes_from_token_usage_records_once_per_response() -> None:
    t = parse_codex_rollout(ROLLOUT_0171)
    u = t.usage["gpt-5.5"]
    # 5 responses: input 52900 of which 41728 cached; output 355 (reasoning included).
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (11172, 41728, 0)
    assert (u.output_tokens, u.responses) == (355, 5)
    assert len([e for e in t.events if e.type == "usage"]) == 5


def test_control_summing_total_token_usage_would_overcount() -> None:
    totals = 0
    for raw in ROLLOUT_0171.read_text().splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        info = record.get("payload", {}).get("info") or {}
        if record["payload"].get("type") == "token_count" and info:
            totals += info["total_token_usage"]["input_tokens"]
    assert totals == 218_500
    u = parse_codex_rollout(ROLLOUT_0171).usage["gpt-5.5"]
    assert u.input_tokens + u.cache_read_tokens == 52_900 != totals


def test_usage_check_compares_the_sum_with_the_last_total() -> None:
    check = codex_usage_check(ROLLOUT_0171)
    assert check["source"] == "token_usage_record"
    assert check["ok"] is True and check["responses"] == 5
    assert check["repeatsSkipped"] == 2
    assert check["reported"] == check["computed"]


def test_usage_check_reports_a_discrepancy(tmp_path: Path) -> None:
    record = {"response_id": "r1", "usage": usage(100, 0, 10)}
    lines = [
        line("token_usage_record", record),
        line("token_usage_record", record),
        token_count(usage(150, 0, 10), usage(150, 0, 10)),
    ]
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("\n".join(lines))
    assert parse_codex_rollout(rollout).usage["unknown"].input_tokens == 100
    check = codex_usage_check(rollout)
    assert check["ok"] is False
    assert check["difference"] == {
        "inputTokens": 50,
        "outputTokens": 0,
        "cacheReadTokens": 0,
        "cacheWriteTokens": 0,
    }


def test_token_count_fallback_skips_repeats_and_null_info() -> None:
    t = parse_codex_rollout(ROLLOUT_OLD)
    u = t.usage["gpt-5-codex"]
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.responses) == (
        4560,
        11240,
        220,
        3,
    )
    check = codex_usage_check(ROLLOUT_OLD)
    assert (check["source"], check["ok"], check["repeatsSkipped"]) == ("token_count", True, 3)


def test_control_counting_every_token_count_would_overcount() -> None:
    lasts = []
    for raw in ROLLOUT_OLD.read_text().splitlines():
        info = json.loads(raw)["payload"].get("info")
        if isinstance(info, dict):
            lasts.append(info["last_token_usage"])
    assert len(lasts) == 6
    assert sum(u["input_tokens"] - u["cached_input_tokens"] for u in lasts) != 4560


def test_identical_responses_are_both_counted_when_the_total_moves() -> None:
    one = usage(100, 0, 10)
    lines = [
        line("turn_context", {"model": "m"}),
        token_count(one, one),
        token_count(usage(200, 0, 20), one),
        token_count(usage(200, 0, 20), one),
    ]
    u = parse_codex_lines(lines).usage["m"]
    assert (u.responses, u.input_tokens, u.output_tokens) == (2, 200, 20)


def test_cache_writes_are_taken_out_of_the_input() -> None:
    record = {"response_id": "r", "usage": {**usage(1000, 600, 5), "cache_write_input_tokens": 300}}
    u = parse_codex_lines([line("token_usage_record", record)]).usage["unknown"]
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens) == (100, 600, 300)


def test_structured_status_wins_over_the_output_text_in_either_order() -> None:
    lines = [
        call("a", cmd="make"),
        output("a", "Process exited with code 0\nOutput:\n"),
        command_done("a", "failed", 2),
        call("b", cmd="make"),
        command_done("b", "completed", 0),
        output("b", "Output:\nProcess exited with code 7\n"),
    ]
    assert results(parse_codex_lines(lines).events) == {"a": (True, False), "b": (False, False)}


def test_exit_codes_from_text_and_unknown_outcomes() -> None:
    lines = [
        call("a", cmd="make"),
        output("a", "Chunk ID: 1\nProcess exited with code 2\nOutput:\nboom\n"),
        call("b", name="apply_patch", input="*** Begin Patch\n*** End Patch\n"),
        output("b", "Exit code: 1\nWall time: 0 seconds\nOutput:\nerror\n"),
        call("c", cmd="sleep 100"),
        output("c", "Chunk ID: 2\nWall time: 10 seconds\nProcess running with session ID 3\n"),
        call("d", cmd="ls"),
        output("d", json.dumps({"output": "x\n", "metadata": {"exit_code": 0}})),
    ]
    t = parse_codex_lines(lines)
    assert results(t.events) == {
        "a": (True, False),
        "b": (True, False),
        "d": (False, False),
    }, "a command still running when the rollout ends has no result"
    assert next(e.output for e in t.events if isinstance(e, ToolResult) and e.id == "d") == "x\n"


def test_a_long_command_and_its_polls_are_one_step_whose_result_is_its_exit() -> None:
    running = "Chunk ID: 1\nWall time: 10 seconds\nProcess running with session ID 5\nOutput:\n"
    lines = [
        call("t", cmd="pytest -q"),
        output("t", running),
        call("p1", name="write_stdin", session_id=5, chars="", yield_time_ms=30000),
        output("p1", running + "collected 3 items\n"),
        call("p2", name="write_stdin", session_id=5, chars=""),
        output("p2", "Chunk ID: 1\nProcess exited with code 0\nOutput:\n3 passed\n"),
        call("f", cmd="make lint"),
        output("f", "Process running with session ID 6\nOutput:\n"),
        call("p3", name="write_stdin", session_id="6", chars=""),
        output("p3", "Process exited with code 2\nOutput:\nlint failed\n"),
        # The control: a write to a session no command of this rollout started is a step.
        call("p4", name="write_stdin", session_id=9, chars="y\n"),
        output("p4", "Process exited with code 0\nOutput:\n"),
    ]
    t = parse_codex_lines(lines)
    calls = [e.id for e in t.events if e.type == "tool_call"]
    assert calls == ["t", "f", "p4"]
    assert results(t.events) == {"t": (False, False), "f": (True, False), "p4": (False, False)}
    output_of = {e.id: e.output for e in t.events if isinstance(e, ToolResult)}
    assert "3 passed" in output_of["t"]


def test_a_long_command_s_structured_status_or_its_abort_is_its_result() -> None:
    running = "Chunk ID: 1\nWall time: 10 seconds\nProcess running with session ID 5\nOutput:\n"
    ended = line("event_msg", {"type": "exec_command_end", "call_id": "t", "exit_code": 1})
    t = parse_codex_lines([call("t", cmd="pytest -q"), output("t", running), ended])
    assert results(t.events) == {"t": (True, False)}  # no poll said so: the status does
    polled = [
        call("t", cmd="pytest -q"),
        output("t", running),
        call("p", name="write_stdin", session_id=5, chars=""),
        ended,
        output("p", "Process exited with code 1\nOutput:\nF\n"),
    ]
    t = parse_codex_lines(polled)
    assert [e.id for e in t.events if e.type == "tool_result"] == ["t"]  # one result
    assert results(t.events) == {"t": (True, False)}
    aborted = [
        call("t", cmd="pytest"),
        output("t", running),
        call("p", name="write_stdin", session_id=5, chars="\x03"),
        output("p", "aborted by user"),
    ]
    assert results(parse_codex_lines(aborted).events) == {"t": (False, True)}


def command_item(call_id: str, status: str, code: int, output: str) -> dict[str, Any]:
    item = {"type": "CommandExecution", "id": call_id, "status": status, "exit_code": code}
    return {"type": "item_completed", "item": {**item, "aggregated_output": output}}


def test_a_polled_command_ends_when_codex_says_so_with_its_output() -> None:
    """Codex 0.171 writes the command's ``item_completed`` when it ends, just before the
    poll's answer: the result is at that time, with the output the command wrote (not the
    first answer's "still running")."""
    running = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 5\n"
    lines = [
        call("t", cmd="sleep 4 && python3 -m unittest"),
        line("response_item", {"type": "function_call_output", "call_id": "t",
                               "output": running}, ts="2026-01-01T00:00:01.000Z"),
        call("p", name="write_stdin", session_id=5, chars=""),
        line("event_msg", command_item("t", "failed", 1, "FAIL: test_add\n"),
             ts="2026-01-01T00:00:04.000Z"),
        line("response_item", {"type": "function_call_output", "call_id": "p",
                               "output": "Process exited with code 1\nOutput:\nFAIL\n"},
             ts="2026-01-01T00:00:04.005Z"),
    ]  # fmt: skip
    (result,) = [e for e in parse_codex_lines(lines).events if isinstance(e, ToolResult)]
    assert (result.id, result.is_error, result.output) == ("t", True, "FAIL: test_add\n")
    assert result.ts == "2026-01-01T00:00:04.000Z"
    # Never polled to its end: the status still gives its result.
    alone = [*lines[:2], lines[3]]
    (result,) = [e for e in parse_codex_lines(alone).events if isinstance(e, ToolResult)]
    assert (result.id, result.is_error) == ("t", True)


def test_the_status_that_ends_a_running_command_gives_its_verdict() -> None:
    running = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 5\n"

    def ended(item: dict[str, Any]) -> list[str]:
        done = {"type": "item_completed", "item": {"type": "CommandExecution", "id": "t", **item}}
        return [call("t", cmd="make test"), output("t", running), line("event_msg", done)]

    assert results(parse_codex_lines(ended({"status": "failed"})).events) == {"t": (True, False)}
    declined = ended({"status": "declined"})
    assert results(parse_codex_lines(declined).events) == {"t": (False, True)}
    said = ended({"status": "failed", "exit_code": 0})  # its status says failed: failed
    assert results(parse_codex_lines(said).events) == {"t": (True, False)}
    # An id that is no string is no call's: the line is read, nothing breaks.
    odd = [call("t", cmd="make"), output("t", running)]
    odd.append(
        line(
            "event_msg",
            {"type": "item_completed", "item": {"type": "CommandExecution", "id": ["t"]}},
        )
    )
    odd.append(line("event_msg", {"type": "exec_command_end", "call_id": {"t": 1}, "exit_code": 1}))
    parsed = parse_codex_lines(odd)
    assert results(parsed.events) == {} and not parsed.coverage.unknown_record_types


def test_a_command_codex_killed_when_it_exited_has_no_outcome() -> None:
    """Still running when its turn ended, the command is killed as Codex exits: status
    ``failed``, exit code -1, no output. The tests never finished: no failure."""
    running = "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\n"
    lines = [
        call("t", cmd="sleep 3 && python3 -m unittest"),
        output("t", running),
        line("event_msg", {"type": "task_complete", "duration_ms": 817}),
        line("event_msg", command_item("t", "failed", -1, "")),
    ]
    events = parse_codex_lines(lines).events
    assert results(events) == {}
    # The control: a command that ran to its failure is one.
    failed = [*lines[:3], line("event_msg", command_item("t", "failed", 1, "FAIL\n"))]
    assert results(parse_codex_lines(failed).events) == {"t": (True, False)}
    ended = line("event_msg", {"type": "exec_command_end", "call_id": "t", "exit_code": -1})
    assert results(parse_codex_lines([*lines[:3], ended]).events) == {}
    said = [call("k", cmd="pytest"), output("k", "Process exited with code -1\nOutput:\n")]
    assert results(parse_codex_lines(said).events) == {"k": (None, False)}
    crashed = [call("k", cmd="pytest"), output("k", "Process exited with code -11\nOutput:\n")]
    assert results(parse_codex_lines(crashed).events) == {"k": (True, False)}  # its own code


def test_user_abort_is_a_denial() -> None:
    lines = [call("a", cmd="rm -rf x"), output("a", "Wall time: 6.3 seconds\naborted by user")]
    assert results(parse_codex_lines(lines).events) == {"a": (False, True)}


def test_a_patch_the_sandbox_refused_is_a_denial() -> None:
    """Codex 0.171 in a read-only sandbox answers an apply_patch so: nothing was written, and
    the trial is no task (it was read as a patch whose outcome is unknown, an edit)."""
    said = (
        "patch rejected: writing is blocked by read-only sandbox; rejected by user approval "
        "settings"
    )
    lines = [call("p", cmd="apply_patch"), output("p", said)]
    assert results(parse_codex_lines(lines).events) == {"p": (False, True)}


def test_api_errors_turn_ends_and_aborts() -> None:
    t = parse_codex_rollout(ROLLOUT_0171)
    assert [e.duration_ms for e in t.events if e.type == "turn_end"] == [4200, 150]
    (error,) = [e for e in t.events if e.type == "api_error"]
    assert "400 Bad Request" in (error.text or "")
    lines = [
        line("event_msg", {"type": "error", "message": "stream disconnected"}),
        line("event_msg", {"type": "task_complete", "error": {"message": "stream disconnected"}}),
        line("event_msg", {"type": "turn_aborted", "reason": "interrupted", "duration_ms": 9}),
        line("compacted", {"message": "summary of the work so far"}),
    ]
    events = parse_codex_lines(lines).events
    assert [e.type for e in events] == ["api_error", "turn_end", "turn_end", "compaction"]
    assert events[2].text == "aborted (interrupted)"


def test_unknown_types_and_broken_lines_are_counted() -> None:
    t = parse_codex_rollout(ROLLOUT_0171)
    assert t.coverage.unknown_record_types == {
        "event_msg/hologram_started": 1,
        "brand_new_record": 1,
    }
    assert (t.coverage.unparsed_lines, t.coverage.lines) == (1, 43)
    others = {e.record_type for e in t.events if e.type == "other"}
    assert others == {
        "harness-message",
        "event_msg/hologram_started",
        "brand_new_record",
        "unparsed",
    }


def test_old_rollout_pairs_json_outputs_and_web_search() -> None:
    t = parse_codex_rollout(ROLLOUT_OLD)
    assert results(t.events) == {
        "call_ls": (False, False),
        "call_make": (True, False),
        "codex-call-1": (False, False),
    }
    assert [c.kind for c in t.tool_calls()] == ["shell", "shell", "web"]
    assert [e.text for e in t.events if e.type == "assistant_text"] == [
        "There is no `all` target in the Makefile."
    ]
    assert [e.text for e in t.events if e.type == "thinking"] == ["List first"]


def test_event_only_messages_are_kept() -> None:
    lines = [
        line("event_msg", {"type": "user_message", "message": "hi"}),
        line("event_msg", {"type": "agent_message", "message": "hello"}),
    ]
    assert [e.type for e in parse_codex_lines(lines).events] == ["user_message", "assistant_text"]


def test_legacy_flat_rollout() -> None:
    lines = [
        json.dumps({"id": "s1", "timestamp": "2025-05-01T00:00:00Z", "instructions": None}),
        json.dumps({"record_type": "state"}),
        json.dumps(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
        ),
        json.dumps({"type": "function_call", "name": "shell", "call_id": "c", "arguments": "{}"}),
    ]
    t = parse_codex_lines(lines)
    assert t.session_id == "s1"
    assert [e.type for e in t.events] == ["user_message", "tool_call"]
    assert t.coverage.unknown_record_types == {}


def test_mcp_question_subagent_and_shell_patch_calls() -> None:
    questions = [{"question": "Which DB?", "options": [{"label": "sqlite"}, {"label": "pg"}]}]
    lines = [
        call("m", name="lookup", query="x"),
        line("event_msg", {"type": "mcp_tool_call_end", "call_id": "m", "result": {"Err": "down"}}),
        output("m", "tool call error: down"),
        call("q", name="request_user_input", questions=questions),
        output("q", "request_user_input is unavailable in Default mode"),
        call("s", name="spawn_agent", agent_type="explorer", message="look"),
        call("p", cmd=["apply_patch", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"]),
    ]
    t = parse_codex_lines(lines)
    assert [(c.id, c.kind) for c in t.tool_calls()] == [
        ("m", "mcp"),
        ("q", "question"),
        ("s", "subagent"),
        ("p", "edit"),
    ]
    assert t.tool_calls()[3].files == ["a.txt"]
    assert results(t.events)["m"] == (True, False)
    assert results(t.events)["q"] == (True, False)
    question = next(e for e in t.events if e.type == "question")
    assert (question.text, question.options) == ("Which DB?", ["sqlite", "pg"])
    assert [e.name for e in t.events if e.type == "subagent"] == ["explorer"]
    assert not [e for e in t.events if e.type == "answer"]


ASKED = [
    {
        "id": "color",
        "header": "Color",
        "question": "Which color?",
        "options": [
            {"label": "Red (Recommended)", "description": "Warm."},
            {"label": "Blue", "description": "Cool."},
        ],
    },
    {
        "id": "size",
        "header": "Size",
        "question": "Which size?",
        "options": [
            {"label": "Small", "description": "Fits."},
            {"label": "Large", "description": "Shows."},
        ],
    },
]
"""The questions of a ``request_user_input`` call, in Codex 0.171's schema (each with an
``id`` its answer is keyed by)."""


@pytest.mark.parametrize(
    ("answers", "texts"),
    [
        # RequestUserInputResponse as Codex serialises it: the labels chosen (and a note
        # typed) under each question's id, in whatever order.
        (
            {
                "size": {"answers": ["Large", "user_note: a bit wider"]},
                "color": {"answers": ["Blue"]},
            },
            ["Blue", "Large, user_note: a bit wider"],
        ),
        ({"size": {"answers": ["Large"]}}, [None, "Large"]),  # None: the output itself
        ({}, [None, None]),
    ],
)
def test_each_question_of_a_request_user_input_call_has_its_own_answer(
    answers: dict[str, Any], texts: list[str | None]
) -> None:
    said = json.dumps({"answers": answers})
    events = parse_codex_lines(
        [call("q", "request_user_input", questions=ASKED), output("q", said)]
    )
    asked = [(e.id, e.text, e.options) for e in events.events if e.type == "question"]
    assert asked == [
        ("q", "Which color?", ["Red (Recommended)", "Blue"]),
        ("q", "Which size?", ["Small", "Large"]),
    ]
    given = [e.text for e in events.events if e.type == "answer" and e.id == "q"]
    assert given == [text or said for text in texts]
    # Answered: a success, though the output states no exit code.
    assert results(events.events)["q"] == (False, False)


@pytest.mark.parametrize(
    ("said", "outcome"),
    [
        ('{"answers": {"color": {"answers": ["Blue"]}}}', (False, False)),
        ("request_user_input is unavailable in Default mode", (True, False)),
        # Cancelled (the turn interrupted while the picker was up): dismissed, a denial.
        ("request_user_input was cancelled before receiving a response", (False, True)),
        # A failure Codex writes, naming the tool first: an error.
        ("request_user_input requires non-empty options for every question", (True, False)),
        # An answer, or a note, that holds the word a failure does: answered all the same.
        ('{"answers": {"color": {"answers": ["Unavailable"]}}}', (False, False)),
        ('{"answers": {"color": {"answers": ["user_note: red is unavailable"]}}}', (False, False)),
        # JSON that is not the answers object: its outcome is not known.
        ('{"answers": ["Blue"]}', (None, False)),
        ("aborted by user", (False, True)),
    ],
)
def test_a_request_user_input_result_is_a_success_when_it_holds_the_answers(
    said: str, outcome: tuple[bool | None, bool | None]
) -> None:
    """Codex writes no ``success`` with a function call's output, and this one states no
    exit code: the answers object it writes for a call answered is what says it succeeded.
    A command's output of the same shape stays unknown (no exit code)."""
    t = parse_codex_lines(
        [
            call("q", "request_user_input", questions=ASKED),
            output("q", said),
            call("c", cmd="cat answers.json"),
            output("c", '{"answers": {"color": {"answers": ["Blue"]}}}'),
        ]
    )
    assert results(t.events)["q"] == outcome
    assert results(t.events)["c"] == (None, False)


@pytest.mark.parametrize(
    ("said", "answered"),
    [
        # Cancelled (the turn interrupted while the picker was up) or refused: each question
        # is answered with the output, as Claude Code's and Gemini CLI's are.
        ("request_user_input was cancelled before receiving a response", True),
        ("aborted by user", True),
        # A failure that showed nothing asked nothing: no answer.
        ("request_user_input is unavailable in Default mode", False),
        ("request_user_input requires non-empty options for every question", False),
    ],
)
def test_a_cancelled_or_refused_request_user_input_answers_each_question_with_its_output(
    said: str, answered: bool
) -> None:
    events = parse_codex_lines(
        [call("q", "request_user_input", questions=ASKED), output("q", said)]
    ).events
    given = [e.text for e in events if e.type == "answer" and e.id == "q"]
    assert given == ([said, said] if answered else [])
    kinds = [e.type for e in events if getattr(e, "id", None) == "q"]
    assert kinds[:4] == ["tool_call", "question", "question", "tool_result"]


@pytest.mark.parametrize(
    ("name", "namespace", "kind"),
    [
        ("exec_command", None, "shell"),
        ("shell", None, "shell"),
        ("apply_patch", None, "edit"),
        ("view_image", None, "read"),
        ("web_search", None, "web"),
        ("request_user_input", None, "question"),
        ("spawn_agent", None, "subagent"),
        ("spawn", "multi_agent_v1", "subagent"),
        ("mcp__docs__search", None, "mcp"),
        ("docs__search", None, "mcp"),
        ("search", "mcp__docs", "mcp"),
        ("update_plan", None, "other"),
    ],
)
def test_codex_kinds(name: str, namespace: str | None, kind: str) -> None:
    assert codex_kind(name, namespace) == kind


def test_a_tool_search_is_a_call_whose_result_names_the_tools_it_brought() -> None:
    search = {
        "type": "tool_search_call",
        "call_id": "s1",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": "tiny add", "limit": 8},
    }
    found = {
        "type": "tool_search_output",
        "call_id": "s1",
        "status": "completed",
        "tools": [
            {
                "type": "namespace",
                "name": "mcp__tiny",
                "tools": [{"type": "function", "name": "add"}],
            },
            {"type": "function", "name": "lookup"},
        ],
    }
    empty = {"type": "tool_search_output", "call_id": "s2", "status": "completed", "tools": []}
    lines = [
        line("response_item", search),
        line("response_item", found),
        line("response_item", empty),
    ]
    events = parse_codex_lines(lines).events
    (call,) = [e for e in events if e.type == "tool_call"]
    assert (call.name, call.kind, call.input) == (
        "tool_search",
        "other",
        {"query": "tiny add", "limit": 8},
    )
    first, second = [e for e in events if e.type == "tool_result"]
    assert (first.output, first.is_error) == ("mcp__tiny.add\nlookup", False)
    assert second.output == "no tools found"


def test_a_call_of_a_tool_codex_does_not_have_is_an_error() -> None:
    lines = [call("x1", "mcp__gone__tool"), output("x1", "unsupported call: mcp__gone__tool")]
    assert results(parse_codex_lines(lines).events) == {"x1": (True, False)}


def test_a_patch_codex_refused_is_a_failed_edit_that_changed_no_code() -> None:
    """Codex 0.171 answers a patch whose lines are not in the file with this text alone: no
    exit code, no ``item_completed``. A session whose only edit it is is no task."""
    from proctor.metrics.figures import step_figures
    from proctor.metrics.trace import build_steps

    body = "*** Begin Patch\n*** Update File: calc.py\n@@\n-    return zzz\n+    return a + b\n"
    refused = "apply_patch verification failed: Failed to find expected lines in /w/calc.py:\n"
    lines = [
        line("response_item", {"type": "custom_tool_call", "status": "completed",
                               "call_id": "p1", "name": "apply_patch",
                               "input": body + "*** End Patch"}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "p1",
                               "output": refused + "    return zzz"}),
        line("response_item", {"type": "custom_tool_call", "status": "completed",
                               "call_id": "p2", "name": "apply_patch",
                               "input": body.replace("zzz", "a - b") + "*** End Patch"}),
        line("response_item", {"type": "custom_tool_call_output", "call_id": "p2",
                               "output": "Exit code: 0\nWall time: 0 seconds\nOutput:\n"
                               "Success. Updated the following files:\nM calc.py\n"}),
    ]  # fmt: skip
    events = parse_codex_lines(lines[:2]).events
    assert results(events) == {"p1": (True, False)}
    assert not step_figures(build_steps(events, "/w"), None).is_task
    # The control: the same session with a patch that applied is a task.
    both = parse_codex_lines(lines).events
    assert results(both) == {"p1": (True, False), "p2": (False, False)}
    assert step_figures(build_steps(both, "/w"), None).is_task


def test_a_refusal_quoted_in_a_command_output_is_no_denial() -> None:
    quoted = "Exit code: 0\nOutput:\nRejected by user: the old deploy\n"
    lines = [call("c1", command=["cat", "notes.txt"]), output("c1", quoted)]
    assert results(parse_codex_lines(lines).events) == {"c1": (False, False)}


def test_a_resumed_rollout_counts_old_turns_from_token_count_and_new_ones_from_records() -> None:
    def record(response: str, u: dict[str, int]) -> str:
        return line("token_usage_record", {"response_id": response, "usage": u})

    lines = [
        token_count(usage(100, 0, 5), usage(100, 0, 5)),  # written by an older CLI
        token_count(usage(300, 0, 15), usage(200, 0, 10)),
        record("r3", usage(400, 0, 20)),  # resumed with 0.171: a record, then its token_count
        token_count(usage(700, 0, 35), usage(400, 0, 20)),
    ]
    t = parse_codex_lines(lines)
    (u,) = t.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == (700, 35, 3)
    assert codex_usage_check_lines(lines)["ok"] is True
    assert len([e for e in t.events if e.type == "usage"]) == 3


def codex_usage_check_lines(lines: list[str]) -> dict[str, Any]:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as fh:
        fh.write("\n".join(lines) + "\n")
    return codex_usage_check(Path(fh.name))


THREADS = FIXTURES / "threads"
FORK_PARENT = "01a23814-8c5a-7df2-b169-268a1aa10d94"


def thread_files(folder: str) -> tuple[Path, Path]:
    """(parent, subagent) rollouts of a recorded thread pair (see threads/README.md)."""
    parent, child = sorted((THREADS / folder).glob("rollout-*.jsonl"))
    return parent, child


def prompts(events: list[Event]) -> list[str | None]:
    return [e.text for e in events if e.type == "user_message"]


def inherited(events: list[Event]) -> list[str | None]:
    return [
        e.text for e in events if isinstance(e, OtherEvent) and e.record_type == "inherited-history"
    ]


def test_a_forked_subagent_does_not_count_the_history_it_copied_from_its_parent() -> None:
    parent, child = thread_files("fork")
    t = parse_codex_rollout(child)
    assert t.session_id == "01a23814-8de3-75b3-bcfe-1a18891792a7"  # its own, not the parent's
    assert prompts(t.events) == ["Write child.txt"]  # the parent's prompt was copied, not sent
    assert inherited(t.events) == [f"history inherited from thread {FORK_PARENT}"]
    (u,) = t.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == (19170, 23, 2)
    assert [c.name for c in t.tool_calls()] == ["exec_command", "multi_agent_v1__spawn_agent"]
    assert t.coverage.unparsed_lines == 0 and t.coverage.unknown_record_types == {}
    assert codex_usage_check(child)["ok"] is True
    p = parse_codex_rollout(parent)  # the parent's own rollout keeps its prompt
    assert prompts(p.events) == ["Do the task in this folder."] and inherited(p.events) == []


def test_a_subagent_spawned_without_its_parents_context_inherits_nothing() -> None:
    _, child = thread_files("spawn")
    t = parse_codex_rollout(child)
    assert prompts(t.events) == ["Write child.txt"] and inherited(t.events) == []
    (u,) = t.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == (18880, 23, 2)


def meta(thread: str, ts: str, parent: str | None = None) -> str:
    payload: dict[str, Any] = {"id": thread, "cwd": "/w", "cli_version": "0.90.0"}
    if parent is not None:
        payload["source"] = {"subagent": {"thread_spawn": {"parent_thread_id": parent}}}
    return line("session_meta", payload, ts)


def counted(total: dict[str, int], last: dict[str, int] | None, ts: str) -> str:
    info: dict[str, Any] = {"total_token_usage": total}
    if last is not None:
        info["last_token_usage"] = last
    return line("event_msg", {"type": "token_count", "info": info}, ts)


FORKED_AT = "2026-05-12T08:03:00.000Z"


def test_copied_token_counts_count_nothing_and_the_own_ones_count_once() -> None:
    lines = [
        meta("child", FORKED_AT, parent="parent"),
        meta("parent", FORKED_AT),  # the copy: the parent's header, items and token counts
        line("turn_context", {"model": "gpt-5.2", "cwd": "/w"}, FORKED_AT),
        line(
            "response_item",
            {"type": "message", "role": "user", "content": "parent prompt"},
            FORKED_AT,
        ),
        counted(usage(1000, 100, 200), usage(1000, 100, 200), FORKED_AT),
        counted(usage(1500, 150, 300), usage(500, 50, 100), FORKED_AT),
        line(
            "response_item",
            {"type": "message", "role": "user", "content": "child prompt"},
            "2026-05-12T08:03:01.000Z",
        ),
        counted(usage(1600, 160, 320), usage(100, 10, 20), "2026-05-12T08:04:00.000Z"),
        counted(usage(1650, 165, 330), usage(50, 5, 10), "2026-05-12T08:05:00.000Z"),
    ]
    t = parse_codex_lines(lines)
    assert t.session_id == "child" and prompts(t.events) == ["child prompt"]
    assert inherited(t.events) == ["history inherited from thread parent"]
    ((model, u),) = t.usage.items()  # the copied turn_context's model
    assert model == "gpt-5.2"
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.responses) == (135, 15, 30, 2)
    check = codex_usage_check_lines(lines)
    assert check["ok"] is True and check["reported"]["outputTokens"] == 30


def test_a_copied_total_is_the_baseline_of_the_threads_own_totals() -> None:
    lines = [  # ccusage's shape: the copied counts right after the thread's own header
        meta("child", FORKED_AT, parent="parent"),
        counted(usage(1000, 100, 200), None, FORKED_AT),
        counted(usage(1500, 150, 300), None, FORKED_AT),
        counted(usage(1600, 160, 320), None, "2026-05-12T08:04:00.000Z"),
    ]
    (u,) = parse_codex_lines(lines).usage.values()
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.responses) == (90, 10, 20, 1)


def test_a_header_of_another_thread_starts_a_copy_even_unnamed_by_the_own_header() -> None:
    lines = [
        meta("fork", "2026-05-12T08:00:00.000Z"),  # an older fork: no parent named
        meta("origin", "2026-05-12T08:00:00.500Z"),
        counted(usage(1000, 0, 200), usage(1000, 0, 200), "2026-05-12T08:00:00.500Z"),
        counted(usage(1100, 0, 210), usage(100, 0, 10), "2026-05-12T08:01:00.000Z"),
    ]
    t = parse_codex_lines(lines)
    assert t.session_id == "fork" and inherited(t.events) == [
        "history inherited from thread origin"
    ]
    (u,) = t.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == (100, 10, 1)


def test_control_the_own_lines_of_a_thread_are_never_taken_for_a_copy() -> None:
    same = "2026-05-12T08:00:00.000Z"
    lines = [
        meta("t", same),  # names no parent: lines at its time are its own
        line("response_item", {"type": "message", "role": "user", "content": "mine"}, same),
        counted(usage(100, 0, 10), usage(100, 0, 10), same),
        meta("t", "2026-05-12T09:00:00.000Z"),  # its own header again (a resume)
        counted(usage(300, 0, 30), usage(200, 0, 20), "2026-05-12T09:00:00.000Z"),
    ]
    t = parse_codex_lines(lines)
    assert prompts(t.events) == ["mine"] and inherited(t.events) == []
    (u,) = t.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == (300, 30, 2)


def test_the_ordinal_a_subagents_header_gives_ends_the_copy_whatever_the_times() -> None:
    def numbered(text: str, ordinal: int) -> str:
        record = json.loads(text)
        return json.dumps({**record, "ordinal": ordinal})

    header = json.loads(meta("child", FORKED_AT, parent="parent"))
    header["payload"]["subagent_history_start_ordinal"] = 3
    later = "2026-05-12T08:03:00.250Z"  # a copy written over more than one instant
    lines = [
        json.dumps({**header, "ordinal": 0}),
        numbered(meta("parent", FORKED_AT), 1),
        numbered(
            line(
                "response_item",
                {"type": "message", "role": "user", "content": "parent prompt"},
                later,
            ),
            2,
        ),
        numbered(
            line(
                "response_item",
                {"type": "message", "role": "user", "content": "child prompt"},
                later,
            ),
            3,
        ),
        numbered(counted(usage(100, 0, 10), usage(100, 0, 10), later), 4),
    ]
    t = parse_codex_lines(lines)
    assert prompts(t.events) == ["child prompt"]
    assert inherited(t.events) == ["history inherited from thread parent"]
    (u,) = t.usage.values()
    assert (u.input_tokens, u.responses) == (100, 1)


def test_a_sessions_threads_read_together_interleave_by_time() -> None:
    parent, child = thread_files("spawn")
    t = parse_codex_threads_plain(parent, [child])
    calls = [(e["name"], bool(e.get("sidechain"))) for e in t.events if e["type"] == "tool_call"]
    assert calls == [
        ("exec_command", False),
        ("tool_search", False),
        ("spawn_agent", False),  # the subagent starts after it was spawned
        ("exec_command", True),
        ("multi_agent_v1__spawn_agent", True),
    ]
    times = [e["ts"] for e in t.events]
    assert times == sorted(times)
    assert t.session_id == "01a23814-8c07-7ed2-a026-1df397406950"
    own = parse_codex_rollout(parent)
    assert t.coverage.lines == own.coverage.lines + parse_codex_rollout(child).coverage.lines
    assert parse_codex_threads_plain(parent, []).events == parse_codex_rollout_plain(parent).events


def test_a_subagents_notification_to_its_parent_is_no_prompt() -> None:
    note = '<subagent_notification>\n{"agent_path":"a","status":{"completed":"Done."}}\n</subagent_notification>'
    lines = [
        line("response_item", {"type": "message", "role": "user", "content": "the task"}),
        line("response_item", {"type": "message", "role": "user", "content": note}),
    ]
    t = parse_codex_lines(lines)
    assert prompts(t.events) == ["the task"]
    assert [e.record_type for e in t.events if isinstance(e, OtherEvent)] == ["harness-message"]


FORKS = THREADS.parent / "forks"


def test_a_long_copied_history_spanning_several_milliseconds_is_inherited() -> None:
    """168 copied lines over six milliseconds: with the header's start ordinal, and without it
    (as a release that wrote none), the copy is the parent's and only the subagent's own
    prompt and turn are its own."""
    recorded = FORKS / "fork-context-long.jsonl"
    t = parse_codex_rollout(recorded)
    assert prompts(t.events) == ["Write child.txt"] and len(inherited(t.events)) == 1
    records = [json.loads(text) for text in recorded.read_text().splitlines()]
    del records[0]["payload"]["subagent_history_start_ordinal"]
    for record in records:
        record.pop("ordinal", None)
    without = parse_codex_lines([json.dumps(record) for record in records])
    assert prompts(without.events) == ["Write child.txt"], "the copy's later milliseconds"
    assert [e.type for e in without.events].count("turn_end") == 1
    assert without.usage == t.usage


def test_a_fork_whose_history_stays_in_its_parent_copies_nothing() -> None:
    t = parse_codex_rollout(FORKS / "exec-fork.jsonl")
    assert prompts(t.events) == ["Continue in the fork."] and inherited(t.events) == []
    assert sum(u.responses for u in t.usage.values()) >= 1


def test_a_call_written_again_is_one_call() -> None:
    """A call line written twice (a copy, a sync, a hand edit: Codex gives each call its own
    id) is one call; calls without an id stay apart (the control)."""
    bare = line("response_item", {"type": "function_call", "name": "exec_command"})
    lines = [call("t", cmd="pytest -q"), call("t", cmd="pytest -q"), output("t", "ok")]
    lines += [bare, bare, call("u", cmd="ls"), output("u", "a.py")]
    calls = [e.id for e in parse_codex_lines(lines).events if e.type == "tool_call"]
    assert calls == ["t", "codex-call-1", "codex-call-2", "u"]
