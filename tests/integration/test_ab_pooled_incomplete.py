"""Runs read as one sample set count every A/B pair a run planned and did not complete as
incomplete, as the run read alone does: the repeats an interrupted run never started too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import MakeCase, Run


def test_pooled_runs_count_the_pairs_a_run_never_started(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 3}
    make_case("x", config=config, plan={"turns": [{"say": "hi"}]})
    gate = tmp_path / "proctor.json"
    gate.write_text(
        json.dumps(
            {"gate": {"ab": {"treatment": "variant", "baseline": "control", "maxPassRateDrop": 1}}}
        )
    )
    runs = []
    for name in ("a", "b", "c"):
        out = tmp_path / name
        argv = ["run", "--source", str(tmp_path / "cases"), "--out", str(out), "--config"]
        assert proctor(*argv, str(gate)).code == 0
        (run,) = out.glob("run-*")
        runs.append(run)
    # Run b as if stopped before repeats 2 and 3 of either side started.
    stopped = runs[1]
    for side in ("control", "variant"):
        for repeat in ("2", "3"):
            shutil.rmtree(stopped / "trials" / "x" / "scripted" / side / repeat)
    manifest = json.loads((stopped / "run.json").read_text())
    (stopped / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))

    alone = proctor("report", str(stopped), "--json").json()
    assert alone["abGate"]["incomplete"] == 2 and len(alone["ab"]["incomplete"]) == 2
    together = proctor("report", *map(str, runs), "--json")
    assert together.code == 130, together.err
    pooled = together.json()
    # Each planned pair once: 3 + 1 complete ones, and b's 2 never started (b's repeats 2 and
    # 3 keep their place, c's numbered on after them).
    assert pooled["abGate"]["pairs"] == 7 and pooled["abGate"]["incomplete"] == 2, pooled
    never = "neither side ran (the run stopped before this repeat)"
    listed = [(i["repeat"], i["reason"]) for i in pooled["ab"]["incomplete"]]
    assert listed == [(5, never), (6, never)], listed
    assert [p["repeat"] for p in pooled["ab"]["pairs"]] == [1, 2, 3, 4, 7, 8, 9]
    compared = proctor("compare", *map(str, runs), "--json")
    assert compared.code == 0, compared.err
    assert [(i["repeat"], i["reason"]) for i in compared.json()["incomplete"]] == listed
    # The trials named by their own run and repeat, whatever their pooled number.
    junit = proctor("report", *map(str, runs), "--reporter", "junit")
    assert "run 3 repeat 1" in junit.out, junit.out


def test_a_run_stopped_before_a_condition_ran_compares_its_planned_conditions(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A run stopped before any trial of one condition ran still planned it: `compare RUN`
    pairs the two conditions, every pair missing that side, not 'fewer than two conditions'."""
    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 2}
    make_case("x", config=config, plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    shutil.rmtree(run / "trials" / "x" / "scripted" / "variant")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    for named in ((), ("--treatment", "variant"), ("--baseline", "control")):
        compared = proctor("compare", str(run), "--json", *named)
        assert compared.code == 0, compared.err
        report = compared.json()
        assert (report["treatment"], report["baseline"]) == ("variant", "control")
        assert [(i["repeat"], i["reason"]) for i in report["incomplete"]] == [
            (1, "missing treatment"),
            (2, "missing treatment"),
        ]
        assert "stopped before every trial ran" in compared.err


def test_the_report_of_a_run_stopped_before_a_condition_ran_has_its_ab_section(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """`report RUN` shows the A/B comparison `compare RUN` shows: the planned conditions,
    every pair missing the side that never ran, in JSON and in Markdown."""
    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 2}
    make_case("x", config=config, plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    shutil.rmtree(run / "trials" / "x" / "scripted" / "variant")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    reported = proctor("report", str(run), "--json")
    assert reported.code == 130, reported.err
    ab = reported.json()["ab"]
    assert ab is not None and (ab["treatment"], ab["baseline"]) == ("variant", "control")
    assert [(i["repeat"], i["reason"]) for i in ab["incomplete"]] == [
        (1, "missing treatment"),
        (2, "missing treatment"),
    ]
    markdown = proctor("report", str(run)).out
    assert "## A/B: `variant` (treatment) vs `control` (baseline)" in markdown, markdown
    assert "| `x` | scripted | 2 | missing treatment |" in markdown, markdown


def test_a_gate_given_with_config_may_name_a_condition_a_stopped_run_never_ran(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The run planned it: `report RUN --config` gates on it (no complete pair: the gate
    fails), alone or read with other runs, not 'condition ... is not in this run'."""
    config = {"conditions": {"control": {}, "variant": {}}, "repeats": 2}
    make_case("x", config=config, plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
    (run,) = out.glob("run-*")
    shutil.rmtree(run / "trials" / "x" / "scripted" / "variant")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "interrupted": True}))
    gate = tmp_path / "gate.json"
    gate.write_text(json.dumps({"gate": {"ab": {"treatment": "variant", "baseline": "control"}}}))
    for runs in ([run], [run, tmp_path / "other"]):
        if len(runs) > 1:  # a second run of the same case, every trial of both conditions
            argv = ["run", "--source", str(tmp_path / "cases"), "--out", str(runs[1])]
            assert proctor(*argv).code == 0
            runs[1] = next(runs[1].glob("run-*"))
        reported = proctor("report", *map(str, runs), "--config", str(gate), "--json")
        assert reported.code == 130, reported.err
        ab_gate = reported.json()["abGate"]
        assert (ab_gate["treatment"], ab_gate["baseline"]) == ("variant", "control"), ab_gate


def test_runs_read_together_count_the_trials_a_run_started_and_never_recorded(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """As the run read alone counts them (its journal says they started), not as trials
    never started."""
    make_case("x", config={"repeats": 2}, plan={"turns": [{"say": "hi"}]})
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 0
        runs.append(next(out.glob("run-*")))
    killed = runs[1]  # as if killed while its repeat 2 ran: started, never recorded
    shutil.rmtree(killed / "trials" / "x" / "scripted" / "default" / "2")
    manifest = json.loads((killed / "run.json").read_text())
    (killed / "run.json").write_text(json.dumps({**manifest, "finishedAt": None}))
    said = "(1 started but never recorded)"
    alone = proctor("report", str(killed), "--json")
    assert alone.code == 130 and said in alone.json()["exitReason"], alone.out
    together = proctor("report", *map(str, runs), "--json")
    assert together.code == 130, together.err
    reason = together.json()["exitReason"]
    assert reason.startswith(f"interrupted after 3 of 4 trials finished {said}"), reason
