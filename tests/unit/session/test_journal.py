"""The run journal keeps a line for every trial, whatever its case folder is named."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from proctor.execute.events import TrialStarted
from proctor.session import journal
from proctor.session.journal import Journal, live_orchestrator, live_workers, note, read
from proctor.util.processes import process_start


def test_a_case_folder_named_in_bytes_that_are_not_utf8_keeps_its_trial_lines(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    odd = os.fsdecode(b"bad\xffname")  # as Python names such a folder: a lone surrogate
    pid = os.getpid()
    for case in (odd, "after"):
        journal(TrialStarted(case=case, agent="scripted", condition="default", repeat=1, pid=pid))
    entries = list(read(path))
    assert [e.case for e in entries] == ["bad\\xffname", "after"]  # the byte shown escaped
    assert process_start(pid) is not None
    assert set(live_workers(path)) == {
        ("bad\\xffname", "scripted", "default", 1),
        ("after", "scripted", "default", 1),
    }


def test_a_line_after_a_cut_one_starts_on_its_own_line(tmp_path: Path) -> None:
    """A crash (or a full disk) that cut the last line leaves it cut, and the next line, a
    resume's first, is written on a line of its own: read, and naming its orchestrator."""
    path = tmp_path / "journal.jsonl"
    note(path, "run-started")
    whole = path.read_bytes()
    path.write_bytes(whole + whole[:40])  # a second line cut short
    note(path, "run-resumed")
    assert [e.event for e in read(path)] == ["run-started", "run-resumed"]
    assert live_orchestrator(path) == os.getpid()


def test_a_journal_line_the_disk_refuses_names_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk refusing a line is said naming the journal, as a refused record is."""
    path = tmp_path / "journal.jsonl"

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.os, "write", full)
    with pytest.raises(OSError) as refused:
        note(path, "run-started")
    assert refused.value.errno == errno.ENOSPC and refused.value.filename == str(path)
