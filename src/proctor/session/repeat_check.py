"""``proctor run --repeat-check N``: run the deterministic part of a suite N times and compare.

The deterministic part is every planned trial of the built-in ``scripted`` agent; trials of
real agents are left out and listed. The plan is made once and run N times through
:func:`~proctor.session.run.run_plan`, so each repetition is an ordinary run folder. Then the
trial records of repetition 1 are compared with those of every later repetition, trial by trial
(case, agent, condition, repeat): each evaluator's ``passed``, ``score``, ``error`` and
``metrics`` (model-backed evaluators left out), the process metrics without the time-, token-
and cost-based fields (:data:`~proctor.session.repeat_comparison.EXCLUDED_PROCESS_FIELDS`), the
task rules and the status. Values must be identical, floats included. docs/repeat-check.md
describes it for users.

This module runs the repetitions; :mod:`proctor.session.repeat_comparison` compares two of them
and :mod:`proctor.session.repeat_result` holds what the check found and how it is said.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from proctor.agents.spec import SCRIPTED
from proctor.errors import ConfigError
from proctor.execute.events import Subscriber
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.plan.resolve import nothing_runnable
from proctor.session.journal import started_here
from proctor.session.reevaluate import RecordedTrial, recorded_trials, reevaluate
from proctor.session.repeat_comparison import (
    MODEL_BACKED,
    Exclusion,
    compare_repetitions,
    evaluator_name,
    model_backed_uses,
)
from proctor.session.repeat_result import RepeatCheck, Repetition
from proctor.session.request import RunRequest
from proctor.session.run import run_plan
from proctor.session.start import plan_run
from proctor.util.files import temporary_folder
from proctor.util.logs import shown_as

log = logging.getLogger("proctor")

REAL_AGENT = "not deterministic: a real agent"


def deterministic_part(
    plan: RunPlan, compared: frozenset[tuple[str, str, str]] = frozenset()
) -> tuple[RunPlan, list[Exclusion]]:
    """The plan's trials of the scripted agent, and the other trials as exclusions, but for
    those ``compared`` through recorded trials of their case, agent and condition."""
    kept: list[TrialSpec] = []
    excluded: list[Exclusion] = []
    for spec in plan.trials:
        if (spec.profile.agent or spec.agent) == SCRIPTED.id:
            kept.append(spec)
        elif spec.key[:3] not in compared:
            what = "/".join(str(part) for part in spec.key)
            excluded.append(Exclusion(what, REAL_AGENT))
    names = {spec.case.name for spec in kept}
    part = plan.model_copy(
        update={"trials": kept, "cases": [c for c in plan.cases if c.name in names]}
    )
    return part, excluded


def model_backed_evaluators(trials: Iterable[TrialSpec], backed: frozenset[str]) -> list[Exclusion]:
    """The model-backed evaluators the ``trials`` would run, each once: one whose entry's
    ``conditions`` leave out every repeated trial's condition never runs, so is not said to
    be left out."""
    found: dict[str, Exclusion] = {}
    for spec in trials:
        for i, e in enumerate(spec.case.evaluators):
            if e.use in backed and (not e.conditions or spec.condition in e.conditions):
                what = f"{spec.case.name}: {evaluator_name(i, e.use, e.label)}"
                found.setdefault(what, Exclusion(what, MODEL_BACKED))
    return list(found.values())


def repeat_plan(
    plan: RunPlan,
    request: RunRequest,
    repetitions: int,
    subscribers: Callable[[], list[Subscriber]] = list,
    recorded: Path | None = None,
) -> RepeatCheck:
    """Run the plan's deterministic part ``repetitions`` times and compare the records: its
    scripted trials, and with ``recorded`` (a stored run) the trials of that run re-evaluated
    (see :mod:`proctor.session.reevaluate`). ``subscribers`` makes a fresh set of run-event
    subscribers for each repetition. Raises ConfigError when nothing deterministic is
    planned."""
    if repetitions < 2:
        raise ConfigError(f"--repeat-check {repetitions}: at least 2 repetitions are needed")
    again: list[RecordedTrial] = []
    left: list[Exclusion] = []
    if recorded is not None:
        found, not_again = recorded_trials(plan, recorded)
        again, left = found, [Exclusion(item.what, item.reason) for item in not_again]
    # A real agent's planned trial whose recorded trials are re-evaluated is compared.
    compared = frozenset(t.spec.key[:3] for t in again)
    part, excluded_trials = deterministic_part(plan, compared)
    excluded_trials += left
    if not part.trials and not again:
        agents = ", ".join(sorted({t.agent for t in plan.trials}))
        raise ConfigError(
            "--repeat-check: nothing deterministic to repeat: every planned trial runs a real "
            f"agent ({agents}), and only trials of the {SCRIPTED.id} agent are repeated"
            + (
                f"; no trial of --recorded {recorded} could be re-evaluated{_why_not(left)}"
                if recorded is not None
                else " (--recorded RUN_DIR re-evaluates a stored run's trials)"
            )
        )
    if recorded is not None and not again:  # asked for, and nothing of it re-evaluated
        log.warning(
            "--recorded %s: no trial of it could be re-evaluated%s; the %s "
            "agent's trials are repeated alone",
            recorded,
            _why_not(left),
            SCRIPTED.id,
            extra=shown_as("note"),
        )
    backed = model_backed_uses()
    cases = {rc.name: rc for rc in [*part.cases, *(t.spec.case for t in again)]}
    check = RepeatCheck(
        repetitions,
        excluded_trials=excluded_trials,
        excluded_evaluators=model_backed_evaluators(
            [*part.trials, *(t.spec for t in again)], backed
        ),
        recorded=recorded,
        recorded_trials=len(again),
    )
    labels = {rc.name: [e.label for e in rc.evaluators] for rc in cases.values()}
    first: list[TrialRecord] = []
    with temporary_folder("proctor-reevaluate-") as scratch:  # links in it never followed
        for number in range(1, repetitions + 1):
            records: list[TrialRecord] = []
            folder, exit_code = None, 0
            ended: tuple[list[TrialRecord], int] | None = None
            earlier = set(part.out.glob("run-*")) if part.trials else set()
            try:
                if part.trials:
                    # The agents and the roles' keys checked before the first repetition
                    # only: nothing a later one starts or calls has changed since.
                    later = number > 1
                    repeated = replace(
                        request,
                        repetition=number,
                        agents_checked=later or request.agents_checked,
                        keys_checked=later or request.keys_checked,
                    )
                    result = run_plan(part, repeated, subscribers())
                    folder, exit_code = result.paths.root, result.exit_code
                    records = list(result.records)
                    if result.suite.interrupted:
                        # Stopped once every trial had ended (as its aggregate was written):
                        # the run says interrupted, and the repetition finished all the same.
                        ended = None if result.left else (records, exit_code)
                        raise KeyboardInterrupt
                records += [
                    reevaluate(trial, Path(scratch, str(index)))
                    for index, trial in enumerate(again)
                ]
            except KeyboardInterrupt:
                # Wherever it landed (a trial, the run's start or its reports, a
                # re-evaluation): the repetitions that finished are compared and reported.
                check.interrupted = True
                if folder is None and part.trials:  # its run folder, if it was made
                    made = sorted(set(part.out.glob("run-*")) - earlier)  # its own, only
                    made = [f for f in made if started_here(RunPaths(f).journal)]
                    folder = made[-1] if made else None
                kept = None
                if folder is not None and not again:
                    kept = ended or _finished_run(folder)
                if kept is None:
                    check.runs.append(Repetition(number, folder, exit_code, finished=False))
                    break
                # Held until its run was written whole: a repetition that finished.
                records, exit_code = kept
            check.runs.append(Repetition(number, folder, exit_code))
            if number == 1:
                first = records
                # What repetition 1 holds is what each later one is compared on (reported as
                # compared once a second repetition has finished).
                check.trials = len(first)
                check.evaluators = sum(
                    1 for r in first for e in r.evaluators if e.use not in backed
                )
            else:
                comparison = compare_repetitions(
                    first, records, repetition=number, model_backed=backed, labels=labels
                )
                check.trials, check.evaluators = comparison.trials, comparison.evaluators
                check.differences += comparison.differences
            if check.interrupted:
                break
    return check


def _finished_run(folder: Path) -> tuple[list[TrialRecord], int] | None:
    """The records and exit code of the run in ``folder`` when it was written whole and not
    interrupted; else None."""
    from proctor.report.stored import load_run

    try:
        run = load_run(folder, need_gate=False)
    except ConfigError:
        return None
    manifest, suite = run.manifest, run.suite
    if manifest is None or suite is None or not manifest.finished_at:
        return None
    if manifest.interrupted or suite.interrupted:
        return None
    return run.records, suite.exit_code


def _why_not(left: Sequence[Exclusion], shown: int = 5) -> str:
    """The reasons the stored trials were not re-evaluated, for the error that says none was."""
    if not left:
        return " (it holds no trial)"
    lines = [f"{e.what}: {e.reason.removeprefix('not re-evaluated: ')}" for e in left[:shown]]
    more = f"; and {len(left) - shown} more" if len(left) > shown else ""
    return " (" + "; ".join(lines) + more + ")"


def run_repeat_check(
    request: RunRequest,
    repetitions: int,
    subscribers: Callable[[], list[Subscriber]] = list,
) -> RepeatCheck:
    """Plan once (:func:`~proctor.session.start.plan_run`), then :func:`repeat_plan`."""
    plan = plan_run(request)
    if not plan.trials:
        raise nothing_runnable(request.source, plan)
    return repeat_plan(plan, request, repetitions, subscribers)
