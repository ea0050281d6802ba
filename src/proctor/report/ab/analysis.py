"""A/B analysis of two conditions within a set of trials: pairs, per-case verdicts, slices, gate.

Pure functions over ``Sequence[TrialRecord]``. Every statistic is computed over *complete*
pairs (see :mod:`proctor.report.ab.pairs`) and resampled by pair (paired bootstrap), so a
hard case weighs on both sides alike. A comparison backed by fewer than ``min_samples`` on a
side says so and makes no claim.

    report = analyse_ab(records, "with-plugin", "baseline", seed=0)
    report.overall.comparisons["passRate"].delta
    ab_gate(records, "with-plugin", "baseline", max_pass_rate_drop=0.05).passed
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from proctor.models.ab import (
    ABCase,
    ABGateResult,
    ABGroup,
    ABPair,
    ABReport,
    IncompletePair,
)
from proctor.models.compact import Compact
from proctor.models.trial import CaseLabels, TrialRecord
from proctor.report.ab.pairs import Cell, pair_trials
from proctor.report.ab.sides import (
    PASS_RATE,
    classify_outcomes,
    compare_sides,
    compare_values,
    rounded,
)
from proctor.stats import Comparison
from proctor.util import argtypes
from proctor.util.text import bound_text, plural

__all__ = ["DIMENSIONS", "UNLABELLED", "ab_gate", "analyse_ab"]

#: Label fields a report is sliced by, as the JSON names them (``byDimension``'s keys, the
#: keys of a trial's ``labels``); pairs without the label go under :data:`UNLABELLED`.
DIMENSIONS: tuple[str, ...] = ("repository", "category", "framework", "bucket", "goalShape")
UNLABELLED = "(none)"
_FIELDS = {"goalShape": "goal_shape"}
_TITLES = {"goalShape": "goal shape"}


def label_value(labels: CaseLabels, dimension: str) -> str | None:
    """The value of ``labels`` for a :data:`DIMENSIONS` name (``"goalShape"``'s is
    ``labels.goal_shape``)."""
    value = getattr(labels, _FIELDS.get(dimension, dimension))
    return value if isinstance(value, str) else None


def dimension_title(dimension: str) -> str:
    """A dimension as people read it: ``"goalShape"`` as ``"goal shape"``."""
    return _TITLES.get(dimension, dimension)


#: Allowed rounding when the CI's lower bound equals ``-max_pass_rate_drop`` exactly.
_GATE_TOLERANCE = 1e-9


def _gate_bound(value: float) -> str:
    """A bound of the gate's interval to three decimals; one that is not 0 but rounds to it
    keeps a digit (``-0.0003``: a gate with no drop allowed fails on it, and ``-0.000`` read
    as if it had not), a float's rounding noise around 0 is 0."""
    return bound_text(0.0 if abs(value) < _GATE_TOLERANCE else value, 3)


def _group(pairs: Sequence[ABPair], seed: int, min_samples: int) -> ABGroup:
    return ABGroup(
        pairs=len(pairs),
        treatment_passes=sum(p.treatment.passed for p in pairs),
        baseline_passes=sum(p.baseline.passed for p in pairs),
        comparisons=compare_sides(
            [p.treatment for p in pairs],
            [p.baseline for p in pairs],
            paired=True,
            seed=seed,
            min_samples=min_samples,
        ),
    )


def _cases(
    pairs: Sequence[ABPair], incomplete: Sequence[IncompletePair], seed: int, min_samples: int
) -> list[ABCase]:
    by_case: dict[tuple[str, str], list[ABPair]] = defaultdict(list)
    missing: dict[tuple[str, str], int] = defaultdict(int)
    for pair in pairs:
        by_case[(pair.case, pair.agent)].append(pair)
    for item in incomplete:
        missing[(item.case, item.agent)] += 1
    cases = []
    for key in sorted(set(by_case) | set(missing)):
        group = _group(by_case[key], seed, min_samples)
        classification, note = classify_outcomes(
            [p.treatment.passed for p in by_case[key]],
            [p.baseline.passed for p in by_case[key]],
            min_samples,
            "complete pair",
        )
        cases.append(
            ABCase(
                case=key[0],
                agent=key[1],
                labels=by_case[key][0].labels if by_case[key] else CaseLabels(),
                pairs=group.pairs,
                incomplete=missing[key],
                treatment_passes=group.treatment_passes,
                baseline_passes=group.baseline_passes,
                classification=classification,
                note=note,
                comparisons=group.comparisons,
            )
        )
    return cases


def _by_dimension(
    pairs: Sequence[ABPair], seed: int, min_samples: int
) -> dict[str, dict[str, ABGroup]]:
    result: dict[str, dict[str, ABGroup]] = {}
    for dimension in DIMENSIONS:
        slices: dict[str, list[ABPair]] = defaultdict(list)
        for pair in pairs:
            slices[label_value(pair.labels, dimension) or UNLABELLED].append(pair)
        result[dimension] = {
            value: _group(slices[value], seed, min_samples) for value in sorted(slices)
        }
    return result


def _is_trial_record(value: object) -> bool:
    """A TrialRecord, or the compact stand-in of one that a large run's records are."""
    if isinstance(value, Compact):
        return value._stands_for is TrialRecord
    return isinstance(value, TrialRecord)


def checked_arguments(
    where: str,
    records: object,
    *,
    seed: object,
    planned: object = (),
    min_samples: object = 3,
    conditions: dict[str, object] | None = None,
    optional: bool = False,
    name: str = "records",
) -> tuple[list[TrialRecord], list[Cell]]:
    """The records and planned cells of an A/B function ``where`` (``analyse_ab()``), each
    argument of the wrong Python type a TypeError naming it (a string or a dict of records
    was read item by item, ``min_samples=True`` as 1); ``conditions`` are its condition
    names (None allowed with ``optional``); ``name`` is the records' argument."""
    found = argtypes.items(records, where, name, "TrialRecord", _is_trial_record)
    for name, value in (conditions or {}).items():
        argtypes.text(value, where, name, optional=optional)
    argtypes.whole(seed, where, "seed")
    argtypes.whole(min_samples, where, "min_samples")
    cells = argtypes.items(
        planned,
        where,
        "planned",
        "(case, agent, condition, repeat) tuple",
        lambda c: isinstance(c, tuple) and len(c) == 4,
    )
    return found, cells


def analyse_ab(
    records: Sequence[TrialRecord],
    treatment: str,
    baseline: str,
    *,
    seed: int = 0,
    min_samples: int = 3,
    planned: Iterable[Cell] = (),
) -> ABReport:
    """Pairs, incomplete pairs, per-case verdicts, slices by label and the overall comparison.

    No trials (or no complete pair) gives empty lists, an empty slice per dimension and an
    overall group with 0 pairs whose every comparison is "insufficient-data". A case with only
    incomplete pairs is still listed (0 pairs, insufficient-data). ``planned`` (the run's
    matrix) lists the repeats neither side ran as incomplete (see :func:`pair_trials`). Raises
    ValueError when treatment == baseline or min_samples < 1, and TypeError for an argument
    of the wrong type.
    """
    records, planned = checked_arguments(
        "analyse_ab()",
        records,
        seed=seed,
        planned=planned,
        min_samples=min_samples,
        conditions={"treatment": treatment, "baseline": baseline},
    )
    if min_samples < 1:
        raise ValueError(f"min_samples must be >= 1, got {min_samples}")
    pairs, incomplete = pair_trials(records, treatment, baseline, planned)
    return ABReport(
        treatment=treatment,
        baseline=baseline,
        seed=seed,
        min_samples=min_samples,
        pairs=pairs,
        incomplete=incomplete,
        cases=_cases(pairs, incomplete, seed, min_samples),
        by_dimension=_by_dimension(pairs, seed, min_samples),
        overall=_group(pairs, seed, min_samples),
    )


def ab_gate(
    records: Sequence[TrialRecord],
    treatment: str,
    baseline: str,
    max_pass_rate_drop: float,
    seed: int = 0,
    planned: Iterable[Cell] = (),
) -> ABGateResult:
    """Fail when the CI's lower bound of the paired pass-rate delta is below -max_pass_rate_drop.

    The CI is the paired interval of ``analyse_ab``'s overall pass rate (Newcombe's score
    interval for paired proportions), computed even for one pair. A lower bound exactly at the
    threshold passes. With no
    complete pair the gate fails and says why. Raises ValueError unless
    0 <= max_pass_rate_drop <= 1, or when treatment == baseline, and TypeError for an
    argument of the wrong type.
    """
    where = "ab_gate()"
    records, planned = checked_arguments(
        where,
        records,
        seed=seed,
        planned=planned,
        conditions={"treatment": treatment, "baseline": baseline},
    )
    argtypes.number(max_pass_rate_drop, where, "max_pass_rate_drop")
    if not 0.0 <= max_pass_rate_drop <= 1.0:
        raise ValueError(f"max_pass_rate_drop must be in [0, 1], got {max_pass_rate_drop}")
    pairs, incomplete = pair_trials(records, treatment, baseline, planned)

    def result(passed: bool, rate: Comparison | None, message: str) -> ABGateResult:
        return ABGateResult(
            treatment=treatment,
            baseline=baseline,
            max_pass_rate_drop=max_pass_rate_drop,
            passed=passed,
            # The delta as computed, rounded as a comparison's values are only here: the
            # difference of the two rounded rates could be off in its last decimal.
            delta=rounded(rate.delta) if rate else None,
            ci_low=rate.ci.low if rate and rate.ci else None,
            ci_high=rate.ci.high if rate and rate.ci else None,
            pairs=len(pairs),
            incomplete=len(incomplete),
            message=message,
        )

    if not pairs:
        return result(
            False,
            None,
            f"no complete {treatment!r}/{baseline!r} pair "
            f"({plural(len(incomplete), 'incomplete pair')}): "
            "cannot tell whether the treatment drops the pass rate.",
        )
    rate = compare_values(
        [p.treatment for p in pairs],
        [p.baseline for p in pairs],
        paired=True,
        seed=seed,
        min_samples=1,
        metrics=[PASS_RATE],
    )["passRate"]
    low, high, confidence = (
        (rate.ci.low, rate.ci.high, rate.ci.confidence) if rate.ci else (0.0, 0.0, 0.0)
    )
    passed = low >= -max_pass_rate_drop - _GATE_TOLERANCE
    delta = _gate_bound(rate.delta or 0.0)  # 0.000 unsigned, as every report shows a 0
    message = (
        f"pass-rate delta {delta} over {plural(len(pairs), 'complete pair')}, "
        f"{confidence:.0%} CI [{_gate_bound(low)}, {_gate_bound(high)}]; the lower bound is "
        f"{'within' if passed else 'beyond'} the allowed drop of {max_pass_rate_drop:g}: "
        f"{'passed' if passed else 'failed'}."
    )
    if incomplete:
        message += f" {plural(len(incomplete), 'incomplete pair')} left out."
    if len(pairs) < 3:
        message += f" Only {plural(len(pairs), 'pair')}: the interval rests on very little data."
    return result(passed, rate, message)
