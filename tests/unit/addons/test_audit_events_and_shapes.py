"""The audit against hooks under events the agent never fires, Claude Code's http hooks, and
wrong-shaped nested fields: each a problem naming the file and the field, never a component
counted as loaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.addons.audit import audit, audit_agent
from proctor.addons.audit.render import describe
from proctor.addons.audit.trial import trial_audit
from proctor.addons.install_components import component_checks
from proctor.addons.install_expect import AgentExpectation, ExpectedHook
from proctor.models.audit import AgentAudit


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def hook(command: str, matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
    if matcher:
        group["matcher"] = matcher
    return group


def loaded(result: AgentAudit, kind: str) -> list[str]:
    return [c.name for c in result.components if c.kind == kind and c.decoy is None]


@pytest.mark.parametrize(
    ("agent", "file", "event", "near"),
    [
        ("claude-code", ".claude/settings.json", "BeforeTool", "PreToolUse"),
        ("claude-code", ".claude/settings.json", "pretooluse", "PreToolUse"),
        ("gemini-cli", ".gemini/settings.json", "PreToolUse", "BeforeTool"),
        ("codex", ".codex/hooks.json", "AfterTool", "PostToolUse"),
    ],
)
def test_a_hook_under_an_event_the_agent_never_fires_is_a_problem_not_loaded(
    tmp_path: Path, agent: str, file: str, event: str, near: str
) -> None:
    path = write(tmp_path / file, {"hooks": {event: [hook("guard.sh", "Bash")]}})
    result = audit_agent(agent, tmp_path, None)
    assert loaded(result, "hook") == []
    (problem,) = [p for p in result.problems if event in p]
    assert problem.startswith(f"{path}:") and f"'{near}'" in problem
    expected = AgentExpectation(hooks=[ExpectedHook(event=event, command="guard.sh")])
    (check,) = component_checks(agent, expected, result, lambda text: text)
    assert not check.passed and near in check.message


def test_a_hook_under_a_real_event_still_loads(tmp_path: Path) -> None:
    write(tmp_path / ".gemini/settings.json", {"hooks": {"BeforeTool": [hook("g.sh")]}})
    result = audit_agent("gemini-cli", tmp_path, None)
    assert loaded(result, "hook") == ["BeforeTool"] and result.problems == []


def test_a_claude_code_http_hook_is_runnable(tmp_path: Path) -> None:
    handler = {"type": "http", "url": "http://localhost:8080/hook"}
    group = {"matcher": "Bash", "hooks": [handler]}
    write(tmp_path / ".claude/settings.json", {"hooks": {"PreToolUse": [group]}})
    result = audit_agent("claude-code", tmp_path, None)
    (found,) = [c for c in result.components if c.kind == "hook"]
    assert (found.decoy, found.command) == (None, "http://localhost:8080/hook")
    write(
        tmp_path / ".claude/settings.json",
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "http"}]}]}},
    )
    (empty,) = [c for c in audit_agent("claude-code", tmp_path, None).components]
    assert empty.decoy is not None  # an http hook with no url runs nothing


@pytest.mark.parametrize(
    ("agent", "file", "data", "field", "kind"),
    [
        (
            "claude-code",
            ".claude/settings.json",
            {"permissions": {"allow": "Bash(ls)"}},
            "permissions.allow",
            "permission",
        ),
        (
            "claude-code",
            ".claude/settings.json",
            {"permissions": {"deny": [3, "Read"]}},
            "permissions.deny[0]",
            "permission",
        ),
        ("claude-code", ".claude.json", {"mcpServers": [{"command": "x"}]}, "mcpServers", "mcp"),
        ("claude-code", "proj/.mcp.json", {"mcpServers": ["x"]}, "mcpServers", "mcp"),
        (
            "claude-code",
            ".claude/settings.json",
            {"hooks": {"Stop": hook("s")}},
            "hooks.Stop",
            "hook",
        ),
        (
            "gemini-cli",
            ".gemini/settings.json",
            {"tools": {"allowed": "ShellTool"}},
            "tools.allowed",
            "permission",
        ),
        (
            "gemini-cli",
            ".gemini/settings.json",
            {"mcp": {"allowed": "g"}, "mcpServers": {"g": {"command": "g"}}},
            "mcp.allowed",
            "mcp",
        ),
    ],
)
def test_a_wrong_shaped_nested_field_is_a_problem_naming_file_and_field(
    tmp_path: Path, agent: str, file: str, data: dict[str, Any], field: str, kind: str
) -> None:
    path = write(tmp_path / file, data)
    (tmp_path / "proj").mkdir(exist_ok=True)
    result = audit_agent(agent, tmp_path, tmp_path / "proj")
    problems = [p for p in result.problems if p.startswith(f"{path}: field '{field}'")]
    assert len(problems) == 1, result.problems
    if field == "permissions.deny[0]":
        assert loaded(result, kind) == ["Read"]  # the string rule beside it still counts
    else:
        assert loaded(result, kind) == []


def test_a_project_entry_with_mcp_servers_as_a_list_is_a_problem(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    path = write(tmp_path / ".claude.json", {"projects": {str(project): {"mcpServers": ["x"]}}})
    result = audit_agent("claude-code", tmp_path, project)
    assert any(p.startswith(f"{path}: field 'projects.") for p in result.problems)


@pytest.mark.parametrize(
    ("agent", "file"),
    [("claude-code", ".claude/settings.json"), ("gemini-cli", ".gemini/settings.json")],
)
def test_a_hook_handler_without_a_type_is_a_decoy(tmp_path: Path, agent: str, file: str) -> None:
    """Gemini CLI skips the handler; Claude Code's schema skips the whole settings file."""
    event = "PreToolUse" if agent == "claude-code" else "BeforeTool"
    untyped = {"hooks": [{"command": "guard.sh"}, {"type": "command", "command": "ok.sh"}]}
    write(tmp_path / file, {"hooks": {event: [untyped]}})
    result = audit_agent(agent, tmp_path, None)
    hooks = {c.command: c.decoy for c in result.components if c.kind == "hook"}
    if agent == "gemini-cli":
        assert hooks == {"guard.sh": "a hook handler needs a type", "ok.sh": None}
    else:
        skipped = (
            "Claude Code skips this whole settings file (field 'hooks.PreToolUse[0].hooks[0].type'"
            ' is missing (one of "command", "prompt", "agent", "http", "mcp_tool"))'
        )
        assert hooks == {"guard.sh": skipped, "ok.sh": skipped}


def test_claude_code_reads_the_state_file_claude_config_dir_chooses(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    write(home / ".claude.json", {"mcpServers": {"in-home": {"command": "a"}}})
    write(home / ".claude" / ".claude.json", {"mcpServers": {"in-config": {"command": "b"}}})
    unset = audit(home, project, ["claude-code"]).agents[0]
    assert [c.name for c in unset.components if c.kind == "mcp"] == ["in-home"]
    moved = audit(home, project, ["claude-code"], claude_config_dir=home / ".claude").agents[0]
    assert [c.name for c in moved.components if c.kind == "mcp"] == ["in-config"]
    trial = trial_audit(home, project, "claude-code")  # proctor's trials set it
    assert trial is not None
    assert [c.name for c in trial.agents[0].components if c.kind == "mcp"] == ["in-config"]


def test_a_claude_code_mcp_entry_with_a_url_and_no_type_is_a_decoy(tmp_path: Path) -> None:
    table = {
        "bare": {"url": "https://example.test/mcp"},
        "typed": {"type": "http", "url": "https://example.test/mcp"},
    }
    write(tmp_path / ".claude.json", {"mcpServers": table})
    result = audit_agent("claude-code", tmp_path, None)
    mcp = {c.name: (c.decoy, c.transport) for c in result.components if c.kind == "mcp"}
    assert mcp == {"bare": ("a url needs a type", None), "typed": (None, "http")}
    bare = next(c for c in result.components if c.name == "bare")
    assert describe(bare) == "bare https://example.test/mcp"


def test_gemini_s_disabled_lists_join_across_files_and_name_a_hook_by_its_name(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    named = {"type": "command", "name": "guard", "command": "guard.sh"}
    write(
        home / ".gemini" / "settings.json",
        {
            "skills": {"disabled": ["alpha"]},
            "hooksConfig": {"disabled": ["guard"]},
            "hooks": {"BeforeTool": [{"hooks": [named]}, hook("plain.sh")]},
        },
    )
    write(project / ".gemini" / "settings.json", {"skills": {"disabled": ["beta"]}})
    for name in ("alpha", "beta", "gamma"):
        skill = f"---\nname: {name}\ndescription: d\n---\n"
        (home / ".gemini" / "skills" / name).mkdir(parents=True)
        (home / ".gemini" / "skills" / name / "SKILL.md").write_text(skill)
    result = audit_agent("gemini-cli", home, project)
    assert loaded(result, "skill") == ["gamma"]  # the user's and the project's lists, joined
    hooks = {c.command: c.decoy for c in result.components if c.kind == "hook"}
    assert hooks == {"guard.sh": "disabled (hooksConfig.disabled)", "plain.sh": None}


def test_of_mcp_servers_of_one_name_only_the_winning_scope_s_loads(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    projects = {str(project): {"mcpServers": {"shared": {"command": "local"}}}}
    write(
        home / ".claude.json",
        {
            "mcpServers": {"shared": {"command": "user"}, "own": {"command": "u"}},
            "projects": projects,
        },
    )
    write(project / ".mcp.json", {"mcpServers": {"shared": {"command": "project"}}})
    claude = audit_agent("claude-code", home, project)
    servers = [(c.command, c.decoy) for c in claude.components if c.kind == "mcp"]
    shadowed = f"shadowed by the server of the same name in {home / '.claude.json'}"
    assert sorted(servers) == [
        ("local", None),  # the project's own entry in ~/.claude.json wins
        ("project", shadowed),
        ("u", None),
        ("user", shadowed),
    ]
    write(home / ".gemini" / "settings.json", {"mcpServers": {"g": {"command": "user-g"}}})
    write(project / ".gemini" / "settings.json", {"mcpServers": {"g": {"command": "proj-g"}}})
    gemini = audit_agent("gemini-cli", home, project)
    servers = [(c.command, c.decoy) for c in gemini.components if c.kind == "mcp"]
    assert servers == [
        (
            "user-g",
            f"shadowed by the server of the same name in {project / '.gemini/settings.json'}",
        ),
        ("proj-g", None),
    ]


def test_a_credential_in_a_server_s_command_or_url_is_never_shown(tmp_path: Path) -> None:
    servers = {
        "gh": {"command": "npx", "args": ["gh-server", "--token", "ghp_abc123secret"]},
        "remote": {"type": "http", "url": "https://me:pa55word@example.test/mcp?api_key=sk-1"},
    }
    write(tmp_path / ".claude.json", {"mcpServers": servers})
    from proctor.addons.audit import shown

    report = shown(audit(tmp_path, None, ["claude-code"]))
    (result,) = report.agents
    printed = {c.name: c.command or c.url for c in result.components if c.kind == "mcp"}
    assert printed == {
        "gh": "npx gh-server --token ***",
        "remote": "https://me:***@example.test/mcp?api_key=***",
    }
    assert "ghp_abc123secret" not in report.model_dump_json()
    # The audit as read keeps the commands whole: a check compares them as the user wrote them.
    raw = audit_agent("claude-code", tmp_path, None)
    assert any("ghp_abc123secret" in (c.command or "") for c in raw.components)
    trial = trial_audit(tmp_path, tmp_path, "claude-code")  # what a trial records
    assert trial is not None and "ghp_abc123secret" not in trial.model_dump_json()
