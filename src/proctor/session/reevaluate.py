"""Recorded trials re-evaluated: the deterministic part of a real agent's trial.

A real agent's run cannot be repeated the same way, but what was scored can be: the trial's
kept workspace (``workspace/``, kept when the trial did not pass, or with ``--keep-workspace``)
and its trajectory (``trajectory.jsonl``, what its evaluators read). ``proctor run
--repeat-check N --recorded RUN_DIR`` runs the suite's evaluators for each such trial of a
stored run N times, each time on a fresh copy of its workspace, recomputes its process metrics
and rules, and compares the repetitions as the scripted agent's are compared
(:mod:`proctor.session.repeat_check`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from proctor.agents.spec import SCRIPTED
from proctor.errors import ConfigError
from proctor.evaluators.combiners import COMBINERS
from proctor.execute.verdict import none_ran
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.rules import evaluate_rules
from proctor.models.io import read_trajectory
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.trajectory import Trajectory
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.paths import RunPaths, TrialPaths, newest_run_in
from proctor.report.trial_records import is_stand_in, iter_records
from proctor.session.manual import evaluate_on
from proctor.session.recorded import session_prices
from proctor.util.files import remove_tree

NO_WORKSPACE = "not re-evaluated: its workspace was not kept (run it with --keep-workspace)"
NO_TRAJECTORY = "not re-evaluated: it has no trajectory.jsonl"
NOT_PLANNED = "not re-evaluated: its case, agent or condition is not in the suite"
SCRIPTED_TRIAL = "not re-evaluated: a scripted trial, which the repeat check runs itself"
AGENT_STATUSES = frozenset({"timeout", "agent-error", "infra-error", "skipped"})
"""Statuses the agent's run decided, not its evaluators: kept as recorded."""


@dataclass(frozen=True)
class RecordedTrial:
    """A stored trial to re-evaluate: the suite's plan for it, its folder and its record."""

    spec: TrialSpec
    folder: Path
    record: TrialRecord


@dataclass(frozen=True)
class Left:
    """A stored trial that is not re-evaluated, and why."""

    what: str
    reason: str


def recorded_trials(plan: RunPlan, run_dir: Path) -> tuple[list[RecordedTrial], list[Left]]:
    """The trials of the stored run ``run_dir`` that can be re-evaluated with the suite's
    evaluators (``plan``), and those that cannot, with the reason. A trial is matched to the
    suite by its case, agent and condition."""
    if not run_dir.is_dir():
        raise ConfigError(f"--recorded {run_dir}: no such folder")
    newest = newest_run_in(run_dir)
    if newest is not None:
        raise ConfigError(
            f"--recorded {run_dir}: a results directory; name one of its run folders "
            f"(the newest: {newest})"
        )
    if not _is_run_folder(run_dir):
        raise ConfigError(
            f"--recorded {run_dir}: not a run folder (it holds no run.json and no trial)"
        )
    specs: dict[tuple[str, str, str], TrialSpec] = {}
    for planned in plan.trials:
        specs.setdefault((planned.case.name, planned.agent, planned.condition), planned)
    paths = RunPaths(run_dir)
    found: list[RecordedTrial] = []
    left: list[Left] = []
    for record in iter_records(run_dir):
        what = f"{run_dir.name}: {record.case}/{record.agent}/{record.condition}/{record.repeat}"
        folder = paths.trial(record.case, record.agent, record.condition, record.repeat).root
        spec = specs.get((record.case, record.agent, record.condition))
        if is_stand_in(record):  # its trial.json could not be read
            left.append(Left(what, f"not re-evaluated: {record.reason}"))
        elif record.agent == SCRIPTED.id or (
            spec is not None and (spec.profile.agent or spec.agent) == SCRIPTED.id
        ):  # the scripted agent, or a profile of it: run by the repeat check itself
            left.append(Left(what, SCRIPTED_TRIAL))
        elif spec is None:
            left.append(Left(what, NOT_PLANNED))
        elif not (folder / "workspace").is_dir():
            left.append(Left(what, NO_WORKSPACE))
        elif not TrialPaths(folder).trajectory.is_file():
            left.append(Left(what, NO_TRAJECTORY))
        else:
            found.append(RecordedTrial(spec, folder, record))
    return found, left


def _is_run_folder(folder: Path) -> bool:
    """Whether ``folder`` looks like a run folder: its ``run.json``, or a trial's record."""
    return RunPaths(folder).run_json.exists() or any(folder.glob("trials/*/*/*/*/trial.json"))


def reevaluate(trial: RecordedTrial, scratch: Path) -> TrialRecord:
    """The trial re-evaluated in ``scratch`` (see :func:`_reevaluate`), which is emptied
    afterwards: the copies of a run's many trials never pile up in the temporary folder. A
    read-only folder of the workspace goes too, and a link in it is removed, never followed."""
    try:
        return _reevaluate(trial, scratch)
    finally:
        remove_tree(scratch)


def _reevaluate(trial: RecordedTrial, scratch: Path) -> TrialRecord:
    """The trial's record with its evaluators run again on a fresh copy of its kept workspace
    (at ``scratch/workspace``, the same path every time, so that what a metric reads of paths
    is the same), its process metrics and rules recomputed from its trajectory, and its
    status as they decide it."""
    spec, stored = trial.spec, trial.record
    workspace, trial_root = scratch / "workspace", TrialPaths(scratch / "trial")
    home = scratch / "evaluator-home"
    shutil.copytree(trial.folder / "workspace", workspace, symlinks=True)
    # The trial's files its evaluators read (its record, trajectory, workspace diff and
    # transcript), as they found them: an evaluator reads them from the trial folder it is
    # given. Not its terminal recording, model requests or logs, which can be large.
    stored_paths = TrialPaths(trial.folder)
    trial_root.root.mkdir(parents=True)
    for path in (
        stored_paths.trial_json,
        stored_paths.trajectory,
        stored_paths.workspace_diff,
        stored_paths.raw_transcript,
        stored_paths.questions,
    ):
        if path.is_file():
            shutil.copyfile(path, trial_root.root / path.name)
    if stored_paths.transcript_dir.is_dir():
        shutil.copytree(stored_paths.transcript_dir, trial_root.transcript_dir, symlinks=True)
    events = read_trajectory(TrialPaths(trial.folder).trajectory)
    fmt = stored.transcript.format if stored.transcript is not None else "proctor"
    trajectory = Trajectory(format=fmt or "proctor", events=events, usage=stored.usage)
    raw = TrialPaths(trial.folder).raw_transcript
    results = evaluate_on(
        spec,
        workspace,
        trial_root,
        trajectory,
        raw if raw.is_file() else None,
        home=home,
        timed_out=stored.status == "timeout",
    )
    config = spec.case.case.config
    # Priced as `record` priced it: a session on proctor's scripted model costs nothing,
    # whatever model it names (the stored record keeps the note that says so).
    prices, _ = session_prices(
        spec, stored.agent_model, raw if raw.is_file() else None, sorted(stored.usage)
    )
    metrics = compute_process_metrics(
        events,
        expected_files=config.expected_files,
        expected_symbols=config.expected_symbols,
        config=spec.metrics,
        workspace=str(workspace),
        pricing=prices,
    )
    status, passed, score = _verdict(stored, spec, results)
    return stored.model_copy(
        update={
            "status": status,
            "passed": passed,
            "score": score,
            "evaluators": results,
            "process": metrics,
            "rules": evaluate_rules(metrics, spec.metrics),
        }
    )


def _verdict(
    stored: TrialRecord, spec: TrialSpec, results: Sequence[EvaluatorResult]
) -> tuple[str, bool | None, float | None]:
    """The status the evaluators decide; a status the agent's run decided stays."""
    if stored.status in AGENT_STATUSES:
        return stored.status, stored.passed, stored.score
    if none_ran(results):
        return "skipped", None, None
    if any(r.error for r in results):
        return "eval-error", None, None
    counted = [r for r in results if not r.error and r.counted]
    passed, score = COMBINERS[spec.case.combiner](counted, spec.case.pass_threshold)
    return ("passed" if passed else "failed"), passed, score
