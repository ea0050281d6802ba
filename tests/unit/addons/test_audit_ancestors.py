"""Instruction files in the folders above the project, as far as the home: Claude Code reads
every one (``CLAUDE.md``, ``CLAUDE.local.md``), Codex and Gemini CLI those up to the
repository's root (the nearest folder with a ``.git``)."""

from __future__ import annotations

from pathlib import Path

from proctor.addons.audit import audit_agent


def files(agent: str, home: Path, project: Path) -> list[str]:
    result = audit_agent(agent, home, project)
    assert result.problems == []
    return sorted(str(Path(c.file).relative_to(home)) for c in result.components if c.decoy is None)


def layout(home: Path) -> Path:
    project = home / "repo" / "sub" / "proj"
    project.mkdir(parents=True)
    (home / "repo" / ".git").mkdir()
    for relative in (
        "CLAUDE.md",  # the home itself: above the repository
        "AGENTS.md",
        "GEMINI.md",
        "repo/CLAUDE.local.md",
        "repo/AGENTS.md",
        "repo/GEMINI.md",
        "repo/sub/CLAUDE.md",
        "repo/sub/AGENTS.override.md",
    ):
        (home / relative).write_text("rules\n", encoding="utf-8")
    return project


def test_claude_code_reads_every_folder_above_the_project_up_to_the_home(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    assert files("claude-code", tmp_path, project) == [
        "CLAUDE.md",
        "repo/CLAUDE.local.md",
        "repo/sub/CLAUDE.md",
    ]


def test_codex_and_gemini_cli_read_the_folders_up_to_the_repository_root(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    assert files("codex", tmp_path, project) == ["repo/AGENTS.md", "repo/sub/AGENTS.override.md"]
    assert files("gemini-cli", tmp_path, project) == ["repo/GEMINI.md"]


def test_a_project_that_is_its_repository_s_root_or_in_none_reads_no_folder_above(
    tmp_path: Path,
) -> None:
    project = layout(tmp_path)
    (project / ".git").mkdir()  # the project is the root: nothing above it
    assert files("codex", tmp_path, project) == []
    assert files("gemini-cli", tmp_path, project) == []
    outside = tmp_path / "plain" / "proj"  # in no repository: the project alone
    outside.mkdir(parents=True)
    (tmp_path / "plain" / "AGENTS.md").write_text("x", encoding="utf-8")
    assert files("codex", tmp_path, outside) == []
