"""``proctor memory-eval``: a server that ends before or while answering is said with how it
ended (its exit status or the signal that killed it) and what it wrote to stderr, masked."""

from __future__ import annotations

import inspect
import sys
import tempfile
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import mcp.client.stdio as _sdk_stdio
import pytest

import proctor.addons.memory.process as spawning
from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = str(EXAMPLES / "reference.adapter.toml")

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


STRAY_THEN_EXIT = """
import json, os, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def stray():
    print("flushing the index"); sys.stdout.flush()
if os.environ["STRAY_WHEN"] == "start":
    stray()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        info = {"name": "stray", "version": "1"}
        version = msg["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}})
    elif msg.get("method") == "tools/call":
        if os.environ["STRAY_WHEN"] == "call":
            stray()
        sys.exit(5)
"""


@pytest.mark.parametrize("when", ["start", "call"])
def test_a_server_that_answers_prints_to_stdout_and_exits_is_said_so_once(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """Its stray line (printed before it answered, or during a call) is the last thing in its
    log, quoted at the end of the error: no note says it above as well."""
    monkeypatch.setenv("STRAY_WHEN", when)
    script = tmp_path / "stray.py"
    script.write_text(STRAY_THEN_EXIT, encoding="utf-8")
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--env", "STRAY_WHEN",
        "--mcp", sys.executable, str(script),
    )  # fmt: skip
    assert result.code == 3, result.err
    assert result.err.strip() == (
        "proctor: error: the memory server exited with status 5 during tool 'remember' (seeding "
        "note atlas-port-old); the memory server wrote a line to stdout that is not JSON-RPC "
        "('flushing the index'); stdout carries the protocol, a server logs to stderr"
    ), result.err


STRAY_SECOND_PROCESS_EXITS = """
import json, os, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
print("memory server starting"); sys.stdout.flush()
first = not os.path.exists("started")  # the scratch working folder, shared by the processes
open("started", "a").close()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        info = {"name": "stray", "version": "1"}
        version = msg["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}})
    elif msg.get("method") == "tools/call":
        if not first:
            sys.exit(5)
        found = {"results": []}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [
            {"type": "text", "text": json.dumps(found)}], "structuredContent": found}})
    elif msg.get("method") == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": []}})
"""


def test_a_stray_line_of_one_process_is_not_noted_above_the_next_one_s_error(
    proctor: Run, tmp_path: Path
) -> None:
    """Process-scoped (a process per project, each printing the line): the first process
    answers every call, the second exits; the error that ends the run ends with the stray
    line, said once a run, not also in a note for the first process."""
    script = tmp_path / "stray.py"
    script.write_text(STRAY_SECOND_PROCESS_EXITS, encoding="utf-8")
    adapter = tmp_path / "process.adapter.toml"
    adapter.write_text(
        Path(ADAPTER)
        .read_text()
        .replace('mode = "argument"', 'mode = "process"\nenv = { STORE = "{scratch}/{project}" }'),
        encoding="utf-8",
    )
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", str(adapter),
        "--mcp", sys.executable, str(script),
    )  # fmt: skip
    assert result.code == 3, result.err
    assert result.err.count("not JSON-RPC ('memory server starting')") == 1, result.err
    assert result.err.startswith("proctor: error: the memory server exited with status 5 "), (
        result.err
    )


def test_a_server_whose_process_the_sdk_does_not_hand_over_says_its_status_is_unknown(
    proctor: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An MCP SDK whose stdio client starts the server otherwise than by the function proctor
    wraps: the crash is still said, its stderr quoted, and the exit status said unknown
    rather than guessed."""
    spawn = getattr(_sdk_stdio, spawning.SPAWN)
    monkeypatch.setattr(_sdk_stdio, spawning.SPAWN, inspect.unwrap(spawn))
    code = "import sys; print('shard 3 unreadable', file=sys.stderr); sys.exit(3)"
    result = proctor("memory-eval", "--dataset", DATASET, "--mcp", sys.executable, "-c", code)
    assert result.code == 3, result.err
    sentence = result.err.splitlines()[0]
    assert sentence == (
        f"proctor: error: the memory server closed its stdout (its exit status unknown: mcp "
        f"{version('mcp')} did not hand proctor its process) before it answered; the last line "
        "of its stderr: shard 3 unreadable"
    ), result.err


def test_an_sdk_without_the_spawning_function_is_not_wrapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nothing to wrap is said as such (False), not an error at import."""
    monkeypatch.delattr(_sdk_stdio, spawning.SPAWN)
    assert spawning.keep_spawned() is False
    assert not hasattr(_sdk_stdio, spawning.SPAWN)
    monkeypatch.undo()
    assert getattr(getattr(_sdk_stdio, spawning.SPAWN), "proctor_keeps", False) is True
    assert spawning.keep_spawned() is True  # already wrapped: left as it is
