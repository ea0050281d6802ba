import json
from typing import Any

from proctor.transcripts.claude import parse_claude_lines


def line(**record: Any) -> str:
    return json.dumps(record)


def assistant(
    msg_id: str,
    block: dict[str, Any],
    usage: dict[str, int],
    stop: str | None,
    req: str | None = "req_1",
    model: str = "claude-x",
    **extra: Any,
) -> str:
    return line(
        type="assistant",
        requestId=req,
        cwd="/ws",
        sessionId="s1",
        version="2.1.0",
        timestamp="2026-01-01T00:00:01.000Z",
        message={
            "id": msg_id,
            "model": model,
            "content": [block],
            "stop_reason": stop,
            "usage": usage,
        },
        **extra,
    )


U1 = {
    "input_tokens": 10,
    "output_tokens": 1,
    "cache_read_input_tokens": 100,
    "cache_creation_input_tokens": 5,
}
U1_FINAL = {**U1, "output_tokens": 42}


def test_usage_is_counted_once_per_message_from_the_final_line() -> None:
    lines = [
        line(type="user", message={"role": "user", "content": "fix it"}),
        assistant("m1", {"type": "thinking", "thinking": ""}, U1, None),
        assistant("m1", {"type": "text", "text": "running"}, U1, None),
        assistant(
            "m1",
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest"}},
            U1_FINAL,
            "tool_use",
        ),
    ]
    t = parse_claude_lines(lines)
    usage = t.usage["claude-x"]
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (10, 42, 100)
    assert usage.cache_write_tokens == 5 and usage.responses == 1
    assert [e.type for e in t.events] == [
        "user_message",
        "thinking",
        "usage",
        "assistant_text",
        "tool_call",
    ]


def test_control_summing_every_line_would_triple_the_input() -> None:
    lines = [assistant("m1", {"type": "text", "text": str(i)}, U1, None) for i in range(3)]
    t = parse_claude_lines(lines)
    assert t.usage["claude-x"].input_tokens == 10


def test_missing_request_id_falls_back_to_message_id() -> None:
    lines = [
        assistant("m1", {"type": "text", "text": "a"}, U1, None, req=None),
        assistant("m1", {"type": "text", "text": "b"}, U1_FINAL, "end_turn", req=None),
        assistant("m2", {"type": "text", "text": "c"}, U1_FINAL, "end_turn", req=None),
    ]
    usage = parse_claude_lines(lines).usage["claude-x"]
    assert usage.responses == 2 and usage.output_tokens == 84


def test_tool_calls_get_kinds_and_workspace_relative_files() -> None:
    names = {
        "Read": {"file_path": "/ws/src/a.py"},
        "Edit": {"file_path": "/ws/b.py"},
        "Grep": {"pattern": "x", "path": "/ws/src"},
        "mcp__srv__q": {},
        "Skill": {"skill": "review"},
        "Task": {"subagent_type": "explore"},
        "WebFetch": {"url": "u"},
        "TodoWrite": {},
    }
    lines = [
        assistant(
            f"m{i}", {"type": "tool_use", "id": f"t{i}", "name": n, "input": inp}, U1, "tool_use"
        )
        for i, (n, inp) in enumerate(names.items())
    ]
    t = parse_claude_lines(lines)
    calls = t.tool_calls()
    assert [c.kind for c in calls] == [
        "read",
        "edit",
        "search",
        "mcp",
        "skill",
        "subagent",
        "web",
        "other",
    ]
    assert calls[0].files == ["src/a.py"] and calls[2].files == ["src"]
    assert [e.name for e in t.events if e.type == "skill"] == ["review"]


def test_denial_is_not_an_error_and_errors_are_flagged() -> None:
    lines = [
        line(
            type="user",
            toolDenialKind="permission-rule",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "denied",
                        "is_error": True,
                    }
                ],
            },
        ),
        line(
            type="user",
            message={
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": [{"type": "text", "text": "boom"}],
                        "is_error": True,
                    }
                ],
            },
        ),
    ]
    r1, r2 = parse_claude_lines(lines).events
    assert (r1.denied, r1.is_error) == (True, False)
    assert (r2.denied, r2.is_error, r2.output) == (False, True, "boom")


def test_unknown_types_and_bad_lines_are_counted_not_dropped() -> None:
    lines = [
        line(type="brand-new-record", x=1),
        "{not json",
        line(type="file-history-snapshot", snapshot={}),
        line(
            type="assistant",
            message={
                "id": "m",
                "model": "<synthetic>",
                "content": [{"type": "text", "text": "API Error: 529"}],
            },
        ),
    ]
    t = parse_claude_lines(lines)
    assert t.coverage.lines == 4
    assert t.coverage.unknown_record_types == {"brand-new-record": 1}
    assert t.coverage.unparsed_lines == 1
    assert [e.type for e in t.events] == ["other", "other", "api_error"]
    assert t.usage == {}


def test_the_cli_s_filler_reply_after_a_command_is_no_api_error() -> None:
    """Claude Code writes a ``<synthetic>`` "No response requested." after ``/compact`` (and a
    compaction that failed): the model was asked nothing, nothing failed."""

    def synthetic(text: str, **fields: object) -> str:
        content = [{"type": "text", "text": text}]
        message = {"id": "m", "model": "<synthetic>", "content": content}
        return line(type="assistant", message=message, **fields)

    t = parse_claude_lines([synthetic("No response requested.")])
    assert [(e.type, getattr(e, "record_type", None)) for e in t.events] == [
        ("other", "synthetic-reply")
    ]
    assert t.coverage.unknown_record_types == {}
    # The controls: an API error, and the same text on a line the CLI marks as one.
    assert [e.type for e in parse_claude_lines([synthetic("API Error: 529")]).events] == [
        "api_error"
    ]
    marked = synthetic("No response requested.", isApiErrorMessage=True)
    assert [e.type for e in parse_claude_lines([marked]).events] == ["api_error"]


def test_hooks_questions_turn_end_and_compaction() -> None:
    lines = [
        line(
            type="attachment",
            attachment={
                "type": "hook_success",
                "hookName": "PreToolUse:Bash",
                "hookEvent": "PreToolUse",
                "command": "x.sh",
                "exitCode": 0,
            },
        ),
        line(type="system", subtype="stop_hook_summary", hookInfos=[{"command": "stop.sh"}]),
        assistant(
            "m1",
            {
                "type": "tool_use",
                "id": "q1",
                "name": "AskUserQuestion",
                "input": {
                    "questions": [
                        {"question": "Go?", "options": [{"label": "Yes"}, {"label": "No"}]}
                    ]
                },
            },
            U1,
            "tool_use",
        ),
        line(
            type="user",
            toolUseResult={"answers": {"Go?": "Yes"}},
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "q1", "content": "answered"}],
            },
        ),
        line(type="system", subtype="turn_duration", durationMs=1200),
        line(type="system", subtype="compact_boundary", content="Conversation compacted"),
    ]
    t = parse_claude_lines(lines)
    types = [e.type for e in t.events]
    assert types == [
        "hook",
        "hook",
        "tool_call",
        "question",
        "usage",
        "tool_result",
        "answer",
        "turn_end",
        "compaction",
    ]
    question = t.events[3]
    assert (question.text, question.options) == ("Go?", ["Yes", "No"])
    assert t.events[6].text == "Yes"
    assert t.events[0].hook_event == "PreToolUse" and t.events[1].command == "stop.sh"


def test_lines_written_before_their_parent_are_put_back_in_order() -> None:
    lines = [
        line(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            message={"id": "m1", "model": "x", "content": [{"type": "text", "text": "answer"}]},
        ),
        line(type="file-history-snapshot", snapshot={}),
        line(
            type="user", uuid="u1", parentUuid=None, message={"role": "user", "content": "question"}
        ),
        line(
            type="assistant",
            uuid="a2",
            parentUuid="gone",
            message={"id": "m2", "model": "x", "content": [{"type": "text", "text": "orphan"}]},
        ),
    ]
    texts = [e.text for e in parse_claude_lines(lines).events if e.text]
    assert texts == ["question", "answer", "orphan"]


def test_a_lone_surrogate_from_a_cut_emoji_still_parses() -> None:
    cut = '{"type": "user", "message": {"role": "user", "content": "smile \\ud83d"}}'
    events = parse_claude_lines([cut]).events
    assert events[0].type == "user_message" and events[0].text == "smile \ud83d"


def _rejected(tool_use_result: object) -> str:
    block = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "The user doesn't want to proceed with this tool use.",
        "is_error": True,
    }
    return line(
        type="user", toolUseResult=tool_use_result, message={"role": "user", "content": [block]}
    )


def test_a_tool_use_the_user_rejected_in_the_tui_is_a_denial() -> None:
    """Claude Code 2.1.197's TUI writes ``toolUseResult: "User rejected tool use"`` and no
    ``toolDenialKind`` when the user (or proctor's "No") refuses a permission prompt."""
    (result,) = parse_claude_lines([_rejected("User rejected tool use")]).events
    assert result.type == "tool_result" and (result.denied, result.is_error) == (True, False)


def test_control_a_failed_tool_use_is_still_an_error() -> None:
    (result,) = parse_claude_lines([_rejected("Error: Exit code 1")]).events
    assert result.type == "tool_result" and (result.denied, result.is_error) == (False, True)


def test_an_interrupted_turn_ends_the_turn_and_is_no_user_message() -> None:
    note = {
        "role": "user",
        "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
    }
    typed = {"role": "user", "content": [{"type": "text", "text": "go on"}]}
    events = parse_claude_lines(
        [line(type="user", message=note), line(type="user", message=typed)]
    ).events
    assert [(e.type, getattr(e, "text", None)) for e in events] == [
        ("turn_end", "aborted (interrupted by user)"),
        ("user_message", "go on"),
    ]


def test_a_command_the_cli_ran_itself_is_housekeeping_not_a_message() -> None:
    exit_command = (
        "<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n"
        "            <command-args></command-args>"
    )
    lines = [
        line(type="user", message={"role": "user", "content": exit_command}),
        line(
            type="user",
            message={
                "role": "user",
                "content": "<local-command-stdout>Bye!</local-command-stdout>",
            },
        ),
        line(
            type="system",
            subtype="local_command",
            content="<local-command-stdout>Set model to opus</local-command-stdout>",
        ),
    ]
    events = parse_claude_lines(lines).events
    assert [(e.type, getattr(e, "record_type", None)) for e in events] == [
        ("other", "local_command")
    ] * 3
    assert parse_claude_lines(lines).coverage.unknown_record_types == {}


def test_control_a_command_that_expands_into_a_prompt_stays_a_message() -> None:
    typed = "<command-message>review is running…</command-message>\n<command-name>/review</command-name>"
    plain = "<command-name> is how the CLI marks a command"
    events = parse_claude_lines(
        [
            line(type="user", message={"role": "user", "content": typed}),
            line(
                type="user",
                message={"role": "user", "content": [{"type": "text", "text": "go on"}]},
            ),
            line(type="user", message={"role": "user", "content": "say " + plain}),
        ]
    ).events
    assert [e.type for e in events] == ["user_message"] * 3


def test_a_prompt_typed_while_a_turn_ran_is_a_user_message() -> None:
    # Claude Code 2.1.1xx writes it only as a queued command, its text a string or blocks.
    def queued(prompt: Any, mode: str) -> str:
        attachment = {"type": "queued_command", "prompt": prompt, "commandMode": mode}
        return line(type="attachment", timestamp="2026-01-01T00:00:02.000Z", attachment=attachment)

    lines = [
        line(type="user", message={"role": "user", "content": "refactor a.py"}),
        queued("actually, only rename it", "prompt"),
        queued([{"type": "text", "text": "and keep the tests"}], "prompt"),
        queued("ls", "bash"),  # the control: not a message typed to the model
    ]
    said = [e.text for e in parse_claude_lines(lines).events if e.type == "user_message"]
    assert said == ["refactor a.py", "actually, only rename it", "and keep the tests"]


def test_a_hook_that_added_context_or_a_message_is_no_error() -> None:
    def hook(kind: str) -> str:
        attachment = {"type": kind, "hookName": "SessionStart:startup", "hookEvent": "SessionStart"}
        return line(type="attachment", timestamp="2026-01-01T00:00:02.000Z", attachment=attachment)

    kinds = ["hook_success", "hook_additional_context", "hook_system_message"]
    errors = ["hook_non_blocking_error", "hook_blocking_error", "hook_cancelled"]
    events = [e for e in parse_claude_lines([hook(k) for k in kinds + errors]).events]
    assert [bool(getattr(e, "is_error", None)) for e in events] == [False] * 3 + [True] * 3
