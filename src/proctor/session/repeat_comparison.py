"""The repeat check's comparison of two repetitions' trial records: which values of a trial are
compared (evaluators' results, process metrics, rules, status), which are not (time, tokens,
dollars, model-backed evaluators), and every difference found, trial by trial.

Pure: records in, a :class:`Comparison` out; only :func:`model_backed_uses` reads the evaluator
registry.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from proctor.evaluators.base import registry
from proctor.models.trial import EvaluatorResult, TrialRecord

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
