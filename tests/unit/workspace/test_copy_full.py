"""A fixture that cannot be copied (a full disk) is one sentence, not one error per file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import WorkspaceError
from proctor.workspace import fixture


def tree(tmp_path: Path) -> tuple[Path, Path]:
    src, dest = tmp_path / "src", tmp_path / "ws"
    src.mkdir()
    for n in range(5):
        (src / f"f{n}.txt").write_text("x\n")
    dest.mkdir()
    return src, dest


def test_cp_on_a_full_disk_is_one_sentence_and_no_second_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dest = tree(tmp_path)
    said = b"cp: error writing 'ws/f0.txt': No space left on device\n" * 4000

    def full(argv: list[str], **_: Any) -> subprocess.CompletedProcess[bytes]:
        return subprocess.CompletedProcess(argv, 1, b"", said)

    monkeypatch.setattr(fixture.subprocess, "run", full)
    monkeypatch.setattr(fixture.shutil, "copytree", lambda *a, **k: pytest.fail("copied again"))
    with pytest.raises(WorkspaceError) as info:
        fixture._copy_tree(src, dest)
    assert "No space left on device" in str(info.value) and len(str(info.value)) < 300


def test_a_copy_that_fails_file_by_file_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, dest = tree(tmp_path)
    errors = [(f"a{n}", f"b{n}", "[Errno 28] No space left on device") for n in range(4720)]

    def failing(*args: Any, **kwargs: Any) -> None:
        raise shutil.Error(errors)

    monkeypatch.setattr(fixture.shutil, "which", lambda name: None)  # no cp: copytree
    monkeypatch.setattr(fixture.shutil, "copytree", failing)
    with pytest.raises(WorkspaceError) as info:
        fixture._copy_tree(src, dest)
    message = str(info.value)
    assert "4720 files failed" in message and len(message) < 300
