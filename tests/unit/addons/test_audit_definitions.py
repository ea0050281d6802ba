"""Slash commands and subagents in the audit: each agent's folders, user, project and plugin."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.addons.audit import audit
from proctor.addons.audit.render import render_text

AGENT_MD = "---\nname: {name}\ndescription: does {name}\n---\nYou are {name}.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def found(report: object, agent: str, kind: str) -> dict[str, tuple[str, str | None]]:
    agent_audit = report.for_agent(agent)  # type: ignore[attr-defined]
    return {c.name: (c.scope, c.decoy) for c in agent_audit.components if c.kind == kind}


def test_claude_code_commands_and_subagents_of_user_project_and_plugin(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(home / ".claude" / "commands" / "review.md", "Review $ARGUMENTS\n")
    write(home / ".claude" / "commands" / "frontend" / "component.md", "Make one\n")
    write(home / ".claude" / "agents" / "reviewer.md", AGENT_MD.format(name="code-reviewer"))
    write(home / ".claude" / "agents" / "notes.md", "no front matter\n")
    write(project / ".claude" / "commands" / "ship.md", "Ship it\n")
    write(project / ".claude" / "agents" / "tester.md", AGENT_MD.format(name="tester"))
    plugin = home / ".claude" / "plugins" / "cache" / "m" / "tidy" / "1.0.0"
    write(plugin / ".claude-plugin" / "plugin.json", '{"name": "tidy"}')
    write(plugin / "commands" / "tidy.md", "Tidy\n")
    write(plugin / "agents" / "tidier.md", AGENT_MD.format(name="tidier"))
    installed = {"version": 2, "plugins": {"tidy@m": [{"installPath": str(plugin)}]}}
    write(home / ".claude" / "plugins" / "installed_plugins.json", json.dumps(installed))
    write(home / ".claude" / "settings.json", '{"enabledPlugins": {"tidy@m": true}}')
    report = audit(home, project, ["claude-code"])
    assert found(report, "claude-code", "command") == {
        "component": ("user", None),
        "review": ("user", None),
        "tidy:tidy": ("plugin", None),
        "ship": ("project", None),
    }
    assert found(report, "claude-code", "subagent") == {
        "notes": ("user", "no front matter giving a name and a description"),
        "code-reviewer": ("user", None),
        "tidy:tidier": ("plugin", None),
        "tester": ("project", None),
    }
    text = render_text(report)
    assert "  slash commands:\n    component  (" in text
    assert "  subagents:\n" in text


def test_gemini_cli_and_codex_commands_and_subagents(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    write(home / ".gemini" / "commands" / "gcs" / "sync.toml", 'prompt = "sync"\n')
    write(home / ".gemini" / "agents" / "auditor.md", AGENT_MD.format(name="auditor"))
    write(project / ".gemini" / "commands" / "deploy.toml", 'prompt = "deploy"\n')
    ext = home / ".gemini" / "extensions" / "gext"
    write(ext / "gemini-extension.json", '{"name": "gext", "version": "1.0.0"}')
    write(ext / "commands" / "fs" / "grep-code.toml", 'prompt = "grep"\n')
    write(home / ".codex" / "prompts" / "draft.md", "Draft a PR\n")
    report = audit(home, project, ["codex", "gemini-cli"])
    assert found(report, "gemini-cli", "command") == {
        "gcs:sync": ("user", None),
        "fs:grep-code": ("plugin", None),
        "deploy": ("project", None),
    }
    assert found(report, "gemini-cli", "subagent") == {"auditor": ("user", None)}
    assert found(report, "codex", "command") == {"prompts:draft": ("user", None)}
    off = '{"experimental": {"enableAgents": false}}'
    write(project / ".gemini" / "settings.json", off)
    report = audit(home, project, ["gemini-cli"])
    assert found(report, "gemini-cli", "subagent") == {
        "auditor": ("user", "subagents switched off (experimental.enableAgents)")
    }
