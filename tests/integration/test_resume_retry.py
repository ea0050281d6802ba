"""`proctor run --resume RUN_DIR --retry-errors N`: a kept trial that ended in an error a retry
runs again (here a worker that died) is moved aside as an attempt and run again, once, and
counted once; without the option it is kept as it was."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run, write_case
from tests.integration.test_resume import TRIALS
from tests.integration.test_resume_counts import TRIAL, finished_run

DIED = "worker process died (exit code -9) without a result"


def _died(record_path: Path) -> None:
    record = json.loads(record_path.read_text())
    record["status"], record["reason"] = "infra-error", DIED
    record_path.write_text(json.dumps(record))


def test_a_resume_with_retry_errors_runs_a_kept_infra_error_again(
    proctor: Run, tmp_path: Path
) -> None:
    run_dir = finished_run(proctor, tmp_path, pause=0.05)
    trial = run_dir / TRIAL / "4"
    _died(trial / "trial.json")
    others = {p: p.read_bytes() for p in run_dir.glob(f"{TRIAL}/*/trial.json") if p.parent != trial}

    kept = proctor("run", "--resume", str(run_dir))  # the control: kept as it was
    assert kept.code == 3, kept.err
    assert (
        f"{TRIALS} kept (1 of them an error --retry-errors would run again (a worker that died "
        "or a provider's transient failure): resume with --retry-errors N to run it again), "
        "0 run now"
    ) in kept.err, kept.err
    assert json.loads((trial / "trial.json").read_text())["reason"] == DIED
    assert not (trial / "attempts").exists()

    again = proctor("run", "--resume", str(run_dir), "--retry-errors", "1", "--json")
    assert again.code == 0, again.err
    assert f"{TRIALS - 1} kept, 1 run now (1 retried after an error)" in again.err, again.err
    final = json.loads((trial / "trial.json").read_text())
    assert final["status"] == "passed"
    assert [(a["status"], a["reason"], a["folder"]) for a in final["attempts"]] == [
        ("infra-error", DIED, "attempts/1")
    ]
    assert json.loads((trial / "attempts/1/trial.json").read_text())["reason"] == DIED
    suite = json.loads(again.out)
    assert suite["totals"]["n"] == TRIALS and suite["totals"]["statusCounts"] == {
        "passed": TRIALS
    }, suite["totals"]
    assert {p: p.read_bytes() for p in others} == others  # the others were kept as they were
    # Its journal says the kept error ran again: after the resume's line (its wall time is
    # this stretch's), before the new attempt started.
    lines = [json.loads(line) for line in (run_dir / "journal.jsonl").read_text().splitlines()]
    resumed = max(i for i, e in enumerate(lines) if e["event"] == "run-resumed")
    events = [
        (e["event"], e.get("repeat")) for e in lines[resumed:] if e["event"] != "trials-started"
    ]
    assert events[:3] == [("run-resumed", None), ("trial-retried", 4), ("trial-started", 4)]
    retried = lines[resumed + 1]
    assert (retried["attempt"], retried["status"], retried["reason"], retried["folder"]) == (
        1,
        "infra-error",
        DIED,
        "attempts/1",
    )

    # One attempt kept already: --retry-errors 1 keeps it; it says how to run it again.
    _died(trial / "trial.json")
    spent = proctor("run", "--resume", str(run_dir), "--retry-errors", "1")
    assert spent.code == 3, spent.err
    assert "resume with --retry-errors above 1 to run it again), 0 run now" in spent.err
    twice = proctor("run", "--resume", str(run_dir), "--retry-errors", "2")
    assert twice.code == 0 and "1 run now (1 retried after an error)" in twice.err, twice.err
    folders = [a["folder"] for a in json.loads((trial / "trial.json").read_text())["attempts"]]
    assert folders == ["attempts/1", "attempts/2"]


def test_the_budget_of_a_resume_counts_a_retried_trial_s_attempts_once(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    plan = {"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]}
    write_case(cases, "bud", config={"repeats": 2}, plan=plan)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}}))
    out = tmp_path / "out"
    ran = proctor("run", "--source", str(cases), "--config", str(config), "--out", str(out))
    assert ran.code == 0, ran.err
    (run_dir,) = out.glob("run-*")
    first, second = sorted(run_dir.glob("trials/bud/*/*/*/trial.json"))
    each = json.loads(first.read_text())["cost"]["totalUsd"]
    assert each and each > 0

    def limited(path: Path) -> None:
        record = json.loads(path.read_text())
        record["status"], record["reason"] = "infra-error", "rate limited: 429 too many requests"
        path.write_text(json.dumps(record))

    # Spent: the first trial's errored attempt, the attempt that ran it again, the second
    # trial: three trials' cost, under the budget (the errored attempt counted twice: four).
    limited(first)
    argv = ("run", "--resume", str(run_dir), "--retry-errors", "1", "--budget-usd")
    again = proctor(*argv, f"{3.5 * each:.6f}")
    assert again.code == 0, again.err
    assert "1 retried after an error" in again.err, again.err
    assert "passed the budget" not in again.err, again.err
    # Now the second: four trials' cost, the kept first trial's attempt counted too.
    limited(second)
    twice = proctor(*argv, f"{3.9 * each:.6f}")
    assert twice.code == 0, twice.err
    assert "1 retried after an error" in twice.err, twice.err
    assert twice.err.count("passed the budget") == 1, twice.err


def test_a_resume_counts_the_trials_it_retried_as_they_ran(proctor: Run, tmp_path: Path) -> None:
    """A trial the resume ran whose attempt died (a transient error) and that the run's own
    --retry-errors ran again was not counted: `1 kept, 1 run now`, beside a retry line."""
    once = tmp_path / "died-once"
    once.mkdir()  # the run itself: no death
    kill = f"mkdir {once} 2>/dev/null && kill -9 $(cut -d' ' -f4 /proc/$PPID/stat); true"
    plan = {"turns": [{"shell": kill}, {"write": {"path": "out.txt", "content": "x\n"}}]}
    cases = tmp_path / "cases"
    write_case(cases, "c", config={"repeats": 2}, plan=plan)
    out = tmp_path / "out"
    ran = proctor("run", "--source", str(cases), "--out", str(out), "--retry-errors", "1")
    assert ran.code == 0, ran.err
    (run_dir,) = out.glob("run-*")
    (run_dir / "trials/c/scripted/default/2/trial.json").unlink()
    once.rmdir()  # the resumed trial's first attempt dies, its second passes
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert "retrying c/scripted/default/2 (attempt 2 of 2)" in again.err, again.err
    assert "1 kept, 1 run now (1 retried after an error)" in again.err, again.err
