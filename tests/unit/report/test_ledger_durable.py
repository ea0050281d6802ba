"""The findings ledger reaches the disk before its write returns (the file, then the rename in
its folder), so that a power loss leaves the old ledger or the new one; records a run can
write again are not flushed."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from proctor.models.findings import FindingsLedger
from proctor.models.io import write_record
from proctor.report.findings import ledger_path, load_ledger, save_ledger


def _flushed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    kinds: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        kinds.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return kinds


def test_the_ledger_is_flushed_file_then_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kinds = _flushed(monkeypatch)
    save_ledger(tmp_path, FindingsLedger())
    assert kinds == ["file", "folder"]
    assert ledger_path(tmp_path).exists()
    assert load_ledger(tmp_path) == FindingsLedger()


def test_other_records_are_not_flushed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kinds = _flushed(monkeypatch)
    write_record(tmp_path / "suite.json", FindingsLedger())
    assert kinds == []


def test_a_temp_file_a_killed_write_left_is_removed_by_the_next_write(tmp_path: Path) -> None:
    """A write killed between its temp file and the rename leaves ``.findings.json.*.tmp``;
    the next write removes it, but not a young one (another process may be writing it) nor
    another record's."""
    stale = tmp_path / ".findings.json.k2x9ab_q.tmp"
    young = tmp_path / ".findings.json.a1b2c3d4.tmp"
    other = tmp_path / ".suite.json.k2x9ab_q.tmp"
    for path in (stale, young, other):
        path.write_text('{"schemaVersion": 2, "ru')
    an_hour_ago = time.time() - 3600
    for path in (stale, other):
        os.utime(path, (an_hour_ago, an_hour_ago))
    save_ledger(tmp_path, FindingsLedger())
    assert not stale.exists()
    assert young.exists() and other.exists()
    assert load_ledger(tmp_path) == FindingsLedger()
