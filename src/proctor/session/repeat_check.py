"""``proctor run --repeat-check N``: run the deterministic part of a suite N times and compare.

The deterministic part is every planned trial of the built-in ``scripted`` agent; trials of
real agents are left out and listed. The plan is made once and run N times through
:func:`~proctor.session.run.run_plan`, so each repetition is an ordinary run folder. Then the
trial records of repetition 1 are compared with those of every later repetition, trial by trial
(case, agent, condition, repeat): each evaluator's ``passed``, ``score``, ``error`` and
``metrics`` (model-backed evaluators left out), the process metrics without the time-, token-
and cost-based fields (:data:`EXCLUDED_PROCESS_FIELDS`), the task rules and the status. Values
must be identical, floats included. docs/repeat-check.md describes it for users.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

from proctor.agents.spec import SCRIPTED
from proctor.errors import ConfigError
from proctor.evaluators.base import registry
from proctor.execute.events import Subscriber
from proctor.exit_codes import ExitCode
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.paths import RunPaths
from proctor.plan.resolve import nothing_runnable
from proctor.session.journal import started_here
from proctor.session.reevaluate import RecordedTrial, recorded_trials, reevaluate
from proctor.session.request import RunRequest
from proctor.session.run import run_plan
from proctor.session.start import plan_run
from proctor.util.files import temporary_folder
from proctor.util.logs import shown_as
from proctor.util.text import plural

log = logging.getLogger("proctor")

REAL_AGENT = "not deterministic: a real agent"
MODEL_BACKED = "model-backed: its result comes from a model"

EXCLUDED_PROCESS_FIELDS: tuple[str, ...] = (
    "orientation.secondsToFirstEdit",
    "context.firstRelevantSeconds",
    "effort.elapsedSeconds",
    "effort.tokens",
    "effort.cost",
)
"""Process metrics (camelCase paths under ``process``) that measure time, tokens or dollars,
which differ from one repetition to the next without the behaviour changing."""

VERDICT_STATUSES = frozenset({"passed", "failed", "eval-error"})
"""Statuses that the evaluators decide: in a trial with a model-backed evaluator they may
change with the model's answer, so they count as one status there."""

Labels = Mapping[str, Sequence[str | None]]
"""Case name → the label of each of its evaluators, by position (None when unlabelled)."""


class Presence(Enum):
    """Stands for a value that one repetition has and the other lacks."""

    ABSENT = "absent"
    PRESENT = "present"


@dataclass(frozen=True)
class Difference:
    """One value that differs between repetition 1 and repetition ``repetition``."""

    repetition: int
    trial: str
    path: str
    first: Any
    other: Any

    def sentence(self) -> str:
        what = "the trial" if self.path == "trial" else self.path
        return (
            f"trial {self.trial}: {what} is {_show(self.first)} in repetition 1 "
            f"and {_show(self.other)} in repetition {self.repetition}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "repetition": self.repetition,
            "trial": self.trial,
            "path": self.path,
            "first": _json_value(self.first),
            "other": _json_value(self.other),
            "sentence": self.sentence(),
        }


@dataclass(frozen=True)
class Exclusion:
    """A trial or an evaluator left out of the comparison, and why."""

    what: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"what": self.what, "reason": self.reason}


@dataclass(frozen=True)
class Comparison:
    """Repetition 1 against one later repetition."""

    trials: int
    """Trials of repetition 1 compared."""
    evaluators: int
    """Evaluator results of repetition 1 compared (model-backed ones are not)."""
    excluded: list[Exclusion]
    """The model-backed evaluators that were left out, once per case."""
    differences: list[Difference]


def trial_name(record: TrialRecord) -> str:
    """``case/agent/condition/repeat``, as the trial's folder is named."""
    return f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"


def model_backed_uses() -> frozenset[str]:
    """Registered evaluators whose result comes from a model (class attribute
    ``model_backed``)."""
    return frozenset(
        name for name, cls in registry().items() if getattr(cls, "model_backed", False)
    )


def evaluator_name(index: int, use: str, label: str | None = None) -> str:
    """``evaluators[0] (command)``, or ``evaluators[0] (command, "tests pass")`` when the
    case labelled it: its position in the trial's results, its evaluator and its label."""
    named = f"{use}, {json.dumps(label)}" if label else use
    return f"evaluators[{index}] ({named})"


def comparable_values(
    record: TrialRecord, model_backed: frozenset[str], labels: Sequence[str | None] = ()
) -> dict[str, Any]:
    """Every compared value of one trial, by its path (evaluators, process, rules, status)."""
    values: dict[str, Any] = {}
    for i, result in enumerate(record.evaluators):
        if result.use in model_backed:
            continue
        name = evaluator_name(i, result.use, _at(labels, i))
        values[f"{name}.passed"] = result.passed
        values[f"{name}.score"] = result.score
        values[f"{name}.error"] = result.error
        for metric in sorted(result.metrics):
            values[f"{name}.metrics.{metric}"] = result.metrics[metric]
        # The confidence and perplexity levels an external program gives beside its values:
        # its output, as its values are (the rest of ``details`` is free text and paths).
        levels = result.details.get("levels")
        if isinstance(levels, dict):
            for metric, given in sorted(levels.items()):
                for key, level in sorted(given.items()) if isinstance(given, dict) else ():
                    values[f"{name}.levels.{metric}.{key}"] = level
    if record.process is not None:
        process = record.process.to_dict()
        for excluded in EXCLUDED_PROCESS_FIELDS:
            parent, _, key = excluded.rpartition(".")
            holder = process.get(parent) if parent else process
            if isinstance(holder, dict):
                holder.pop(key, None)
        _flatten(process, "process", values)
    for rule in record.rules:
        values[f"rules.{rule.rule}.fired"] = rule.fired
        values[f"rules.{rule.rule}.value"] = rule.value
    # Last: a status the evaluators decide follows from their results, which a difference
    # names first.
    values["status"] = record.status
    return values


def compare_repetitions(
    first: Sequence[TrialRecord],
    other: Sequence[TrialRecord],
    *,
    repetition: int = 2,
    model_backed: frozenset[str] | None = None,
    labels: Labels | None = None,
) -> Comparison:
    """The differences between repetition 1's records and repetition ``repetition``'s, in
    repetition 1's trial order, then trials only the later repetition has."""
    backed = model_backed_uses() if model_backed is None else model_backed
    later = {_key(r): r for r in other}
    excluded: dict[str, Exclusion] = {}
    differences: list[Difference] = []
    evaluators = 0
    for record in first:
        names = (labels or {}).get(record.case, ())
        for i, result in enumerate(record.evaluators):
            if result.use in backed and _ran(result):
                what = f"{record.case}: {evaluator_name(i, result.use, _at(names, i))}"
                excluded.setdefault(what, Exclusion(what, MODEL_BACKED))
            elif _ran(result):
                evaluators += 1
        twin = later.pop(_key(record), None)
        name = trial_name(record)
        if twin is None:
            differences.append(
                Difference(repetition, name, "trial", Presence.PRESENT, Presence.ABSENT)
            )
            continue
        differences += _differences(record, twin, repetition, backed, names)
    differences += [
        Difference(repetition, trial_name(r), "trial", Presence.ABSENT, Presence.PRESENT)
        for r in later.values()
    ]
    return Comparison(len(first), evaluators, list(excluded.values()), differences)


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


@dataclass(frozen=True)
class Repetition:
    number: int
    folder: Path | None
    """The repetition's run folder; None when it only re-evaluated recorded trials."""
    exit_code: int
    """The run's own exit code (its gates); it does not decide the repeat check's."""
    finished: bool = True
    """False for the repetition an interrupt cut short."""


@dataclass
class RepeatCheck:
    """What ``--repeat-check`` found: the runs, what was compared and left out, every
    difference."""

    repetitions: int
    runs: list[Repetition] = field(default_factory=list)
    trials: int = 0
    evaluators: int = 0
    excluded_trials: list[Exclusion] = field(default_factory=list)
    excluded_evaluators: list[Exclusion] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    interrupted: bool = False
    recorded: Path | None = None
    """The stored run whose trials were re-evaluated (``--recorded``)."""
    recorded_trials: int = 0
    """Its trials re-evaluated in each repetition."""

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return ExitCode.INTERRUPTED
        return ExitCode.GATE_FAILED if self.differences else ExitCode.OK

    @property
    def finished(self) -> int:
        """The repetitions that ran to their end."""
        return sum(1 for r in self.runs if r.finished)

    @property
    def compared(self) -> bool:
        """Whether two repetitions finished, so that anything was compared."""
        return self.finished >= 2

    @property
    def verdict(self) -> str:
        if self.interrupted:
            return f"interrupted after {self.finished} of {self.repetitions} repetitions finished"
        if self.differences:
            return f"different ({plural(len(self.differences), 'difference')})"
        return "identical"

    def to_dict(self) -> dict[str, Any]:
        return {
            "repetitions": self.repetitions,
            "runs": [
                {
                    "repetition": r.number,
                    "folder": str(r.folder) if r.folder is not None else None,
                    "exitCode": r.exit_code,
                }
                for r in self.runs
            ],
            "recorded": str(self.recorded) if self.recorded is not None else None,
            "recordedTrials": self.recorded_trials,
            "trialsCompared": self.trials if self.compared else 0,
            "evaluatorsCompared": self.evaluators if self.compared else 0,
            "excludedTrials": [e.to_dict() for e in self.excluded_trials],
            "excludedEvaluators": [e.to_dict() for e in self.excluded_evaluators],
            "identical": not self.differences and not self.interrupted,
            "interrupted": self.interrupted,
            "differenceCount": len(self.differences),
            "firstDifference": self.differences[0].to_dict() if self.differences else None,
            "differences": [d.to_dict() for d in self.differences],
            "exitCode": self.exit_code,
        }

    def markdown(self) -> str:
        lines = [
            "# proctor repeat check",
            "",
            f"- verdict: **{self.verdict}**",
            f"- repetitions: {self.repetitions}",
        ]
        if self.compared:
            lines += [
                f"- trials compared: {self.trials} per repetition",
                f"- evaluators compared: {self.evaluators} per repetition",
                f"- differences: {len(self.differences)}",
            ]
            if self.evaluators == 0:
                lines.append(
                    "- note: no evaluator result was compared (none ran, or every one is "
                    "model-backed): only statuses, process metrics and rules were"
                )
        else:
            lines.append("- nothing compared: fewer than two repetitions finished")
        if self.differences:
            lines.append(f"- first difference: {self.differences[0].sentence()}")
        for title, items in (
            ("Excluded trials", self.excluded_trials),
            ("Excluded evaluators", self.excluded_evaluators),
        ):
            if items:
                lines += ["", f"## {title}", "", *(f"- `{e.what}`: {e.reason}" for e in items)]
        lines += ["", "## Runs", ""]
        lines += [_run_line(r) for r in self.runs]
        if self.recorded is not None:
            lines.append(
                f"- recorded trials of `{self.recorded}` re-evaluated in each: "
                f"{self.recorded_trials}"
            )
        return "\n".join(lines) + "\n"


def _run_line(run: Repetition) -> str:
    if run.folder is not None:
        stopped = not run.finished or run.exit_code == ExitCode.INTERRUPTED  # (its reports)
        cut = ", interrupted" + " after its trials ended" * run.finished if stopped else ""
        return f"- {run.number}: `{run.folder}` (its own exit code {run.exit_code}{cut})"
    if not run.finished:
        return f"- {run.number}: interrupted"
    return f"- {run.number}: recorded trials re-evaluated only"


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


def _differences(
    first: TrialRecord,
    other: TrialRecord,
    repetition: int,
    backed: frozenset[str],
    labels: Sequence[str | None],
) -> list[Difference]:
    a = comparable_values(first, backed, labels)
    b = comparable_values(other, backed, labels)
    judged = any(r.use in backed and _ran(r) for r in [*first.evaluators, *other.evaluators])
    found = []
    for path in [*a, *(p for p in b if p not in a)]:
        x, y = a.get(path, Presence.ABSENT), b.get(path, Presence.ABSENT)
        if path == "status" and judged and x in VERDICT_STATUSES and y in VERDICT_STATUSES:
            continue
        if not _same(x, y):
            found.append(Difference(repetition, trial_name(first), path, x, y))
    return found


def _ran(result: EvaluatorResult) -> bool:
    """Whether the evaluator ran: one whose entry's ``conditions`` leave out the trial's
    condition has a result saying it did not (``details.notRun``), the same every time, which
    compares nothing and leaves the trial's status to the evaluators that ran."""
    return result.details.get("notRun") is not True


def _same(a: Any, b: Any) -> bool:
    """Identical values: the same type (``True`` is not ``1``) and equal, floats exactly (a NaN
    equals a NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _flatten(value: Any, path: str, into: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{path}.{key}", into)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _flatten(item, f"{path}[{i}]", into)
    else:
        into[path] = value


def _key(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.case, record.agent, record.condition, record.repeat)


def _at(labels: Sequence[str | None], index: int) -> str | None:
    return labels[index] if index < len(labels) else None


def _show(value: Any) -> str:
    if isinstance(value, Presence):
        return value.value
    return json.dumps(value)


def _json_value(value: Any) -> Any:
    return None if isinstance(value, Presence) else value
