"""A command whose output's reader goes away (``proctor history --json | head -1``,
``proctor report RUN | head``, ``… | true``) ends quietly, with the exit code it would have had:
no traceback or ``Exception ignored`` on stderr, and never Click's 1, which means a failed gate.
Each command writes into a real pipe; the reader reads its first line, or nothing, and leaves."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.cli.signals import drop_gone_output
from tests.conftest import CliResult, run_cases, single_run_dir

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
PAGE = 4096
"""The pipe's capacity in the tests: an output longer than it is still being written when the
reader leaves, so that the command's write fails (the default 64 KiB would hold it all)."""


def piped(
    *args: str, cwd: Path, first_line: bool = True, stderr_too: bool = False
) -> tuple[int, bytes]:
    """``proctor ARGS | head -1`` (or, ``first_line`` False, ``proctor ARGS | true``: the reader
    gone before anything is written): the command's exit code and what it printed on stderr."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PAGE)
    env = {**os.environ, "HOME": str(cwd / "home"), "PROCTOR_DATA_DIR": str(cwd / "data")}
    reader = os.fdopen(read_end, "rb")
    if not first_line:
        reader.close()
    with subprocess.Popen(
        [sys.executable, "-m", "proctor", *args],
        stdout=write_end,
        stderr=write_end if stderr_too else subprocess.PIPE,
        cwd=cwd,
        env=env,
    ) as process:
        os.close(write_end)
        if first_line:
            with reader:
                assert reader.readline()
        # The reader is gone: what the command still writes has nowhere to go.
        err = b"" if process.stderr is None else process.stderr.read()
        return process.wait(timeout=60), err


def test_history_json_into_head_exits_0_quietly(tmp_path: Path) -> None:
    code, err = piped("history", str(TRANSCRIPTS), "--json", cwd=tmp_path)
    assert b"BrokenPipe" not in err and b"Exception ignored" not in err, err
    assert b"Traceback" not in err, err
    assert code == 0


@pytest.mark.parametrize(("gated", "expected"), [(False, 0), (True, 1)])
def test_a_report_into_head_exits_with_the_gates_code(
    proctor: Callable[..., CliResult],
    make_case: Callable[..., Path],
    tmp_path: Path,
    gated: bool,
    expected: int,
) -> None:
    evaluators = [{"use": "file-exists", "must": ["missing.txt"], "gate": True}] if gated else []
    for name in ("a", "b", "c"):
        make_case(name, config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": evaluators})
    result, out = run_cases(proctor, tmp_path)
    assert result.code == expected, result.err
    run_dir = single_run_dir(out)
    for reporter in ("json", "markdown"):
        for first_line in (True, False):  # `| head -1`, `| true`
            code, err = piped(
                "report", str(run_dir), "--reporter", reporter, cwd=tmp_path, first_line=first_line
            )
            assert b"BrokenPipe" not in err and b"Traceback" not in err, err
            assert code == expected, (reporter, first_line, err)


def test_stdout_and_stderr_in_one_pipe_keep_validates_code(
    make_case: Callable[..., Path], tmp_path: Path
) -> None:
    """``proctor validate 2>&1 | head -1``: the problem found is still exit 2, with the listing
    and the error sentence dropped."""
    for n in range(60):  # a listing longer than the pipe holds
        make_case(f"case-{n:02}-{'x' * 40}")
    make_case("broken", config={"agents": ["no-such-agent"]})
    code, _ = piped("validate", "--source", str(tmp_path / "cases"), cwd=tmp_path, stderr_too=True)
    assert code == 2


def test_a_broken_pipe_of_something_else_is_not_a_reader_gone() -> None:
    """An agent's stdin or a socket that broke is an error of its own: nothing is dropped."""
    assert not drop_gone_output(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert not drop_gone_output(OSError(errno.EIO, "Input/output error"))
