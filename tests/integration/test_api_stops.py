"""A run from Python that a Ctrl-C stopped gives the caller its own stop handlers back: the
script or notebook that called :func:`proctor.run` can still be stopped afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import write_case

ROOT = Path(__file__).parents[2]

_STOPPED_RUN = """
import json, os, signal, threading
import proctor

def mine(signum, frame):
    pass

for number in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, mine)
before = [signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]

def press_ctrl_c(event):
    if type(event).__name__ == "TrialStarted":
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()

result = proctor.run("cases", out="out", subscribers=[press_ctrl_c])
after = [signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
print(json.dumps([result.exit_code, [a is b for a, b in zip(before, after)]]))
"""


def test_a_stopped_run_gives_the_callers_stop_handlers_back(tmp_path: Path) -> None:
    """They stayed ignored (SIG_IGN), as the CLI leaves them until it exits: the script's next
    Ctrl-C did nothing, and a notebook's kernel could no longer be interrupted."""
    write_case(tmp_path / "cases", "long", plan={"turns": [{"shell": "sleep 30"}]})
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _STOPPED_RUN],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    code, same = json.loads(done.stdout.splitlines()[-1])
    assert code == 130
    assert same == [True, True, True]


def test_a_subscriber_that_exits_stops_the_run_whole_then_its_exit_is_raised(
    tmp_path: Path,
) -> None:
    """A subscriber's SystemExit went straight through the run: it left a folder with the
    first trial only, no suite.json, looking killed. The run now stops as at Ctrl-C (every
    finished trial kept, its aggregate written as interrupted, resumable) and then the
    SystemExit is raised, as the script asked."""
    import proctor
    from proctor.report.stored import load_run

    write_case(tmp_path / "cases", "quick", plan={"turns": [{"shell": "true"}]})

    def leave(event: object) -> None:
        if type(event).__name__ == "TrialFinished":
            raise SystemExit(3)

    told: list[str] = []
    with pytest.raises(SystemExit) as raised:
        proctor.run(
            tmp_path / "cases",
            repeats=3,
            concurrency=1,
            out=tmp_path / "out",
            subscribers=[leave, lambda event: told.append(type(event).__name__)],
        )
    assert raised.value.code == 3
    (run_dir,) = (tmp_path / "out").glob("run-*")
    stored = load_run(run_dir)
    assert stored.suite is not None and stored.suite.interrupted
    assert stored.suite.exit_code == 130
    assert [r.repeat for r in stored.records] == [1]
    assert stored.manifest.interrupted and stored.manifest.finished_at is not None
    assert told[-1] == "RunFinished"  # the other subscribers are told the run's end


def test_a_subscriber_that_exits_once_the_run_ended_leaves_it_finished(tmp_path: Path) -> None:
    """At RunFinished there is nothing left to stop: the run stands as its trials ended."""
    import proctor
    from proctor.report.stored import load_run

    write_case(tmp_path / "cases", "quick", plan={"turns": [{"shell": "true"}]})

    def leave(event: object) -> None:
        if type(event).__name__ == "RunFinished":
            sys.exit("done")

    with pytest.raises(SystemExit, match="done"):
        proctor.run(tmp_path / "cases", repeats=2, out=tmp_path / "out", subscribers=[leave])
    (run_dir,) = (tmp_path / "out").glob("run-*")
    stored = load_run(run_dir)
    assert stored.suite is not None and not stored.suite.interrupted
    assert len(stored.records) == 2


def test_a_subscriber_that_exits_at_the_run_s_start_stops_it_with_its_end_told(
    tmp_path: Path,
) -> None:
    """At RunStarted the exit left the run's loop before its stop could take it: the run was
    written as interrupted, but the other subscribers were never told its end."""
    import proctor
    from proctor.report.stored import load_run

    write_case(tmp_path / "cases", "quick", plan={"turns": [{"shell": "true"}]})

    def leave(event: object) -> None:
        if type(event).__name__ == "RunStarted":
            raise SystemExit(4)

    told: list[str] = []
    with pytest.raises(SystemExit) as raised:
        proctor.run(
            tmp_path / "cases",
            repeats=2,
            out=tmp_path / "out",
            subscribers=[leave, lambda event: told.append(type(event).__name__)],
        )
    assert raised.value.code == 4
    assert told == ["RunStarted", "RunFinished"]
    (run_dir,) = (tmp_path / "out").glob("run-*")
    stored = load_run(run_dir)
    assert stored.suite is not None and stored.suite.interrupted and not stored.records
