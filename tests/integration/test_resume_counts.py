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

from tests.conftest import MakeCase, Run
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
    # Each trial waits in its shell step until the test lets it through: all at once while
    # `open` exists, else one trial for each `token` put down (renamed away by the one it lets
    # through).
    gates = tmp_path / "gates"
    gates.mkdir()
    (gates / "open").touch()
    cases = suite(tmp_path)
    waiting = (
        f"while [ ! -e '{gates}/open' ] && ! mv '{gates}/token' '{gates}/used-'$$ 2>/dev/null;"
        " do sleep 0.05; done"
    )
    plan_file = cases / "slow" / "plan.json"
    plan = json.loads(plan_file.read_text())
    plan["turns"][1] = {"shell": waiting}
    plan_file.write_text(json.dumps(plan))
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    for repeat in range(3, TRIALS + 1):
        (run_dir / TRIAL / f"{repeat}/trial.json").unlink()
    (gates / "open").unlink()
    (gates / "token").touch()  # one trial of the resume may finish, no other
    resume = subprocess.Popen(
        proctor_argv("run", "--resume", str(run_dir)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    # Stopped once a trial it ran has finished and another is running: that one waits for a
    # token that never comes, so the stop cuts it short, whatever the machine's load.
    deadline = time.monotonic() + 60
    while not _finished_and_running(run_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(resume.pid, signal.SIGINT)
    _, err = resume.communicate(timeout=60)
    assert resume.returncode == 130, err
    counts = re.search(r"(-?\d+) kept, (-?\d+) run now, (\d+) left for another --resume", err)
    assert counts, err
    kept, ran, left = map(int, counts.groups())
    assert kept == 2 and ran == 1 and kept + ran + left == TRIALS, err
    # Those left counted apart as the report counts them: the trial the stop cut short was
    # left out of the line (`2 left for another --resume`).
    apart = re.search(r"trials finished (\(\d+ cut short, recorded as interrupted[^)]*\))", err)
    assert apart, err
    assert f"left for another --resume {apart.group(1)}" in err, err


def _finished_and_running(run_dir: Path) -> bool:
    """Whether the resume (the journal's last stretch) has finished a trial and is running
    another."""
    try:
        lines = (run_dir / "journal.jsonl").read_text().splitlines()
    except OSError:
        return False
    entries = [json.loads(line) for line in lines if line.endswith("}")]
    resumed = [i for i, e in enumerate(entries) if e["event"] == "run-resumed"]
    stretch = entries[resumed[-1] :] if resumed else []
    started = {e["repeat"] for e in stretch if e["event"] == "trial-started"}
    finished = {e["repeat"] for e in stretch if e["event"] == "trial-finished"}
    return bool(finished) and bool(started - finished)


def _stretches(run_dir: Path) -> list[float]:
    """The seconds of each stretch that ran the run, as its journal dates them: from each
    run-started or run-resumed line to the last line before the next."""
    from datetime import datetime

    spans: list[list[datetime]] = []
    for line in (run_dir / "journal.jsonl").read_text().splitlines():
        entry = json.loads(line)
        moment = datetime.fromisoformat(entry["time"].replace("Z", "+00:00"))
        if entry["event"] in ("run-started", "run-resumed"):
            spans.append([moment, moment])
        else:
            spans[-1][1] = moment
    return [(end - start).total_seconds() for start, end in spans]


def test_a_resume_counts_the_wall_time_of_the_run_before_it(proctor: Run, tmp_path: Path) -> None:
    """``wallMs`` adds up every stretch that ran the run: a resume of a finished run (a copy)
    keeps its time, and one of a killed run adds its own to the killed run's."""
    run_dir = finished_run(proctor, tmp_path)
    first = json.loads((run_dir / "suite.json").read_text())["totals"]["wallMs"]
    assert first > 1000  # eight trials of 0.3 s, two at a time
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS} kept, 0 run now" in again.err, again.err
    kept = json.loads((run_dir / "suite.json").read_text())["totals"]["wallMs"]
    # The journal's dates bracket the first wall time (to their millisecond).
    assert first - 2 <= kept < first + 2000, (first, kept)
    assert json.loads((run_dir / "suite.json").read_text())["totals"]["wallLowerBound"] is False

    out = tmp_path / "killed"
    orchestrator = subprocess.Popen(
        proctor_argv("run", "--source", str(suite(tmp_path / "k", pause=1)), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while (
            b"".join(p.read_bytes() for p in out.glob("run-*/journal.jsonl")).count(
                b'"trial-finished"'
            )
            < 2
        ):
            assert time.monotonic() < deadline and orchestrator.poll() is None
            time.sleep(0.02)
    finally:
        os.killpg(orchestrator.pid, signal.SIGSTOP)  # every process at once: none records a death
        os.killpg(orchestrator.pid, signal.SIGKILL)
        orchestrator.wait()
    (killed,) = out.glob("run-*")
    resumed = proctor("run", "--resume", str(killed))
    assert resumed.code == 0, resumed.err
    wall = json.loads((killed / "suite.json").read_text())["totals"]["wallMs"]
    before, now = _stretches(killed)
    assert before > 1  # two trials of a second ran before the kill
    assert (before + now) * 1000 - 300 <= wall <= (before + now) * 1000 + 2, (before, now, wall)
    # The killed stretch counts to its last line: the run's own report says it is a lower bound.
    assert json.loads((killed / "suite.json").read_text())["totals"]["wallLowerBound"] is True
    assert "- Time: at least " in (killed / "suite.md").read_text()


def test_a_resume_keeps_a_trial_whose_worker_died_and_says_how_to_run_it_again(
    proctor: Run, tmp_path: Path
) -> None:
    """A worker killed by itself (kill -9, the OOM killer) leaves its trial an infra-error with
    a result: kept by a resume, counted apart, and run again once its trial.json is gone."""
    run_dir = finished_run(proctor, tmp_path, pause=0.05)
    record_path = run_dir / TRIAL / "4/trial.json"
    record = json.loads(record_path.read_text())
    record["status"] = "infra-error"
    record["reason"] = "worker process died (exit code -9) without a result"
    record_path.write_text(json.dumps(record))
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 3, resumed.err  # the aggregate counts the infra-error
    assert (
        f"{TRIALS} kept (1 of them an error --retry-errors would run again (a worker that died "
        "or a provider's transient failure): resume with --retry-errors N to run it again)"
        ", 0 run now"
    ) in resumed.err, resumed.err
    record_path.unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 1} kept, 1 run now" in again.err, again.err
    assert json.loads(record_path.read_text())["status"] == "passed"
    # Two such errors are said in the plural ("an error … run it again" was said of both).
    for repeat in (3, 4):
        died = {**record, "repeat": repeat}
        (run_dir / TRIAL / f"{repeat}/trial.json").write_text(json.dumps(died))
    two = proctor("run", "--resume", str(run_dir))
    assert (
        f"{TRIALS} kept (2 of them errors --retry-errors would run again (a worker that died "
        "or a provider's transient failure): resume with --retry-errors N to run them again)"
    ) in two.err, two.err


def test_report_counts_the_trials_a_run_killed_whole_started_apart_from_those_never_started(
    proctor: Run, tmp_path: Path
) -> None:
    """`kill -9 -- -PGID` (a CI runner's cancel) kills the workers with the orchestrator: the
    trials they ran left no record. The report says they started and were never recorded,
    as the journal says, rather than counting them as never started."""
    out = tmp_path / "out"
    orchestrator = subprocess.Popen(
        proctor_argv("run", "--source", str(suite(tmp_path, pause=30)), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while b'"trial-started"' not in b"".join(
            p.read_bytes() for p in out.glob("run-*/journal.jsonl")
        ):
            assert time.monotonic() < deadline and orchestrator.poll() is None, "no trial started"
            time.sleep(0.02)
    finally:
        os.killpg(orchestrator.pid, signal.SIGSTOP)  # every process at once: none records a death
        os.killpg(orchestrator.pid, signal.SIGKILL)
        orchestrator.wait()
    (run_dir,) = out.glob("run-*")
    journal = (run_dir / "journal.jsonl").read_text()
    started = journal.count('"trial-started"')
    assert not list(run_dir.glob(f"{TRIAL}/*/trial.json"))
    report = proctor("report", str(run_dir), "--json")
    assert report.code == 130, report.err
    said = (
        f"interrupted after 0 of {TRIALS} trials finished ({started} started but never "
        f"recorded; {TRIALS - started} not started)"
    )
    assert json.loads(report.out)["exitReason"] == said
    assert said in proctor("report", str(run_dir)).out


def test_a_resume_of_a_finished_run_says_nothing_was_left_to_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case(
        "fails", config={"agents": ["scripted"], "evaluators": [{"use": "command", "run": "false"}]}
    )
    done = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out"))
    assert done.code == 1, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    resumed = proctor("run", "--resume", str(run_dir))
    assert resumed.code == 1  # the run's verdict, as its suite.json has it
    assert "running 0 trials" not in resumed.err
    assert f"proctor: nothing left to run: every trial of {run_dir} has its result" in resumed.err
    assert f"proctor: resumed {run_dir}: 1 kept, 0 run now" in resumed.err
