"""``proctor memory-eval``: a server that ends before or while answering is said with how it
ended (its exit status or the signal that killed it) and what it wrote to stderr, masked."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
DATASET = str(EXAMPLES / "dataset.json")

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def test_a_server_that_exits_at_once_is_said_with_its_status(proctor: Run) -> None:
    code = "import sys; print('hello'); sys.exit(3)"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", sys.executable, "-c", code)
    assert result.code == 3, result.err
    assert "proctor: error: the memory server exited with status 3 before it answered; " in (
        result.err
    ), result.err


def test_a_server_that_prints_to_stdout_and_exits_is_said_so_once(proctor: Run) -> None:
    """The line it printed is the cause the error ends with: no note says it above as well."""
    code = "import sys; print('hello'); sys.exit(3)"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", sys.executable, "-c", code)
    assert result.code == 3, result.err
    assert result.err.strip() == (
        "proctor: error: the memory server exited with status 3 before it answered; the memory "
        "server wrote a line to stdout that is not JSON-RPC ('hello'); stdout carries the "
        "protocol, a server logs to stderr"
    ), result.err


def test_a_silent_server_says_it_wrote_nothing_to_stderr(proctor: Run) -> None:
    code = "import sys; sys.exit(4)"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", sys.executable, "-c", code)
    assert result.code == 3, result.err
    assert result.err.strip() == (
        "proctor: error: the memory server exited with status 4 before it answered; "
        "it wrote nothing to stderr"
    )


def test_a_killed_server_names_the_signal_and_its_stderr_masked(
    proctor: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KILL_KEY", "sk-kill-key-0c1d2e3f4a")
    code = (
        "import os, signal, sys; print('last words ' + os.environ['KILL_KEY'], file=sys.stderr);"
        " sys.stderr.flush(); os.kill(os.getpid(), signal.SIGKILL)"
    )
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--env", "KILL_KEY", "--json",
        "--mcp", sys.executable, "-c", code,
    )  # fmt: skip
    assert result.code == 3, result.err
    error = result.json()["error"]
    assert error == (
        "the memory server was killed by signal 9 (SIGKILL) before it answered; "
        "the last line of its stderr: last words ***"
    ), error
    assert result.json()["serverStderr"] == "last words ***"
    assert "sk-kill-key-0c1d2e3f4a" not in result.err + result.out


def test_a_server_that_closes_its_stdout_and_runs_on_is_not_said_killed(proctor: Run) -> None:
    """Its process is stopped by proctor afterwards: that signal is not how it ended."""
    code = "import os, time; os.close(1); time.sleep(30)"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", sys.executable, "-c", code)
    assert result.code == 3, result.err
    assert result.err.strip() == (
        "proctor: error: the memory server closed its stdout before it answered; "
        "it wrote nothing to stderr"
    )
