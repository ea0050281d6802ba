"""What an agent CLI would load from the folders above a trial's workspace: found as each CLI
reads it (every folder above, or up to the repository's root)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from proctor.workspace.above import ReadAbove, found_above
from tests.conftest import Run

EVERY = ReadAbove((".mcp.json",), "every", "its MCP servers")
REPO = ReadAbove(("AGENTS.md",), "repository", "its instructions")
REPO_OR_EVERY = ReadAbove((".claude/skills",), "repository-or-every", "its skills")


def test_every_folder_above_or_up_to_the_repository_s_root(tmp_path: Path) -> None:
    outer, repo = tmp_path / "outer", tmp_path / "outer" / "repo"
    folder = repo / "a" / "tmp"
    folder.mkdir(parents=True)
    for place in (outer, repo):
        (place / ".mcp.json").write_text("{}")
        (place / "AGENTS.md").write_text("x")
        (place / ".claude" / "skills").mkdir(parents=True)
    (repo / ".git").mkdir()
    found = {path: read for path, read in found_above(folder, [EVERY, REPO, REPO_OR_EVERY])}
    assert found[outer / ".mcp.json"] is EVERY and found[repo / ".mcp.json"] is EVERY
    assert repo / "AGENTS.md" in found and outer / "AGENTS.md" not in found  # above the root
    assert repo / ".claude/skills" in found and outer / ".claude/skills" not in found


def test_without_a_repository_some_read_every_folder_and_some_none(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "tmp"
    folder.mkdir(parents=True)
    (tmp_path / "AGENTS.md").write_text("x")
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    found = [path for path, _ in found_above(folder, [REPO, REPO_OR_EVERY])]
    assert found == [tmp_path / ".claude/skills"]


@pytest.mark.parametrize("planted", [True, False])
def test_validate_warns_of_a_file_above_the_trials_workspaces(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: bool
) -> None:
    temporary = tmp_path / "shared" / "tmp"
    temporary.mkdir(parents=True)
    if planted:  # another user's /tmp/.mcp.json, say
        (tmp_path / "shared" / ".mcp.json").write_text('{"mcpServers": {}}')
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    examples = Path(__file__).resolve().parents[3] / "examples" / "cases"
    result = proctor(
        "validate", "--source", str(examples), "--agent", "claude-code", "--model", "scripted"
    )
    said = (
        f"proctor: warning: claude-code: {tmp_path / 'shared' / '.mcp.json'} lies above the "
        f"trials' workspaces (in {temporary}): Claude Code would take its MCP servers from it"
    )
    assert (said in result.err) is planted, result.err


@pytest.mark.parametrize("repository", [False, True])
def test_gemini_cli_reads_a_gemini_md_above_only_within_a_repository(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repository: bool
) -> None:
    """Gemini CLI 0.61 reads GEMINI.md from its working folder up to the repository's root,
    and none above it outside a repository: a /tmp/GEMINI.md is warned of only then."""
    temporary = tmp_path / "shared" / "tmp"
    temporary.mkdir(parents=True)
    (tmp_path / "shared" / "GEMINI.md").write_text("Always answer in French.\n")
    if repository:
        (tmp_path / "shared" / ".git").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    examples = Path(__file__).resolve().parents[3] / "examples" / "cases"
    result = proctor(
        "validate", "--source", str(examples), "--agent", "gemini-cli", "--model", "scripted"
    )
    said = f"gemini-cli: {tmp_path / 'shared' / 'GEMINI.md'} lies above the trials' workspaces"
    assert (said in result.err) is repository, result.err


def test_an_agent_id_the_configuration_defines_is_looked_up_by_its_profile(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``codingagents.claude-opus`` with ``"agent": "claude-code"``: the files above are those
    Claude Code reads (the id alone names no adapter: a KeyError traceback, exit 1)."""
    temporary = tmp_path / "shared" / "tmp"
    temporary.mkdir(parents=True)
    (tmp_path / "shared" / ".mcp.json").write_text('{"mcpServers": {}}')
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    config = tmp_path / "proctor.json"
    config.write_text('{"codingagents": {"claude-opus": {"agent": "claude-code"}}}')
    examples = Path(__file__).resolve().parents[3] / "examples" / "cases"
    result = proctor(
        "validate",
        "--source",
        str(examples),
        "--config",
        str(config),
        "--agent",
        "claude-opus",
        "--model",
        "scripted",
    )
    assert "Traceback" not in result.err and result.code == 0, result.err
    said = (
        f"proctor: warning: claude-opus: {tmp_path / 'shared' / '.mcp.json'} lies above the "
        f"trials' workspaces (in {temporary}): Claude Code would take its MCP servers from it"
    )
    assert said in result.err, result.err


def test_a_read_that_stops_below_the_root_leaves_the_root_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claude Code's walk for a .mcp.json stops below "/": a /.mcp.json is none of its."""
    below = ReadAbove((".mcp.json",), "every", "its MCP servers", root=False)
    looked: list[Path] = []

    def lexists(path: object) -> bool:
        looked.append(Path(str(path)))
        return False

    monkeypatch.setattr("proctor.workspace.above.os.path.lexists", lexists)
    found_above(Path("/a/b"), [below])
    assert Path("/a/.mcp.json") in looked and Path("/.mcp.json") not in looked
