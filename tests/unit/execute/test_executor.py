"""The local executor's collection of a worker's record: a missing one is written as "worker
died", one that is there but cannot be used is never overwritten."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.execute.context import WorkerOptions
from proctor.execute.executor import LocalExecutor, _collect
from proctor.models.case import Case
from proctor.models.config import AgentProfile, CaseConfig, Provision
from proctor.models.plan import ResolvedCase, TrialSpec
from proctor.paths import RunPaths


def spec(tmp_path: Path) -> TrialSpec:
    case = Case(name="c", path=tmp_path, prompt="p", config=CaseConfig())
    resolved = ResolvedCase(
        case=case,
        agents=["scripted"],
        timeout_sec=5,
        repeats=1,
        evaluators=[],
        combiner="gated-mean",
        pass_threshold=60,
        provision=Provision(),
        setup=[],
        teardown=[],
        env={},
    )
    return TrialSpec(
        case=resolved,
        agent="scripted",
        condition="default",
        repeat=1,
        profile=AgentProfile(),
        index=0,
    )


def test_a_missing_record_is_written_as_a_dead_worker(tmp_path: Path) -> None:
    run = RunPaths(tmp_path / "run")
    record = _collect(spec(tmp_path), run, exitcode=-9)
    assert record.status == "infra-error" and "died (exit code -9)" in record.reason
    path = run.trial("c", "scripted", "default", 1).trial_json
    assert json.loads(path.read_text())["status"] == "infra-error"


def test_an_unreadable_record_is_not_overwritten(tmp_path: Path) -> None:
    run = RunPaths(tmp_path / "run")
    path = run.trial("c", "scripted", "default", 1).trial_json
    path.parent.mkdir(parents=True)
    path.write_text("{half a record")
    record = _collect(spec(tmp_path), run, exitcode=0)
    assert record.status == "infra-error" and "cannot be used" in record.reason
    assert path.read_text() == "{half a record"


def test_a_record_of_a_newer_proctor_is_not_overwritten(tmp_path: Path) -> None:
    run = RunPaths(tmp_path / "run")
    path = run.trial("c", "scripted", "default", 1).trial_json
    path.parent.mkdir(parents=True)
    newer = json.dumps({"schemaVersion": 99, "case": "c", "agent": "scripted", "repeat": 1})
    path.write_text(newer)
    record = _collect(spec(tmp_path), run, exitcode=0)
    assert "newer than this proctor" in record.reason and path.read_text() == newer


def test_the_local_executor_runs_a_trial_in_a_worker(tmp_path: Path) -> None:
    run = RunPaths(tmp_path / "run")
    outcome = LocalExecutor().run(
        [spec(tmp_path)], run, concurrency=1, options=WorkerOptions(), subscribers=[]
    )
    assert [r.status for r in outcome.records] == ["passed"] and not outcome.interrupted
    assert run.trial("c", "scripted", "default", 1).trial_json.exists()


def test_a_trial_of_a_case_planned_without_its_cause_names_every_cause(tmp_path: Path) -> None:
    """A case a proctor planned before it recorded the one cause (no ``not_evaluated``): its
    trial's reason names every cause, as that proctor's did, where it said '--no-evaluate'."""
    from proctor.models.trial import NOT_EVALUATED, not_evaluated

    run = RunPaths(tmp_path / "run")
    older = spec(tmp_path)
    older = older.model_copy(update={"case": older.case.model_copy(update={"evaluated": False})})
    outcome = LocalExecutor().run([older], run, concurrency=1, options=WorkerOptions(), subscribers=[])  # fmt: skip
    assert [(r.status, r.reason) for r in outcome.records] == [("skipped", NOT_EVALUATED)]
    told = older.case.model_copy(update={"not_evaluated": "--no-evaluate"})
    outcome = LocalExecutor().run(
        [older.model_copy(update={"case": told})], RunPaths(tmp_path / "told"), concurrency=1,
        options=WorkerOptions(), subscribers=[],
    )  # fmt: skip
    assert [r.reason for r in outcome.records] == [not_evaluated("--no-evaluate")]
