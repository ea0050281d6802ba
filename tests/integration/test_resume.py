"""`proctor run --resume`: an orchestrator killed with SIGKILL at random points leaves a run
that resume finishes with every trial exactly once, no orphan process and no partial record."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Run, write_case

TRIALS = 8


def suite(root: Path, pause: float = 0.3) -> Path:
    """A case of ``TRIALS`` repeats, each pausing ``pause`` seconds in a shell step."""
    cases = root / "cases"
    write_case(
        cases,
        "slow",
        config={"repeats": TRIALS, "evaluators": [{"use": "file-exists", "must": ["a.txt"]}]},
        plan={
            "turns": [
                {"write": {"path": "a.txt", "content": "a\n"}},
                {"shell": f"sleep {pause}"},
                {"say": "done"},
            ]
        },
    )
    return cases


def proctor_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "proctor", *args]


def marked_processes(run_id: str) -> list[int]:
    """Live processes whose environment carries a marker of this run's trials."""
    needle = f"={run_id}:".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def killed_run(tmp_path: Path, after: float) -> Path:
    """The run folder of `proctor run` on the suite, its orchestrator SIGKILLed ``after``
    seconds after it made the run folder."""
    out = tmp_path / "out"
    orchestrator = subprocess.Popen(
        proctor_argv("run", "--source", str(suite(tmp_path)), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # The random point counts from the run folder's creation, so a slow start on a loaded
    # machine does not kill the orchestrator before it has a run to resume.
    waited = time.monotonic() + 30
    while not any(out.glob("run-*")) and time.monotonic() < waited:
        time.sleep(0.02)
    time.sleep(after)
    orchestrator.send_signal(signal.SIGKILL)
    orchestrator.wait()
    (run_dir,) = out.glob("run-*")
    return run_dir


def check_complete(run_dir: Path) -> None:
    records = [json.loads(p.read_text()) for p in run_dir.glob("trials/slow/*/*/*/trial.json")]
    assert sorted(r["repeat"] for r in records) == list(range(1, TRIALS + 1))
    assert {r["status"] for r in records} == {"passed"}, [r["reason"] for r in records]
    suite_json = json.loads((run_dir / "suite.json").read_text())
    assert suite_json["totals"]["n"] == TRIALS and suite_json["exitCode"] == 0
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["trialsFinished"] == TRIALS and manifest["finishedAt"]
    assert not list(run_dir.rglob("*.tmp")), "no partial file"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_killed_orchestrator_s_run_is_finished_by_resume(tmp_path: Path, seed: int) -> None:
    run_dir = killed_run(tmp_path, after=random.Random(seed).uniform(0.4, 2.0))
    resumed = subprocess.run(
        proctor_argv("run", "--resume", str(run_dir)), capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "kept" in resumed.stderr and "run now" in resumed.stderr
    check_complete(run_dir)
    assert marked_processes(run_dir.name) == [], "a trial's process outlived the run"
    scratch = [
        json.loads(x).get("scratch") for x in (run_dir / "journal.jsonl").read_text().splitlines()
    ]
    left = [s for s in scratch if s and Path(s).exists()]
    assert scratch.count(None) < len(scratch) and left == [], "the dead run's scratch is gone"
    journal = [json.loads(line) for line in (run_dir / "journal.jsonl").read_text().splitlines()]
    assert [e["event"] for e in journal].count("run-resumed") == 1


def test_control_without_resume_the_killed_run_is_incomplete(tmp_path: Path) -> None:
    run_dir = killed_run(tmp_path, after=1.0)
    with pytest.raises(AssertionError):
        check_complete(run_dir)


def test_resume_refuses_a_changed_suite_and_extra_options(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    done = proctor("run", "--source", "cases", "--out", "out")
    assert done.code == 0, done.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS} kept, 0 run now" in again.err  # nothing left to do
    check_complete(run_dir)
    extra = proctor("run", "--resume", str(run_dir), "--repeats", "2")
    assert extra.code == 2 and "give it alone" in extra.err
    (cases / "slow" / "config.json").write_text(
        json.dumps({"repeats": TRIALS, "evaluators": [{"use": "file-exists", "must": ["b.txt"]}]})
    )
    changed = proctor("run", "--resume", str(run_dir))
    assert changed.code == 2 and "changed since the run started" in changed.err
    assert "Traceback" not in changed.err
    results = proctor("run", "--resume", str(tmp_path / "out"))
    assert results.code == 2 and "Traceback" not in results.err
    assert f"--resume {tmp_path / 'out'}: a results directory; name the run folder to resume" in (
        results.err
    )
    assert f"(the newest: {run_dir})" in results.err
    missing = proctor("run", "--resume", str(tmp_path / "nowhere"))
    assert missing.code == 2 and "no such run folder" in missing.err
    (run_dir / "run.json").unlink()  # lost: its trials are there
    lost = proctor("run", "--resume", str(run_dir))
    assert lost.code == 2 and "not a run folder" not in lost.err
    assert lost.err == (
        f"proctor: error: --resume {run_dir}: the run's run.json is missing, so the run cannot "
        f"be resumed: start a new run instead (its trials still read: `proctor report {run_dir}`)\n"
    )
    shutil.rmtree(run_dir / "trials")  # as a kill before the run wrote run.json leaves it
    unstarted = proctor("run", "--resume", str(run_dir))
    assert unstarted.code == 2 and "not a run folder" in unstarted.err
    assert "start a new run" in unstarted.err and "Traceback" not in unstarted.err


def test_resume_runs_the_trials_an_interrupt_cut_short(proctor: Run, tmp_path: Path) -> None:
    cases = suite(tmp_path)
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    cut = run_dir / "trials/slow/scripted/default/3/trial.json"
    record = json.loads(cut.read_text())
    record.update(
        status="infra-error", reason="interrupted: the run was stopped before this trial ended"
    )
    cut.write_text(json.dumps(record))
    (run_dir / "trials/slow/scripted/default/5/trial.json").unlink()  # never written
    # Writes a kill cut off: the aggregate, and a kept trial's record being rewritten.
    (run_dir / ".suite.json.k2x9ab_q.tmp").write_text('{"tot')
    (run_dir / "trials/slow/scripted/default/1/.trial.json.0a1b2c3d.tmp").write_text("{")
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 2} kept, 2 run now" in again.err
    check_complete(run_dir)


def test_resume_refuses_a_run_that_is_still_going(tmp_path: Path) -> None:
    out = tmp_path / "out"
    # Long enough trials that the run is still going when a slow start of resume checks it.
    orchestrator = subprocess.Popen(
        proctor_argv("run", "--source", str(suite(tmp_path, pause=2)), "--out", str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not list(out.glob("run-*/journal.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (run_dir,) = out.glob("run-*")
        resumed = subprocess.run(
            proctor_argv("run", "--resume", str(run_dir)), capture_output=True, text=True
        )
        assert resumed.returncode == 2 and "the run is still going" in resumed.stderr
        while not list(run_dir.glob("trials/*/*/*/*/trial.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        reported = subprocess.run(
            proctor_argv("report", str(run_dir)), capture_output=True, text=True
        )
        assert "is still running (process" in reported.stderr, reported.stderr
        assert "--resume" not in reported.stderr
    finally:
        orchestrator.wait(timeout=60)
    check_complete(run_dir)  # the live run was left alone and finished


def test_resume_from_another_folder(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert proctor("run", "--source", "cases", "--out", "out").code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert f"{TRIALS} kept, 0 run now" in again.err


def test_resume_keeps_the_attempts_a_trial_had_before_the_crash(
    proctor: Run, tmp_path: Path
) -> None:
    """Killed between two attempts of a retried trial: its folder holds only ``attempts/``.
    Resume runs the trial again and its record lists the attempt kept before."""
    cases = suite(tmp_path)
    done = proctor("run", "--source", str(cases), "--out", str(tmp_path / "out"))
    assert done.code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    trial = run_dir / "trials/slow/scripted/default/2"
    kept = trial / "attempts" / "1"
    kept.mkdir(parents=True)
    for entry in list(trial.iterdir()):
        if entry.name != "attempts":
            entry.rename(kept / entry.name)
    record = json.loads((kept / "trial.json").read_text())
    record.update(status="agent-error", passed=None, score=None, reason="rate limited: 429")
    (kept / "trial.json").write_text(json.dumps(record))
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 1} kept, 1 run now" in again.err
    check_complete(run_dir)
    final = json.loads((trial / "trial.json").read_text())
    assert final["status"] == "passed"
    assert [(a["status"], a["folder"]) for a in final["attempts"]] == [
        ("agent-error", "attempts/1")
    ]
    assert json.loads((kept / "trial.json").read_text())["reason"] == "rate limited: 429"
    suite_json = json.loads((run_dir / "suite.json").read_text())
    assert suite_json["totals"]["retried"] == 1


def test_resume_finishes_a_run_whose_concurrency_the_ray_cluster_sized(
    proctor: Run, tmp_path: Path
) -> None:
    """A Ray run without a concurrency records none (the cluster sized it); a resume, which
    runs locally, takes it up all the same."""
    cases = suite(tmp_path)
    assert proctor("run", "--source", str(cases), "--out", str(tmp_path / "out")).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    resolved = json.loads((run_dir / "resolved.json").read_text())
    assert resolved["concurrency"] == 2
    (run_dir / "resolved.json").write_text(json.dumps({**resolved, "concurrency": None}))
    (run_dir / "trials/slow/scripted/default/2/trial.json").unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 1} kept, 1 run now" in again.err, again.err
    check_complete(run_dir)


def test_two_resumes_of_one_run_never_run_together(proctor: Run, tmp_path: Path) -> None:
    import fcntl

    assert (
        proctor("run", "--source", str(suite(tmp_path)), "--out", str(tmp_path / "out")).code == 0
    )
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/slow/scripted/default/2/trial.json").unlink()
    held = os.open(run_dir, os.O_RDONLY)  # as a first resume, still going, holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        second = proctor("run", "--resume", str(run_dir))
        assert second.code == 2 and "another proctor is resuming this run" in second.err
    finally:
        os.close(held)
    assert not (run_dir / "trials/slow/scripted/default/2/trial.json").exists()  # untouched
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 1} kept, 1 run now" in again.err
    check_complete(run_dir)


@pytest.mark.parametrize("through", ["dotdot", "link"])
def test_a_source_and_config_given_through_dotdot_or_a_link_resume(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, through: str
) -> None:
    suite(tmp_path)
    (tmp_path / "pc.json").write_text("{}")
    (tmp_path / "link").symlink_to(tmp_path / "cases")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    source = "../cases" if through == "dotdot" else "../link"
    first = proctor("run", "--source", source, "--config", "../pc.json", "--out", "../out")
    assert first.code == 0, first.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/slow/scripted/default/2/trial.json").unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert f"{TRIALS - 1} kept, 1 run now" in again.err


def test_a_relative_run_folder_and_source_root_resume_from_anywhere(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An external evaluator reads the trial's files by the paths it is given.
    repo = tmp_path / "repos" / "app"
    repo.mkdir(parents=True)
    (repo / "README").write_text("x\n")
    (tmp_path / "score.py").write_text(
        "import json, sys\nctx = json.load(sys.stdin)\nopen(ctx['trajectory']).read()\n"
        "print(json.dumps({'values': [{'name': 'ok', 'value': 100}]}))\n"
    )
    task = {"id": "t", "prompt": "go", "repository": "app", "plan": {"turns": [{"say": "hi"}]},
            "evaluators": [{"use": "external", "command": sys.executable,
                            "args": [str(tmp_path / "score.py")]}]}  # fmt: skip
    (tmp_path / "tasks.json").write_text(json.dumps([task]))
    monkeypatch.chdir(tmp_path)
    first = proctor("run", "--source", "tasks.json", "--source-root", "repos", "--out", "out")
    assert first.code == 0, first.err
    (run_dir,) = Path("out").glob("run-*")
    (run_dir / "trials/t/scripted/default/1/trial.json").unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = proctor("run", "--resume", os.path.relpath(tmp_path / run_dir, elsewhere))
    assert again.code == 0, again.err
    record = json.loads((tmp_path / run_dir / "trials/t/scripted/default/1/trial.json").read_text())
    assert record["status"] == "passed", record["reason"]


def test_a_resume_counts_what_the_run_spent_before_against_its_budget(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "bud",
        config={"repeats": 4},
        plan={"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]},
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}}))
    out = tmp_path / "out"
    assert (
        proctor("run", "--source", str(cases), "--out", str(out), "--config", str(config)).code == 0
    )
    (run_dir,) = out.glob("run-*")
    records = sorted(run_dir.glob("trials/bud/*/*/*/trial.json"))
    each = json.loads(records[0].read_text())["cost"]["totalUsd"]
    assert each and each > 0
    records[-1].unlink()
    budget = f"{2.5 * each:.6f}"  # passed by the three kept trials alone
    again = proctor("run", "--resume", str(run_dir), "--budget-usd", budget)
    assert again.code == 0, again.err
    assert "passed the budget" in again.err


def test_a_resume_warns_at_the_budget_its_run_s_proctor_json_set(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "bud",
        config={"repeats": 4},
        plan={"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]},
    )
    pricing = {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": pricing}))
    priced = tmp_path / "out0"
    argv = ("run", "--source", str(cases), "--config", str(config), "--out")
    assert proctor(*argv, str(priced)).code == 0
    each = json.loads(next(priced.glob("run-*/trials/bud/*/*/1/trial.json")).read_text())
    assert each["cost"]["totalUsd"] > 0
    # A budget the run's three kept trials pass alone, set in its proctor.json, not typed.
    budget = round(2.5 * each["cost"]["totalUsd"], 6)
    config.write_text(json.dumps({"pricing": pricing, "budgetUsd": budget}))
    out = tmp_path / "out1"
    assert proctor(*argv, str(out)).code == 0
    (run_dir,) = out.glob("run-*")
    sorted(run_dir.glob("trials/bud/*/*/*/trial.json"))[-1].unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert "passed the budget" in again.err


def test_a_resume_warns_at_the_budget_typed_on_its_run_unless_it_gives_one(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    write_case(
        cases,
        "bud",
        config={"repeats": 4},
        plan={"model": "pricey", "turns": [{"say": "hello"}, {"shell": "echo hi"}]},
    )
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"pricing": {"pricey": {"inputPer1M": 1e5, "outputPer1M": 1e5}}}))
    priced = tmp_path / "out0"
    argv = ("run", "--source", str(cases), "--config", str(config), "--out")
    assert proctor(*argv, str(priced)).code == 0
    each = json.loads(next(priced.glob("run-*/trials/bud/*/*/1/trial.json")).read_text())
    # A budget the run's three kept trials pass alone, typed on the run, not in proctor.json.
    budget = round(2.5 * each["cost"]["totalUsd"], 6)
    out = tmp_path / "out1"
    ran = proctor(*argv, str(out), "--budget-usd", str(budget))
    assert ran.code == 0 and "passed the budget" in ran.err, ran.err
    (run_dir,) = out.glob("run-*")
    assert json.loads((run_dir / "config.json").read_text())["cli"]["budgetUsd"] == budget
    last = sorted(run_dir.glob("trials/bud/*/*/*/trial.json"))[-1]
    last.unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert "passed the budget" in again.err
    # One the resume gives wins.
    last.unlink()
    given = proctor("run", "--resume", str(run_dir), "--budget-usd", str(budget * 4))
    assert given.code == 0, given.err
    assert "passed the budget" not in given.err, given.err


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("prompt.md", "Do something completely different.\n"),
        ("plan.json", '{"turns": [{"say": "nothing"}]}'),
        ("qna.md", "```rules\n(?i)delete => No, keep everything.\n```\n"),
    ],
)
def test_resume_refuses_a_case_whose_prompt_plan_or_answers_changed(
    proctor: Run, tmp_path: Path, name: str, text: str
) -> None:
    cases = suite(tmp_path)
    assert proctor("run", "--source", str(cases), "--out", str(tmp_path / "out")).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/slow/scripted/default/2/trial.json").unlink()
    (cases / "slow" / name).write_text(text)
    changed = proctor("run", "--resume", str(run_dir))
    assert changed.code == 2 and "changed since the run started" in changed.err, changed.err
    assert "content" in changed.err


@pytest.mark.parametrize("edit", ["change", "add", "remove", "git-only", "none"])
def test_resume_refuses_a_case_whose_folder_fixture_changed(
    proctor: Run, tmp_path: Path, edit: str
) -> None:
    cases = tmp_path / "cases"
    src = {"app.py": "x = 1\n", "lib/util.py": "y = 2\n", ".git/index": "i"}
    write_case(cases, "fx", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]}, src=src)
    assert proctor("run", "--source", str(cases), "--out", str(tmp_path / "out")).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    (run_dir / "trials/fx/scripted/default/2/trial.json").unlink()
    fixture = cases / "fx" / "src"
    if edit == "change":
        (fixture / "lib" / "util.py").write_text("y = 3  # edited\n")
    elif edit == "add":
        (fixture / "new.py").write_text("")
    elif edit == "remove":
        (fixture / "app.py").unlink()
    elif edit == "git-only":  # what a `git status` in the fixture does
        (fixture / ".git" / "index").write_text("rewritten")
    resumed = proctor("run", "--resume", str(run_dir))
    if edit in ("git-only", "none"):
        assert resumed.code == 0, resumed.err
    else:
        assert resumed.code == 2 and "changed since the run started" in resumed.err, resumed.err
        assert "fixtureDigest" in resumed.err


def test_a_resume_writes_the_run_s_own_reporters_and_lists_itself_at_once(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = suite(tmp_path, pause=0)
    out = str(tmp_path / "out")
    first = proctor("run", "--source", str(cases), "--reporter", "markdown,junit", "--out", out)
    assert first.code == 0, first.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["reporters"] == ["markdown", "junit"]
    # As a killed run leaves it: two trials without a record, a stale junit.xml.
    for n in (3, 4):
        (run_dir / f"trials/slow/scripted/default/{n}/trial.json").unlink()
    (run_dir / "junit.xml").write_text("<testsuites tests='6'/>")
    (run_dir / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0, again.err
    assert f'tests="{TRIALS}"' in (run_dir / "junit.xml").read_text()
    assert again.out.startswith("# proctor run")  # printed as the run printed it
    # A resume stopped before its end is listed in run.json all the same.
    import proctor.session.resume as resume

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    (run_dir / "trials/slow/scripted/default/5/trial.json").unlink()
    monkeypatch.setattr(resume, "execute_and_finish", stopped)
    assert proctor("run", "--resume", str(run_dir)).code == 130
    resumed = json.loads((run_dir / "run.json").read_text())["resumedAt"]
    assert len(resumed) == 2, resumed


def test_a_resume_given_reporters_rewrites_the_run_s_own_too(proctor: Run, tmp_path: Path) -> None:
    """`--reporter` on a resume chooses what is printed and adds files: the run's own reporter
    files are written anew too, never left as the interrupted run wrote them."""
    cases = suite(tmp_path, pause=0)
    out = str(tmp_path / "out")
    first = proctor("run", "--source", str(cases), "--reporter", "junit,html", "--out", out)
    assert first.code == 0, first.err
    (run_dir,) = (tmp_path / "out").glob("run-*")
    manifest = json.loads((run_dir / "run.json").read_text())
    for n in (3, 4):
        (run_dir / f"trials/slow/scripted/default/{n}/trial.json").unlink()
    (run_dir / "junit.xml").write_text("<testsuites tests='6'/>")
    (run_dir / "report.html").write_text("stale")
    (run_dir / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    again = proctor("run", "--resume", str(run_dir), "--reporter", "markdown")
    assert again.code == 0, again.err
    assert again.out.startswith("# proctor run")  # the one asked for is printed
    assert f'tests="{TRIALS}"' in (run_dir / "junit.xml").read_text()
    assert (run_dir / "report.html").read_text() != "stale"
    reporters = json.loads((run_dir / "run.json").read_text())["reporters"]
    assert reporters == ["markdown", "junit", "html"]


def test_report_on_a_stopped_run_says_how_to_finish_it(proctor: Run, tmp_path: Path) -> None:
    cases = suite(tmp_path, pause=0)
    assert proctor("run", "--source", str(cases), "--out", str(tmp_path / "out")).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    manifest = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    (run_dir / "trials/slow/scripted/default/4/trial.json").unlink()
    report = proctor("report", str(run_dir))
    assert report.code == 130
    assert f"stopped before every trial ran: `proctor run --resume {run_dir}`" in report.err
    (run_dir / "run.json").write_text(json.dumps(manifest))  # finished: no such note
    assert "--resume" not in proctor("report", str(run_dir)).err


def test_report_on_a_run_killed_after_its_last_trial_says_no_trial_is_left(
    proctor: Run, tmp_path: Path
) -> None:
    """Killed while its aggregate was written: every trial ended, and the note says so. Before,
    it said the run "stopped before every trial ran"."""
    cases = suite(tmp_path, pause=0)
    assert proctor("run", "--source", str(cases), "--out", str(tmp_path / "out")).code == 0
    (run_dir,) = (tmp_path / "out").glob("run-*")
    manifest = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    (run_dir / "suite.json").unlink()  # as a kill while it was written leaves it
    report = proctor("report", str(run_dir))
    assert report.code == 130, report.err
    assert "stopped before every trial ran" not in report.err
    hint = f"stopped once every trial had ended, before the run finished: `proctor run --resume {run_dir}`"
    assert hint in report.err


def test_a_resume_under_another_tmpdir_removes_the_dead_run_s_scratch(tmp_path: Path) -> None:
    """The scratch folders of a run killed whole (orchestrator, workers and agents) are in its
    own TMPDIR: a resume started with another one removes them all the same, and nothing the
    journal names that is not that run's scratch."""
    first_tmp, resume_tmp = tmp_path / "tmp-first", tmp_path / "tmp-resume"
    first_tmp.mkdir()
    resume_tmp.mkdir()
    out = tmp_path / "out"
    orchestrator = subprocess.Popen(
        proctor_argv("run", "--source", str(suite(tmp_path, pause=1)), "--out", str(out)),
        env={**os.environ, "TMPDIR": str(first_tmp)},
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
        os.killpg(orchestrator.pid, signal.SIGKILL)  # as `kill -9 -- -PGID`: nothing cleans up
        orchestrator.wait()
    (run_dir,) = out.glob("run-*")
    (scratch,) = first_tmp.glob("proctor-*")
    assert any(scratch.iterdir())
    # What a journal may also name: folders that are not this run's scratch, which stay.
    unmarked, other_run = first_tmp / "proctor-unmarked", first_tmp / "proctor-other"
    for folder in (unmarked, other_run):
        (folder / "1" / "workspace").mkdir(parents=True)
    (other_run / ".proctor-run").write_text("run-20250101T000000Z-abcdef\n")
    link = first_tmp / "proctor-link"
    link.symlink_to(scratch)
    with (run_dir / "journal.jsonl").open("a") as journal:
        for folder in (unmarked, other_run, link, tmp_path):
            line = {"event": "trials-started", "time": "2025-01-01T00:00:00.000Z"}
            journal.write(json.dumps({**line, "scratch": str(folder)}) + "\n")
    resumed = subprocess.run(
        proctor_argv("run", "--resume", str(run_dir)),
        env={**os.environ, "TMPDIR": str(resume_tmp)},
        capture_output=True,
        text=True,
    )
    assert resumed.returncode == 0, resumed.stderr
    check_complete(run_dir)
    assert not scratch.exists(), "the dead run's scratch folder is left in its TMPDIR"
    assert sorted(p.name for p in first_tmp.iterdir()) == [
        "proctor-link", "proctor-other", "proctor-unmarked"
    ]  # fmt: skip
    assert (unmarked / "1" / "workspace").is_dir() and (other_run / "1" / "workspace").is_dir()
    assert list(resume_tmp.iterdir()) == []  # the resume's own scratch, gone at its end


def test_resume_finishes_a_run_whose_records_hold_no_trial_settings(
    proctor: Run, tmp_path: Path
) -> None:
    """A run of a proctor that recorded no case's ``trials`` settings (mode, backend, …) in
    ``resolved.json``, and a run with the mode given: each resumed as it was planned."""
    cases = suite(tmp_path)
    out = tmp_path / "out"
    argv = ("run", "--source", str(cases), "--out", str(out), "--mode", "interactive")
    assert proctor(*argv).code == 0
    (run_dir,) = out.glob("run-*")
    resolved = json.loads((run_dir / "resolved.json").read_text())
    assert {t["mode"] for c in resolved["cases"] for t in c["trials"]} == {"interactive"}
    for case in resolved["cases"]:
        del case["trials"]
    (run_dir / "resolved.json").write_text(json.dumps(resolved))
    (run_dir / "trials/slow/scripted/default/2/trial.json").unlink()
    again = proctor("run", "--resume", str(run_dir))
    assert again.code == 0 and f"{TRIALS - 1} kept, 1 run now" in again.err, again.err
    check_complete(run_dir)
