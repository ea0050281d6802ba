"""Claude Code loads CLAUDE.md from every folder above its working folder: the trial's
settings list the ones above the workspace in ``claudeMdExcludes``."""

from __future__ import annotations

from pathlib import Path

from proctor.agents.claude_code.adapter import ancestor_memory_files


def test_instruction_files_above_the_workspace_are_listed(tmp_path: Path) -> None:
    workspace = tmp_path / "a" / "b" / "workspace"
    workspace.mkdir(parents=True)
    above = [
        tmp_path / "CLAUDE.md",
        tmp_path / "a" / "CLAUDE.local.md",
        tmp_path / "a" / ".claude" / "CLAUDE.md",
        tmp_path / "a" / "b" / ".claude" / "rules" / "style.md",
    ]
    for path in [*above, workspace / "CLAUDE.md", tmp_path / "a" / "NOTES.md"]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    found = ancestor_memory_files(workspace)
    assert sorted(found) == sorted(str(p) for p in above)  # not the workspace's own, not notes


def test_a_symlinked_path_lists_the_resolved_ancestors_too(tmp_path: Path) -> None:
    real = tmp_path / "real" / "workspace"
    real.mkdir(parents=True)
    (tmp_path / "real" / "CLAUDE.md").write_text("x\n")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert ancestor_memory_files(tmp_path / "link" / "workspace") == [
        str(tmp_path / "link" / "CLAUDE.md"),  # the path Claude Code may be given
        str(tmp_path / "real" / "CLAUDE.md"),  # and the one it may resolve to
    ]
