"""`proctor hooks test` end to end: real hook processes on planted inputs, the worked example
and its broken control, blocking and denying hooks for Claude Code and Gemini CLI, hooks that
cannot run, and bad input."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run

EXAMPLE = Path(__file__).parents[2] / "examples" / "addons" / "hook"


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every scratch project of these tests inside ``tmp_path``."""
    (tmp_path / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def script(path: Path, body: str) -> str:
    """A Python hook script at ``path``; returns the command that runs it."""
    write(path, "import json, os, sys\n" + body)
    return f"{sys.executable} {path}"


def settings(path: Path, event: str, matcher: str, command: str, **extra: Any) -> Path:
    handler = {"type": "command", "command": command, **extra}
    return write(path, {"hooks": {event: [{"matcher": matcher, "hooks": [handler]}]}})


def run_json(proctor: Run, *args: str) -> tuple[int, dict[str, Any]]:
    result = proctor("hooks", "test", *args, "--json")
    assert result.code != 2, result.err
    return result.code, json.loads(result.out)


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in report["results"]}


def test_worked_example_passes_and_its_broken_copy_fails(proctor: Run) -> None:
    cases = str(EXAMPLE / "cases.json")
    code, good = run_json(proctor, str(EXAMPLE / "guard-plugin"), "--cases", cases)
    assert code == 0, [r["message"] for r in good["results"] if not r["ok"]]
    assert good["ok"] is True and good["passed"] == 6 and good["failed"] == 0
    results = by_id(good)
    nudge = results["large-read-nudges"]
    assert nudge["decision"] == "nudge"
    assert nudge["hooks"][0]["exitCode"] == 0 and "600000 bytes" in nudge["hooks"][0]["stdout"]
    assert set(nudge["hooks"][0]) >= {"command", "exitCode", "decision", "stdout", "stderr"}
    assert "durationMs" in nudge["hooks"][0]
    assert results["other-tools-are-not-watched"]["message"] == "no hook matched"

    code, broken = run_json(proctor, str(EXAMPLE / "broken-plugin"), "--cases", cases)
    assert code == 1
    failed = {r["id"] for r in broken["results"] if not r["ok"]}
    assert failed == {"limited-read-is-silent", "third-failing-run-nudges"}
    assert "expected silent, got nudge" in by_id(broken)["limited-read-is-silent"]["message"]


def test_text_output_has_one_line_per_case(proctor: Run) -> None:
    cases = str(EXAMPLE / "cases.json")
    result = proctor("hooks", "test", str(EXAMPLE / "broken-plugin"), "--cases", cases)
    assert result.code == 1
    lines = result.out.splitlines()
    assert sum(line.startswith(("PASS", "FAIL")) for line in lines) == 6
    assert any(
        line.startswith("FAIL  third-failing-run-nudges") and "expected decision nudge" in line
        for line in lines
    )
    assert lines[-1] == "4 passed, 2 failed"


BLOCKER = """
event = json.load(sys.stdin)
command = (event.get("tool_input") or {}).get("command", "")
if "rm -rf" in command:
    print("refusing to delete recursively", file=sys.stderr)
    sys.exit(2)
"""

DENIER = """
event = json.load(sys.stdin)
command = (event.get("tool_input") or {}).get("command", "")
if "curl" in command:
    if event.get("hook_event_name") == "BeforeTool":
        print(json.dumps({"decision": "deny", "reason": "no network in this repo"}))
    else:
        out = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
               "permissionDecisionReason": "no network in this repo"}
        print(json.dumps({"hookSpecificOutput": out}))
"""


@pytest.mark.parametrize(
    ("agent", "event", "tool"),
    [("claude-code", "PreToolUse", "Bash"), ("gemini-cli", "BeforeTool", "run_shell_command")],
)
def test_blocking_and_denying_hooks(
    proctor: Run, tmp_path: Path, agent: str, event: str, tool: str
) -> None:
    blocker = script(tmp_path / "block.py", BLOCKER)
    denier = script(tmp_path / "deny.py", DENIER)
    hooks = {
        "hooks": {
            event: [
                {"matcher": tool, "hooks": [{"type": "command", "command": blocker}]},
                {"matcher": tool, "hooks": [{"type": "command", "command": denier}]},
            ]
        }
    }
    source = write(tmp_path / "settings.json", hooks)

    def case(case_id: str, command: str, expect: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": case_id,
            "event": event,
            "tool": tool,
            "input": {"command": command},
            "expect": expect,
        }

    cases = write(
        tmp_path / "cases.json",
        [
            case(
                "rm-blocks",
                "rm -rf build",
                {"decision": "block", "exitCode": 2, "outputIncludes": "refusing to delete"},
            ),
            case(
                "curl-denied",
                "curl example.com",
                {"decision": "deny", "outputIncludes": "no network"},
            ),
            case("ls-passes", "ls", {"silent": True, "exitCode": 0}),
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases), "--agent", agent)
    assert code == 0, [r["message"] for r in report["results"]]
    assert all(r["agent"] == agent for r in report["results"])

    # Control: the same cases against hooks that let everything through must fail.
    lenient = settings(tmp_path / "lenient.json", event, tool, "true")
    code, report = run_json(proctor, str(lenient), "--cases", str(cases), "--agent", agent)
    assert code == 1
    assert {r["id"] for r in report["results"] if not r["ok"]} == {"rm-blocks", "curl-denied"}


def test_hook_receives_the_cli_input_and_environment(proctor: Run, tmp_path: Path) -> None:
    dump = tmp_path / "seen.json"
    recorder = script(
        tmp_path / "record.py",
        f"""
event = json.load(sys.stdin)
keep = ("HOME", "CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "GEMINI_PROJECT_DIR", "SECRET_TOKEN")
env = {{k: os.environ.get(k) for k in keep}}
found = os.path.isfile(event["transcript_path"])
seen = {{"input": event, "env": env, "cwd": os.getcwd(), "transcript": found}}
json.dump(seen, open({str(dump)!r}, "w"))
""",
    )
    plugin = tmp_path / "plugin"
    write(
        plugin / "hooks" / "hooks.json",
        {
            "hooks": {
                "PostToolUse": [
                    {
                        "matcher": "Edit|Write",
                        "hooks": [
                            {"type": "command", "command": recorder + " ${CLAUDE_PLUGIN_ROOT}"}
                        ],
                    }
                ]
            }
        },
    )
    cases = write(
        tmp_path / "cases.json",
        {
            "cases": [
                {
                    "id": "post-write",
                    "event": "PostToolUse",
                    "tool": "Write",
                    "input": {"file_path": "src/a.py", "content": "x = 1\n"},
                    "response": {"filePath": "src/a.py", "success": True},
                    "expect": {"silent": True},
                }
            ]
        },
    )
    os.environ["SECRET_TOKEN"] = "do-not-leak-this"
    try:
        code, _ = run_json(proctor, str(plugin), "--cases", str(cases))
    finally:
        del os.environ["SECRET_TOKEN"]
    assert code == 0
    seen = json.loads(dump.read_text())
    event, env = seen["input"], seen["env"]
    project = Path(seen["cwd"])
    assert event["hook_event_name"] == "PostToolUse" and event["tool_name"] == "Write"
    assert event["tool_input"]["file_path"] == str(project / "src/a.py")
    assert event["tool_response"] == {"filePath": "src/a.py", "success": True}
    assert {"session_id", "transcript_path", "cwd", "permission_mode", "tool_use_id"} <= set(event)
    assert seen["transcript"] is True
    assert env["CLAUDE_PROJECT_DIR"] == str(project) == event["cwd"]
    assert env["CLAUDE_PLUGIN_ROOT"] == str(plugin.resolve())
    assert env["SECRET_TOKEN"] is None
    assert env["HOME"] != os.environ.get("HOME") and str(tmp_path) in env["HOME"]


def test_each_cli_hands_the_command_to_its_own_shell(proctor: Run, tmp_path: Path) -> None:
    """Claude Code 2.1.197 runs a hook's command with ``/bin/sh -c`` (Node's ``shell: true``: a
    real session's hook ran under dash, where ``[[`` is no command), Gemini CLI with
    ``bash -c``; ``$0`` names the shell."""
    says = 'echo "shell=$0" >&2; exit 2'
    claude = settings(tmp_path / "claude" / "settings.json", "PreToolUse", "Bash", says)
    gemini = settings(tmp_path / "gemini" / "settings.json", "BeforeTool", ".*", says)
    for source, agent, event, tool, shell in (
        (claude, "claude-code", "PreToolUse", "Bash", "shell=/bin/sh"),
        (gemini, "gemini-cli", "BeforeTool", "run_shell_command", "shell=bash"),
    ):
        case = {"id": "c", "agent": agent, "event": event, "tool": tool}
        case |= {"input": {"command": "ls"}, "expect": {"decision": "block"}}
        cases = write(tmp_path / f"{agent}.json", [case])
        code, report = run_json(proctor, str(source), "--cases", str(cases))
        assert code == 0, report["results"][0]["message"]
        assert report["results"][0]["hooks"][0]["stderr"].strip() == shell


def test_case_with_no_matching_hook_fails_unless_it_expects_silence(
    proctor: Run, tmp_path: Path
) -> None:
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", "true")
    cases = write(
        tmp_path / "cases.json",
        [
            {"id": "read", "event": "PreToolUse", "tool": "Read", "expect": {"decision": "nudge"}},
            {"id": "quiet", "event": "PreToolUse", "tool": "Read", "expect": {"silent": True}},
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 1
    results = by_id(report)
    assert not results["read"]["ok"] and "no hook matched" in results["read"]["message"]
    assert results["quiet"]["ok"] and results["quiet"]["hooks"] == []


def test_a_matcher_that_is_no_regular_expression_is_named_when_no_hook_matched(
    proctor: Run, tmp_path: Path
) -> None:
    """``Bash(`` is not a regular expression: Claude Code takes it as a name, which no tool
    has; the case that expected the hook to run says why it did not."""
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash(", "true")
    cases = write(
        tmp_path / "cases.json",
        [
            {"id": "bash", "event": "PreToolUse", "tool": "Bash", "expect": {"decision": "nudge"}},
            {"id": "quiet", "event": "PreToolUse", "tool": "Bash", "expect": {"silent": True}},
            {"id": "stop", "event": "Stop", "expect": {"silent": True}},
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 1
    results = by_id(report)
    why = (
        "(the matcher 'Bash(' of 'true' is not a valid regular expression (missing ), "
        "unterminated subpattern at position 4): Claude Code takes it as a name, which matches "
        "a tool of that very name only)"
    )
    assert results["bash"]["message"] == (
        f"no hook matched, so the case exercised nothing {why}; expected decision nudge, got silent"
    )
    assert results["quiet"]["ok"] and results["quiet"]["message"] == f"no hook matched {why}"
    assert results["stop"]["message"] == "no hook matched"  # another event's matcher


@pytest.mark.parametrize(
    ("command", "timeout", "why"),
    [
        ("sleep 5", 0.5, "timed out after 0.5s"),
        ("no-such-program-xyz", None, "no-such-program-xyz is not a command on PATH"),
    ],
)
def test_hook_that_cannot_run_exits_3(
    proctor: Run, tmp_path: Path, command: str, timeout: float | None, why: str
) -> None:
    extra = {"timeout": timeout} if timeout else {}
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", command, **extra)
    cases = write(
        tmp_path / "cases.json",
        [
            {"id": "c", "event": "PreToolUse", "tool": "Bash", "expect": {"silent": True}},
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 3
    assert report["errored"] == 1 and report["failed"] == 0 and not report["ok"]
    assert why in report["results"][0]["message"]
    assert report["results"][0]["hooks"][0]["decision"] == "error"


@pytest.mark.parametrize(
    ("first_line", "why"),
    [
        ("#!/bin/sh\r", "has Windows line endings: its first line '#!/bin/sh\\r' ends in"),
        ("#!/no/such/interpreter", "names /no/such/interpreter in its #! line, which does not"),
        ("#!/usr/bin/env no-such-python-xyz", "names no-such-python-xyz in its #! line"),
        ("", "is not executable (chmod +x"),
        # the shell runs the file itself: a Python script's syntax errors exit 2, a "block"
        ("\ufeff#!/usr/bin/env python3", "starts with a UTF-8 byte order mark before its #!"),
    ],
)
def test_a_hook_script_that_cannot_start_says_why(
    proctor: Run, tmp_path: Path, first_line: str, why: str
) -> None:
    hook = tmp_path / "my hooks" / "guard.sh"
    write(hook, first_line + "\necho hi\n")
    hook.chmod(0o644 if not first_line else 0o755)
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", f"'{hook}'")
    cases = write(
        tmp_path / "cases.json",
        [{"id": "c", "event": "PreToolUse", "tool": "Bash", "expect": {"silent": True}}],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 3 and report["errored"] == 1
    message = report["results"][0]["message"]
    assert f"the hook's program cannot be started: {hook} {why}" in message, message


def test_a_hook_whose_script_calls_a_missing_command_ran_and_errored(
    proctor: Run, tmp_path: Path
) -> None:
    """Exit 127 from a command the hook's script called is the hook's own error (Claude Code
    runs the tool): the case fails (exit 1), it is not a hook that could not be run."""
    hook = tmp_path / "guard.sh"
    write(hook, "#!/bin/sh\nno-such-jq-xyz . >&2\n")
    hook.chmod(0o755)
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", str(hook))
    cases = write(
        tmp_path / "cases.json",
        [
            {"id": "deny", "event": "PreToolUse", "tool": "Bash", "expect": {"decision": "deny"}},
            {"id": "err", "event": "PreToolUse", "tool": "Bash", "expect": {"exitCode": 127}},
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 1 and report["errored"] == 0 and report["failed"] == 1
    results = by_id(report)
    assert results["deny"]["message"].startswith("expected decision deny, got error (the hook")
    assert "no-such-jq-xyz: not found" in results["deny"]["message"]
    assert results["err"]["ok"] and "no-such-jq-xyz: not found" in results["err"]["message"]


def test_a_hooks_temporary_files_stay_in_the_case_scratch(proctor: Run, tmp_path: Path) -> None:
    command = script(
        tmp_path / "h.py", "import tempfile; print(tempfile.mkstemp()[1], file=sys.stderr)"
    )
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", command)
    cases = write(
        tmp_path / "cases.json",
        [{"id": "c", "event": "PreToolUse", "tool": "Bash", "expect": {"silent": True}}],
    )
    _, report = run_json(proctor, str(source), "--cases", str(cases))
    made = Path(report["results"][0]["hooks"][0]["stderr"].strip())
    assert made.parent.name == "tmp" and made.parent.parent.name == "case-0"
    assert str(tmp_path / "scratch") in str(made) and not made.exists()


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        ("{not json", "malformed JSON at line 1"),
        ("[" * 100_000, "JSON nested too deeply to read"),
        (
            '[{"id": "a", "event": "Stop", "expect": {"exitCode": ' + "1" * 5000 + "}}]",
            "more than 4300 digits, too long to read",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": {"decision": None}}],
            "case 'a', field 'expect.decision': null checks nothing",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": {"outputIncludes": []}}],
            "case 'a', field 'expect.outputIncludes': an empty value checks nothing",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": {"outputIncludes": ["x", ""]}}],
            "case 'a', field 'expect.outputIncludes': an empty string checks nothing",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": "block"}],
            "case 'a', field 'expect': expected an object, got the string \"block\"",
        ),
        (
            [{"id": "a", "event": "Stop", "files": {"x": True}, "expect": {"silent": True}}],
            "case 'a', field 'files.x': expected an integer or a string, got true",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": {"outputIncludes": 5}}],
            "case 'a', field 'expect.outputIncludes': expected a string or a list, got 5",
        ),
        (
            [{"id": "a", "event": "Stop", "expect": {"outputMatches": "("}}],
            "case 'a', field 'expect.outputMatches': not a regular expression",
        ),
        ([], "field 'cases': must not be empty"),
        (
            [{"id": "a", "event": "PreToolUse", "tool": "Bash", "expect": {"decison": "deny"}}],
            "case 'a', field 'expect.decison'",
        ),
        (
            [{"id": "a", "event": "PreToolUse", "tool": "Bash", "expect": {"decision": "maybe"}}],
            "case 'a', field 'expect.decision'",
        ),
        (
            [{"id": "a", "event": "BeforeTool", "tool": "Bash", "expect": {"silent": True}}],
            "case 'a', field 'event': 'BeforeTool' is not a claude-code hook event",
        ),
        (
            [{"id": "a", "event": "PreToolUse", "expect": {"silent": True}}],
            "case 'a', field 'tool'",
        ),
        (
            [{"id": "a", "event": "PreToolUse", "tool": "Bash", "expect": {}}],
            "case 'a', field 'expect'",
        ),
        (
            [
                {
                    "id": "a",
                    "event": "PreToolUse",
                    "tool": "Read",
                    "files": {"../x": 3},
                    "expect": {"silent": True},
                }
            ],
            "case 'a', field 'files'",
        ),
    ],
)
def test_bad_cases_file_is_one_sentence_and_exit_2(
    proctor: Run, tmp_path: Path, cases: Any, message: str
) -> None:
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", "true")
    path = write(tmp_path / "cases.json", cases)
    result = proctor("hooks", "test", str(source), "--cases", str(path))
    assert result.code == 2
    assert message in result.err and str(path) in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1
    for raw in ("Input should be", "Value error", "List should", ".str'", ".int'", "None"):
        assert raw not in result.err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hooks": ' + "[" * 100_000, "JSON nested too deeply to read"),
        (
            '{"hooks": {"Stop": [{"hooks": [{"command": "true", "timeout": '
            + "1" * 5000
            + "}]}]}}",
            "more than 4300 digits, too long to read",
        ),
        (
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash("}]}]}}',
            "field 'hooks.Stop[0].hooks[0].if' must be a permission rule",
        ),
        (
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": 3}]}]}}',
            "field 'hooks.Stop[0].hooks[0].if' must be a string, got 3; Claude Code skips",
        ),
        (
            '{"hooks": {"Stop": [{"hooks": [{"command": "true", "async": "yes"}]}]}}',
            "field 'hooks.Stop[0].hooks[0].type' is missing",
        ),
        (
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "async": "yes"}]}]}}',
            "field 'hooks.Stop[0].hooks[0].async' must be true or false",
        ),
    ],
)
def test_bad_hook_source_text_is_one_sentence_and_exit_2(
    proctor: Run, tmp_path: Path, text: str, message: str
) -> None:
    source = write(tmp_path / "settings.json", text)
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"silent": True}}])
    result = proctor("hooks", "test", str(source), "--cases", str(cases))
    assert result.code == 2 and message in result.err and str(source) in result.err
    assert "Traceback" not in result.err and len(result.err.strip().splitlines()) == 1


def test_a_claude_code_handler_runs_only_when_its_if_matches(proctor: Run, tmp_path: Path) -> None:
    source = settings(
        tmp_path / "s.json",
        "PreToolUse",
        "Bash",
        "echo no >&2; exit 2",
        **{"if": "Bash(git push *)"},
    )

    def case(cid: str, command: str, decision: str) -> dict[str, Any]:
        return {"id": cid, "event": "PreToolUse", "tool": "Bash", "input": {"command": command},
                "expect": {"decision": decision}}  # fmt: skip

    cases = write(
        tmp_path / "cases.json",
        [
            case("ls", "ls", "silent"),
            case("push", "git push origin main", "block"),
            case("compound", "ls && FOO=1 git push", "block"),
            case("bare", "git push", "block"),
            case("pushy", "git pushy", "silent"),
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"] if not r["ok"]]
    assert by_id(report)["ls"]["hooks"] == [] and len(by_id(report)["push"]["hooks"]) == 1


def test_an_async_handler_runs_but_cannot_block(proctor: Run, tmp_path: Path) -> None:
    source = settings(
        tmp_path / "s.json", "PreToolUse", "Bash", "echo no >&2; exit 2", **{"async": True}
    )
    cases = write(
        tmp_path / "cases.json",
        [
            {
                "id": "blocks",
                "event": "PreToolUse",
                "tool": "Bash",
                "input": {"command": "rm x"},
                "expect": {"decision": "block"},
            },
            {
                "id": "quiet",
                "event": "PreToolUse",
                "tool": "Bash",
                "input": {"command": "rm x"},
                "expect": {"decision": "silent"},
            },
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    results = by_id(report)
    assert code == 1 and not results["blocks"]["ok"] and results["quiet"]["ok"]
    assert results["quiet"]["hooks"][0]["exitCode"] == 2
    assert "async" in results["quiet"]["hooks"][0]["message"]


def test_an_exit_code_expected_when_no_hook_ran_says_so(proctor: Run, tmp_path: Path) -> None:
    source = settings(tmp_path / "s.json", "PreToolUse", "Bash", "true")
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 1
    message = report["results"][0]["message"]
    assert "expected exit code 0, but no hook ran" in message and "None" not in message


def test_bad_hook_source_is_exit_2(proctor: Run, tmp_path: Path) -> None:
    cases = write(
        tmp_path / "cases.json",
        [{"id": "a", "event": "PreToolUse", "tool": "Bash", "expect": {"silent": True}}],
    )
    missing = proctor("hooks", "test", str(tmp_path / "nope"), "--cases", str(cases))
    assert missing.code == 2 and "no such plugin folder or settings file" in missing.err
    bad = write(
        tmp_path / "bad.json", {"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}}
    )
    result = proctor("hooks", "test", str(bad), "--cases", str(cases))
    assert result.code == 2 and "field 'hooks.PreToolUse[0].hooks[0].command'" in result.err


def test_an_unknown_agent_option_names_the_option_not_the_cases_file(proctor: Run) -> None:
    cases = str(EXAMPLE / "cases.json")
    result = proctor(
        "hooks", "test", str(EXAMPLE / "guard-plugin"), "--cases", cases, "--agent", "bogus"
    )
    assert result.code == 2
    assert "--agent bogus: unknown agent 'bogus' (known: claude-code, codex, gemini-cli)" in (
        result.err
    )
    assert "cases.json" not in result.err


@pytest.mark.parametrize(
    ("agent", "said"),
    [
        (
            "acp:gemini",
            "--agent acp:gemini: proctor hooks test covers claude-code, codex, gemini-cli, not "
            "acp:gemini, the ACP agent built on gemini-cli: check gemini-cli",
        ),
        (
            "scripted",
            "--agent scripted: proctor hooks test covers claude-code, codex, gemini-cli, "
            "not scripted",
        ),
    ],
)
def test_an_agent_whose_hooks_are_not_imitated_is_said_so_as_audit_says_it(
    proctor: Run, agent: str, said: str
) -> None:
    cases = str(EXAMPLE / "cases.json")
    result = proctor(
        "hooks", "test", str(EXAMPLE / "guard-plugin"), "--cases", cases, "--agent", agent
    )
    assert result.code == 2 and said in result.err, result.err


def test_a_case_naming_an_acp_agent_is_told_the_agent_it_is_built_on(
    proctor: Run, tmp_path: Path
) -> None:
    data = json.loads((EXAMPLE / "cases.json").read_text())
    data["cases"][0]["agent"] = "acp:claude"
    cases = write(tmp_path / "cases.json", data)
    result = proctor("hooks", "test", str(EXAMPLE / "guard-plugin"), "--cases", str(cases))
    case = data["cases"][0]["id"]
    assert result.code == 2
    assert (
        f"{cases}: case '{case}', field 'agent': proctor hooks test covers claude-code, codex, "
        "gemini-cli, not acp:claude, the ACP agent built on claude-code: name claude-code"
    ) in result.err


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"a": "x", "a/b": "y"}, "'a' is a file, and 'a/b' would need it to be a folder"),
        ({"a/b": "y", "a": "x"}, "'a' is a file, and 'a/b' would need it to be a folder"),
        ({".": "x"}, "names the project folder itself"),
        ({"x\u0000y": "z"}, "must be a relative path inside the project"),
    ],
)
def test_case_files_that_cannot_all_exist_are_one_sentence(
    proctor: Run, tmp_path: Path, files: dict[str, str], said: str
) -> None:
    hooks = settings(tmp_path / "settings.json", "PreToolUse", "Bash", "true")
    case = {"id": "a", "event": "PreToolUse", "tool": "Bash", "input": {"command": "ls"},
            "files": files, "expect": {"silent": True}}  # fmt: skip
    cases = write(tmp_path / "cases.json", [case])
    result = proctor("hooks", "test", str(hooks), "--cases", str(cases))
    assert result.code == 2 and said in result.err and "Traceback" not in result.err


def test_a_hook_timeout_of_nan_is_refused(proctor: Run, tmp_path: Path) -> None:
    hooks = write(
        tmp_path / "settings.json",
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": '
        '[{"type": "command", "command": "true", "timeout": NaN}]}]}}',
    )
    case = {"id": "a", "event": "PreToolUse", "tool": "Bash", "input": {"command": "ls"},
            "expect": {"silent": True}}  # fmt: skip
    result = proctor(
        "hooks", "test", str(hooks), "--cases", str(write(tmp_path / "c.json", [case]))
    )
    assert result.code == 2 and "timeout' must be a positive number" in result.err


PROJECT_CHECK = """#!/bin/bash
# A project's own hook script: records that it ran, then blocks any rm.
echo ran >> "$CLAUDE_PROJECT_DIR/.claude/hooks/ran.log"
if grep -q '"rm ' ; then echo "blocked by the project's check.sh" >&2; exit 2; fi
"""


def tree_state(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("settings_name", ["settings.json", "settings.local.json"])
def test_a_projects_own_settings_find_their_scripts_through_claude_project_dir(
    proctor: Run, tmp_path: Path, settings_name: str
) -> None:
    project = tmp_path / "repo"
    check = write(project / ".claude" / "hooks" / "check.sh", PROJECT_CHECK)
    check.chmod(0o755)
    write(project / ".claude" / "worktrees" / "w1" / "big.txt", "a worktree's checkout")
    source = settings(
        project / ".claude" / settings_name,
        "PreToolUse",
        "Bash",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh',
    )
    case = {"event": "PreToolUse", "tool": "Bash"}
    cases = write(
        tmp_path / "cases.json",
        [
            {**case, "id": "rm", "input": {"command": "rm -rf x"},
             "expect": {"decision": "block", "outputIncludes": "project's check.sh"}},
            {**case, "id": "ls", "input": {"command": "ls"}, "expect": {"silent": True}},
        ],
    )  # fmt: skip
    before = tree_state(project)
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]
    assert tree_state(project) == before  # the hook wrote its log in the scratch copy only
    assert not (project / ".claude" / "hooks" / "ran.log").exists()


CODEX_CHECK = """#!/bin/bash
# A Codex project's hook script, called relative to the project: blocks any rm.
echo ran >> .codex/hooks/ran.log
if grep -q '"rm ' ; then echo "blocked by the project's check.sh" >&2; exit 2; fi
"""


@pytest.mark.parametrize("settings_name", ["hooks.json", "config.toml"])
def test_a_codex_projects_own_hooks_find_their_scripts(
    proctor: Run, tmp_path: Path, settings_name: str
) -> None:
    project = tmp_path / "repo"
    write(project / ".codex" / "hooks" / "check.sh", CODEX_CHECK).chmod(0o755)
    source = project / ".codex" / settings_name
    if settings_name == "config.toml":
        source.write_text(
            '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\n'
            'type = "command"\ncommand = ".codex/hooks/check.sh"\n'
        )
    else:
        settings(source, "PreToolUse", "Bash", ".codex/hooks/check.sh")
    case = {"event": "PreToolUse", "tool": "Bash"}
    cases = write(
        tmp_path / "cases.json",
        [
            {**case, "id": "rm", "input": {"command": "rm -rf x"},
             "expect": {"decision": "block", "outputIncludes": "project's check.sh"}},
            {**case, "id": "ls", "input": {"command": "ls"}, "expect": {"silent": True}},
        ],
    )  # fmt: skip
    before = tree_state(project)
    code, report = run_json(proctor, str(source), "--agent", "codex", "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]
    assert tree_state(project) == before  # the hook wrote its log in the scratch copy only


def test_a_projects_settings_copy_leaves_out_worktrees(proctor: Run, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    write(project / ".claude" / "worktrees" / "w1" / "big.txt", "a worktree's checkout")
    write(project / ".claude" / "hooks" / "note.txt", "beside the settings")
    look = "test -e .claude/hooks/note.txt && ! test -e .claude/worktrees && exit 2; exit 0"
    source = settings(project / ".claude" / "settings.json", "Stop", "", look)
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 2}}])
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]


def test_a_settings_file_outside_a_projects_claude_folder_copies_nothing(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write(tmp_path / "home" / ".claude" / "hooks" / "note.txt", "the user's own")
    user = settings(
        tmp_path / "home" / ".claude" / "settings.json",
        "Stop",
        "",
        "test -e .claude && exit 2; exit 0",
    )
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    code, report = run_json(proctor, str(user), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]


def test_a_project_folder_that_cannot_be_copied_is_one_sentence(
    proctor: Run, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    (project / ".claude" / "hooks").mkdir(parents=True)
    os.mkfifo(project / ".claude" / "hooks" / "pipe")  # not a file a copy can read
    source = settings(project / ".claude" / "settings.json", "Stop", "", "true")
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    result = proctor("hooks", "test", str(source), "--cases", str(cases))
    assert result.code == 2 and "Traceback" not in result.err
    assert "cannot copy this folder into the scratch project" in result.err
    assert str(project / ".claude") in result.err and "named pipe" in result.err
    assert len(result.err.strip().splitlines()) == 1


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user's home of the test's own (``HOME``; no ``CODEX_HOME`` or ``GEMINI_CLI_HOME``
    elsewhere)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    return tmp_path / "home"


USER_CHECK = """#!/bin/sh
echo "ran from $0" >> "$HOME/.claude/hooks/ran.log"
echo "the user's own check.sh refuses" >&2
exit 2
"""


@pytest.mark.parametrize(
    "command",
    [
        "~/.claude/hooks/check.sh",
        '"$HOME"/.claude/hooks/check.sh',
        "${HOME}/.claude/hooks/check.sh",
    ],
)
def test_user_settings_hooks_find_their_scripts_in_a_copy_of_the_home_folder(
    proctor: Run, tmp_path: Path, home: Path, command: str
) -> None:
    write(home / ".claude" / "hooks" / "check.sh", USER_CHECK).chmod(0o755)
    write(home / ".claude" / "projects" / "-w" / "s.jsonl", "a session of the user's\n")
    user = settings(home / ".claude" / "settings.json", "PreToolUse", "Bash", command)
    cases = write(
        tmp_path / "c.json",
        [{"id": "a", "event": "PreToolUse", "tool": "Bash", "input": {"command": "ls"},
          "expect": {"exitCode": 2, "outputIncludes": "user's own check.sh"}}],
    )  # fmt: skip
    before = tree_state(home)
    code, report = run_json(proctor, str(user), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]
    assert report["homeCopies"] == [str(home / ".claude" / "hooks")]
    assert tree_state(home) == before  # the log went into the scratch home's copy
    text = proctor("hooks", "test", str(user), "--cases", str(cases))
    assert f"note: copied into each scratch home for the hooks that name it: {home}" in text.out


def test_user_settings_never_copy_credentials_or_sessions_a_hook_names(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    write(home / ".claude" / ".credentials.json", '{"token": "sk-ant-not-for-copies"}')
    write(home / ".claude" / "projects" / "-w" / "s.jsonl", "{}\n")
    look = (
        "test -e ~/.claude/.credentials.json && exit 2; "
        "test -e ~/.claude/projects/-w/s.jsonl && exit 2; exit 0"
    )
    user = settings(home / ".claude" / "settings.json", "Stop", "", look)
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    code, report = run_json(proctor, str(user), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]
    assert report["homeCopies"] == []
    assert report["homeWithheld"] == [
        str(home / ".claude" / ".credentials.json"),
        str(home / ".claude" / "projects"),
    ]
    text = proctor("hooks", "test", str(user), "--cases", str(cases))
    assert "note: not copied (it holds credentials or session records" in text.out


def test_codex_user_hooks_find_their_scripts_in_a_copy_of_the_home_folder(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    write(home / ".codex" / "hooks" / "check.sh", CODEX_CHECK).chmod(0o755)
    user = settings(home / ".codex" / "hooks.json", "PreToolUse", "Bash", "~/.codex/hooks/check.sh")
    cases = write(
        tmp_path / "c.json",
        [{"id": "rm", "event": "PreToolUse", "tool": "Bash", "input": {"command": "rm -rf x"},
          "expect": {"decision": "block", "outputIncludes": "project's check.sh"}}],
    )  # fmt: skip
    code, report = run_json(proctor, str(user), "--agent", "codex", "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]


def test_user_settings_hooks_naming_dot_entries_copy_no_credentials(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    write(home / ".claude" / ".credentials.json", '{"token": "sk-ant-not-for-copies"}')
    write(home / ".claude" / "hooks" / ".credentials.json", '{"token": "nested"}')
    write(home / ".claude" / "hooks" / "check.sh", "exit 0\n")
    write(home / ".gemini" / ".env", "GEMINI_API_KEY=not-for-copies\n")
    write(home / ".ssh" / "id_rsa", "PRIVATE KEY\n")
    look = (
        "cat ~/.claude/./.credentials.json ~/.claude/../.ssh/id_rsa ~/.claude/../.gemini/.env "
        "~/.claude/hooks/.credentials.json 2>/dev/null; ls -aR ~ >&2; "
        "test -e ~/.claude/hooks/check.sh"
    )
    user = settings(home / ".claude" / "settings.json", "Stop", "", look)
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    result = proctor("hooks", "test", str(user), "--cases", str(cases), "--json")
    assert result.code == 0, result.out
    assert "not-for-copies" not in result.out and "PRIVATE" not in result.out
    assert "nested" not in result.out  # a credentials file inside a copied folder stays out
    report = json.loads(result.out)
    assert report["homeCopies"] == [str(home / ".claude" / "hooks")]
    assert str(home / ".claude") in report["homeWithheld"]  # `.` names the folder itself
    listing = report["results"][0]["hooks"][0]["stderr"]  # what the scratch home held
    assert "check.sh" in listing and "id_rsa" not in listing and ".env" not in listing


def test_gemini_user_settings_never_copy_the_env_file_a_hook_names(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    write(home / ".gemini" / ".env", "GEMINI_API_KEY=not-for-copies\n")
    hook = '. ~/.gemini/.env 2>/dev/null; echo "key=$GEMINI_API_KEY" >&2'
    user = write(
        home / ".gemini" / "settings.json",
        {"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": hook}]}]}},
    )
    cases = write(
        tmp_path / "c.json",
        [{"id": "a", "agent": "gemini-cli", "event": "AfterAgent", "prompt": "hi",
          "expect": {"exitCode": 0}}],
    )  # fmt: skip
    code, report = run_json(proctor, str(user), "--cases", str(cases))
    assert "not-for-copies" not in json.dumps(report)
    assert report["homeWithheld"] == [str(home / ".gemini" / ".env")], code


def test_a_user_hook_naming_its_folder_without_an_entry_gets_a_note(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    write(home / ".claude" / "hooks" / "check.sh", "exit 0\n")
    user = settings(
        home / ".claude" / "settings.json", "Stop", "", "cd ~/.claude && sh hooks/check.sh"
    )
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 1}}])
    text = proctor("hooks", "test", str(user), "--cases", str(cases))
    assert "note: names your agent folder, but nothing of it was copied" in text.out
    assert "cd ~/.claude && sh hooks/check.sh (no entry named)" in text.out


def test_links_in_the_users_folder_never_bring_credentials_or_sessions(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    claude = home / ".claude"
    write(claude / ".credentials.json", '{"token": "sk-ant-SECRET1"}')
    write(claude / "projects" / "p1" / "s.jsonl", '{"session": "RECORD"}\n')
    write(home / ".ssh" / "id_rsa", "PRIVATEKEY\n")
    write(home / "dotfiles" / "shared" / "lib.sh", "echo from the shared lib\n")
    write(claude / "hooks" / "check.sh", ". ~/.claude/hooks/lib/lib.sh\n")
    (claude / "creds").symlink_to(".credentials.json")
    (claude / "proj").symlink_to("projects")
    (claude / "sshlink").symlink_to(home / ".ssh")
    (claude / "loop").symlink_to("loop")
    (claude / "hooks" / "c2").symlink_to(claude / ".credentials.json")
    (claude / "hooks" / "lib").symlink_to("../../dotfiles/shared")  # relative, good
    (claude / "hooks" / "gone").symlink_to("nowhere")
    look = (
        "cat ~/.claude/creds ~/.claude/hooks/c2 ~/.claude/proj/p1/s.jsonl "
        "~/.claude/sshlink/id_rsa ~/.claude/loop 2>/dev/null; sh ~/.claude/hooks/check.sh"
    )
    user = settings(claude / "settings.json", "Stop", "", look)
    cases = write(
        tmp_path / "c.json",
        [{"id": "a", "event": "Stop", "expect": {"outputIncludes": "from the shared lib"}}],
    )
    result = proctor("hooks", "test", str(user), "--cases", str(cases), "--json")
    assert result.code == 0, result.out + result.err
    for secret in ("SECRET1", "RECORD", "PRIVATEKEY"):
        assert secret not in result.out
    report = json.loads(result.out)
    assert report["homeCopies"] == [str(claude / "hooks")]
    assert sorted(report["homeWithheld"]) == [
        str(claude / name) for name in ("creds", "loop", "proj", "sshlink")
    ]


def test_a_projects_relative_link_is_copied_and_a_dangling_one_left_out(
    proctor: Run, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    write(project / "tools" / "lib.sh", 'echo "from the project lib"\n')
    (project / ".claude" / "hooks").mkdir(parents=True)
    (project / ".claude" / "hooks" / "lib").symlink_to("../../tools")
    (project / ".claude" / "hooks" / "gone").symlink_to("nowhere")
    source = settings(
        project / ".claude" / "settings.json", "Stop", "", "sh .claude/hooks/lib/lib.sh"
    )
    cases = write(
        tmp_path / "c.json",
        [{"id": "a", "event": "Stop", "expect": {"outputIncludes": "from the project lib"}}],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    assert code == 0, [r["message"] for r in report["results"]]


REWRITER = """
event = json.load(sys.stdin)
command = event["tool_input"]["command"]
if event.get("hook_event_name") == "BeforeTool":
    print(json.dumps({"hookSpecificOutput": {"tool_input": {"command": command + " --dry-run"}}}))
else:
    out = {"hookEventName": "PreToolUse", "updatedInput": {"command": command + " --dry-run"}}
    print(json.dumps({"hookSpecificOutput": out}))
"""


@pytest.mark.parametrize(
    ("agent", "event", "tool"),
    [("claude-code", "PreToolUse", "Bash"), ("gemini-cli", "BeforeTool", "run_shell_command")],
)
def test_a_hook_that_rewrites_the_tool_s_input_is_seen_and_checked(
    proctor: Run, tmp_path: Path, agent: str, event: str, tool: str
) -> None:
    """The CLI runs the rewritten call: the result shows the rewrite, and `updatedInput` in a
    case's expectations checks it."""
    source = settings(tmp_path / "settings.json", event, tool, script(tmp_path / "r.py", REWRITER))

    def case(case_id: str, expect: dict[str, Any]) -> dict[str, Any]:
        return {"id": case_id, "agent": agent, "event": event, "tool": tool,
                "input": {"command": "make deploy"}, "expect": expect}  # fmt: skip

    cases = write(
        tmp_path / "cases.json",
        [
            case("rewritten", {"updatedInput": {"command": "make deploy --dry-run"}}),
            case("not-so", {"updatedInput": {"command": "make deploy"}}),
        ],
    )
    code, report = run_json(proctor, str(source), "--cases", str(cases))
    results = by_id(report)
    assert results["rewritten"]["ok"], results["rewritten"]
    assert results["rewritten"]["updatedInput"] == {"command": "make deploy --dry-run"}
    assert results["rewritten"]["hooks"][0]["updatedInput"] == {"command": "make deploy --dry-run"}
    assert not results["not-so"]["ok"] and code == 1
    assert "rewritten input's command" in results["not-so"]["message"]


def test_codex_hooks_in_both_files_of_a_folder_get_a_note(
    proctor: Run, tmp_path: Path, home: Path
) -> None:
    """Codex 0.171 loads a folder's hooks.json and config.toml [hooks] both, and warns."""
    user = settings(home / ".codex" / "hooks.json", "Stop", "", "true")
    toml = '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "true"\n'
    other = write(home / ".codex" / "config.toml", toml)
    cases = write(tmp_path / "c.json", [{"id": "a", "event": "Stop", "expect": {"exitCode": 0}}])
    result = proctor("hooks", "test", str(user), "--agent", "codex", "--cases", str(cases))
    assert result.code == 0, result.out
    assert (
        f"note: Codex also loads the hooks of {other}, not tested here, and warns: "
        '"loading hooks from both …; prefer a single representation for this layer"'
    ) in result.out
    _, report = run_json(proctor, str(user), "--agent", "codex", "--cases", str(cases))
    assert report["loadedWith"] == str(other)
