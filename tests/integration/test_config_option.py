"""``--config FILE`` is refused alike by every command that takes it: a file that is not
there is ``--config FILE: no such file`` and a folder ``--config DIR: a folder, …``, one
sentence and exit 2, never in Click's words; a pipe (``--config <(…)``) is read as a file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.conftest import Run

COMMANDS = [
    ("run", "--source", "cases"),
    ("validate", "--source", "cases"),
    ("agents",),
    ("history",),
    ("findings",),
    ("findings", "dismiss", "abc", "--reason", "x"),
    ("report", "some-run"),
    ("eval",),
    ("prepare", "some-case"),
    ("record", "some-case"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nope.json", "--config nope.json: no such file"),
        ("cases", "--config cases: a folder, where proctor expects its configuration file"),
    ],
)
def test_a_config_not_a_file_is_said_alike_by_every_command(
    proctor: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    given: str,
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    result = proctor(*command, "--config", given)
    assert (result.code, result.err) == (2, f"proctor: error: {said}\n"), result.err


def test_a_config_from_a_pipe_is_read_as_a_file(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)

    def write() -> None:  # blocks until proctor opens the pipe to read it
        with open(fifo, "w") as pipe:
            pipe.write('{"out": "elsewhere"}')

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = proctor("findings", "--config", str(fifo))
    writer.join(timeout=5)
    assert result.code == 2, result.err
    assert result.err.startswith("proctor: error: elsewhere: not a results directory"), result.err


def test_config_is_shown_as_a_file_in_help_and_read_from_a_removed_current_folder(
    proctor: Run, tmp_path: Path
) -> None:
    """`--config FILE` in every command's help (a folder is refused); an absolute --config
    given in a current folder that was removed is read, the folder never asked for."""
    import subprocess
    import sys

    for command in COMMANDS:
        words = command[:2] if command[:2] == ("findings", "dismiss") else command[:1]
        shown = proctor(*words, "--help").out
        assert "--config FILE" in shown, (command, shown)
    config = tmp_path / "proctor.json"
    config.write_text("{}")
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); "
        f"sys.argv = ['proctor', 'history', '--home', {str(tmp_path)!r}, '--config', "
        f"{str(config)!r}]; from proctor.cli.main import main; sys.exit(main())"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert "Traceback" not in ran.stderr, ran.stderr
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("given", ["nope.json", "cases"])
@pytest.mark.parametrize("first", [True, False], ids=["config-first", "resume-first"])
def test_resume_refuses_a_config_before_the_config_is_checked(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, first: bool
) -> None:
    """`run --resume R --config X`: the resume's refusal of --config (it reads the run's own),
    whatever X is and wherever it stands, never X's own problem first."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases").mkdir()
    config = ("--config", given)
    resume = ("--resume", str(tmp_path / "run-x"))
    result = proctor("run", *(config + resume if first else resume + config))
    assert result.code == 2, result.err
    assert result.err.startswith(
        "proctor: error: --resume takes the run's own cases and configuration: drop --config;"
    ), result.err
