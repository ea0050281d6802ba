"""The audit finds exactly what proctor's own provisioning writes: a case's skills, hooks, MCP
servers and plugins provisioned by each real adapter into a scratch home."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proctor.addons.audit import audit
from proctor.agents.base import adapter_for
from proctor.agents.protocol import LaunchContext
from proctor.models.config import AgentProfile, Provision

SKILL = "---\nname: tidy\ndescription: tidy up\n---\nTidy.\n"


def case_folder(root: Path) -> Path:
    case = root / "case"
    (case / "skills" / "tidy").mkdir(parents=True)
    (case / "skills" / "tidy" / "SKILL.md").write_text(SKILL)
    plugin = case / "plugins" / "fmt"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "fmt"}))
    (plugin / "skills" / "style").mkdir(parents=True)
    (plugin / "skills" / "style" / "SKILL.md").write_text(SKILL)
    (plugin / "hooks").mkdir()
    hooks = {"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "fmt.sh"}]}]}}
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return case


PROVISION = {
    "skills": [{"name": "tidy", "path": "skills/tidy"}],
    "plugins": [{"name": "fmt", "path": "plugins/fmt"}],
    "mcps": [
        {"name": "notes", "command": "notes-server", "args": ["--stdio"]},
        {"name": "search", "url": "https://example.test/mcp"},
    ],
    "hooks": [{"name": "guard", "event": "PreToolUse", "matcher": "Bash", "command": "guard.sh"}],
}

EXPECTED = {
    "claude-code": {
        ("skill", "tidy"),
        ("plugin", "fmt"),
        ("skill", "fmt:style"),
        ("hook", "PostToolUse"),
        ("mcp", "notes"),
        ("mcp", "search"),
        ("hook", "PreToolUse:Bash"),
    },
    # Codex and Gemini CLI have no plugin provisioning: the case's plugin is not theirs.
    "codex": {("skill", "tidy"), ("mcp", "notes"), ("mcp", "search"), ("hook", "PreToolUse:Bash")},
    "gemini-cli": {
        ("skill", "tidy"),
        ("mcp", "notes"),
        ("mcp", "search"),
        ("hook", "BeforeTool:run_shell_command"),
    },
}


@pytest.mark.parametrize("agent", sorted(EXPECTED))
def test_audit_reports_what_provisioning_wrote(tmp_path: Path, agent: str) -> None:
    scratch = tmp_path / "scratch"
    workspace = scratch / "workspace"
    workspace.mkdir(parents=True)
    home = scratch / "home"
    binary = shutil.which("true")
    assert binary is not None
    adapter = adapter_for(agent, {})
    launch = adapter.prepare(
        LaunchContext(
            workspace=workspace,
            home=home,
            scratch=scratch,
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
            profile=AgentProfile(binary=binary),
            plan=None,
            repeat=1,
            session_id="11111111-2222-3333-4444-555555555555",
            provision=Provision.model_validate(PROVISION),
            mode="headless",
            case_dir=case_folder(tmp_path),
        )
    )
    report = audit(home, workspace, [agent], launch_args=launch.argv)
    result = report.for_agent(agent)
    assert result is not None
    assert result.decoys() == [] and result.problems == []
    loaded = [(c.kind, c.name) for c in result.loaded()]
    if agent == "codex":  # one skill, provisioned into both roots Codex reads
        files = {c.file for c in result.loaded() if c.kind == "skill"}
        assert files == {
            str(home / ".agents" / "skills" / "tidy" / "SKILL.md"),
            str(home / ".codex" / "skills" / "tidy" / "SKILL.md"),
        }
        loaded.remove(("skill", "tidy"))
    assert len(loaded) == len(set(loaded)), f"reported twice: {loaded}"
    assert set(loaded) == EXPECTED[agent]
    mcp = {c.name: c for c in result.loaded() if c.kind == "mcp"}
    assert mcp["notes"].transport == "stdio" and mcp["notes"].command == "notes-server --stdio"
    assert mcp["search"].url == "https://example.test/mcp"


def test_control_without_the_launch_args_claude_codes_plugin_is_missed(tmp_path: Path) -> None:
    """Claude Code gets plugins and MCP servers on its command line: an audit of the home alone
    does not see them, so the comparison above depends on reading the launch."""
    scratch = tmp_path / "scratch"
    (scratch / "workspace").mkdir(parents=True)
    binary = shutil.which("true")
    assert binary is not None
    adapter_for("claude-code", {}).prepare(
        LaunchContext(
            workspace=scratch / "workspace",
            home=scratch / "home",
            scratch=scratch,
            env={"HOME": str(scratch / "home")},
            profile=AgentProfile(binary=binary),
            plan=None,
            repeat=1,
            session_id="11111111-2222-3333-4444-555555555555",
            provision=Provision.model_validate(PROVISION),
            mode="headless",
            case_dir=case_folder(tmp_path),
        )
    )
    result = audit(scratch / "home", scratch / "workspace", ["claude-code"]).agents[0]
    names = {(c.kind, c.name) for c in result.loaded()}
    assert names != EXPECTED["claude-code"]
    assert ("plugin", "fmt") not in names and ("mcp", "notes") not in names
