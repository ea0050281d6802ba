"""remove_partial_writes: the temp files of writes a kill cut off go, and nothing else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from proctor.models.io import remove_partial_writes, write_text_atomic


def test_only_the_temp_files_of_cut_off_writes_are_removed(tmp_path: Path) -> None:
    write_text_atomic(tmp_path / "suite.json", "{}\n")
    cut = tmp_path / ".suite.json.k2x9ab_q.tmp"
    cut.write_text('{"to')
    nested = tmp_path / "trials" / "a" / ".trial.json.0a1b2c3d.tmp"
    nested.parent.mkdir(parents=True)
    nested.write_text("{")
    kept = [
        tmp_path / "notes.tmp",  # not hidden
        tmp_path / ".notes.tmp",  # no random part
        tmp_path / ".suite.json.short.tmp",  # not the random part mkstemp writes
        tmp_path / "trials" / "a" / "x" / "d" / "1" / "workspace" / ".b.0a1b2c3d.tmp",  # agent's
    ]
    # A case named like an agent folder is no trial's workspace: its cut-off writes go.
    case_named_so = tmp_path / "trials" / "workspace" / ".trial.json.0a1b2c3d.tmp"
    case_named_so.parent.mkdir(parents=True)
    case_named_so.write_text("{")
    for path in kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("mine")
    removed = remove_partial_writes(tmp_path, skip=frozenset({"workspace"}))
    assert sorted(removed) == sorted([cut, nested, case_named_so])
    assert not cut.exists() and not nested.exists()
    assert all(path.read_text() == "mine" for path in kept)
    assert (tmp_path / "suite.json").read_text() == "{}\n"


def test_control_the_pattern_matches_what_write_text_atomic_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write killed between the temp file and the rename leaves a file the sweep finds."""
    seen: list[str] = []

    def killed(src: str, dst: str) -> None:
        raise KeyboardInterrupt  # stands for the kill

    def kept(self: Path, missing_ok: bool = False) -> None:
        seen.append(self.name)  # a SIGKILL would not have unlinked it

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", killed)
        patched.setattr(Path, "unlink", kept)
        with pytest.raises(KeyboardInterrupt):
            write_text_atomic(tmp_path / "run.json", "{}\n")
    (left,) = seen
    assert remove_partial_writes(tmp_path) == [tmp_path / left]
