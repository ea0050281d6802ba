"""The project's entry in Claude Code's ``~/.claude.json``: which entry is the project's, and
the servers it switches off. Both measured with Claude Code 2.1.197 (``claude -p`` reports each
server of its ``system/init`` event as ``failed`` when it tried it, ``disabled`` otherwise)."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.addons.audit import audit_agent


def mcp(home: Path, project: Path) -> dict[str, str | None]:
    result = audit_agent("claude-code", home, project)
    return {c.name: c.decoy for c in result.components if c.kind == "mcp"}


def test_the_entry_of_a_project_inside_a_repository_is_the_repository_root_s(
    tmp_path: Path,
) -> None:
    """Run from ``repo/sub``, Claude Code reads the entry keyed by ``repo`` (the folder with
    the ``.git``), not one keyed by ``repo/sub``."""
    home, repo = tmp_path, tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    projects = {
        str(repo): {"mcpServers": {"at-root": {"command": "a"}}},
        str(repo / "sub"): {"mcpServers": {"at-sub": {"command": "b"}}},
    }
    (home / ".claude.json").write_text(json.dumps({"projects": projects}))
    assert mcp(home, repo / "sub") == {"at-root": None}
    assert mcp(home, repo) == {"at-root": None}


def test_servers_the_project_s_entry_switches_off_are_decoys(tmp_path: Path) -> None:
    """``disabledMcpServers`` in the project's entry (what ``/mcp`` writes when a server is
    switched off) keeps the user's and the project's servers of those names from starting."""
    home, project = tmp_path, tmp_path / "proj"
    project.mkdir()
    state = {
        "mcpServers": {"mine": {"command": "a"}, "off": {"command": "b"}},
        "projects": {
            str(project): {
                "mcpServers": {"local": {"command": "c"}},
                "disabledMcpServers": ["off", "local"],
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(state))
    off = f"disabled (disabledMcpServers in {home / '.claude.json'})"
    assert mcp(home, project) == {"mine": None, "off": off, "local": off}
