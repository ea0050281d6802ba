"""`proctor run --resume`: what a resume counts. The run's annotations count in the aggregate it
writes anew, as `proctor report` counts them, and an interrupted resume says how many trials it
kept, ran and left."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import Run
from tests.integration.test_resume import TRIALS, proctor_argv, suite

TRIAL = "trials/slow/scripted/default"


def finished_run(proctor: Run, tmp_path: Path, pause: float = 0.3) -> Path:
    cases = suite(tmp_path, pause)
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    return run_dir


def test_a_resume_counts_the_run_s_annotations(proctor: Run, tmp_path: Path) -> None:
    run_dir = finished_run(proctor, tmp_path)
    (run_dir / TRIAL / "5/trial.json").unlink()  # left for the resume
    marked = proctor("annotate", str(run_dir), "slow/scripted/default/2", "--verdict", "failed",
                     "--note", "drifted")  # fmt: skip
    assert marked.code == 0, marked.err
    resumed = proctor("run", "--resume", str(run_dir), "--json")
    assert resumed.code == 1, resumed.err
    suite_json = json.loads((run_dir / "suite.json").read_text())
    assert suite_json["exitCode"] == 1
    assert suite_json["totals"]["statusCounts"] == {"passed": TRIALS - 1, "failed": 1}
    report = proctor("report", str(run_dir))
    assert report.code == suite_json["exitCode"]


def test_a_resume_refuses_an_unreadable_annotations_file(proctor: Run, tmp_path: Path) -> None:
    run_dir = finished_run(proctor, tmp_path)
    (run_dir / TRIAL / "5/trial.json").unlink()
    (run_dir / "annotations.json").write_text("{not json")
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 2 and "annotations.json" in resumed.err, resumed.err
    assert "Traceback" not in resumed.err
    assert not (run_dir / TRIAL / "5/trial.json").exists()  # nothing ran


def test_an_interrupted_resume_counts_what_it_kept_and_left(proctor: Run, tmp_path: Path) -> None:
    run_dir = finished_run(proctor, tmp_path, pause=1.5)
    for repeat in range(3, TRIALS + 1):
        (run_dir / TRIAL / f"{repeat}/trial.json").unlink()
    resume = subprocess.Popen(
        proctor_argv("run", "--resume", str(run_dir)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not (run_dir / TRIAL / "3/trial.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(resume.pid, signal.SIGINT)
    _, err = resume.communicate(timeout=60)
    assert resume.returncode == 130, err
    counts = re.search(r"(-?\d+) kept, (-?\d+) run now, (\d+) left for another --resume", err)
    assert counts, err
    kept, ran, left = map(int, counts.groups())
    assert kept == 2 and 0 < ran < TRIALS - kept and kept + ran + left == TRIALS, err
