"""``t.send(..., workspace_dir=…)`` copies the folder into the workspace with each link as
what it points to, followed from the link's own folder whatever the current folder is."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.evals.context import TestContext


def seed_folder(tmp_path: Path) -> Path:
    seed = tmp_path / "project" / "seed"
    (seed / "sub").mkdir(parents=True)
    (seed / "a.txt").write_text("A\n")
    (seed / "link.txt").symlink_to("a.txt")  # relative, beside it
    (seed / "sub" / "x").symlink_to("../a.txt")  # relative, in the folder above
    (seed / "gone.txt").symlink_to("nowhere.txt")  # leads nowhere
    (seed / "self.txt").symlink_to("self.txt")  # leads to itself: nowhere
    (tmp_path / "outside.txt").write_text("O\n")
    (seed / "out.txt").symlink_to("../../outside.txt")  # relative, out of the seed folder
    return seed


@pytest.mark.parametrize("where", ["project", "project/seed", "."])
def test_relative_links_are_copied_whatever_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    seed = seed_folder(tmp_path)
    monkeypatch.chdir(tmp_path / where)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    TestContext(None)._seed(workspace, None, seed)
    copied = sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*"))
    assert copied == ["a.txt", "link.txt", "out.txt", "sub", "sub/x"]
    assert (workspace / "link.txt").read_text() == "A\n" and (workspace / "sub/x").read_text()
    assert (workspace / "out.txt").read_text() == "O\n"
    assert not any(p.is_symlink() for p in workspace.rglob("*"))  # copies, never links


def test_a_link_to_a_folder_above_it_is_still_named_as_a_loop(tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    (seed / "pkg").mkdir(parents=True)
    (seed / "pkg" / "loop").symlink_to("..")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with pytest.raises(RuntimeError, match=r"pkg/loop is a symlink loop \(it points to '\.\.'"):
        TestContext(None)._seed(workspace, None, seed)
