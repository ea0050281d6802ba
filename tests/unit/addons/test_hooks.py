"""The pieces of `proctor hooks test`: reading results as each CLI does, matchers, hook sources,
and the checks of expectations (each with an input that must make it fail)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import proctor.addons.hooks as hooks_pkg
from proctor.addons.hooks.cases import Expect, HookCase
from proctor.addons.hooks.inputs import Session, hook_input, hook_matches, matcher_notes
from proctor.addons.hooks.results import HookRunResult
from proctor.addons.hooks.sources import HookSpec, load_hooks
from proctor.addons.hooks.suite import judge
from proctor.addons.hooks.verdict import check, read_result, strongest
from proctor.errors import ConfigError

PRE = {"hookEventName": "PreToolUse"}
CONTEXT = json.dumps({"hookSpecificOutput": {**PRE, "additionalContext": "slow down"}})
DENY = json.dumps(
    {"hookSpecificOutput": {**PRE, "permissionDecision": "deny", "permissionDecisionReason": "no"}}
)
UNNAMED_DENY = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
OTHER_EVENT_DENY = json.dumps(
    {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}}
)


def test_public_names() -> None:
    assert set(hooks_pkg.__all__) == {
        "DECISIONS", "CaseResult", "Expect", "HistoryEntry", "HookCase", "HookRunResult",
        "HookSource", "HookSpec", "HooksReport", "load_cases", "load_hooks", "run_hook_tests",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "event", "code", "stdout", "stderr", "decision"),
    [
        ("claude-code", "PreToolUse", 0, "", "", "silent"),
        ("claude-code", "PreToolUse", 0, CONTEXT, "", "nudge"),
        ("claude-code", "PreToolUse", 0, DENY, "", "deny"),
        (
            "claude-code",
            "PreToolUse",
            0,
            '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}',
            "",
            "ask",
        ),
        # Claude Code refuses an output that names no event or another one, or a decision it
        # does not know: the hook's error, and the tool runs (Codex reads the first as is).
        ("claude-code", "PreToolUse", 0, UNNAMED_DENY, "", "error"),
        ("codex", "PreToolUse", 0, UNNAMED_DENY, "", "deny"),
        ("claude-code", "PreToolUse", 0, OTHER_EVENT_DENY, "", "error"),
        ("claude-code", "PreToolUse", 0, '{"decision": "deny"}', "", "error"),
        (
            "claude-code",
            "PreToolUse",
            0,
            json.dumps({"hookSpecificOutput": {**PRE, "permissionDecision": "maybe"}}),
            "",
            "error",
        ),
        ("claude-code", "PreToolUse", 0, '{"decision": "block", "reason": "x"}', "", "deny"),
        ("claude-code", "PostToolUse", 0, '{"decision": "block", "reason": "x"}', "", "block"),
        ("claude-code", "Stop", 0, '{"continue": false, "stopReason": "done"}', "", "block"),
        ("claude-code", "PreToolUse", 0, '{"systemMessage": "hi"}', "", "nudge"),
        ("claude-code", "PreToolUse", 0, "plain text", "", "silent"),
        ("claude-code", "UserPromptSubmit", 0, "plain text", "", "nudge"),
        ("claude-code", "PreToolUse", 2, DENY, "stop", "block"),
        ("claude-code", "PreToolUse", 1, "", "oops", "error"),
        ("codex", "PreToolUse", 0, DENY, "", "deny"),
        (
            "codex",
            "PreToolUse",
            0,
            '{"hookSpecificOutput": {"permissionDecision": "allow"}}',
            "",
            "error",
        ),
        ("gemini-cli", "BeforeTool", 0, '{"decision": "deny", "reason": "no"}', "", "deny"),
        ("gemini-cli", "BeforeTool", 0, '{"decision": "block", "reason": "no"}', "", "deny"),
        ("gemini-cli", "AfterAgent", 0, '{"decision": "deny", "reason": "retry"}', "", "block"),
        ("gemini-cli", "BeforeTool", 0, '{"decision": "allow"}', "", "allow"),
        ("gemini-cli", "BeforeTool", 0, CONTEXT, "", "silent"),  # Gemini drops it here
        ("gemini-cli", "AfterTool", 0, CONTEXT, "", "nudge"),
        ("gemini-cli", "BeforeTool", 0, "plain text", "", "nudge"),
        ("gemini-cli", "BeforeTool", 1, "", "warn", "error"),
        ("gemini-cli", "BeforeTool", 2, "", "blocked", "block"),
        ("gemini-cli", "BeforeTool", 2, "", "", "error"),
        # Claude Code 2.1.197, as its trials showed: an output of the wrong types is its
        # hook's error (the tool runs); a JSON string is plain text; a blocking decision
        # stands over a later allow; continue:false on PreToolUse runs the tool, then stops.
        (
            "claude-code",
            "PreToolUse",
            0,
            json.dumps(
                {
                    "hookSpecificOutput": {
                        **PRE,
                        "permissionDecision": "deny",
                        "permissionDecisionReason": 123,
                    }
                }
            ),
            "",
            "error",
        ),
        ("claude-code", "PreToolUse", 0, DENY[:-1] + ', "continue": "false"}', "", "error"),
        ("claude-code", "PreToolUse", 0, json.dumps(DENY), "", "silent"),
        (
            "claude-code",
            "PreToolUse",
            0,
            json.dumps(
                {
                    "decision": "block",
                    "reason": "top",
                    "hookSpecificOutput": {**PRE, "permissionDecision": "allow"},
                }
            ),
            "",
            "deny",
        ),
        ("claude-code", "PreToolUse", 0, '{"continue": false, "stopReason": "s"}', "", "stop"),
        # Gemini CLI 0.61: JSON that is no object is dropped (the tool runs), whatever the code.
        ("gemini-cli", "BeforeTool", 2, "[]", "", "silent"),
        ("gemini-cli", "BeforeTool", 0, "5", "", "silent"),
        ("gemini-cli", "BeforeTool", 0, json.dumps(json.dumps({"decision": "deny"})), "", "deny"),
        # Claude Code 2.1.197 ignores a blocking result on SessionStart (a session with such a
        # hook went on and ran its tools): exit 2 is the hook's error, shown to the user only;
        # decision:block and continue:false are dropped, the rest of the output kept.
        ("claude-code", "SessionStart", 2, "", "not here", "error"),
        ("claude-code", "SubagentStart", 2, "", "not here", "error"),
        ("claude-code", "SessionStart", 0, '{"decision": "block", "reason": "x"}', "", "silent"),
        ("claude-code", "SessionStart", 0, '{"continue": false, "stopReason": "s"}', "", "silent"),
        (
            "claude-code",
            "SessionStart",
            0,
            '{"continue": false, "systemMessage": "hello"}',
            "",
            "nudge",
        ),
        ("claude-code", "SessionStart", 0, "plain text", "", "nudge"),
        ("codex", "SessionStart", 2, "", "stop", "block"),
        ("claude-code", "Stop", 2, "", "keep going", "block"),
    ],
)
def test_results_read_as_the_cli_reads_them(
    agent: str, event: str, code: int, stdout: str, stderr: str, decision: str
) -> None:
    assert read_result(agent, event, code, stdout, stderr).decision == decision


def test_strongest_decision_wins() -> None:
    assert strongest(["silent", "nudge", "deny", "error"]) == "deny"
    assert strongest(["silent", "error"]) == "error"
    assert strongest([]) == "silent"


def test_checks_pass_and_fail_on_the_same_result() -> None:
    expect = Expect(decision="nudge", exit_code=0, output_includes=["big"], output_matches=r"\d+ b")
    assert check(expect, "nudge", 0, "file is big: 600 bytes") == []
    problems = check(expect, "silent", 1, "")
    assert len(problems) == 4
    assert check(Expect(silent=True), "silent", 0, "") == []
    assert check(Expect(silent=True), "nudge", 0, "") == ["expected silent, got nudge"]
    assert check(Expect(silent=False), "silent", 0, "") == ["expected not silent, got silent"]


def case(**fields: object) -> HookCase:
    data = {"id": "c", "agent": "claude-code", "event": "PreToolUse", "expect": {"silent": True}}
    return HookCase.model_validate({**data, **fields})


def spec(event: str, matcher: str) -> HookSpec:
    return HookSpec(event, matcher, "true", None, "settings", None)


@pytest.mark.parametrize(
    ("agent", "matcher", "tool", "matches"),
    [
        ("claude-code", "", "Read", True),
        ("claude-code", "*", "Read", True),
        ("claude-code", "Read|Bash", "Bash", True),
        ("claude-code", "Read|Bash", "ReadX", False),  # plain names match exactly
        ("claude-code", "Rea", "Read", False),
        ("claude-code", "mcp__.*", "mcp__mem__find", True),  # anything else is a regex
        ("claude-code", "Bash, Write", "Write", True),  # a list, as Claude Code 2.1.197 reads it
        ("claude-code", "Bash,Write", "Bash", True),
        ("claude-code", "Bash, Write", "Edit", False),
        # A tool named as Claude Code 2.1.197 once named it is the tool: `Task` is `Agent`,
        # `BashOutput` is `TaskOutput`; a regex matches a tool through its earlier names.
        ("claude-code", "Task", "Agent", True),
        ("claude-code", "Read|Task", "Agent", True),
        ("claude-code", "Write, KillShell", "TaskStop", True),
        ("claude-code", "Task", "TaskOutput", False),
        ("claude-code", "^Task$", "Agent", True),
        ("claude-code", "^Bash", "TaskOutput", True),
        ("claude-code", "^Bash", "Agent", False),
        ("claude-code", "Agent", "Task", False),  # the CLI sends the tool's name now
        ("codex", "Task", "Agent", False),  # Codex knows no such names
        ("gemini-cli", "read_", "read_file", True),  # Gemini: always a regex search
        ("gemini-cli", "run_shell_command", "read_file", False),
    ],
)
def test_matchers_follow_each_cli(agent: str, matcher: str, tool: str, matches: bool) -> None:
    event = "BeforeTool" if agent == "gemini-cli" else "PreToolUse"
    assert (
        hook_matches(agent, spec(event, matcher), case(agent=agent, event=event, tool=tool))
        is matches
    )
    assert not hook_matches(
        agent, spec("PostToolUse", ""), case(agent=agent, event=event, tool=tool)
    )


def test_session_start_matches_on_source() -> None:
    started = case(event="SessionStart", source="resume")
    assert hook_matches("claude-code", spec("SessionStart", "startup|resume"), started)
    assert not hook_matches("claude-code", spec("SessionStart", "clear"), started)


def test_inputs_per_cli(tmp_path: Path) -> None:
    session = Session("abcdef12-0000", tmp_path / "p", tmp_path / "h", tmp_path / "t.jsonl")
    read = case(tool="Read", input={"file_path": "a.txt", "limit": 5})
    claude = hook_input("claude-code", read, session)
    assert claude["tool_input"] == {"file_path": str(tmp_path / "p" / "a.txt"), "limit": 5}
    assert claude["permission_mode"] == "default" and "timestamp" not in claude
    codex = hook_input("codex", read, session)
    assert {"model", "turn_id"} <= set(codex)
    gem_case = case(
        agent="gemini-cli", event="AfterTool", tool="read_file", input={"file_path": "a"}
    )
    gemini = hook_input("gemini-cli", gem_case, session)
    assert gemini["tool_input"] == {"file_path": "a"} and "timestamp" in gemini
    assert gemini["tool_response"] == {"llmContent": "", "returnDisplay": ""}
    assert "permission_mode" not in gemini


def test_gemini_extension_paths_are_substituted(tmp_path: Path) -> None:
    ext = tmp_path / "ext"
    (ext / "hooks").mkdir(parents=True)
    (ext / "gemini-extension.json").write_text('{"name": "x", "version": "1"}')
    handler = {
        "type": "command",
        "command": "python3 ${extensionPath}${/}hooks${/}g.py",
        "timeout": 500,
    }
    (ext / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"BeforeTool": [{"matcher": "read_file", "hooks": [handler]}]}})
    )
    source = load_hooks(ext)
    assert source.kind == "gemini-extension"
    assert source.hooks[0].command == f"python3 {ext.resolve()}/hooks/g.py"
    assert source.hooks[0].timeout == 500


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        ('{"name": "x"}', 'gemini-extension.json has no "version"; Gemini CLI skips the extension'),
        ('{"version": "1"}', 'gemini-extension.json has no "name"'),
        ('{"name": "my_ext", "version": "1"}', "name is not letters, digits and dashes"),
        ("[]", "expected a JSON object; Gemini CLI skips the extension"),
        ('{"name": "x", "version": "1",}', "no trailing comma"),
    ],
)
def test_gemini_extension_the_cli_skips_is_refused(
    tmp_path: Path, manifest: str, said: str
) -> None:
    """Gemini CLI 0.61 (loadExtensionConfig, validateName) loads no part of such an
    extension, its hooks included: a hook test of it is a configuration error, not a pass."""
    ext = tmp_path / "ext"
    (ext / "hooks").mkdir(parents=True)
    (ext / "gemini-extension.json").write_text(manifest)
    handler = {"type": "command", "command": "echo hi"}
    (ext / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"BeforeTool": [{"matcher": "", "hooks": [handler]}]}})
    )
    with pytest.raises(ConfigError, match=re.escape(said)):
        load_hooks(ext)


def test_codex_config_toml_and_skipped_handlers(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "Bash"\n'
        '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "echo hi"\ntimeout = 5\n'
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "prompt"\nprompt = "check"\n'
    )
    source = load_hooks(config)
    assert [(h.event, h.matcher, h.command) for h in source.hooks] == [
        ("PreToolUse", "Bash", "echo hi")
    ]
    assert source.skipped == ("Stop: prompt",)
    config.write_text("[hooks\n")
    with pytest.raises(ConfigError, match="not a readable TOML file"):
        load_hooks(config)
    config.write_bytes(b"\xff\xfe{}")  # not UTF-8: a sentence too, not a traceback
    with pytest.raises(ConfigError, match="not a readable TOML file"):
        load_hooks(config)


@pytest.mark.parametrize(
    ("switch", "said"),
    [
        ({"disableAllHooks": True}, "disableAllHooks is true"),
        ({"hooksConfig": {"enabled": False}}, "hooksConfig.enabled is false"),
    ],
)
def test_hooks_a_cli_has_switched_off_are_not_run(
    tmp_path: Path, switch: dict[str, object], said: str
) -> None:
    hook = {"type": "command", "command": "echo no >&2; exit 2"}
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({**switch, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    source = load_hooks(settings)
    assert source.hooks == ()
    assert source.skipped == (f"PreToolUse: echo no >&2; exit 2 (switched off: {said})",)
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    )
    assert len(load_hooks(settings).hooks) == 1  # control: switched on, it runs


@pytest.mark.parametrize("named_by", ["guard", "guard.sh"])
def test_a_gemini_hook_hooks_config_disabled_names_is_not_run(
    tmp_path: Path, named_by: str
) -> None:
    # Gemini CLI names a hook by its name, else by its command.
    named = {"type": "command", "name": "guard", "command": "guard.sh"}
    other = {"type": "command", "command": "other.sh"}
    settings = tmp_path / "settings.json"
    table = {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [named, other]}]}
    settings.write_text(json.dumps({"hooksConfig": {"disabled": [named_by]}, "hooks": table}))
    source = load_hooks(settings)
    if named_by == "guard":
        assert [h.command for h in source.hooks] == ["other.sh"]
        assert source.skipped == ("BeforeTool: guard.sh (disabled: hooksConfig.disabled)",)
    else:  # a named hook is not disabled by its command: both run
        assert [h.command for h in source.hooks] == ["guard.sh", "other.sh"]


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "matches"),
    [
        ("Bash", "Bash", {"command": "ls"}, True),
        ("Read", "Bash", {"command": "ls"}, False),
        ("Bash(npm run test)", "Bash", {"command": "npm run test"}, True),
        ("Bash(npm run test)", "Bash", {"command": "npm run test:unit"}, False),
        ("Bash(npm run test:*)", "Bash", {"command": "npm run test:unit"}, True),
        ("Bash(git push *)", "Bash", {"command": "echo hi; git push -f"}, True),
        ("Bash(git * main)", "Bash", {"command": "git push origin main"}, True),
        ("Edit(*.py)", "Edit", {"file_path": "src/deep/a.py"}, True),
        ("Edit(*.py)", "Edit", {"file_path": "src/a.pyc"}, False),
        ("Edit(src/*.py)", "Edit", {"file_path": "src/deep/a.py"}, False),
        ("Edit(src/**)", "Edit", {"file_path": "/p/src/deep/a.py"}, True),
        ("Read(//etc/*)", "Read", {"file_path": "/etc/passwd"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/x"}, True),
        ("mcp__mem__*", "mcp__mem__find", {"q": "x"}, True),
    ],
)
def test_if_conditions_follow_permission_rules(
    rule: str, tool: str, tool_input: dict[str, str], matches: bool
) -> None:
    hook = HookSpec("PreToolUse", "", "true", None, "settings", None, rule)
    planted = case(event="PreToolUse", tool=tool, input=tool_input)
    assert hook_matches("claude-code", hook, planted, Path("/p")) is matches
    # Codex and Gemini CLI have no ``if``; a handler with one runs on every call.
    assert hook_matches("codex", hook, case(agent="codex", event="PreToolUse", tool=tool))


def test_if_on_an_event_without_a_tool_never_runs() -> None:
    hook = HookSpec("Stop", "", "true", None, "settings", None, "Bash")
    assert not hook_matches("claude-code", hook, case(event="Stop"))
    assert hook_matches("claude-code", spec("Stop", ""), case(event="Stop"))


def test_hook_output_too_deep_or_too_long_to_parse_is_not_json() -> None:
    deep = read_result("claude-code", "PreToolUse", 0, "{" + '"a":[' * 100_000, "")
    assert deep.decision == "silent"
    huge = '{"decision": "block", "n": ' + "1" * 5000 + "}"
    assert read_result("claude-code", "Stop", 0, huge, "").decision == "silent"


def test_a_handler_without_a_type_is_an_error_not_a_hook(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    group = {"matcher": "Bash", "hooks": [{"command": "exit 2"}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    with pytest.raises(ConfigError, match=r"hooks\.PreToolUse\[0\]\.hooks\[0\]\.type' is missing"):
        load_hooks(settings)
    gemini = tmp_path / ".gemini" / "settings.json"  # not Claude Code's: its own words
    gemini.parent.mkdir()
    gemini.write_text(json.dumps({"hooks": {"BeforeTool": [group]}}))
    with pytest.raises(ConfigError, match=r"hooks\.BeforeTool\[0\]\.hooks\[0\]' has no 'type'"):
        load_hooks(gemini)
    group["hooks"] = [{"type": "command", "command": "exit 2"}]
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    assert len(load_hooks(settings).hooks) == 1  # control: with its type, it runs


@pytest.mark.parametrize(
    ("group", "said"),
    [
        (
            None,
            "field 'hooks.PreToolUse[0]' must be a matcher group (an object with 'hooks'), got null",
        ),
        (
            "guard.sh",
            "field 'hooks.PreToolUse[0]' must be a matcher group (an object with 'hooks'), "
            'got the string "guard.sh"',
        ),
        (
            {"matcher": "Bash"},
            "field 'hooks.PreToolUse[0].hooks' is missing (the group's list of hook handlers)",
        ),
    ],
)
def test_a_matcher_group_of_the_wrong_shape_is_named_as_itself(
    tmp_path: Path, group: object, said: str
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    with pytest.raises(ConfigError) as caught:
        load_hooks(settings)
    skips = "Claude Code skips this whole settings file, so none of its hooks runs"
    assert str(caught.value) == f"{settings}: {said}; {skips}"


@pytest.mark.parametrize("form", ["object", "path", "paths"])
def test_hooks_a_plugins_manifest_declares_run_besides_hooks_json(
    tmp_path: Path, form: str
) -> None:
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / "hooks").mkdir()
    table = {"SessionStart": [{"hooks": [{"type": "command", "command": "echo extra"}]}]}
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo d"}]}]}})
    )
    (plugin / "extra.json").write_text(json.dumps({"hooks": table}))
    declared = {"object": table, "path": "./extra.json", "paths": ["./extra.json"]}[form]
    manifest = plugin / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "p", "hooks": declared}))
    source = load_hooks(plugin)
    assert sorted(h.command for h in source.hooks) == ["echo d", "echo extra"]
    (plugin / "hooks" / "hooks.json").unlink()
    assert [h.command for h in load_hooks(plugin).hooks] == ["echo extra"]
    manifest.write_text(json.dumps({"name": "p", "hooks": ["./missing.json"]}))
    with pytest.raises(ConfigError, match=r"field 'hooks' names \./missing\.json"):
        load_hooks(plugin)
    manifest.write_text(json.dumps({"name": "p"}))
    with pytest.raises(ConfigError, match="no hooks/hooks.json and no 'hooks'"):
        load_hooks(plugin)


@pytest.mark.parametrize(
    ("rel", "copied"),
    [
        ("repo/.claude/settings.json", "repo/.claude"),
        ("repo/.claude/settings.local.json", "repo/.claude"),
        ("repo/.gemini/settings.json", "repo/.gemini"),
        ("repo/.gemini/settings.local.json", None),
        ("repo/.codex/hooks.json", "repo/.codex"),
        ("repo/.codex/config.toml", "repo/.codex"),
        ("repo/.codex/settings.json", None),
        ("home/.codex/hooks.json", None),
        ("repo/settings.json", None),
        ("home/.claude/settings.json", None),
    ],
)
def test_a_projects_own_settings_name_the_folder_each_case_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rel: str, copied: str | None
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text("[hooks]\n" if path.suffix == ".toml" else '{"hooks": {}}', encoding="utf-8")
    expected = tmp_path / copied if copied else None
    assert load_hooks(path).config_folder == expected


def test_a_folder_that_is_no_plugin_nor_extension_says_so_and_names_its_settings(
    tmp_path: Path,
) -> None:
    project = tmp_path / "my project"
    (project / ".claude").mkdir(parents=True)
    with pytest.raises(ConfigError) as caught:
        load_hooks(project)
    assert str(caught.value) == (
        f"{project}: not a Claude Code plugin (no hooks/hooks.json, no .claude-plugin/"
        "plugin.json) nor a Gemini CLI extension (no gemini-extension.json); expected one of "
        "those folders or a settings file"
    )
    (project / ".claude" / "settings.json").write_text('{"hooks": {}}')
    with pytest.raises(ConfigError, match="give the file: .*/my project/.claude/settings.json$"):
        load_hooks(project)
    with pytest.raises(ConfigError, match=r"give the file: .*/\.claude/settings\.json$"):
        load_hooks(project / ".claude")


def _ran(stdout: str = "", stderr: str = "", message: str = "") -> HookRunResult:
    return HookRunResult(
        command="./h.sh",
        exit_code=0,
        decision="silent",
        message=message,
        stdout=stdout,
        stderr=stderr,
        duration_ms=1,
    )


def test_a_case_whose_hook_printed_what_is_no_message_shows_what_it_printed() -> None:
    """A hook that printed text the agent does not read as a message (JSON it cannot read, say)
    is not said to have had no output: the case's line shows what it printed."""
    case = HookCase(id="c", agent="claude-code", event="Stop", expect=Expect(decision="silent"))
    printed = judge(case, [_ran(stdout='{"decision": oops}')])
    assert printed.ok
    assert printed.message == 'no message (it printed: {"decision": oops})'
    assert judge(case, [_ran(stderr="warming up\n")]).message == (
        "no message (it printed: warming up)"
    )
    assert judge(case, [_ran(stdout="  \n")]).message == "no output"
    assert judge(case, [_ran(message="Saved.")]).message == "Saved."


def test_a_failed_case_says_what_its_hook_said_a_traceback_by_its_last_line() -> None:
    """A case that failed because its hook errored says why (the exception that broke it, what
    it printed), not only "expected silent, got error": no --json is needed to see the cause."""
    case = HookCase(id="c", agent="claude-code", event="Stop", expect=Expect(decision="silent"))
    traceback = "Traceback (most recent call last):\n  File \"h.py\", line 3\nKeyError: 'x'\n"
    crashed = HookRunResult(
        command="./h.py",
        exit_code=1,
        decision="error",
        message=traceback,
        stdout="",
        stderr=traceback,
        duration_ms=1,
    )
    result = judge(case, [crashed])
    assert not result.ok
    assert result.message == "expected decision silent, got error (the hook said: KeyError: 'x')"
    printed = judge(case, [_ran(stdout="hello")])  # silent, as expected: nothing to add
    assert printed.ok and printed.message == "no message (it printed: hello)"
    expect_deny = HookCase(
        id="d", agent="claude-code", event="Stop", expect=Expect(decision="deny")
    )
    assert judge(expect_deny, [_ran(stderr="warming up\n")]).message == (
        "expected decision deny, got silent (it printed: warming up)"
    )
    assert judge(expect_deny, [_ran()]).message == "expected decision deny, got silent"


def test_no_hook_matched_names_a_misspelt_event_and_a_matcher_in_another_case() -> None:
    """Codex fires no 'PretoolUse' and compares 'bash' with the tool 'Bash' as it is: the case
    that found no hook says which hook was likely meant and why it never runs."""
    case = HookCase(
        id="c", agent="codex", event="PreToolUse", tool="Bash", expect=Expect(decision="deny")
    )

    def spec(event: str, matcher: str) -> HookSpec:
        return HookSpec(event, matcher, "guard.sh", None, "settings", None)

    assert matcher_notes("codex", [spec("PretoolUse", "Bash")], case) == [
        "the hook 'guard.sh' is under 'PretoolUse', which is not an event Codex fires "
        "(did you mean 'PreToolUse'?)"
    ]
    assert matcher_notes("codex", [spec("PreToolUse", "bash|Read")], case) == [
        "the matcher 'bash|Read' of 'guard.sh' writes 'Bash' as 'bash': Codex matches tool "
        "names case-sensitively"
    ]
    assert matcher_notes("codex", [spec("Stop", ""), spec("PreToolUse", "Read")], case) == []


def test_a_codex_project_s_hooks_say_when_codex_would_not_trust_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex 0.171 loads a project's .codex/hooks.json only in a folder the user's config.toml
    trusts (its own entry, else its repository root's), as ``proctor audit`` reads it."""
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # a repository to Codex
    file = repo / "sub" / ".codex" / "hooks.json"
    file.parent.mkdir(parents=True)
    handler = {"type": "command", "command": "true"}
    file.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}))
    config = codex_home / "config.toml"
    assert load_hooks(file).not_loaded == (
        f'project not trusted: no [projects."{repo / "sub"}"] trust_level in {config}'
    )
    config.write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    assert load_hooks(file).not_loaded is None
    config.write_text(f'[projects."{repo}"]\ntrust_level = "untrusted"\n')
    assert load_hooks(file).not_loaded == (
        f'project not trusted: [projects."{repo}"] trust_level = "untrusted" in {config}'
    )
    config.write_text("[projects\n")  # Codex refuses to start: not "no trust_level"
    said = load_hooks(file).not_loaded
    assert said is not None and said.startswith(f"{config}: not a readable TOML file (")
    assert said.endswith("; Codex does not start with it")
    claude = repo / ".claude" / "settings.json"  # no trust to ask of Claude Code here
    claude.parent.mkdir()
    claude.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}))
    assert load_hooks(claude).not_loaded is None


def test_a_codex_project_under_an_empty_git_folder_goes_by_its_own_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty ``.git`` folder is no repository to Codex 0.171's trust (the audit's
    ``is_repository``): the root's entry does not cover the folder below it."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    file = repo / "sub" / ".codex" / "hooks.json"
    file.parent.mkdir(parents=True)
    file.write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}})
    )
    config = tmp_path / "codex-home" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    assert load_hooks(file).not_loaded == (
        f'project not trusted: no [projects."{repo / "sub"}"] trust_level in {config}'
    )
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert load_hooks(file).not_loaded is None


def test_a_codex_hooks_file_names_the_other_file_of_its_folder_that_also_declares_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex 0.171 loads a folder's hooks.json and config.toml [hooks] both (and warns)."""
    folder = tmp_path / "home" / ".codex"
    folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    handler = {"type": "command", "command": "x"}
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [{"hooks": [handler]}]}}))
    assert load_hooks(folder / "hooks.json").loaded_with is None
    (folder / "config.toml").write_text(
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "y"\n'
    )
    assert load_hooks(folder / "hooks.json").loaded_with == folder / "config.toml"
    assert load_hooks(folder / "config.toml").loaded_with == folder / "hooks.json"
    (folder / "hooks.json").write_text(json.dumps({"hooks": {"Stop": []}}))
    assert load_hooks(folder / "config.toml").loaded_with is None


def _load_one(tmp_path: Path, **fields: object) -> HookCase:
    from proctor.addons.hooks import load_cases

    case = {"id": "c", "event": "PreToolUse", "tool": "Read", "expect": {"silent": True}}
    path = tmp_path / "cases.json"
    path.write_text(json.dumps([{**case, **fields}]))
    (loaded,) = load_cases(path)
    return loaded


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"d/": "x"}, "field 'files': 'd/' names a folder, not a file"),
        ({"d/e/": 3}, "field 'files': 'd/e/' names a folder, not a file"),
        ({"d/.": "x"}, "field 'files': 'd/.' names a folder, not a file"),
        ({"a": "x", "./a": "y"}, "field 'files': 'a' and './a' name the same file"),
        ({"": "x"}, "field 'files': '' must be a relative path inside the project"),
        ({"/etc/x": "x"}, "field 'files': '/etc/x' must be a relative path inside the project"),
        (
            {"a/../../x": "x"},
            "field 'files': 'a/../../x' must be a relative path inside the project",
        ),
    ],
)
def test_a_planted_file_must_be_named_by_a_plain_relative_path(
    tmp_path: Path, files: dict[str, object], said: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load_one(tmp_path, files=files)
    assert f"cases.json: case 'c', {said}" in str(caught.value)


def test_planted_files_in_folders_are_still_taken(tmp_path: Path) -> None:
    assert _load_one(tmp_path, files={"./d/a.txt": "x", "d/b": 5}).files == {
        "./d/a.txt": "x", "d/b": 5,
    }  # fmt: skip


@pytest.mark.parametrize("code", [99999999999999999999, 256, -65, -99999999999999999999])
def test_an_expected_exit_code_no_hook_can_have_is_refused(tmp_path: Path, code: int) -> None:
    with pytest.raises(ConfigError) as caught:
        _load_one(tmp_path, expect={"exitCode": code})
    assert (
        f"case 'c', field 'expect.exitCode': an exit code is between 0 and 255 (or -1 to -64 "
        f"for a hook killed by that signal, -9 for SIGKILL), got {code}"
    ) in str(caught.value)


@pytest.mark.parametrize("code", [0, 2, 255, -9, -64])
def test_an_exit_code_a_hook_can_have_is_taken(tmp_path: Path, code: int) -> None:
    assert _load_one(tmp_path, expect={"exitCode": code}).expect.exit_code == code


@pytest.mark.parametrize("code", [256, -1, 99999999999999999999])
def test_an_earlier_commands_exit_code_no_process_can_have_is_refused(
    tmp_path: Path, code: int
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load_one(tmp_path, history=[{"command": "ls", "exitCode": code}])
    assert (
        f"case 'c', field 'history[0].exitCode': an exit code is between 0 and 255, got {code}"
    ) in str(caught.value)


@pytest.mark.parametrize("matcher", [0, False, [], {}, 5])
def test_a_gemini_cli_matcher_that_is_no_string_is_refused_falsy_too(
    tmp_path: Path, matcher: object
) -> None:
    """Outside Claude Code's files: a matcher that is not a string is refused, ``0`` and
    ``false`` as ``5`` is (they read as no matcher, every tool, before)."""
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    handler = {"type": "command", "command": "echo g"}
    group = {"matcher": matcher, "hooks": [handler]}
    settings.write_text(json.dumps({"hooks": {"BeforeTool": [group]}}))
    with pytest.raises(ConfigError) as caught:
        load_hooks(settings)
    assert "field 'hooks.BeforeTool[0].matcher' must be a string" in str(caught.value)
    # Control: null reads as none, a matcher and a timeout alike.
    group = {"matcher": None, "hooks": [{**handler, "timeout": None}]}
    settings.write_text(json.dumps({"hooks": {"BeforeTool": [group]}}))
    (hook,) = load_hooks(settings).hooks
    assert (hook.matcher, hook.timeout) == ("", None)


def test_an_mcp_tool_hook_s_names_are_shown_on_one_line(tmp_path: Path) -> None:
    """A line break or a control character in an ``mcp_tool`` handler's server or tool name is
    escaped in the note ``hooks test`` prints, as the audit shows it: it never starts a line
    of its own."""
    handler = {"type": "mcp_tool", "server": "gu\nard", "tool": "ch\x1b[2Keck"}
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [handler]}]}}))
    (skipped,) = load_hooks(path).skipped
    assert skipped == "PreToolUse: mcp_tool (calls MCP tool 'ch\\x1b[2Keck' of server 'gu\\nard')"


def test_a_gemini_cli_settings_file_with_comments_is_read_as_gemini_cli_reads_it(
    tmp_path: Path,
) -> None:
    """Gemini CLI strips ``//`` and ``/* */`` comments from its ``settings.json`` and runs its
    hooks (as the audit reads it); a Claude Code settings file keeps to JSON, as
    ``JSON.parse`` does."""
    text = (
        '{\n  // guard the shell\n  "hooks": {"BeforeTool": [{"matcher": "run_shell_command", '
        '/* every call */ "hooks": [{"type": "command", "command": "echo //not-a-comment"}]}]}\n}\n'
    )
    settings = tmp_path / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    (hook,) = load_hooks(settings).hooks
    assert (hook.event, hook.matcher, hook.command) == (
        "BeforeTool",
        "run_shell_command",
        "echo //not-a-comment",
    )
    claude = tmp_path / ".claude/settings.json"
    claude.parent.mkdir()
    claude.write_text(text)
    with pytest.raises(ConfigError, match="line 2"):
        load_hooks(claude)


def _plugin_with_hooks(tmp_path: Path) -> Path:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / ".claude-plugin").mkdir()
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo d"}]}]}})
    )
    return plugin


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("folder", "a folder, where a file belongs"),
        ("loop", "a symbolic link that loops back on itself"),
        ("not json", "not valid JSON (line 1: Expecting property name enclosed in double quotes)"),
    ],
)
def test_a_plugin_whose_manifest_claude_code_cannot_read_runs_no_hook(
    tmp_path: Path, kind: str, why: str
) -> None:
    """Claude Code skips the whole plugin, its hooks/hooks.json too, when its manifest is a
    folder, a link in a loop or no JSON (as the audit reads it): the test runs none."""
    plugin = _plugin_with_hooks(tmp_path)
    manifest = plugin / ".claude-plugin" / "plugin.json"
    if kind == "folder":
        manifest.mkdir()
    elif kind == "loop":
        manifest.symlink_to("plugin.json")
    else:
        manifest.write_text('{"name": "p",}')
    with pytest.raises(ConfigError) as caught:
        load_hooks(plugin)
    assert str(caught.value).startswith(f"{manifest}: {why}; Claude Code skips this whole plugin")


def test_a_manifest_s_hooks_path_out_of_the_plugin_is_not_run(tmp_path: Path) -> None:
    """Claude Code loads no hooks file a manifest names out of the plugin's folder ("Path
    escapes plugin directory"): the test runs the plugin's other hooks and notes it; with no
    other hooks, it says why none runs. A file named twice runs once."""
    plugin = _plugin_with_hooks(tmp_path)
    outside = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo out"}]}]}}
    (tmp_path / "out.json").write_text(json.dumps(outside))
    (plugin / "extra.json").write_text(json.dumps(outside | {"description": "x"}))
    manifest = plugin / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "p", "hooks": ["./../out.json", "./extra.json"] * 2}))
    source = load_hooks(plugin)
    assert sorted(h.command for h in source.hooks) == ["echo d", "echo out"]
    assert source.skipped == (
        "hooks file ./../out.json (not loaded: it leads out of the plugin's folder)",
    )
    (plugin / "hooks" / "hooks.json").unlink()
    manifest.write_text(json.dumps({"name": "p", "hooks": "./../out.json"}))
    with pytest.raises(ConfigError, match=r"names \./\.\./out\.json, which leads out of the"):
        load_hooks(plugin)
