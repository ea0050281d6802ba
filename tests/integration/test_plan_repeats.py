"""`proctor plan-repeats` then `proctor run --manifest`: counterbalanced pairs, one run each,
read back by `report` as one sample set."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.conftest import CliResult, MakeCase, Run

AB = {"conditions": {"baseline": {}, "treatment": {}}}
PLAN = {"turns": [{"say": "hi"}]}


def started_order(run_dir: Path, case: str) -> list[str]:
    lines = [json.loads(x) for x in (run_dir / "journal.jsonl").read_text().splitlines()]
    return [e["condition"] for e in lines if e["event"] == "trial-started" and e["case"] == case]


def test_pairs_run_in_alternating_order_and_pool(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    for name in ("t1", "t2", "t3"):
        make_case(name, config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,strong_multi_goal\nt2,strong_multi_goal\nt3,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--goal-shape", "strong_multi_goal",
        "--pairs", "2", "--output", str(manifest),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    data = json.loads(manifest.read_text())
    assert data["tasks"] == ["t1", "t2"] and data["pairs"] == 2
    assert [r["order"] for r in data["runs"]] == [
        ["baseline", "treatment"],
        ["treatment", "baseline"],
    ]
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"), "--out", str(out)
    )
    assert ran.code == 0, ran.err
    (first,) = (out / "pair-1").glob("run-*")
    (second,) = (out / "pair-2").glob("run-*")
    assert started_order(first, "t1") == ["baseline", "treatment"]
    assert started_order(second, "t1") == ["treatment", "baseline"]
    assert (
        json.loads((second / "run.json").read_text())["sessionLabel"] == "strong_multi_goal-pair-2"
    )
    assert not list(first.glob("trials/t3"))  # another goal shape: not in the manifest
    pooled = json.loads(proctor("report", str(first), str(second), "--reporter", "json").out)
    assert pooled["totals"]["n"] == 8  # 2 tasks × 2 conditions × 2 pairs


def test_manifest_mistakes_are_sentences(proctor: Run, tmp_path: Path) -> None:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    none = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--goal-shape", "strong_multi_goal",
        "--output", str(tmp_path / "m.json"),
    )  # fmt: skip
    assert none.code == 2 and "no task has that goal shape" in none.err
    one = proctor(
        "plan-repeats",
        "--goal-labels",
        str(labels),
        "--conditions",
        "a",
        "--output",
        str(tmp_path / "m.json"),
    )
    assert one.code == 2 and "two or more different conditions" in one.err
    twice = proctor("plan-repeats", "--goal-labels", str(labels), "--conditions", "a,b,a",
                    "--output", str(tmp_path / "m.json"))  # fmt: skip
    assert twice.code == 2 and twice.err == (
        "proctor: error: --conditions: 'a' is named twice; give two or more different "
        "conditions, comma-separated, each once\n"
    ), twice.err
    assert not (tmp_path / "m.json").exists()
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    nothing = proctor("plan-repeats", "--goal-labels", str(empty), "--output", str(tmp_path / "m"))
    assert nothing.code == 2 and f"--goal-labels {empty}: the file names no task" in nothing.err
    for pairs in ("0", "1001"):
        many = proctor(
            "plan-repeats", "--goal-labels", str(labels), "--pairs", pairs,
            "--output", str(tmp_path / "m.json"),
        )  # fmt: skip
        assert (
            many.err
            == (f"proctor: error: --pairs {pairs}: expected a whole number from 1 to 1000\n")
            and many.code == 2
        ), many.err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("pairs", ["0", "-3", "x", "2.5", ""])
def test_a_wrong_pairs_is_one_of_the_problems_said_at_once(
    proctor: Run, tmp_path: Path, pairs: str
) -> None:
    """`--pairs 0` (or negative, or not a number) is listed with the other options'
    problems, in their words, not refused alone by Click before them."""
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    refused = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", pairs, "--conditions", "a",
        "--output", str(tmp_path / "m.json"),
    )  # fmt: skip
    shown = pairs or '""'
    assert refused.code == 2 and refused.err == (
        f"proctor: error: --pairs {shown}: expected a whole number from 1 to 1000\n"
        "proctor: error: --conditions: give two or more different conditions, comma-separated\n"
        "proctor: error: 2 problems with the options, each named above; no manifest was written\n"
    ), refused.err
    assert not (tmp_path / "m.json").exists()


def test_a_goal_labels_file_not_there_is_one_of_the_problems_said_at_once(
    proctor: Run, tmp_path: Path
) -> None:
    assert "--goal-labels FILE" in proctor("plan-repeats", "--help").out  # a file, as before
    for given, said in ((tmp_path / "nope.csv", "the file does not exist"),
                        (tmp_path, "a folder, not a file (a label file)")):  # fmt: skip
        refused = proctor(
            "plan-repeats", "--goal-labels", str(given), "--pairs", "0",
            "--output", str(tmp_path / "m.json"),
        )  # fmt: skip
        assert refused.code == 2 and refused.err == (
            "proctor: error: --pairs 0: expected a whole number from 1 to 1000\n"
            f"proctor: error: --goal-labels {given}: {said}\n"
            "proctor: error: 2 problems with the options, each named above; no manifest was "
            "written\n"
        ), refused.err


def test_an_existing_output_file_is_kept_unless_forced(proctor: Run, tmp_path: Path) -> None:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    precious = tmp_path / "precious.txt"
    precious.write_text("mine\n")
    plan = ("plan-repeats", "--goal-labels", str(labels), "--output", str(precious))
    kept = proctor(*plan)
    assert kept.code == 2 and "the file exists; give --force" in kept.err
    assert precious.read_text() == "mine\n"
    forced = proctor(*plan, "--force")
    assert forced.code == 0 and json.loads(precious.read_text())["tasks"] == ["t1"]
    under_a_file = proctor(*plan[:-1], str(precious / "m.json"))
    assert under_a_file.code == 2 and f"{precious} is not a folder" in under_a_file.err
    blank = proctor(*plan[:-1], "")
    assert blank.code == 2 and "give the path of a file" in blank.err


def _run_manifest_for(proctor: Run, tmp_path: Path, task: str) -> tuple[Path, CliResult]:
    """A manifest planned by plan-repeats for ``task`` (its default conditions), run on the
    cases: the manifest and the run's result."""
    labels = tmp_path / "goals.csv"
    labels.write_text(f"{task},single_goal\n")
    manifest = tmp_path / "m.json"
    assert (
        proctor("plan-repeats", "--goal-labels", str(labels), "--output", str(manifest)).code == 0
    )
    result = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    return manifest, result


def test_a_manifest_whose_tasks_are_no_cases_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("real", plan={"turns": [{"say": "hi"}]})
    manifest, result = _run_manifest_for(proctor, tmp_path, "ghost")
    assert result.code == 2
    assert f"{manifest}: tasks ghost: no case matches (cases: real)" in result.err


def test_three_conditions_run_in_the_order_the_manifest_prints(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config={"conditions": {"a": {}, "b": {}, "c": {}}}, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--conditions", "a,b,c", "--pairs", "3",
        "--output", str(manifest),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    orders = [r["order"] for r in json.loads(manifest.read_text())["runs"]]
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"), "--out", str(out),
        "--concurrency", "1",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    runs = [
        next((out / r["results"]).glob("run-*")) for r in json.loads(manifest.read_text())["runs"]
    ]
    assert [started_order(run, "t1") for run in runs] == orders
    assert any(order[1:] != sorted(order[1:]) for order in orders)  # not the config's order


def test_an_interrupted_manifest_starts_no_further_run(tmp_path: Path) -> None:
    case = tmp_path / "cases" / "s"
    case.mkdir(parents=True)
    (case / "prompt.md").write_text("go\n")
    (case / "config.json").write_text(json.dumps(AB))
    (case / "plan.json").write_text(json.dumps({"turns": [{"shell": "sleep 2"}, {"say": "ok"}]}))
    labels = tmp_path / "goals.csv"
    labels.write_text("s,single_goal\n")
    manifest = tmp_path / "repeats.json"
    argv = [sys.executable, "-m", "proctor"]
    subprocess.run(
        [*argv, "plan-repeats", "--goal-labels", str(labels), "--pairs", "3", "--output",
         str(manifest)], check=True, capture_output=True,
    )  # fmt: skip
    out = tmp_path / "out"
    command = subprocess.Popen(
        [*argv, "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
         "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("pair-1/run-*/trials/s/scripted/*/1")):
            assert time.monotonic() < deadline and command.poll() is None
            time.sleep(0.05)
        os.killpg(command.pid, signal.SIGINT)
        _, err = command.communicate(timeout=120)
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
    assert command.returncode == 130, err.decode()
    assert b"2 runs of" in err and b"not started" in err
    assert len([p for p in out.iterdir() if p.is_dir()]) == 1  # the first pair's folder only


def test_labels_and_conditions_that_could_not_run_are_refused(proctor: Run, tmp_path: Path) -> None:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    out = str(tmp_path / "m.json")
    bad_names = proctor("plan-repeats", "--goal-labels", str(labels), "--conditions", "a b,../x",
                        "--output", out)  # fmt: skip
    assert bad_names.code == 2 and "--conditions: 'a b' cannot name a condition" in bad_names.err
    labels.write_text("t1,blob\n")
    shape = proctor("plan-repeats", "--goal-labels", str(labels), "--output", out)
    assert shape.code == 2 and "task 't1' has goal shape 'blob'" in shape.err
    listed = tmp_path / "goals.json"
    listed.write_text("[1, 2]")
    as_list = proctor("plan-repeats", "--goal-labels", str(listed), "--output", out)
    assert as_list.code == 2 and "a JSON list; expected a JSON object" in as_list.err
    assert not (tmp_path / "m.json").exists()


def test_a_condition_named_twice_runs_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    out = tmp_path / "out"
    ran = proctor(
        "run", "--source", str(tmp_path / "cases"), "--out", str(out),
        "--condition", "baseline", "--condition", "baseline", "--reporter", "json",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert json.loads(ran.out)["totals"]["n"] == 1


def _planned(proctor: Run, tmp_path: Path, pairs: int) -> Path:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", str(pairs),
        "--output", str(manifest), "--force",
    )  # fmt: skip
    assert planned.code == 0, planned.err
    return manifest


def test_a_manifest_s_a_b_gate_is_judged_over_every_pair_not_each_pair_alone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 10)
    gate = {"ab": {"treatment": "treatment", "baseline": "baseline", "maxPassRateDrop": 0.3}}
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"minPassRate": 0, **gate}}))
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(out), "--config", str(config),
    )  # fmt: skip
    assert ran.code == 0, ran.err  # ten all-passing pairs: well within the allowed drop
    assert "10 runs, read as one sample set: exit 0" in ran.err
    # The control: one pair alone is too few to pass that gate.
    (one,) = (out / "pair-1").glob("run-*")
    assert proctor("report", str(one)).code == 1


def test_a_manifest_prints_and_summarises_its_pooled_report_not_each_pair_s(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI job's summary and output say what its exit code says: the pairs read as one
    sample set, never six reports each failing the A/B gate over its one pair."""
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 6)
    gate = {"ab": {"treatment": "treatment", "baseline": "baseline", "maxPassRateDrop": 0.5}}
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"minPassRate": 0, **gate}}))
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(out), "--config", str(config), "--reporter", "markdown,junit",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    text = summary.read_text()
    assert text.count("# proctor run ") == 1 and "**Exit code 0**" in text
    assert ran.out == text.removesuffix("\n")
    assert ran.out.startswith("# proctor run run-") and "Trials: 12 (passed 12)" in ran.out
    # The control: each pair's own report, over one pair, fails that A/B gate.
    (one,) = (out / "pair-1").glob("run-*")
    assert "**Exit code 1**" in (one / "suite.md").read_text()
    junit = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(out), "--config", str(config), "--reporter", "junit",
    )  # fmt: skip
    assert junit.code == 0 and junit.out.startswith("<?xml") and "<failure" not in junit.out


def test_a_hand_edited_manifest_is_checked_before_any_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 2)
    good = json.loads(manifest.read_text())
    edits = {
        "no run": ({"runs": []}, "field 'runs'"),
        "an empty order": ({"order": []}, "runs[0].order: expected each of the conditions"),
        "a condition twice": ({"order": ["baseline", "baseline"]}, "runs[0].order"),
        "a folder outside": ({"results": "../escaped"}, "runs[0].results: expected a folder"),
        "a pair twice": ({"pair": 2}, "runs[1]: pair 2 or folder"),
        "more runs than pairs": ({"pairs": 1}, "field 'pairs': expected at least the number"),
        "a pair 0": ({"pair": 0}, "runs[0].pair: expected a pair number from 1 to 2, got 0"),
        "a pair beyond": ({"pair": 3}, "runs[0].pair: expected a pair number from 1 to 2"),
    }
    for what, (change, said) in edits.items():
        data = json.loads(json.dumps(good))
        if "runs" in change or "pairs" in change:
            data.update(change)
        else:
            data["runs"][0].update(change)
        manifest.write_text(json.dumps(data))
        ran = proctor(
            "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
            "--out", str(tmp_path / "out"),
        )  # fmt: skip
        assert ran.code == 2 and said in ran.err and "Traceback" not in ran.err, what
        assert not (tmp_path / "out").exists() and not (tmp_path / "escaped").exists(), what


def test_a_manifest_split_between_machines_runs_its_pairs_and_says_so(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """Runs deleted from a copy for each machine: the pairs listed run, a note names them."""
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 2)
    data = json.loads(manifest.read_text())
    data["runs"] = data["runs"][1:]  # this machine's share: pair 2
    manifest.write_text(json.dumps(data))
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"), "--out", str(out)
    )
    assert ran.code == 0, ran.err
    assert f"proctor: note: {manifest} lists 1 of its 2 pairs (pair 2)" in ran.err
    assert [p.name for p in out.iterdir() if p.is_dir()] == ["pair-2"]


def test_a_manifest_run_again_keeps_finished_pairs_and_resumes_the_cut_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config=AB, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "repeats.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--pairs", "3", "--output", str(manifest)
    )
    assert planned.code == 0, planned.err
    out = tmp_path / "out"
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    assert proctor(*argv, "--out", str(out)).code == 0
    (first,) = (out / "pair-1").glob("run-*")
    (second,) = (out / "pair-2").glob("run-*")
    # As an interrupt leaves them: pair 2 cut short, pair 3 never started.
    record = json.loads((second / "run.json").read_text())
    (second / "run.json").write_text(json.dumps({**record, "interrupted": True}))
    (next(second.glob("trials/t1/*/treatment/1")) / "trial.json").unlink()
    for path in sorted((out / "pair-3").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    # --keep-workspace, which changes no result, is no other plan: the cut pair is resumed,
    # the trials it runs keeping their workspaces (it was refused, `.keepWorkspace differs`).
    again = proctor(*argv, "--out", str(out), "--keep-workspace")
    assert again.code == 0, again.err
    assert "pair-1: finished before, kept" in again.err
    assert f"pair-2: resuming {second}" in again.err
    assert (next(second.glob("trials/t1/*/treatment/1")) / "workspace").is_dir()
    assert [len(list((out / f"pair-{n}").glob("run-*"))) for n in (1, 2, 3)] == [1, 1, 1]
    (third,) = (out / "pair-3").glob("run-*")
    pooled = proctor("report", str(first), str(second), str(third), "--reporter", "json")
    assert pooled.code == 0, pooled.err
    assert json.loads(pooled.out)["totals"]["n"] == 6  # 1 task × 2 conditions × 3 pairs
    assert "3 runs, read as one sample set" in again.err  # the kept pairs count too
    # The same folder named otherwise, or another concurrency: the same plan.
    same = proctor(*argv, "--out", str(out.resolve()), "--concurrency", "2")
    assert same.code == 0 and "pair-1: finished before, kept" in same.err, same.err
    # The same --out for another plan (here another option): no pair of it is taken as run.
    other = proctor(*argv, "--out", str(out), "--timeout", "99")
    assert other.code == 2 and "of another plan (--timeout differs)" in other.err, other.err
    assert [len(list((out / f"pair-{n}").glob("run-*"))) for n in (1, 2, 3)] == [1, 1, 1]


def test_a_manifest_whose_conditions_no_case_has_names_the_manifest(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """plan-repeats' default conditions (baseline, treatment) against cases of others: the
    sentence names the manifest, not a --condition the user never gave."""
    make_case("real", plan={"turns": [{"say": "hi"}]})
    manifest, result = _run_manifest_for(proctor, tmp_path, "real")
    assert result.code == 2
    assert f"{manifest}: conditions baseline: case 'real' has no such condition" in result.err
    assert "proctor plan-repeats --conditions" in result.err


def test_a_manifest_of_several_tasks_whose_conditions_none_has_names_no_case_option(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The manifest's tasks become the pairs' --case options, which the user never gave: the
    sentence says them as its tasks (it read `no case --case one --case two chooses has that
    condition`), and a condition only other cases have as theirs."""
    plan = {"turns": [{"say": "hi"}]}
    base = {"agents": ["scripted"], "timeoutSec": 30}
    ab = {**base, "conditions": {"baseline": {}, "with-skill": {"promptPrefix": "Use it."}}}
    make_case("one", plan=plan, config=ab)
    make_case("two", plan=plan, config=ab)
    make_case("other", plan=plan, config={**base, **AB})
    labels = tmp_path / "goals.csv"
    labels.write_text("one,single_goal\ntwo,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = proctor("plan-repeats", "--goal-labels", str(labels), "--output", str(manifest))
    assert planned.code == 0, planned.err
    result = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.code == 2
    assert (
        f"{manifest}: conditions treatment: none of its tasks has that condition (their "
        "conditions: baseline, with-skill); it is only of cases that are none of its tasks; "
        "plan the repeats with the cases' conditions"
    ) in result.err, result.err
    assert "--case" not in result.err


def test_a_manifest_whose_gate_ab_condition_its_tasks_leave_out_names_no_case_option(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The configuration's gate.ab names a condition only another case has, or one the tasks
    have that the manifest does not run: the refusal said it of `--case one --case two` and
    `--condition`, options the user never gave; it says it of the manifest's tasks and
    conditions."""
    plan = {"turns": [{"say": "hi"}]}
    base = {"agents": ["scripted"], "timeoutSec": 30}
    ab = {**base, "conditions": {"baseline": {}, "with-skill": {}, "extra": {}}}
    make_case("one", plan=plan, config=ab)
    make_case("two", plan=plan, config=ab)
    make_case("other", plan=plan, config={**base, **AB})
    labels = tmp_path / "goals.csv"
    labels.write_text("one,single_goal\ntwo,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", str(labels), "--conditions", "baseline,with-skill",
        "--output", str(manifest),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    for treatment, said in (
        (
            "treatment",
            f"condition 'treatment' is only of cases none of {manifest}'s tasks (conditions: "
            "baseline, with-skill); plan the repeats with tasks that have it, or give this run "
            "a --config without gate.ab",
        ),
        (
            "extra",
            f"condition 'extra' is none of {manifest}'s conditions (conditions: baseline, "
            "with-skill); plan the repeats with it, or give this run a --config without gate.ab",
        ),
    ):
        config = tmp_path / f"{treatment}.json"
        config.write_text(
            json.dumps({"gate": {"ab": {"treatment": treatment, "baseline": "baseline"}}})
        )
        result = proctor(
            "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
            "--out", str(tmp_path / "out"), "--config", str(config),
        )  # fmt: skip
        assert result.code == 2
        assert f"{config}: field 'gate.ab': {said}" in result.err, result.err
        assert "--case" not in result.err and "--condition" not in result.err


def test_the_manifest_s_junit_file_is_its_runs_read_as_one_and_no_pair_writes_its_own(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    # The first trial of the manifest fails, every other passes: pair 1 alone fails its gate
    # (0 of 1 in one condition), the pairs read as one pass it (1 of 2, minPassRate 0.5).
    # Made by the first check only: mkdir is atomic, where a counter file read and written by
    # two trials checked at once could let both count themselves first.
    marker = tmp_path / "first-checked"
    check = {"use": "command", "gate": True, "run": f"! mkdir {marker} 2>/dev/null"}
    make_case("t1", config={**AB, "evaluators": [check]}, plan=PLAN)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"gate": {"minPassRate": 0.5}}))
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = ("plan-repeats", "--goal-labels", str(labels), "--pairs", "2")
    assert proctor(*planned, "--output", str(manifest)).code == 0
    out = tmp_path / "out"
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"), "--out", str(out),
        "--config", str(config), "--reporter", "markdown,junit",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert f"proctor: the JUnit file of the 2 runs: {out / 'junit.xml'}" in ran.err
    assert sorted(out.rglob("junit.xml")) == [out / "junit.xml"], "no pair's own"
    root = ElementTree.parse(out / "junit.xml").getroot()
    # Each trial named by its pair's run and its own repeat, the same in every build; the
    # run's folder (new in every build) is a property and the system-out's first line.
    cases = list(root.iter("testcase"))
    assert [c.get("name") for c in cases] == ["run 1 repeat 1", "run 2 repeat 1"] * 2
    # The first trial to finish its check failed, tolerated by the pooled gate: said after
    # the trial's folder. Which of pair 1's two conditions ran it first is the scheduler's.
    tolerated = [
        (suite.get("name"), case)
        for suite in root.iter("testsuite")
        for case in suite.iter("testcase")
        if "failed, tolerated by its group's gate: " in (case.findtext("system-out") or "")
    ]
    assert len(tolerated) == 1, tolerated
    group, failed = tolerated[0]  # t1/scripted/<condition>
    assert failed.get("name") == "run 1 repeat 1"
    first = {p.get("name"): p.get("value") for p in failed.iter("property")}
    (pair_1,) = (out / "pair-1").glob("run-*")
    assert first["run"] == pair_1.name
    assert first["trial"] == f"{pair_1.name}/trials/{group}/1"
    said = (failed.findtext("system-out") or "").splitlines()
    assert said[0] == f"trial {first['trial']}"
    assert said[1].startswith("failed, tolerated by its group's gate: ")
    assert not any(c.find("failure") is not None for c in root.iter("testcase"))


def test_a_manifest_s_pairs_go_under_the_configuration_s_out_unless_out_is_given(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a plain run's results do: they went under ./proctor-results whatever proctor.json's
    `out` said."""
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 2)
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"out": "from-config"}))
    monkeypatch.chdir(tmp_path)
    args = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    ran = proctor(*args, "--config", str(config), "--reporter", "markdown,junit")
    assert ran.code == 0, ran.err
    assert [len(list((tmp_path / "from-config" / pair).glob("run-*"))) for pair in
            ("pair-1", "pair-2")] == [1, 1]  # fmt: skip
    assert (tmp_path / "from-config" / "junit.xml").is_file()
    assert not (tmp_path / "proctor-results").exists()
    # Again, with ./proctor.json found without --config: the finished pairs are kept there.
    again = proctor(*args)
    assert again.code == 0 and again.err.count("finished before, kept") == 2, again.err
    # --out still wins.
    out = proctor(*args, "--out", str(tmp_path / "given"))
    assert out.code == 0, out.err
    assert len(list((tmp_path / "given").glob("pair-*/run-*"))) == 2
    assert not (tmp_path / "proctor-results").exists()


def test_a_manifest_stopped_with_exit_2_leaves_a_red_junit_file_not_an_earlier_green_one(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("t1", config={**AB, "evaluators": []}, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = ("plan-repeats", "--goal-labels", str(labels), "--pairs", "1")
    assert proctor(*planned, "--output", str(manifest)).code == 0
    out = tmp_path / "out"
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    argv += ("--out", str(out), "--reporter", "junit")
    assert proctor(*argv).code == 0
    root = ElementTree.parse(out / "junit.xml").getroot()
    assert root.get("errors") == "0" and root.get("failures") == "0"
    # The same --out for another plan: refused, and the file says so rather than the last one.
    other = proctor(*argv, "--timeout", "99")
    assert other.code == 2 and "of another plan (" in other.err, other.err
    root = ElementTree.parse(out / "junit.xml").getroot()
    assert root.get("errors") == "1", ElementTree.tostring(root)
    (error,) = root.iter("error")
    assert (error.get("message") or "").startswith("exit 2: ")
    assert "of another plan (" in (error.get("message") or "")


def test_a_manifest_runs_each_pair_once_whatever_the_case_s_repeats(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The manifest's pairs are the repeats: a case's ``repeats: 3`` runs one repeat of each
    condition per pair, and the options a manifest sets itself are refused, not overridden
    in silence."""
    make_case("t1", config={**AB, "repeats": 3}, plan=PLAN)
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    manifest = tmp_path / "m.json"
    planned = ("plan-repeats", "--goal-labels", str(labels), "--pairs", "2")
    assert proctor(*planned, "--output", str(manifest)).code == 0
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    for extra in (
        ("--repeats", "3"),
        ("--case", "t1"),
        ("--condition", "baseline"),
        ("--first-condition", "treatment"),
    ):
        refused = proctor(*argv, *extra, "--out", str(tmp_path / "no"))
        assert refused.code == 2, refused.err
        assert f"--manifest runs its own plan: drop {extra[0]}" in refused.err
    assert "`proctor plan-repeats --pairs N` sets how many" in proctor(*argv, "--repeats", "3").err
    assert not (tmp_path / "no").exists()
    out = tmp_path / "out"
    ran = proctor(*argv, "--out", str(out))
    assert ran.code == 0, ran.err
    for pair in ("pair-1", "pair-2"):
        (run_dir,) = (out / pair).glob("run-*")
        assert sorted(started_order(run_dir, "t1")) == ["baseline", "treatment"]


def test_an_output_in_a_missing_folder_is_refused_not_made(proctor: Run, tmp_path: Path) -> None:
    """The manifest file is written, never a missing folder (as `model serve --log`)."""
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    planned = ("plan-repeats", "--goal-labels", str(labels))
    missing = tmp_path / "nonexistent" / "dir" / "m.json"
    refused = proctor(*planned, "--output", str(missing))
    assert refused.code == 2
    assert f"--output {missing}: the folder {missing.parent} does not exist" in refused.err, (
        refused.err
    )
    assert not (tmp_path / "nonexistent").exists()
    here = proctor(*planned, "--output", str(tmp_path / "m.json"))
    assert here.code == 0 and (tmp_path / "m.json").is_file()


def test_a_manifest_says_on_stderr_what_its_runs_read_as_one_do_not_share(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The notes of the runs read as one sample set are on stderr, in the words and with the
    prefix `proctor report` of the run folders uses, once each, whatever report is printed."""
    make_case("t1", config=AB, plan=PLAN)
    manifest = _planned(proctor, tmp_path, 2)
    out = tmp_path / "out"
    argv = ("run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"))
    assert proctor(*argv, "--out", str(out)).code == 0
    (second,) = (out / "pair-2").glob("run-*")
    resolved = json.loads((second / "resolved.json").read_text())
    resolved["gate"] = {**resolved["gate"], "minPassRate": 0.5}
    (second / "resolved.json").write_text(json.dumps(resolved))
    (first,) = (out / "pair-1").glob("run-*")
    report = proctor("report", str(first), str(second))
    notes = [line for line in report.err.splitlines() if line.startswith("proctor: note: ")]
    assert any("the runs' gates differ" in note for note in notes), report.err
    for reporter in ("json", "markdown"):  # every pair kept: read again as one
        again = proctor(*argv, "--out", str(out), "--reporter", reporter)
        assert again.code == 0, again.err
        for note in notes:
            assert again.err.count(note + "\n") == 1, again.err
        assert "printed the" not in again.err  # one reporter named: nothing else asked
    # Two reporters named: the one printed is said, and how to print the other of them all.
    two = proctor(*argv, "--out", str(out), "--reporter", "markdown,html,junit")
    assert two.code == 0 and two.out.startswith("# proctor run "), two.err
    assert (
        "proctor: note: printed the markdown report of the runs read as one sample set only; "
        "`proctor report` of the run folders with --reporter html prints another\n"
    ) in two.err, two.err


def test_a_manifest_says_the_cases_it_skipped_once(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As a plain run says them on stderr, once for the whole manifest, not once per pair;
    its report of the runs read as one lists them once too."""
    make_case("t1", config=AB, plan=PLAN)
    make_case("broken", prompt="")
    manifest = _planned(proctor, tmp_path, 2)
    ran = proctor(
        "run", "--manifest", str(manifest), "--source", str(tmp_path / "cases"),
        "--out", str(tmp_path / "out"), "--json",
    )  # fmt: skip
    assert ran.code == 0, ran.err
    assert ran.err.count("proctor: skipped case 'broken': prompt.md is empty\n") == 1, ran.err
    skipped = json.loads(ran.out)["skippedCases"]
    assert skipped == [{"case": "broken", "reason": "prompt.md is empty"}]


def test_help_says_how_three_or_more_conditions_are_ordered(proctor: Run) -> None:
    """The help said "alternating order", which only two conditions have."""
    said = " ".join(proctor("plan-repeats", "--help").out.split())
    assert "alternating order" not in said
    assert "three or more follow the rows of a Williams square" in said
