"""Workspace globs: a path too long to read is said in a sentence, not printed whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proctor.util.globbing import glob_workspace


def _deep(root: Path) -> None:
    """Folders nested past PATH_MAX (4096 bytes), made one step at a time as an agent can."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(20):
            os.mkdir("d" * 250, dir_fd=fd)
            inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("left.orig", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


@pytest.mark.parametrize("contained", [True, False])
def test_a_path_longer_than_the_system_allows_is_named_by_its_length(
    tmp_path: Path, contained: bool
) -> None:
    _deep(tmp_path)
    with pytest.raises(
        OSError, match=r"holds a path longer than the system allows \(\d+ char"
    ) as e:
        glob_workspace(tmp_path, "**/*.orig", contained=contained)
    assert len(str(e.value)) < 200 and "ddd" not in str(e.value)


def test_control_a_shallow_tree_is_matched(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "left.orig").write_text("")
    (tmp_path / "top.orig").write_text("")
    assert glob_workspace(tmp_path, "**/*.orig") == ["a/b/left.orig", "top.orig"]
    assert glob_workspace(tmp_path, "*.orig") == ["top.orig"]
