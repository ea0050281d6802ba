"""Records whose fields have unexpected types are counted, never fatal (a format drift shows up
as a number)."""

import json
from pathlib import Path

import pytest

from proctor.transcripts.claude import parse_claude_lines
from proctor.transcripts.codex import parse_codex_lines
from proctor.transcripts.detect import detect_format
from proctor.transcripts.gemini import parse_gemini_lines


def codex(kind: str, payload: object) -> str:
    return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload})


GOOD = codex("event_msg", {"type": "user_message", "message": "hi"})


@pytest.mark.parametrize(
    "bad",
    [
        json.dumps({"type": [], "payload": {}}),
        codex("session_meta", {"id": 5, "cli_version": ["x"]}),
        codex("turn_context", {"model": {"a": 1}, "cwd": 7}),
        codex("event_msg", {"type": "task_complete", "duration_ms": "slow"}),
        codex(
            "response_item",
            {"type": "tool_search_output", "call_id": "s", "tools": [{"type": "namespace"}]},
        ),
        codex(
            "response_item",
            {
                "type": "function_call",
                "name": "request_user_input",
                "call_id": "q",
                "arguments": json.dumps({"questions": [{"question": "?", "options": 5}]}),
            },
        ),
    ],
)
def test_codex_keeps_going_past_a_malformed_record(bad: str) -> None:
    t = parse_codex_lines([bad, GOOD])
    assert [e.text for e in t.events if e.type == "user_message"] == ["hi"]
    assert t.coverage.lines == 2


def test_a_record_type_that_is_not_a_string_does_not_break_detection(tmp_path: Path) -> None:
    path = tmp_path / "rollout-x.jsonl"
    path.write_text(json.dumps({"type": [], "payload": {}}) + "\n" + GOOD + "\n")
    assert detect_format(path) == "codex"


def gemini(**record: object) -> str:
    return json.dumps({"id": "m1", "timestamp": "2026-01-01T00:00:00Z", **record})


HEADER = json.dumps({"sessionId": "s", "projectHash": "p", "startTime": "x"})
USER = json.dumps({"id": "u1", "type": "user", "content": [{"text": "hello"}]})

CLAUDE_USER = json.dumps(
    {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "hi"}}
)


def test_claude_keeps_going_past_a_malformed_record() -> None:
    bad = json.dumps({"type": "user", "uuid": "u1", "message": "hi"})
    t = parse_claude_lines([bad, CLAUDE_USER])
    assert [e.text for e in t.events if e.type == "user_message"] == ["hi"]
    assert t.coverage.unknown_record_types == {"malformed/user": 1}


def test_a_question_with_plain_string_options_reads_them_as_labels() -> None:
    ask = {
        "type": "tool_use",
        "id": "q",
        "name": "AskUserQuestion",
        "input": {"questions": [{"question": "Go?", "options": ["Yes", "No"]}]},
    }
    message = {"id": "m", "role": "assistant", "content": [ask]}
    t = parse_claude_lines([json.dumps({"type": "assistant", "uuid": "a1", "message": message})])
    assert [(e.text, e.options) for e in t.events if e.type == "question"] == [
        ("Go?", ["Yes", "No"])
    ]


@pytest.mark.parametrize(
    "bad",
    [
        gemini(type="gemini", content="x", thoughts=5),
        gemini(type="gemini", content="x", toolCalls=5),
        gemini(
            type="gemini",
            content="x",
            toolCalls=[
                {
                    "id": "t",
                    "name": "ls",
                    "status": "success",
                    "result": [{"functionResponse": "not an object"}],
                }
            ],
        ),
    ],
)
def test_gemini_keeps_going_past_a_malformed_message(bad: str) -> None:
    t = parse_gemini_lines([HEADER, USER, bad])
    assert [e.text for e in t.events if e.type == "user_message"] == ["hello"]
    assert not any(k.startswith("malformed/") for k in t.coverage.unknown_record_types) or any(
        e.type == "other" for e in t.events
    )


def test_a_gemini_record_with_only_a_session_id_is_counted_not_taken_for_the_header() -> None:
    t = parse_gemini_lines([HEADER, json.dumps({"sessionId": "s", "type": "checkpoint_v2"})])
    assert t.coverage.unknown_record_types == {"checkpoint_v2": 1}


def test_a_shell_output_quoting_an_exit_code_keeps_the_real_one() -> None:
    output = "Output: build log\nExit Code: 2 (quoted from run.log)\nExit Code: 0"
    call = {
        "id": "t",
        "name": "run_shell_command",
        "args": {"command": "cat run.log"},
        "status": "success",
        "resultDisplay": output,
    }
    t = parse_gemini_lines([HEADER, gemini(type="gemini", content="", toolCalls=[call])])
    (result,) = [e for e in t.events if e.type == "tool_result"]
    assert result.is_error is False


@pytest.mark.parametrize("as_json", [True, False])
def test_parse_prints_half_an_emoji_escaped(tmp_path: Path, as_json: bool) -> None:
    from click.testing import CliRunner

    from proctor.cli.parse import command

    path = tmp_path / "s.jsonl"
    record = '{"type":"user","uuid":"u","sessionId":"s","message":{"role":"user","content":"a \\ud83d b"}}'
    path.write_text(record + "\n")
    args = [str(path), "--agent", "claude-code", *(["--json"] if as_json else [])]
    result = CliRunner().invoke(command, args)
    assert result.exit_code == 0, result.output
    if as_json:
        assert json.loads(result.output)["events"][0]["text"] == "a \\ud83d b"
    else:
        assert "a \\ud83d b" in result.output


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("grep -A 3 TODO src/app.py", ["src/app.py"]),
        ("grep -n foo a.py", ["a.py"]),
        ("grep -e foo -e bar a.txt", ["a.txt"]),
        ("rg --type py pat src", ["src"]),
        ("tail -n +5 log", ["log"]),
        ("head -n 20 x.py", ["x.py"]),
        ("cat -n a.py", ["a.py"]),
        ("sed -n '1,9p' a.py", ["a.py"]),
        ("sed -n 1p -e 'w x.out' a.py", []),  # a second script: no plain read
        ("tail -f app.log", []),  # never ends: no read
        ("grep -n 'a|b' a.py", ["a.py"]),
    ],
)
def test_option_values_are_not_taken_for_file_names(command: str, files: list[str]) -> None:
    from proctor.transcripts.kinds import shell_files

    assert shell_files(command, None) == files


def _claude_usage(usage: dict[str, object]) -> str:
    message = {
        "id": "m1",
        "model": "claude-x",
        "role": "assistant",
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "hi"}],
        "usage": usage,
    }
    return json.dumps({"type": "assistant", "uuid": "a1", "sessionId": "s", "message": message})


@pytest.mark.parametrize(
    "bad", [1e308, 10**30, -5, "12", True, None, [], 2.5, float("inf"), float("nan")]
)
def test_a_token_count_that_is_no_count_is_zero_and_the_record_stays_writable(
    bad: object,
) -> None:
    """Absurd, negative, non-finite or non-numeric counts count 0: the totals stay sound and
    the trajectory stays writable as JSON (orjson refuses integers past 64 bits). Each is
    counted as a malformed usage, so that the record says its tokens are short."""
    from proctor.models.io import model_to_json

    t = parse_claude_lines(
        [_claude_usage({"input_tokens": bad, "output_tokens": 7, "cache_read_input_tokens": 3})]
    )
    usage = t.usage["claude-x"]
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (0, 7, 3)
    json.loads(model_to_json(t))
    noted = {} if bad is None else {"malformed/usage": 1}  # (a count left out is none)
    assert t.coverage.unknown_record_types == noted


def test_control_a_whole_count_and_an_integral_float_are_kept() -> None:
    t = parse_claude_lines([_claude_usage({"input_tokens": 12, "output_tokens": 4.0})])
    assert (t.usage["claude-x"].input_tokens, t.usage["claude-x"].output_tokens) == (12, 4)
    t = parse_claude_lines([_claude_usage({"input_tokens": 0, "output_tokens": 0.0})])
    assert t.coverage.unknown_record_types == {}


@pytest.mark.parametrize("bad", [-5, "12", 10**30, True])
def test_a_codex_or_gemini_token_count_that_is_no_count_is_noted(bad: object) -> None:
    """As for Claude Code: the count adds 0, the rest of the response counts, and the record
    says one usage was malformed. A whole count is the control."""
    for value, noted in ((bad, {"malformed/usage": 1}), (40, {})):
        usage = {"input_tokens": 100, "output_tokens": value}
        t = parse_codex_lines([codex("token_usage_record", {"response_id": "r", "usage": usage})])
        assert t.usage["unknown"].input_tokens == 100
        assert t.coverage.unknown_record_types == noted
        last = {"info": {"last_token_usage": usage}, "type": "token_count"}
        t = parse_codex_lines([codex("event_msg", last)])
        assert t.usage["unknown"].input_tokens == 100
        assert t.coverage.unknown_record_types == noted
        header = {"sessionId": "g", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"}
        tokens = {"input": 10, "output": value, "cached": 4}
        message = {"id": "g1", "type": "gemini", "content": "hi", "model": "gm", "tokens": tokens}
        t = parse_gemini_lines([json.dumps(header), json.dumps(message)])
        assert (t.usage["gm"].input_tokens, t.usage["gm"].cache_read_tokens) == (6, 4)
        assert t.coverage.unknown_record_types == noted


def test_a_malformed_count_is_noted_once_per_response() -> None:
    """Claude Code writes a response's usage on each of its lines (one per content block): the
    response is counted once, and so is its malformed count. Two responses, two notes."""
    lines = []
    for i in range(3):  # three lines of response m1
        line = json.loads(_claude_usage({"input_tokens": 3, "output_tokens": "7"}))
        line["uuid"] = f"a1-{i}"
        lines.append(json.dumps(line))
    other = json.loads(_claude_usage({"input_tokens": 3, "output_tokens": "7"}))
    other["message"]["id"], other["uuid"] = "m2", "a2"
    t = parse_claude_lines([*lines, json.dumps(other)])
    assert t.usage["claude-x"].responses == 2
    assert t.coverage.unknown_record_types == {"malformed/usage": 2}
