"""The run journal keeps a line for every trial, whatever its case folder is named."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from proctor.execute.events import TrialStarted
from proctor.models.run import JournalEntry
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


def test_a_trial_that_runs_again_is_no_live_worker_until_it_starts_again(
    tmp_path: Path,
) -> None:
    """An attempt retried after a transient error (``trial-retried``) ended its worker: a
    resume finds no worker of the trial to stop until its next attempt starts one."""
    from proctor.execute.events import TrialRetried
    from proctor.models.trial import TrialRecord

    path = tmp_path / "journal.jsonl"
    journal = Journal(path)
    key = ("c", "scripted", "default", 1)
    journal(TrialStarted(*key, pid=os.getpid()))  # (this process: alive, as a worker can be)
    reason = "rate limited: 429 too many requests"
    record = TrialRecord(case="c", agent="scripted", repeat=1, status="agent-error", reason=reason)
    journal(TrialRetried(record, 1, 3, "attempts/1"))
    retried = list(read(path))[-1]
    assert (retried.event, retried.attempt, retried.status, retried.reason, retried.folder) == (
        "trial-retried",
        1,
        "agent-error",
        reason,
        "attempts/1",
    )
    assert live_workers(path) == {}
    journal(TrialStarted(*key, pid=os.getpid()))
    assert live_workers(path) == {key: os.getpid()}


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


def test_a_run_folder_is_removed_as_not_started_only_when_it_holds_this_run_s_first_line(
    tmp_path: Path,
) -> None:
    own, other, extra = tmp_path / "own", tmp_path / "other", tmp_path / "extra"
    for root in (own, other, extra):
        root.mkdir()
        journal.note(root / "journal.jsonl", "run-started")
    (own / ".config.json.ab12cd34.tmp").write_text("{")  # a write the full disk cut off
    line = json.loads((other / "journal.jsonl").read_text())
    (other / "journal.jsonl").write_text(json.dumps({**line, "pid": line["pid"] + 1}) + "\n")
    with (extra / "journal.jsonl").open("a") as more:
        more.write('{"event": "run-finished"}\n')
    assert journal.discard_unstarted(own) and not own.exists()
    assert not journal.discard_unstarted(other) and (other / "journal.jsonl").exists()
    assert not journal.discard_unstarted(extra) and (extra / "journal.jsonl").exists()


def test_an_orchestrator_killed_and_left_a_zombie_is_not_running(tmp_path: Path) -> None:
    """A ``proctor run`` killed under a parent that has not waited for it (a Python harness's
    ``Popen``, a CI supervisor) is a zombie: `proctor report` read it as still running (exit
    75, `--write` refused) until its parent reaped it, and a resume as going on."""
    import signal
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        path = tmp_path / "journal.jsonl"
        start = process_start(child.pid)
        assert start is not None
        journal.append(
            path,
            JournalEntry(
                event="run-started", time="2026-01-01T00:00:00Z", pid=child.pid, pid_start=start
            ),
        )
        assert live_orchestrator(path) == child.pid  # the control: running, it is live
        os.kill(child.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # killed, not yet waited for: a zombie
            with open(f"/proc/{child.pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    break
            time.sleep(0.01)
        assert process_start(child.pid) is None
        assert live_orchestrator(path) is None
    finally:
        child.kill()
        child.wait()


def test_the_trials_started_and_never_recorded_are_those_of_the_last_stretch(
    tmp_path: Path,
) -> None:
    """A trial the first stretch started and left unrecorded is cleared by the resume that
    follows, to run again: a resume stopped before it reached the trial left it not started,
    and it was counted as "started but never recorded"."""
    from proctor.models.journal import started_trials, unrecorded

    path = tmp_path / "journal.jsonl"

    def line(event: str, repeat: int | None = None) -> str:
        entry = JournalEntry(event=event, time="2026-12-01T00:00:00Z")  # type: ignore[arg-type]
        if repeat is not None:
            entry = JournalEntry(
                event=event,  # type: ignore[arg-type]
                time="2026-12-01T00:00:01Z",
                case="fix",
                agent="scripted",
                condition="default",
                repeat=repeat,
            )
        return entry.model_dump_json(by_alias=True, exclude_none=True) + "\n"

    path.write_text(line("run-started") + line("trial-started", 1) + line("trial-started", 2))
    planned = [("fix", "scripted", "default", r) for r in (1, 2, 3)]
    assert started_trials(path) == set(planned[:2])
    assert unrecorded(path, planned, []) == 2  # killed with the run: started, no record
    with path.open("a") as fh:  # a resume, stopped once it started trial 2 again
        fh.write(line("run-resumed") + line("trial-started", 2))
    assert started_trials(path) == {planned[1]}
    assert unrecorded(path, planned, []) == 1
    with path.open("a") as fh:  # its attempt ended to run again: waiting, not running
        fh.write(line("trial-retried", 2))
    assert started_trials(path) == set()
    assert unrecorded(path, planned, []) == 0
    with path.open("a") as fh:  # its next attempt started
        fh.write(line("trial-started", 2))
    assert started_trials(path) == {planned[1]}


def test_the_folders_made_for_a_run_that_did_not_start_go_with_it_when_empty(
    tmp_path: Path,
) -> None:
    out = tmp_path / "a" / "out"
    root = out / "run-x"
    root.mkdir(parents=True)
    journal.note(root / "journal.jsonl", "run-started")
    error = OSError(errno.ENOSPC, "No space left on device")
    journal.not_started(root, error, [out, out.parent])
    assert not (tmp_path / "a").exists()
    assert error.__notes__ == ["the run did not start; its folder was removed"]
    kept = tmp_path / "kept"
    (kept / "run-y").mkdir(parents=True)
    (kept / "notes.md").write_text("mine")
    journal.note(kept / "run-y" / "journal.jsonl", "run-started")
    journal.not_started(kept / "run-y", OSError(errno.ENOSPC, "full"), [kept])
    assert [p.name for p in kept.iterdir()] == ["notes.md"]
