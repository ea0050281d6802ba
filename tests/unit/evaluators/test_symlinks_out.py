"""Files reached through a symlink that leads out of the workspace are not workspace files."""

from pathlib import Path

from proctor.evaluators.file_exists import glob_workspace
from proctor.llm.judge import collect_artifacts


def workspace_with_links(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("KEY=planted")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("mine")
    (ws / "out").symlink_to(outside)
    (ws / "NOTES.md").symlink_to(outside / "secret.txt")
    (ws / "alias.md").symlink_to(ws / "notes.md")
    return ws


def test_must_globs_ignore_what_symlinks_lead_out_to(tmp_path: Path) -> None:
    ws = workspace_with_links(tmp_path)
    assert glob_workspace(ws, "out/secret.txt") == []
    assert glob_workspace(ws, "*.md") == ["alias.md", "notes.md"]


def test_control_must_not_sees_every_name(tmp_path: Path) -> None:
    ws = workspace_with_links(tmp_path)
    assert glob_workspace(ws, "out/*", contained=False) == ["out/secret.txt"]


def test_the_judge_never_reads_a_file_outside_the_workspace(tmp_path: Path) -> None:
    ws = workspace_with_links(tmp_path)
    artifacts = collect_artifacts(ws, ["*.md", "out/*"])
    assert [name for name, _ in artifacts] == ["alias.md", "notes.md"]
    assert all("planted" not in text for _, text in artifacts)
