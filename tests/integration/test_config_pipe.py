"""`--config <(…)`: a configuration given through a pipe is read (once: a command that reads
its configuration twice reads the same text again), for every command that takes --config."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run
from tests.integration.test_evals_cli import project
from tests.integration.test_evals_project_config import EVAL

PLAN = {"turns": [{"say": "hi"}]}


@pytest.fixture
def piped() -> Iterator[list[int]]:
    """The read ends of the pipes a test made, closed after it."""
    ends: list[int] = []
    yield ends
    for end in ends:
        os.close(end)


def pipe_of(config: object, ends: list[int]) -> str:
    """A pipe holding ``config`` as JSON, written and closed, named as bash's ``<(…)`` names
    it: ``/dev/fd/N``."""
    read, write = os.pipe()
    ends.append(read)
    os.write(write, json.dumps(config).encode())
    os.close(write)
    return f"/dev/fd/{read}"


def test_run_and_report_read_a_config_given_through_a_pipe(
    proctor: Run, make_case: MakeCase, tmp_path: Path, piped: list[int]
) -> None:
    make_case("fix", plan=PLAN)
    out = tmp_path / "out"
    config = pipe_of({"out": str(out), "gate": {"minPassRate": 0.5}}, piped)
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--config", config)
    assert ran.code == 0, ran.err
    (run,) = out.glob("run-*")  # its out, read from the pipe
    assert json.loads((run / "suite.json").read_text())["gate"]["minPassRate"] == 0.5
    reported = proctor("report", str(run), "--json", "--config", pipe_of({"gate": {}}, piped))
    assert reported.code == 0, reported.err
    assert reported.json()["gateFrom"]["config"].startswith("/dev/fd/")
    assert "no gate applies, from /dev/fd/" in reported.err
    strict = proctor("report", str(run), "--config", pipe_of({"gate": {"minPassRate": 2}}, piped))
    assert strict.code == 2 and "field 'gate.minPassRate'" in strict.err, strict.err
    # A resume reads the run's configuration again, which a pipe no longer holds.
    resumed = proctor("run", "--resume", str(run))
    assert resumed.code == 2, resumed.err
    assert (
        f"--resume {run}: the run's --config was a pipe (`--config -`, `--config <(…)`, "
        "/dev/stdin), read "
        "once when the run started, which a resume cannot read again; start a new run, with "
        "the configuration in a file"
    ) in resumed.err


def test_a_named_pipe_is_read_as_a_config(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", plan=PLAN)
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)
    # Written by a thread, as by the shell's writer: its open waits for proctor's.
    for key in ("bogus", "other"):  # the next command reads what is written then
        text = json.dumps({key: 1})
        writer = threading.Thread(target=fifo.write_text, args=(text,), daemon=True)
        writer.start()
        said = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(fifo))
        writer.join(timeout=10)
        assert said.code == 2 and f"{fifo}: " in said.err and key in said.err, said.err


def test_commands_that_read_their_config_twice_read_the_pipe_once(
    proctor: Run, tmp_path: Path, piped: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    # `run --prompt` reads it for the folder its case is made in, then for the run.
    config = pipe_of({"out": str(tmp_path / "inline")}, piped)
    ran = proctor("run", "--prompt", "Say hi.", "--config", config)
    assert ran.code == 0, ran.err
    assert list((tmp_path / "inline").glob("run-*"))
    # `eval` reads it for the project, then for the plan of its cases.
    root = project(tmp_path, {"a.eval.py": EVAL})
    config = pipe_of({"out": str(tmp_path / "evals-out")}, piped)
    evaluated = proctor("eval", "--dir", str(root), "--no-stream", "--config", config)
    assert evaluated.code == 0, evaluated.err
    assert list((tmp_path / "evals-out").glob("run-*"))


def test_a_resume_refuses_a_config_that_was_a_named_pipe(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("fix", plan=PLAN)
    out = tmp_path / "out"
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)
    text = json.dumps({"out": str(out)})
    writer = threading.Thread(target=fifo.write_text, args=(text,), daemon=True)
    writer.start()
    ran = proctor("run", "--source", str(tmp_path / "cases"), "--config", str(fifo))
    writer.join(timeout=10)
    assert ran.code == 0, ran.err
    (run,) = out.glob("run-*")
    # In a process of its own: one that opens the pipe waits for a writer, and is killed.
    resumed = subprocess.run(
        [sys.executable, "-m", "proctor", "run", "--resume", str(run)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert resumed.returncode == 2, resumed.stderr
    assert (
        f"--resume {run}: the run's --config was a named pipe, {fifo}, read once when the run "
        "started"
    ) in resumed.stderr


def _with_stdin(
    stdin: object, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``proctor ARGS`` in a process of its own, its standard input ``stdin`` (text piped in,
    or a file object: a file, /dev/null), killed after ``timeout`` seconds."""
    given = {"input": stdin} if isinstance(stdin, str) else {"stdin": stdin}
    return subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **given,
    )


def test_config_dash_is_read_from_standard_input(make_case: MakeCase, tmp_path: Path) -> None:
    """`--config -`: the configuration piped in, or a file given as standard input, read as
    `--config /dev/stdin` reads it (its errors name /dev/stdin); a run given it records the
    pipe, which its resume refuses, or the file, which its resume reads."""
    make_case("fix", plan=PLAN)
    cases, out = str(tmp_path / "cases"), tmp_path / "out"
    ran = _with_stdin(json.dumps({"out": str(out)}), "run", "--source", cases, "--config", "-")
    assert ran.returncode == 0, ran.stderr
    (run,) = out.glob("run-*")
    resumed = _with_stdin("", "run", "--resume", str(run))
    assert resumed.returncode == 2 and "the run's --config was a pipe" in resumed.stderr
    config = tmp_path / "ci.json"
    config.write_text(json.dumps({"out": str(tmp_path / "from-file")}))
    with config.open() as stdin:
        ran = _with_stdin(stdin, "run", "--source", cases, "--config", "-")
    assert ran.returncode == 0, ran.stderr
    (run,) = (tmp_path / "from-file").glob("run-*")
    assert json.loads((run / "config.json").read_text())["configFile"] == str(config)
    said = _with_stdin('{"gate": ', "validate", "--source", cases, "--config", "-")
    assert said.returncode == 2, said.stderr
    assert said.stderr.startswith("proctor: error: /dev/stdin: malformed JSON"), said.stderr
    strict = _with_stdin('{"gate": {"minPassRate": 2}}', "report", str(run), "--config", "-")
    assert strict.returncode == 2 and "field 'gate.minPassRate'" in strict.stderr


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        (
            ("findings", "--config", "-"),
            subprocess.DEVNULL,
            "--config -: standard input is not a pipe or a file (a device such as /dev/null "
            "holds no configuration); pipe the configuration in, or give a file",
        ),
        (
            ("prepare", "fix", "--config", "-"),
            "{}",
            "--config -: prepare names the file in the `proctor record` line it prints; give "
            "the configuration as a file",
        ),
        (
            ("run", "--manifest", "-", "--config", "-"),
            "{}",
            "--manifest - and --config - both read standard input, which holds one of them: "
            "give the other as a file",
        ),
        (
            ("run", "--manifest", "/dev/fd/0", "--config", "-"),
            "{}",
            "--manifest /dev/fd/0 and --config - both read standard input, which holds one of "
            "them: give the other as a file",
        ),
        (
            ("run", "--config", "/proc/self/fd/0", "--manifest", "-"),
            "{}",
            "--manifest - and --config /proc/self/fd/0 both read standard input, which holds "
            "one of them: give the other as a file",
        ),
    ],
    ids=["devnull", "prepare", "manifest", "manifest-fd", "config-fd"],
)
def test_config_dash_is_refused_where_standard_input_cannot_hold_it(
    args: tuple[str, ...], stdin: object, said: str
) -> None:
    refused = _with_stdin(stdin, *args)
    assert (refused.returncode, refused.stderr) == (2, f"proctor: error: {said}\n")


def _run_folder(out: Path) -> tuple[Path, str, str]:
    """The one run in ``out``, and the --config its config.json and resolved.json record."""
    (run,) = out.glob("run-*")
    config = json.loads((run / "config.json").read_text())["configFile"]
    resolved = json.loads((run / "resolved.json").read_text())["configFile"]
    return run, config, resolved


def test_config_dash_given_a_file_is_that_file_and_resumes(
    make_case: MakeCase, tmp_path: Path
) -> None:
    """`--config - < ci.json` is `--config ci.json` (its real path): both records name it, and
    `run --resume` reads it again, whatever the resume's standard input is."""
    make_case("fix", plan=PLAN)
    config = tmp_path / "ci.json"
    config.write_text(json.dumps({"out": str(tmp_path / "out")}))
    with config.open() as stdin:
        ran = _with_stdin(stdin, "run", "--source", str(tmp_path / "cases"), "--config", "-")
    assert ran.returncode == 0, ran.stderr
    run, recorded, resolved = _run_folder(tmp_path / "out")
    assert recorded == resolved == os.path.realpath(config)
    resumed = _with_stdin(subprocess.DEVNULL, "run", "--resume", str(run))
    assert resumed.returncode == 0, resumed.stderr


def test_config_dash_given_an_unlinked_file_is_read_once_as_a_pipe(
    make_case: MakeCase, tmp_path: Path
) -> None:
    """Standard input that is a file unlinked since it was opened (bash's here-document
    longer than a pipe holds, a temporary file) is read once, from standard input, as a
    pipe is: recorded as /dev/stdin, and refused by a resume as a pipe is."""
    make_case("fix", plan=PLAN)
    with tempfile.TemporaryFile() as stdin:
        stdin.write(json.dumps({"out": str(tmp_path / "out")}).encode())
        stdin.seek(0)
        ran = _with_stdin(stdin, "run", "--source", str(tmp_path / "cases"), "--config", "-")
    assert ran.returncode == 0, ran.stderr
    run, recorded, resolved = _run_folder(tmp_path / "out")
    assert recorded == resolved == "/dev/stdin"
    resumed = _with_stdin(subprocess.DEVNULL, "run", "--resume", str(run))
    assert resumed.returncode == 2, resumed.stderr
    assert f"--resume {run}: the run's --config was a pipe (`--config -`" in resumed.stderr


@contextmanager
def _finished_stream(kind: str, text: str) -> Iterator[int]:
    """A stream holding ``text`` whose writer is done (written and closed), to give as
    standard input: a named pipe (a FIFO in a temporary folder), or a socket."""
    if kind == "socket":
        ours, theirs = socket.socketpair()
        ours.sendall(text.encode())
        ours.close()
        with theirs:
            yield theirs.fileno()
        return
    with tempfile.TemporaryDirectory() as folder:
        fifo = Path(folder, "config.fifo")
        os.mkfifo(fifo)
        read = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # (a writer's open waits for one)
        write = os.open(fifo, os.O_WRONLY)
        os.write(write, text.encode())
        os.close(write)
        os.set_blocking(read, True)
        try:
            yield read
        finally:
            os.close(read)


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_config_dash_reads_a_stream_whose_writer_is_done(
    make_case: MakeCase, tmp_path: Path, kind: str
) -> None:
    """`--config -` reads standard input itself: a named pipe whose writer is done (opened
    again by name, it would wait for another writer for ever) and a socket (which cannot be
    opened by name) hold the configuration. A hang fails by the subprocess's timeout."""
    make_case("fix", plan=PLAN)
    with _finished_stream(kind, json.dumps({"bogus": 1})) as stdin:
        cases = str(tmp_path / "cases")
        said = _with_stdin(stdin, "validate", "--source", cases, "--config", "-", timeout=60)
    assert said.returncode == 2, said.stderr
    assert said.stderr.startswith("proctor: error: /dev/stdin: ") and "bogus" in said.stderr
