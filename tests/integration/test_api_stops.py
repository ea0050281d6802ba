"""A run from Python that a Ctrl-C stopped gives the caller its own stop handlers back: the
script or notebook that called :func:`proctor.run` can still be stopped afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
