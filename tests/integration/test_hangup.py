"""SIGHUP (the terminal a command was started from is closed, an ssh session drops) stops a
command as SIGTERM does: exit 130, the run ends as interrupted with its records written, and
nothing it started is left running, even when its output has nowhere to go any more."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import processes_with, single_run_dir, write_case


def hang_up_by_default() -> None:
    """In the command's process before it starts: SIGHUP's default action, whatever the test
    process had (an in-process run stopped by an earlier test leaves it ignored, as proctor
    does while it stops; a suite started under nohup ignores it), since proctor keeps a
    SIGHUP it finds ignored ignored, as under nohup."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def sleeps(marker: str) -> list[int]:
    """The ``sleep`` processes holding ``marker``: one per started trial (each trial's
    ``sh -c`` holds the marker too, so counting every process would count one trial twice)."""
    found = []
    for pid in processes_with(marker):
        try:
            argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0]
        except OSError:
            continue
        if Path(argv0.decode(errors="replace")).name == "sleep":
            found.append(pid)
    return found


@pytest.mark.parametrize("output_gone", [False, True])
def test_sighup_stops_a_run_as_sigterm_does(tmp_path: Path, output_gone: bool) -> None:
    marker = f"300.{uuid.uuid4().int % 10**9:09d}"  # a sleep no other process runs
    cases = tmp_path / "cases"
    write_case(
        cases,
        "slow",
        plan={"turns": [{"shell": f"sleep {marker}"}]},
        config={"timeoutSec": 600, "repeats": 2},
    )
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "proctor", "run", "--source", str(cases), "--out", str(out)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own group, hung up as a terminal's foreground group is
        preexec_fn=hang_up_by_default,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(sleeps(marker)) < 2:
            time.sleep(0.05)
        assert len(sleeps(marker)) >= 2, "the agents never started"
        if output_gone:  # the terminal is gone: writing to it fails
            assert proc.stdout is not None and proc.stderr is not None
            proc.stdout.close()
            proc.stderr.close()
        os.killpg(proc.pid, signal.SIGHUP)
        if output_gone:
            proc.wait(timeout=60)
            err = b""
        else:
            _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode()
    assert b"Traceback" not in err
    if not output_gone:
        assert b"interrupted" in err
    run_dir = single_run_dir(out)
    suite = json.loads((run_dir / "suite.json").read_text())
    assert suite["interrupted"] is True
    trials = sorted(run_dir.glob("trials/slow/scripted/default/*/trial.json"))
    assert len(trials) == 2
    for trial in trials:  # recorded as cut short by the stop, for --resume
        assert json.loads(trial.read_text())["reason"].startswith("interrupted:")
    deadline = time.monotonic() + 15
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == [], "an agent's process outlived the run"


def _stopped_by(signum: int, argv: list[str], ready: bytes, tmp_path: Path) -> tuple[int, bytes]:
    """The exit code and output of ``proctor ARGV`` sent ``signum`` once its output says
    ``ready``."""
    err_file = tmp_path / f"err-{signum}.txt"
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    with err_file.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "proctor", *argv],
            stdin=subprocess.DEVNULL,
            stdout=err,
            stderr=err,
            start_new_session=True,
            preexec_fn=hang_up_by_default,
            env=env,
            cwd=tmp_path,
        )
        try:
            deadline = time.monotonic() + 60
            while ready not in err_file.read_bytes() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            os.killpg(proc.pid, signum)
            code = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
    return code, err_file.read_bytes()


def test_sighup_ends_the_viewer_as_sigterm_does(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    argv = ["view", str(tmp_path / "results"), "--port", "0", "--no-open"]
    term = _stopped_by(signal.SIGTERM, argv, b"proctor: viewing", tmp_path)
    hup = _stopped_by(signal.SIGHUP, argv, b"proctor: viewing", tmp_path)
    assert hup[0] == term[0] and hup[0] >= 0, hup[1].decode()
    assert b"Traceback" not in hup[1]
