"""run_captured: the line's own exit decides, the deadline holds, and nothing outlives the call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from proctor.errors import WorkspaceError
from proctor.execute.prepare import shell_lines
from proctor.util import processes
from proctor.util.processes import Outcome, run_captured
from tests.unit.evaluators.helpers import context, evaluate

TAG = "PROCTOR_TEST_TAG"


def _alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (killed, not yet reaped by init) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _tagged(tag: str) -> list[int]:
    """Live processes whose environment carries ``PROCTOR_TEST_TAG=<tag>``."""
    needle = f"\0{TAG}={tag}\0".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in b"\0" + (entry / "environ").read_bytes() and _alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _gone_soon(check: Callable[[], object], seconds: float = 5.0) -> bool:
    """Poll ``check()`` until it is falsy; SIGKILL is delivered asynchronously."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not check():
            return True
        time.sleep(0.05)
    return not check()


def _run(line: str, tmp_path: Path, timeout: float, tag: str = "") -> tuple[float, Outcome]:
    env = {**os.environ, TAG: tag or uuid.uuid4().hex}
    t0 = time.monotonic()
    outcome = run_captured(["/bin/sh", "-c", line], cwd=tmp_path, env=env, timeout=timeout)
    return time.monotonic() - t0, outcome


def test_background_child_does_not_hold_the_result(tmp_path: Path) -> None:
    elapsed, outcome = _run("sleep 30 & echo started $!", tmp_path, timeout=3)
    assert not outcome.timed_out and outcome.returncode == 0
    assert elapsed < 3
    words = outcome.stdout.split()
    assert words[0] == "started"
    sleeper = int(words[1])
    assert _gone_soon(lambda: _alive(sleeper))


def test_setsid_escapee_cannot_stretch_the_timeout(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    elapsed, outcome = _run("setsid sleep 25 & echo x; sleep 30", tmp_path, timeout=2, tag=tag)
    assert outcome.timed_out
    assert elapsed < 10
    assert outcome.stdout.strip() == "x"
    assert _gone_soon(lambda: _tagged(tag))


def test_setsid_escapee_is_killed_when_the_line_succeeds(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex
    elapsed, outcome = _run("setsid sleep 25 & echo ok", tmp_path, timeout=5, tag=tag)
    assert not outcome.timed_out and outcome.returncode == 0
    assert elapsed < 5
    assert _gone_soon(lambda: _tagged(tag))


def test_control_the_probe_sees_a_live_tagged_process() -> None:
    tag = uuid.uuid4().hex
    proc = subprocess.Popen(["sleep", "30"], env={**os.environ, TAG: tag})
    try:
        time.sleep(0.2)
        assert _tagged(tag) == [proc.pid] and _alive(proc.pid)
    finally:
        proc.kill()
        proc.wait()


def test_control_a_failing_line_keeps_its_exit_code_and_output(tmp_path: Path) -> None:
    _, outcome = _run("echo out; echo err >&2; exit 7", tmp_path, timeout=5)
    assert not outcome.timed_out and outcome.returncode == 7
    assert outcome.stdout == "out\n" and outcome.stderr == "err\n"


def test_stdin_reaches_the_program(tmp_path: Path) -> None:
    outcome = run_captured(
        [sys.executable, "-c", "import sys; print(sys.stdin.read()[::-1])"],
        cwd=tmp_path,
        env=None,
        timeout=10,
        stdin="abc",
    )
    assert outcome.returncode == 0 and outcome.stdout == "cba\n"


def test_large_output_keeps_head_and_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "OUTPUT_LIMIT_BYTES", 20)
    line = "printf HHHHHHHHHH; head -c 100 /dev/zero | tr '\\0' M; printf TTTTTTTTTT"
    _, outcome = _run(line, tmp_path, timeout=10)
    assert outcome.returncode == 0 and not outcome.stdout_cut
    assert outcome.stdout.startswith("H" * 10) and outcome.stdout.endswith("T" * 10)
    assert "100 bytes of output omitted" in outcome.stdout and outcome.stdout_bytes == 120


def test_a_flooding_program_is_stopped_with_its_output_bounded(tmp_path: Path) -> None:
    """``yes`` is stopped once past the flood limit, long before its timeout, and no more than
    the kept head and tail of what it printed is held."""
    for line, stream in (("yes", "stdout"), ("yes >&2", "stderr")):
        elapsed, outcome = _run(line, tmp_path, timeout=60)
        assert elapsed < 20 and not outcome.timed_out
        said = f"printed more than 64 MiB on {stream} and was stopped there"
        assert outcome.stopped_for_output() == said
        kept = outcome.stdout if stream == "stdout" else outcome.stderr
        assert len(kept) < processes.OUTPUT_LIMIT_BYTES + 100
        assert "bytes of output omitted" in kept and kept.startswith("y\ny\n")


def test_a_background_child_writing_to_the_pipe_does_not_hold_the_result(tmp_path: Path) -> None:
    """Read through pipes, the output a background child keeps writing (the pipe held open)
    neither delays the result nor is waited for; the child is killed."""
    tag = uuid.uuid4().hex
    line = "(while :; do echo bg; sleep 0.01; done) & echo started; sleep 0.2"
    elapsed, outcome = _run(line, tmp_path, 10, tag=tag)
    assert outcome.returncode == 0 and not outcome.timed_out and elapsed < 5
    assert "started" in outcome.stdout
    assert _gone_soon(lambda: _tagged(tag))


def test_command_evaluator_fails_a_flooding_line_saying_so(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    t0 = time.monotonic()
    r = evaluate({"use": "command", "run": "yes", "timeoutSec": 60}, ctx)
    assert time.monotonic() - t0 < 30
    assert not r.passed and not r.error
    assert r.message == (
        "`yes` printed more than 64 MiB on stdout and was stopped there "
        "(its log keeps the first and last 4 MiB)"
    )
    log = json.loads((ctx.trial.root / r.details["log"]).read_text())
    assert log["stopped"] == "printed more than 64 MiB on stdout and was stopped there"
    assert log["stdoutBytes"] > 64 * 1024 * 1024 and len(log["stdout"]) < 8 * 1024 * 1024 + 100
    assert "bytes of output omitted" in log["stdout"]


def test_external_evaluator_that_floods_is_an_error(tmp_path: Path) -> None:
    r = evaluate({"use": "external", "command": "yes", "timeoutSec": 60}, context(tmp_path))
    assert r.error
    assert "'yes' printed more than 64 MiB on stdout and was stopped there" in r.message


def test_a_flooding_setup_line_says_so(tmp_path: Path) -> None:
    paths = SimpleNamespace(stdout_log=tmp_path / "stdout.log", stderr_log=tmp_path / "err.log")
    ctx = SimpleNamespace(workspace=tmp_path, paths=paths)
    with pytest.raises(WorkspaceError, match="`yes` printed more than 64 MiB on stdout and was"):
        shell_lines(ctx, dict(os.environ), "setup", ["yes"])  # type: ignore[arg-type]
    assert tmp_path.joinpath("stdout.log").stat().st_size < 8 * 1024 * 1024 + 200


def test_command_evaluator_passes_a_line_that_leaves_a_background_child(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    r = evaluate({"use": "command", "run": "sleep 30 & echo started", "timeoutSec": 3}, ctx)
    assert r.passed, r.message
    assert "started" in r.details["outputTail"]
