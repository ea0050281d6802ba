"""The audit against malformed entries inside files that are otherwise well formed (an install
record, a hook handler, a project entry, an MCP server's arguments, a context file name): each
a problem naming the file and the field, never silence or a component counted as loaded."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.audit import audit_agent
from proctor.models.audit import AgentAudit


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def loaded(result: AgentAudit, kind: str) -> list[str]:
    return [c.name for c in result.components if c.kind == kind and c.decoy is None]


@pytest.mark.parametrize(
    ("record", "field", "said"),
    [
        (["/some/path"], "plugins.p@mk[0]", 'expected an object, got the string "/some/path"'),
        ([{"installPath": 5}], "plugins.p@mk[0].installPath", "expected a string, got 5"),
        ({"installPath": ["x"]}, "plugins.p@mk.installPath", "expected a string, got a list"),
        ("x", "plugins.p@mk", 'expected a list of install records, got the string "x"'),
    ],
)
def test_a_malformed_install_record_is_a_problem_naming_the_file_and_field(
    tmp_path: Path, record: Any, field: str, said: str
) -> None:
    write(tmp_path / ".claude/settings.json", {"enabledPlugins": {"p@mk": True}})
    path = write(
        tmp_path / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": record}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [f"{path}: field '{field}': {said}; ignored"]
    (plugin,) = [c for c in result.components if c.kind == "plugin"]
    assert plugin.decoy == "malformed install record in installed_plugins.json"


def test_control_a_well_formed_install_record_has_no_problem(tmp_path: Path) -> None:
    folder = tmp_path / ".claude/plugins/cache/p"
    write(folder / ".claude-plugin/plugin.json", {"name": "p"})
    write(tmp_path / ".claude/settings.json", {"enabledPlugins": {"p@mk": True}})
    write(
        tmp_path / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": [{"installPath": str(folder)}]}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [] and loaded(result, "plugin") == ["p@mk"]


@pytest.mark.parametrize(
    ("agent", "file", "event", "handler", "key"),
    [
        (
            "gemini-cli",
            ".gemini/settings.json",
            "BeforeTool",
            {"command": {"run": "g.sh"}},
            "command",
        ),
        ("codex", ".codex/hooks.json", "PreToolUse", {"command": ["guard.sh"]}, "command"),
    ],
)
def test_a_hook_command_that_is_not_a_string_is_a_problem_naming_the_field(
    tmp_path: Path, agent: str, file: str, event: str, handler: dict[str, Any], key: str
) -> None:
    entry = {"type": "command", **handler}
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": "ok.sh"}, entry]}
    path = write(tmp_path / file, {"hooks": {event: [group]}})
    result = audit_agent(agent, tmp_path, None)
    field = f"hooks.{event}[0].hooks[1].{key}"
    (problem,) = result.problems
    assert problem.startswith(f"{path}: field '{field}': expected a string, got ")
    hooks = [(c.command, c.decoy) for c in result.components if c.kind == "hook"]
    assert hooks == [(None, f"the hook's '{key}' is not a string"), ("ok.sh", None)]


def test_a_hook_handler_that_is_not_an_object_is_a_problem(tmp_path: Path) -> None:
    group = {"hooks": ["guard.sh"]}
    path = write(tmp_path / ".gemini/settings.json", {"hooks": {"BeforeTool": [group]}})
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [
        f"{path}: field 'hooks.BeforeTool[0].hooks[0]': expected an object, got the string "
        '"guard.sh"; ignored'
    ]
    assert loaded(result, "hook") == []


@pytest.mark.parametrize(
    ("agent", "file", "data", "field"),
    [
        ("gemini-cli", ".gemini/settings.json", {"hooks": {"BeforeTool": [None]}}, "[0]"),
        ("codex", ".codex/hooks.json", {"hooks": {"PreToolUse": [None]}}, "[0]"),
    ],
)
def test_a_null_hook_group_or_handler_is_a_problem_not_a_crash(
    tmp_path: Path, agent: str, file: str, data: dict[str, Any], field: str
) -> None:
    path = write(tmp_path / file, data)
    result = audit_agent(agent, tmp_path, None)
    (event,) = data["hooks"]
    assert result.problems == [
        f"{path}: field 'hooks.{event}{field}': expected an object, got null; ignored"
    ]
    assert loaded(result, "hook") == []


def test_a_null_install_record_or_rule_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    settings = write(
        tmp_path / ".claude/settings.json",
        {"enabledPlugins": {"p@mk": True}, "permissions": {"allow": [None, "Read"]}},
    )
    path = write(
        tmp_path / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": [None]}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert sorted(result.problems) == sorted(
        [
            f"{settings}: field 'permissions.allow[0]': expected a string, got null; ignored",
            f"{path}: field 'plugins.p@mk[0]': expected an object, got null; ignored",
        ]
    )
    (plugin,) = [c for c in result.components if c.kind == "plugin"]
    assert plugin.decoy == "malformed install record in installed_plugins.json"
    assert loaded(result, "permission") == ["Read"]


def test_a_project_entry_of_claude_json_that_is_not_an_object_is_a_problem(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    path = write(home / ".claude.json", {"projects": {str(project): "oops", "/elsewhere": 5}})
    result = audit_agent("claude-code", home, project)
    # Only the audited project's entry is read, so only it is said.
    assert result.problems == [
        f"{path}: field 'projects.{project}': expected an object, got the string \"oops\"; ignored"
    ]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (5, "expected a string or a list of strings, got 5; Gemini CLI stops on it"),
        (
            {"a": "b"},
            "expected a string or a list of strings, got an object; Gemini CLI stops on it",
        ),
    ],
)
def test_a_gemini_context_file_name_that_is_no_name_is_a_problem(
    tmp_path: Path, value: Any, said: str
) -> None:
    path = write(tmp_path / ".gemini/settings.json", {"context": {"fileName": value}})
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [f"{path}: field 'context.fileName': {said}"]


def test_a_gemini_context_file_name_list_with_a_number_is_a_problem(tmp_path: Path) -> None:
    path = write(tmp_path / ".gemini/settings.json", {"context": {"fileName": ["A.md", 5]}})
    (tmp_path / ".gemini/A.md").write_text("x")
    result = audit_agent("gemini-cli", tmp_path, None)
    assert result.problems == [
        f"{path}: field 'context.fileName[1]': expected a string, got 5; ignored"
    ]
    assert loaded(result, "instructions") == ["A.md"]


@pytest.mark.parametrize("value", ["AGENTS.md", ["AGENTS.md", "GEMINI.md"]])
def test_control_a_context_file_name_or_list_of_names_has_no_problem(
    tmp_path: Path, value: Any
) -> None:
    write(tmp_path / ".gemini/settings.json", {"context": {"fileName": value}})
    assert audit_agent("gemini-cli", tmp_path, None).problems == []


def test_codex_mcp_args_that_are_not_strings_are_a_problem_codex_refuses_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[mcp_servers.c]\ncommand = "node"\nargs = ["srv.js", 8080]\n')
    result = audit_agent("codex", tmp_path, None)
    refused = "Codex refuses to start with this config.toml"
    assert result.problems == [
        f"{path}: field 'mcp_servers.c.args[1]': expected a string, got 8080; {refused}"
    ]
    assert loaded(result, "mcp") == []
    (server,) = result.components
    assert server.decoy == f"an argument is not a string: {refused}"


@pytest.mark.parametrize(
    ("args", "field", "got"),
    [
        (["srv.js", 8080], "mcpServers.g.args[1]", "a string, got 8080"),
        ("srv.js", "mcpServers.g.args", 'a list, got the string "srv.js"'),
    ],
)
def test_gemini_mcp_args_that_are_not_strings_are_a_problem(
    tmp_path: Path, args: Any, field: str, got: str
) -> None:
    server = {"command": "node", "args": args}
    path = write(tmp_path / ".gemini/settings.json", {"mcpServers": {"g": server}})
    result = audit_agent("gemini-cli", tmp_path, None)
    (problem,) = result.problems
    assert problem.startswith(f"{path}: field '{field}': expected {got}; Gemini CLI calls")
    assert loaded(result, "mcp") == ["g"]  # Gemini CLI still starts it


def test_claude_code_mcp_args_that_are_not_strings_are_a_problem_and_skipped(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    server = {"command": "node", "args": ["srv.js", 8080]}
    path = write(home / ".claude.json", {"projects": {str(project): {"mcpServers": {"m": server}}}})
    project.mkdir()
    result = audit_agent("claude-code", home, project)
    assert result.problems == [
        f"{path}: field 'projects.{project}.mcpServers.m.args[1]': expected a string, got 8080; "
        "Claude Code skips the server"
    ]
    assert loaded(result, "mcp") == []


def test_control_mcp_args_of_strings_have_no_problem(tmp_path: Path) -> None:
    server = {"command": "node", "args": ["srv.js", "8080"]}
    write(tmp_path / ".gemini/settings.json", {"mcpServers": {"g": server}})
    write(tmp_path / ".claude.json", {"mcpServers": {"g": server}})
    for agent in ("gemini-cli", "claude-code"):
        result = audit_agent(agent, tmp_path, None)
        assert result.problems == [] and loaded(result, "mcp") == ["g"]


@pytest.mark.parametrize(
    ("agent", "relative", "table"),
    [
        ("claude-code", ".claude.json", {"mcpServers": {"s": {"command": 5}}}),
        ("gemini-cli", ".gemini/settings.json", {"mcpServers": {"s": {"command": ["node"]}}}),
    ],
)
def test_an_mcp_command_that_is_not_a_string_is_a_problem_naming_the_field(
    tmp_path: Path, agent: str, relative: str, table: Any
) -> None:
    path = write(tmp_path / relative, table)
    result = audit_agent(agent, tmp_path, None)
    got = json.dumps(table["mcpServers"]["s"]["command"])
    kind = "5" if got == "5" else "a list"
    assert result.problems == [
        f"{path}: field 'mcpServers.s.command': expected a string, got {kind}"
    ]
    (server,) = [c for c in result.components if c.kind == "mcp"]
    assert server.decoy == "the MCP entry's command is not a string"


def test_a_credential_in_mcp_args_written_as_one_string_is_masked_in_the_problem(
    tmp_path: Path,
) -> None:
    args = "--api-key abcdef1234567890 --token hunter2"
    path = write(
        tmp_path / ".gemini/settings.json", {"mcpServers": {"s": {"command": "node", "args": args}}}
    )
    (problem,) = audit_agent("gemini-cli", tmp_path, None).problems
    assert "hunter2" not in problem and "abcdef1234567890" not in problem
    assert problem.startswith(
        f"{path}: field 'mcpServers.s.args': expected a list, got the string " + '"--api-key ***'
    )


def test_a_credential_in_a_field_of_the_wrong_shape_is_masked_in_the_problem(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / ".claude/settings.json", {"hooks": "curl --token zzsecret"})
    assert audit_agent("claude-code", tmp_path, None).problems == [
        f"{path}: field 'hooks': expected an object, got the string "
        + '"curl --token ***"; ignored'
    ]


@pytest.mark.parametrize(
    ("agent", "relative"),
    [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/config.toml"),
        ("gemini-cli", ".gemini/settings.json"),
    ],
)
def test_a_folder_where_a_settings_file_belongs_is_a_problem(
    tmp_path: Path, agent: str, relative: str
) -> None:
    (tmp_path / relative).mkdir(parents=True)
    result = audit_agent(agent, tmp_path, None)
    assert result.problems == [f"{tmp_path / relative}: a folder, where a file belongs; ignored"]


@pytest.mark.parametrize(
    ("agent", "folder"),
    [("claude-code", ".claude"), ("codex", ".codex"), ("gemini-cli", ".gemini")],
)
def test_a_file_where_the_agent_s_folder_belongs_is_a_problem(
    tmp_path: Path, agent: str, folder: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    write(home / folder, {})  # ~/.claude a regular file: nothing below it is read
    result = audit_agent(agent, home, project)
    assert result.problems == [f"{home / folder}: a file, where a folder belongs; ignored"]
    assert result.components == []


def test_a_file_where_a_project_or_skills_folder_belongs_is_a_problem(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(project / ".claude", {})
    write(project / ".gemini" / "skills", {})
    claude = audit_agent("claude-code", home, project).problems
    assert claude == [f"{project / '.claude'}: a file, where a folder belongs; ignored"]
    gemini = audit_agent("gemini-cli", home, project).problems
    assert gemini == [f"{project / '.gemini' / 'skills'}: a file, where a folder belongs; ignored"]
    # The control: a folder that is simply not there is no problem.
    assert audit_agent("codex", home, project).problems == []


@pytest.mark.parametrize(
    ("agent", "relative"),
    [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/config.toml"),
        ("gemini-cli", ".gemini/settings.json"),
    ],
)
def test_a_settings_file_linked_in_a_loop_is_said_so(
    tmp_path: Path, agent: str, relative: str
) -> None:
    path = tmp_path / relative
    path.parent.mkdir(parents=True)
    path.symlink_to(path.name)  # a link to itself: no agent can read it
    result = audit_agent(agent, tmp_path, None)
    assert result.problems == [f"{path}: a symbolic link that loops back on itself; not read"]


def test_a_skills_folder_linked_in_a_loop_is_said_so(tmp_path: Path) -> None:
    skills = tmp_path / ".agents" / "skills"
    skills.parent.mkdir()
    (tmp_path / "other").symlink_to(skills)
    skills.symlink_to(tmp_path / "other")
    result = audit_agent("codex", tmp_path, None)
    assert result.problems == [f"{skills}: a symbolic link that loops back on itself; ignored"]


@pytest.mark.parametrize(
    ("agent", "relative"),
    [("gemini-cli", ".gemini/extensions/self"), ("codex", ".agents/skills/self")],
)
def test_an_extension_or_skill_folder_linked_in_a_loop_is_said_so(
    tmp_path: Path, agent: str, relative: str
) -> None:
    """Listed among its siblings, as a looping settings file or skills folder is said so; the
    control, a folder beside it, is read as before."""
    looping = tmp_path / relative
    looping.parent.mkdir(parents=True)
    looping.symlink_to(looping.name)
    (looping.parent / "other").mkdir()
    result = audit_agent(agent, tmp_path, None)
    assert f"{looping}: a symbolic link that loops back on itself; ignored" in result.problems
    assert len(result.problems) == 1, result.problems
    assert [c.name for c in result.components] == ["other"]


def test_a_settings_file_linked_to_nothing_or_a_pipe_is_said_so(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to("gone.json")
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    os.mkfifo(config)  # reading a named pipe would block the audit
    claude = audit_agent("claude-code", tmp_path, None).problems
    assert claude == [f"{settings}: a symbolic link to gone.json, which is not there; ignored"]
    codex = audit_agent("codex", tmp_path, None).problems
    assert codex == [f"{config}: not a regular file; not read"]


def test_a_problem_of_a_file_reached_twice_is_said_once(tmp_path: Path) -> None:
    """Run in the home, the project's ``.claude/settings.json`` is the user's: its components
    are listed once, and so are its problems."""
    settings = tmp_path / ".claude" / "settings.json"
    write(settings, {"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x"}]}]}})
    result = audit_agent("claude-code", tmp_path, tmp_path)
    assert len(result.problems) == 1, result.problems
    assert result.problems[0].startswith(f"{settings}: hook event 'BeforeTool'")


GUARD = {"type": "command", "command": "guard.sh"}
TYPES = '"command", "prompt", "agent", "http", "mcp_tool"'
URL = "a URL (scheme and host, such as http://localhost:8080/hook)"


@pytest.mark.parametrize(
    ("group", "said"),
    [
        (
            {"matcher": 5, "hooks": [GUARD]},
            "field 'hooks.PreToolUse[0].matcher' must be a string, got 5",
        ),
        (
            {"matcher": None, "hooks": [GUARD]},
            "field 'hooks.PreToolUse[0].matcher' must be a string, got null",
        ),
        (
            {"matcher": "Bash", "hooks": [{**GUARD, "timeout": "5"}]},
            "field 'hooks.PreToolUse[0].hooks[0].timeout' must be a positive number, got the "
            'string "5"',
        ),
        (
            {"matcher": "Bash", "hooks": [{**GUARD, "timeout": 0}]},
            "field 'hooks.PreToolUse[0].hooks[0].timeout' must be a positive number, got 0",
        ),
        *(
            ({"hooks": [handler]}, f"field 'hooks.PreToolUse[0].hooks[0]{field}")
            for handler, field in [
                (None, "' must be a hook handler (an object with 'type'), got null"),
                ({"command": "guard.sh"}, f".type' is missing (one of {TYPES})"),
                (
                    {**GUARD, "type": "script"},
                    f'.type\' must be one of {TYPES}, got the string "script"',
                ),
                ({"type": "command"}, ".command' is missing (a command hook needs a string)"),
                (
                    {**GUARD, "command": ["guard.sh", "-x"]},
                    ".command' must be a string, got a list",
                ),
                ({**GUARD, "async": "yes"}, '.async\' must be true or false, got the string "yes"'),
                ({**GUARD, "asyncRewake": 1}, ".asyncRewake' must be true or false, got 1"),
                ({**GUARD, "once": None}, ".once' must be true or false, got null"),
                ({**GUARD, "if": 5}, ".if' must be a string, got 5"),
                ({**GUARD, "statusMessage": False}, ".statusMessage' must be a string, got false"),
                ({**GUARD, "args": ["-x", 1]}, ".args' must be a list of strings, got a list"),
                (
                    {**GUARD, "shell": "zsh"},
                    '.shell\' must be "bash" or "powershell", got the string "zsh"',
                ),
                (
                    {**GUARD, "rewakeMessage": ""},
                    '.rewakeMessage\' must be a non-empty string, got the string ""',
                ),
                ({"type": "prompt"}, ".prompt' is missing (a prompt hook needs a string)"),
                (
                    {"type": "prompt", "prompt": "p", "continueOnBlock": 1},
                    ".continueOnBlock' must be true or false, got 1",
                ),
                ({"type": "agent", "prompt": "p", "model": 5}, ".model' must be a string, got 5"),
                ({"type": "http", "url": 5}, f".url' must be {URL}, got 5"),
                (
                    {"type": "http", "url": "localhost"},
                    f'.url\' must be {URL}, got the string "localhost"',
                ),
                (
                    {"type": "http", "url": "http://a b"},
                    f'.url\' must be {URL}, got the string "http://a b"',
                ),
                (
                    {"type": "http", "url": "http://x", "headers": {"A": 1}},
                    ".headers' must be an object of strings, got an object",
                ),
                (
                    {"type": "http", "url": "http://x", "allowedEnvVars": "T"},
                    '.allowedEnvVars\' must be a list of strings, got the string "T"',
                ),
                (
                    {"type": "mcp_tool", "server": "s"},
                    ".tool' is missing (a mcp_tool hook needs a string)",
                ),
                (
                    {"type": "mcp_tool", "server": "s", "tool": "t", "input": []},
                    ".input' must be an object, got a list",
                ),
            ]
        ),
        (
            None,
            "field 'hooks.PreToolUse[0]' must be a matcher group (an object with 'hooks'), got null",
        ),
        (
            {"matcher": "Bash"},
            "field 'hooks.PreToolUse[0].hooks' is missing (the group's list of hook handlers)",
        ),
        (
            {"hooks": "guard.sh"},
            "field 'hooks.PreToolUse[0].hooks' must be a list of hook handlers, got the string \"guard.sh\"",
        ),
    ],
)
def test_a_claude_settings_file_its_hook_schema_refuses_is_skipped_whole_as_claude_code_does(
    tmp_path: Path, group: Any, said: str
) -> None:
    """Claude Code 2.1.197 skips a settings file that fails its schema entirely ("Files with
    errors are skipped entirely, not just the invalid settings"): its other hooks, its rules
    and the plugins it enables with it. ``hooks test`` refuses the file for the same field."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    stop = {"hooks": [{"type": "command", "command": "stop.sh"}]}
    path = write(
        tmp_path / ".claude/settings.json",
        {
            "permissions": {"allow": ["Bash(ls)"]},
            "enabledPlugins": {"p@mk": True},
            "hooks": {"PreToolUse": [group], "Stop": [stop]},
        },
    )
    result = audit_agent("claude-code", tmp_path, None)
    skipped = f"Claude Code skips this whole settings file ({said})"
    assert result.problems == [f"{path}: {said}; Claude Code skips this whole settings file"]
    assert loaded(result, "hook") == [] and loaded(result, "permission") == []
    assert {c.decoy for c in result.components if c.kind in ("hook", "permission")} == {skipped}
    assert not [c for c in result.components if c.kind == "plugin" and c.decoy is None]
    with pytest.raises(ConfigError) as caught:
        load_hooks(path)
    assert str(caught.value) == (
        f"{path}: {said}; Claude Code skips this whole settings file, so none of its hooks runs"
    )


def test_a_plugin_hooks_file_claude_codes_schema_refuses_has_none_of_its_hooks_loaded(
    tmp_path: Path,
) -> None:
    """A plugin's hooks file that fails Claude Code's schema is a ``hook-load-failed``: none
    of its hooks load; ``hooks test`` refuses the plugin's file."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    folder = tmp_path / ".claude/plugins/cache/p"
    write(folder / ".claude-plugin/plugin.json", {"name": "p"})
    table = {"PreToolUse": [{"matcher": "Bash", "hooks": [{**GUARD, "timeout": "5"}]}],
             "Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}]}  # fmt: skip
    hooks_file = write(folder / "hooks/hooks.json", {"hooks": table})
    write(tmp_path / ".claude/settings.json", {"enabledPlugins": {"p@mk": True}})
    write(
        tmp_path / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": [{"installPath": str(folder)}]}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    said = (
        "field 'hooks.PreToolUse[0].hooks[0].timeout' must be a positive number, got the "
        'string "5"'
    )
    assert result.problems == [f"{hooks_file}: {said}; Claude Code skips every hook of this file"]
    assert loaded(result, "plugin") == ["p@mk"] and loaded(result, "hook") == []
    with pytest.raises(ConfigError) as caught:
        load_hooks(folder)
    assert str(caught.value) == f"{hooks_file}: {said}; Claude Code skips every hook of this file"


def test_control_a_string_matcher_and_a_number_timeout_are_loaded_by_both(tmp_path: Path) -> None:
    from proctor.addons.hooks import load_hooks

    group = {"matcher": "Bash", "hooks": [{**GUARD, "timeout": 5}]}
    path = write(tmp_path / ".claude/settings.json", {"hooks": {"PreToolUse": [group]}})
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [] and loaded(result, "hook") == ["PreToolUse:Bash"]
    assert [h.matcher for h in load_hooks(path).hooks] == ["Bash"]


def installed_plugin(tmp_path: Path) -> Path:
    """A plugin ``p@mk``, installed and enabled in the home ``tmp_path``, with a skill."""
    folder = tmp_path / ".claude/plugins/cache/p"
    skill = folder / "skills/s/SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: s\ndescription: a skill\n---\nDo it.\n")
    write(tmp_path / ".claude/settings.json", {"enabledPlugins": {"p@mk": True}})
    write(
        tmp_path / ".claude/plugins/installed_plugins.json",
        {"version": 2, "plugins": {"p@mk": [{"installPath": str(folder)}]}},
    )
    return folder


STOP = {"hooks": [{"type": "command", "command": "stop.sh"}]}


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            {"hooks": {"Stop": [STOP], "Bogus": [STOP]}},
            "field 'hooks.Bogus' is not a hook event Claude Code knows",
        ),
        (  # (named by some docs, not in Claude Code 2.1.197's list of events)
            {"hooks": {"Stop": [STOP], "DirectoryAdded": [STOP]}},
            "field 'hooks.DirectoryAdded' is not a hook event Claude Code knows",
        ),
        (
            {"hooks": {"Stop": [STOP], "PreToolUse": {"hooks": []}}},
            "field 'hooks.PreToolUse' must be a list of matcher groups, got an object",
        ),
        (
            {"description": 5, "hooks": {"Stop": [STOP]}},
            "field 'description' must be a string, got 5",
        ),
    ],
)
def test_a_plugin_hooks_file_is_checked_as_it_is_an_unknown_event_loses_every_hook(
    tmp_path: Path, data: dict[str, Any], said: str
) -> None:
    """Claude Code drops an unknown event (or one that is no list) of a settings file with a
    warning, but checks a plugin's hooks file as it is: the file fails, none of its hooks
    loads, the plugin's skill does."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    folder = installed_plugin(tmp_path)
    write(folder / ".claude-plugin/plugin.json", {"name": "p"})
    hooks_file = write(folder / "hooks/hooks.json", data)
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == [f"{hooks_file}: {said}; Claude Code skips every hook of this file"]
    assert loaded(result, "hook") == [] and loaded(result, "skill") == ["p:s"]
    with pytest.raises(ConfigError) as caught:
        load_hooks(folder)
    assert str(caught.value) == f"{hooks_file}: {said}; Claude Code skips every hook of this file"


def test_control_a_settings_file_s_unknown_event_is_dropped_alone(tmp_path: Path) -> None:
    path = write(tmp_path / ".claude/settings.json", {"hooks": {"Stop": [STOP], "Bogus": [STOP]}})
    result = audit_agent("claude-code", tmp_path, None)
    assert [p.split(": ", 1)[1] for p in result.problems] == [
        "hook event 'Bogus' is not an event Claude Code fires; never runs"
    ]
    assert loaded(result, "hook") == ["Stop"]
    assert sorted(h.event for h in load_hooks_of(path)) == ["Bogus", "Stop"]


def load_hooks_of(path: Path) -> list[Any]:
    from proctor.addons.hooks import load_hooks

    return list(load_hooks(path).hooks)


@pytest.mark.parametrize(
    ("declared", "said"),
    [
        (
            {"Stop": [{"hooks": [{"command": "stop.sh"}]}]},
            f"field 'hooks.Stop[0].hooks[0].type' is missing (one of {TYPES})",
        ),
        (
            {"Bogus": [STOP]},
            "field 'hooks.Bogus' is not a hook event Claude Code knows",
        ),
        (
            "extra.json",
            "field 'hooks' must be a path starting with ./ and ending in .json, got the string "
            '"extra.json"',
        ),
        (
            ["./extra.json", {"Stop": [{"matcher": 1, "hooks": []}]}],
            "field 'hooks[1].Stop[0].matcher' must be a string, got 1",
        ),
    ],
)
def test_a_plugin_manifest_whose_hooks_claude_code_refuses_skips_the_whole_plugin(
    tmp_path: Path, declared: Any, said: str
) -> None:
    """The manifest's ``hooks`` is part of its schema: when it fails, the manifest is
    invalid and Claude Code loads nothing of the plugin (a hooks file failing costs only its
    hooks)."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    folder = installed_plugin(tmp_path)
    write(folder / "extra.json", {"hooks": {"Stop": [STOP]}})
    write(folder / "hooks/hooks.json", {"hooks": {"Stop": [STOP]}})
    manifest = write(folder / ".claude-plugin/plugin.json", {"name": "p", "hooks": declared})
    result = audit_agent("claude-code", tmp_path, None)
    whole = "Claude Code skips this whole plugin (its manifest is invalid)"
    assert result.problems == [f"{manifest}: {said}; {whole}"]
    (plugin,) = [c for c in result.components if c.kind == "plugin"]
    assert plugin.decoy == f"{whole} ({said})"
    assert loaded(result, "hook") == [] and loaded(result, "skill") == []
    with pytest.raises(ConfigError) as caught:
        load_hooks(folder)
    assert str(caught.value) == f"{manifest}: {said}; {whole}"
    by_flag = audit_agent("claude-code", tmp_path / "empty", None, ["--plugin-dir", str(folder)])
    assert by_flag.problems == result.problems
    assert [c.decoy for c in by_flag.components if c.kind == "plugin"] == [plugin.decoy]
    assert loaded(by_flag, "hook") == [] and loaded(by_flag, "skill") == []


MONITOR = {"name": "m", "command": "tail -f log", "description": "the log"}
OPTION = {"type": "string", "title": "Key", "description": "the key"}


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"name": "my plugin"},
            'field \'name\' must not contain spaces (kebab-case, such as "my-plugin"), got the string "my plugin"',
        ),
        ({}, "field 'name' is missing (the plugin's name, such as \"my-plugin\")"),
        ({"name": ""}, "field 'name' must be a non-empty string, got the string \"\""),
        ({"name": 5}, "field 'name' must be a non-empty string, got 5"),
        ({"name": "p", "version": 1}, "field 'version' must be a string, got 1"),
        ({"name": "p", "description": None}, "field 'description' must be a string, got null"),
        (
            {"name": "p", "author": {"email": "a@b"}},
            "field 'author' must be an object with a non-empty string 'name' (and string "
            "'email', 'url'), got an object",
        ),
        (
            {"name": "p", "keywords": "k"},
            "field 'keywords' must be a list of strings, got the string \"k\"",
        ),
        (
            {"name": "p", "defaultEnabled": "yes"},
            "field 'defaultEnabled' must be true or false, got the string \"yes\"",
        ),
        (
            {"name": "p", "homepage": "example.test"},
            "field 'homepage' must be a URL (scheme and host, such as "
            'http://localhost:8080/hook), got the string "example.test"',
        ),
        (
            {"name": "p", "dependencies": ["other", "other plugin"]},
            'field \'dependencies[1]\' must be a plugin name ("name" or "name@marketplace"), '
            "or an object with its 'name' (and 'marketplace'), got the string \"other plugin\"",
        ),
        (
            {"name": "p", "agents": ["./agents/a.txt"]},
            "field 'agents' must be a path starting with ./ and ending in .md, or a list of "
            "those, got a list",
        ),
        (
            {"name": "p", "skills": "skills/extra"},
            "field 'skills' must be a path starting with ./, or a list of those, got the string "
            '"skills/extra"',
        ),
        (
            {"name": "p", "commands": 5},
            "field 'commands' must be a path starting with ./, a list of those, or an object of "
            "commands, got 5",
        ),
        (
            {"name": "p", "commands": {"about": {"source": "./a.md", "content": "# About"}}},
            "field 'commands.about' has both 'source' and 'content' (Claude Code takes one of "
            "them)",
        ),
        (
            {"name": "p", "mcpServers": 5},
            "field 'mcpServers' must be a ./….json path, an .mcpb or .dxt bundle (a ./ path or a "
            "URL), or an object of MCP servers, got 5",
        ),
        *[
            ({"name": "p", "mcpServers": servers}, said)
            for servers, said in [
                (
                    {"ok": {"command": "x"}, "myserver": {"command": 5}},
                    "field 'mcpServers.myserver.command' must be a non-empty string, got 5",
                ),
                (
                    {"s": "x"},
                    "field 'mcpServers.s' must be an MCP server (an object with a 'command', or "
                    "a 'type' and its 'url'), got the string \"x\"",
                ),
                (
                    {"s": {"command": "x", "timeout": 1.5}},
                    "field 'mcpServers.s.timeout' must be a positive integer, got 1.5",
                ),
                (
                    {"s": {"type": "http"}},
                    "field 'mcpServers.s.url' is missing (an MCP server of type \"http\" needs a "
                    "string)",
                ),
                (
                    ["./servers.json", {"s": {"type": None, "command": "x"}}],
                    'field \'mcpServers[1].s.type\' must be "stdio", "sse", "sse-ide", '
                    '"ws-ide", "http", "streamable-http", "ws", "sdk" or "claudeai-proxy", got '
                    "null",
                ),
                (
                    {"s": {"type": "http", "url": "u", "tools": [{"name": "t"}, {}]}},
                    "field 'mcpServers.s.tools[1].name' is missing (a tool needs a string)",
                ),
                (
                    {"s": {"type": "sse", "url": "u", "toolPermissions": {"Bash": "no"}}},
                    'field \'mcpServers.s.toolPermissions.Bash\' must be "allow", "ask" or '
                    '"blocked", got the string "no"',
                ),
                (
                    {"s": {"type": "http", "url": "u", "oauth": {"callbackPort": 0}}},
                    "field 'mcpServers.s.oauth.callbackPort' must be a positive integer, got 0",
                ),
            ]
        ],
        *[
            ({"name": "p", "lspServers": servers}, said)
            for servers, said in [
                (
                    {"ts": {"command": "x"}},
                    "field 'lspServers.ts.extensionToLanguage' is missing (an LSP server needs "
                    'a non-empty object of file extensions and languages, such as {".ts": '
                    '"typescript"})',
                ),
                (
                    {"ts": {"command": "x", "extensionToLanguage": {}}},
                    "field 'lspServers.ts.extensionToLanguage' must be a non-empty object of "
                    'file extensions and languages, such as {".ts": "typescript"}, got an '
                    "object",
                ),
                (
                    {"ts": {"command": "x", "extensionToLanguage": {"ts": "typescript"}}},
                    "field 'lspServers.ts.extensionToLanguage' has a key that is no file "
                    'extension (a dot and a name, such as ".ts"), got the string "ts"',
                ),
                (
                    {"ts": {"command": "x --stdio", "extensionToLanguage": {".ts": "typescript"}}},
                    "field 'lspServers.ts.command' must be a non-empty string with no space "
                    "(unless it starts with /; arguments go in 'args'), got the string "
                    '"x --stdio"',
                ),
                (
                    [
                        "./lsp.json",
                        {"ts": {"command": "x", "extensionToLanguage": {".ts": "ts"}, "port": 1}},
                    ],
                    "field 'lspServers[1].ts.port' is not allowed in an LSP server (Claude Code "
                    "takes only the fields it names)",
                ),
            ]
        ],
        (
            {"name": "p", "monitors": [MONITOR, {"name": "m2"}]},
            "field 'monitors[1].command' is missing (a monitor needs a non-empty string)",
        ),
        (
            {"name": "p", "monitors": [MONITOR, MONITOR]},
            "field 'monitors[1].name' is the string \"m\", the name of 'monitors[0]' too (Claude "
            "Code wants monitor names unique in a plugin)",
        ),
        (
            {"name": "p", "channels": [{"server": "s"}, {}]},
            "field 'channels[1].server' is missing (a channel needs a non-empty string)",
        ),
        (
            {"name": "p", "channels": [{"server": "s", "userConfig": {"k": {"type": "string"}}}]},
            "field 'channels[0].userConfig.k.title' is missing (a userConfig option needs a "
            "string)",
        ),
        (
            {"name": "p", "userConfig": {"1st": OPTION}},
            "field 'userConfig' has a key that is no identifier (letters, digits and "
            'underscores, no leading digit), got the string "1st"',
        ),
        (
            {"name": "p", "userConfig": {"KEY": {"type": "string"}}},
            "field 'userConfig.KEY.title' is missing (a userConfig option needs a string)",
        ),
        (
            {"name": "p", "userConfig": {"K": OPTION | {"x": 1}}},
            "field 'userConfig.K.x' is not allowed in a userConfig option (Claude Code takes "
            "only the fields it names)",
        ),
        (
            {"name": "p", "userConfig": {"K": OPTION | {"type": "text"}}},
            'field \'userConfig.K.type\' must be "string", "number", "boolean", '
            '"directory" or "file", got the string "text"',
        ),
        (
            {"name": "p", "experimental": {"themes": 5}},
            "field 'experimental.themes' must be a path starting with ./, or a list of those, "
            "got 5",
        ),
        (
            {"name": "p", "experimental": {"monitors": [{"name": "m"}]}},
            "field 'experimental.monitors[0].command' is missing (a monitor needs a non-empty "
            "string)",
        ),
        *[
            (
                {"name": "p", "homepage": url},
                "field 'homepage' must be a URL (scheme and host, such as "
                f'http://localhost:8080/hook), got the string "{url}"',
            )
            for url in ["http://1.2.3.256", "http://99999999999", "http://a.1", "http://%25"]
        ],
    ],
)
def test_a_plugin_manifest_claude_code_refuses_skips_the_whole_plugin(
    tmp_path: Path, fields: dict[str, Any], said: str
) -> None:
    """Claude Code 2.1.197 checks the whole manifest against its schema before it loads the
    plugin ("Plugin … has an invalid manifest file"): a name with a space, no name, a known
    field of the wrong type costs the plugin, its skills and hooks included."""
    from proctor.addons.hooks import load_hooks
    from proctor.errors import ConfigError

    folder = installed_plugin(tmp_path)
    write(folder / "hooks/hooks.json", {"hooks": {"Stop": [STOP]}})
    manifest = write(folder / ".claude-plugin/plugin.json", fields)
    result = audit_agent("claude-code", tmp_path, None)
    whole = "Claude Code skips this whole plugin (its manifest is invalid)"
    assert result.problems == [f"{manifest}: {said}; {whole}"]
    (plugin,) = [c for c in result.components if c.kind == "plugin"]
    assert plugin.decoy == f"{whole} ({said})"
    assert loaded(result, "hook") == [] and loaded(result, "skill") == []
    with pytest.raises(ConfigError) as caught:
        load_hooks(folder)
    assert str(caught.value) == f"{manifest}: {said}; {whole}"
    by_flag = audit_agent("claude-code", tmp_path / "empty", None, ["--plugin-dir", str(folder)])
    assert by_flag.problems == result.problems
    assert loaded(by_flag, "plugin") == [] and loaded(by_flag, "skill") == []


def test_control_a_manifest_with_every_field_of_its_type_loads_the_plugin(tmp_path: Path) -> None:
    """Names with dots, underscores and capitals pass (only a space is refused); fields Claude
    Code does not know are ignored."""
    folder = installed_plugin(tmp_path)
    write(folder / "hooks/hooks.json", {"hooks": {"Stop": [STOP]}})
    write(folder / "agents/a.md", "")
    write(
        folder / ".claude-plugin/plugin.json",
        {
            "$schema": "https://example.test/schema.json",
            "name": "My_Plugin.v2",
            "displayName": "My Plugin",
            "version": "1.2.3",
            "description": "d",
            "author": {"name": "A", "email": "a@example.test", "url": "https://example.test"},
            "homepage": "https://example.test/p",
            "repository": "https://example.test/p.git",
            "license": "MIT",
            "keywords": ["k"],
            "defaultEnabled": True,
            "dependencies": ["other", "other@mk", {"name": "third", "marketplace": "mk"}],
            "commands": {"about": {"content": "# About"}},
            "agents": ["./agents/a.md"],
            "skills": "./skills",
            "outputStyles": ["./styles"],
            "mcpServers": ["./servers.json", {"m": {"command": "m"}}],
            "lspServers": {"ts": {"command": "ts", "extensionToLanguage": {".ts": "typescript"}}},
            "monitors": [MONITOR, MONITOR | {"name": "n", "when": "on-skill-invoke:s"}],
            "channels": [{"server": "m", "displayName": "M", "userConfig": {"any key": OPTION}}],
            "settings": {},
            "userConfig": {"API_KEY": OPTION | {"default": ["a"], "min": 1.5, "sensitive": True}},
            "experimental": 5,
            "binaries": 5,
            "unknown": None,
        },
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == []
    assert loaded(result, "plugin") == ["p@mk"] and loaded(result, "hook") == ["Stop"]


@pytest.mark.parametrize(
    "fields",
    [
        {"homepage": "http://%41"},  # a percent-escape in a host is decoded: http://a/
        {"homepage": "http://0x7f.1"},  # an IPv4 address of 2 parts, the first in hex
        {
            "mcpServers": {
                "a": {"type": "stdio", "command": "a", "timeout": 5.0, "role": 7, "x": None},
                "b": {"type": "streamable-http", "url": "no URL checked", "tools": [{"name": "t"}]},
                "c": {"type": "sse", "url": "u", "oauth": {"authServerMetadataUrl": "https://x"}},
                "d": {"type": "sdk", "name": "n"},
                "e": {"type": "claudeai-proxy", "url": "u", "id": "i", "cachedInitResponse": None},
            }
        },
        {
            "lspServers": [
                "./lsp.json",
                {"ts": {"command": "/opt/my ts", "extensionToLanguage": {".ts": "ts"}}},
            ]
        },
        {"experimental": {"themes": ["./t"], "monitors": [MONITOR], "evals": "e", "other": 5}},
        {"experimental": None},
        {"userConfig": {"n": OPTION | {"type": "number", "min": 10**300, "max": 1e308}}},
    ],
)
def test_control_manifest_parts_claude_code_takes_load_the_plugin(
    tmp_path: Path, fields: dict[str, Any]
) -> None:
    """Measured with ``claude plugin validate`` (2.1.197): each passes."""
    folder = installed_plugin(tmp_path)
    write(folder / "hooks/hooks.json", {"hooks": {"Stop": [STOP]}})
    write(folder / ".claude-plugin/plugin.json", {"name": "p", **fields})
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == []
    assert loaded(result, "plugin") == ["p@mk"] and loaded(result, "hook") == ["Stop"]


HUGE = 10**400
"""An integer of 401 digits, which JavaScript reads as infinity."""


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {
                "hooks": {
                    "Stop": [{"hooks": [{"type": "command", "command": "c", "timeout": HUGE}]}]
                }
            },
            "field 'hooks.Stop[0].hooks[0].timeout' must be a positive number",
        ),
        (
            {"mcpServers": {"a": {"command": "c", "timeout": HUGE}}},
            "field 'mcpServers.a.timeout' must be a positive integer",
        ),
        (
            {"userConfig": {"n": OPTION | {"type": "number", "min": HUGE}}},
            "field 'userConfig.n.min' must be a number",
        ),
        (
            {"userConfig": {"n": OPTION | {"type": "number", "max": -HUGE}}},
            "field 'userConfig.n.max' must be a number",
        ),
        (
            {"userConfig": {"n": OPTION | {"default": HUGE}}},
            "field 'userConfig.n.default' must be a string, a number, true, false or a list of "
            "strings",
        ),
        (
            {
                "lspServers": {
                    "x": {"command": "c", "extensionToLanguage": {".x": "x"}, "maxRestarts": HUGE}
                }
            },
            "field 'lspServers.x.maxRestarts' must be a whole number",
        ),
    ],
)
def test_an_integer_too_large_for_javascript_is_infinity_which_claude_code_refuses(
    tmp_path: Path, fields: dict[str, Any], said: str
) -> None:
    """``claude plugin validate`` (2.1.197) refuses each manifest: JavaScript reads the number
    as infinity, which is no positive number, no integer, no number zod takes."""
    folder = installed_plugin(tmp_path)
    manifest = write(folder / ".claude-plugin/plugin.json", {"name": "p", **fields})
    result = audit_agent("claude-code", tmp_path, None)
    whole = "Claude Code skips this whole plugin (its manifest is invalid)"
    (problem,) = result.problems
    assert problem.startswith(f"{manifest}: {said}, got ")
    assert problem.endswith(f"; {whole}")
    assert loaded(result, "plugin") == [] and loaded(result, "skill") == []


def test_an_mcp_tool_hook_is_listed_as_the_tool_it_calls(tmp_path: Path) -> None:
    """An ``mcp_tool`` handler runs: listed with the MCP tool it calls, not as a matcher with
    no command; ``hooks test`` names it among the handlers it does not run."""
    from proctor.addons.hooks import load_hooks

    handler = {"type": "mcp_tool", "server": "guard", "tool": "check", "input": {"a": 1}}
    path = write(
        tmp_path / ".claude/settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == []
    (hook,) = [c for c in result.components if c.kind == "hook"]
    assert (hook.name, hook.command, hook.decoy) == (
        "PreToolUse:Bash",
        "MCP tool 'check' of server 'guard'",
        None,
    )
    source = load_hooks(path)
    assert source.hooks == ()
    assert source.skipped == ("PreToolUse: mcp_tool (calls MCP tool 'check' of server 'guard')",)


def test_a_manifest_hooks_list_may_hold_inline_hooks(tmp_path: Path) -> None:
    """Claude Code's manifest schema takes, in a ``hooks`` list, objects of events beside
    paths, and merges them all."""
    from proctor.addons.hooks import load_hooks

    folder = installed_plugin(tmp_path)
    write(folder / "extra.json", {"hooks": {"Stop": [STOP]}})
    inline = {"SessionStart": [{"hooks": [{"type": "command", "command": "start.sh"}]}]}
    write(folder / ".claude-plugin/plugin.json", {"name": "p", "hooks": ["./extra.json", inline]})
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == []
    assert sorted(loaded(result, "hook")) == ["SessionStart", "Stop"]
    assert sorted(h.command for h in load_hooks(folder).hooks) == ["start.sh", "stop.sh"]


def test_control_every_field_of_every_handler_type_of_its_type_is_loaded(tmp_path: Path) -> None:
    common = {"if": "Bash(git *)", "timeout": 1.5, "statusMessage": "checking", "once": True}
    handlers = [
        {
            **GUARD,
            **common,
            "args": ["-x"],
            "shell": "bash",
            "async": False,
            "asyncRewake": False,
            "rewakeMessage": "m",
            "rewakeSummary": "s",
            "extra": "ignored",
        },
        {"type": "prompt", "prompt": "p", **common, "model": "m", "continueOnBlock": True},
        {"type": "agent", "prompt": "p", **common, "model": "m"},
        {"type": "http", "url": "http://localhost:8080/h", **common, "headers": {"A": "b"}},
        {"type": "http", "url": "https://x", "allowedEnvVars": ["T"]},
        {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"a": 1}, **common},
    ]
    path = write(
        tmp_path / ".claude/settings.json",
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": handlers}, {"hooks": []}]}},
    )
    result = audit_agent("claude-code", tmp_path, None)
    assert result.problems == []
    assert "guard.sh -x" in [h.command for h in load_hooks_of(path)]
