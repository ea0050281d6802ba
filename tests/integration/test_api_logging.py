"""proctor's messages on the ``proctor`` logger read as any library's under a script's logging
configuration (``WARNING:proctor:findings: 1 new (…)``), while ``proctor run`` prints them on
stderr as it always has (``proctor: findings: 1 new (…)``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import write_case

ROOT = Path(__file__).parents[2]

_LOGGED_RUN = """
import logging
import proctor

logging.basicConfig(format="%(levelname)s:%(name)s:%(message)s")

def show(event):
    raise KeyError("case")

proctor.run("cases", out="api", subscribers=[show], reporters=[])
"""

FAILING = {
    "agents": ["scripted"],
    "timeoutSec": 30,
    "evaluators": [{"use": "command", "run": "false", "expectExit": 0, "gate": True}],
}


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_messages_read_as_a_librarys_under_logging_and_as_ever_on_the_command_line(
    tmp_path: Path,
) -> None:
    """They carried the command line's words inside the message: `WARNING:proctor:proctor:
    findings: 1 new (…)` under `logging.basicConfig()`."""
    write_case(tmp_path / "cases", "bad", config=FAILING, plan={"turns": [{"shell": "true"}]})
    done = _run(tmp_path, "-c", _LOGGED_RUN)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert f"WARNING:proctor:findings: 1 new (`proctor findings {tmp_path}/api` lists them)" in (
        lines
    )
    said = [line for line in lines if "a run subscriber" in line]
    assert len(said) == 1 and said[0].startswith(
        "WARNING:proctor:a run subscriber, a plain function 'show', raised KeyError: 'case' ("
    )
    assert not [line for line in lines if line.startswith("WARNING:proctor:proctor: ")]
    # The command line prints them as before, in its own words.
    cli = _run(tmp_path, "-m", "proctor", "run", "--source", "cases", "--out", "cli")
    assert cli.returncode == 1, cli.stderr
    told = f"proctor: findings: 1 new (`proctor findings {tmp_path / 'cli'}` lists them)"
    assert told in cli.stderr.splitlines()


_WARNED_RUN = """
import logging
from proctor.session.start import warn

logging.basicConfig(format="%(levelname)s:%(name)s:%(message)s")
warn("codingagents.x: a warning before the run")
"""


def test_a_warning_before_the_run_is_a_logger_record_and_the_same_line_on_the_command_line(
    tmp_path: Path,
) -> None:
    """It was printed on stderr in the command line's words (`proctor: warning: …`) whatever
    the script's logging said."""
    write_case(tmp_path / "cases", "ok", plan={"turns": [{"say": "hi"}]})
    warning = (
        '--agent-model "scripted=big": the scripted agent plays its case\'s plan whatever the model'
    )
    done = _run(tmp_path, "-c", _WARNED_RUN)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "WARNING:proctor:codingagents.x: a warning before the run\n"
    cli = _run(
        tmp_path, "-m", "proctor", "run", "--source", "cases", "--out", "cli",
        "--agent-model", "scripted=big",
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    said = [line for line in cli.stderr.splitlines() if "--agent-model" in line]
    assert len(said) == 1 and said[0].startswith(f"proctor: warning: {warning}"), said
