"""``proctor compare``: conditions within one run, or the same groups across two runs.

The CLI reads the trials and calls these functions; the results are records (JSON with
``model_dump``), Markdown comes from :mod:`proctor.report.ab.markdown`.

    compare_conditions(records)                       # default pair of conditions
    compare_runs(baseline_records, candidate_records)  # before vs after, per group
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import get_args

from proctor.errors import ConfigError
from proctor.models.ab import (
    ABReport,
    ABSide,
    CaseVerdict,
    MetricComparison,
    RunComparison,
    RunGroup,
    RunOnly,
)
from proctor.models.trial import TrialRecord
from proctor.report.ab.analysis import analyse_ab, checked_arguments
from proctor.report.ab.choose import (
    choose_pair,
    gate_sides,
    records_for_pair,
    too_few_conditions,
)
from proctor.report.ab.measures import is_scored, succeeded
from proctor.report.ab.pairs import Cell, side_of
from proctor.report.ab.sides import METRICS, classify_outcomes, compare_sides, metric_comparison
from proctor.stats import compare_samples, statistic_named

__all__ = ["compare_conditions", "compare_runs"]

GroupKey = tuple[str, str, str]


def compare_conditions(
    records: Sequence[TrialRecord],
    treatment: str | None = None,
    baseline: str | None = None,
    seed: int = 0,
    *,
    min_samples: int = 3,
    planned: Iterable[Cell] = (),
) -> ABReport:
    """A/B report of two conditions of one run (chosen by :func:`choose_pair`); ``planned``
    is the run's matrix, whose repeats neither side ran are listed as incomplete.

    Raises ConfigError as :func:`choose_pair` does, and when the run has fewer than two
    conditions to compare, and TypeError for an argument of the wrong type.
    """
    records, planned = checked_arguments(
        "compare_conditions()",
        records,
        seed=seed,
        planned=planned,
        min_samples=min_samples,
        conditions={"treatment": treatment, "baseline": baseline},
        optional=True,
    )
    pair = choose_pair(records, treatment, baseline, planned=planned)
    if pair is None:
        raise too_few_conditions([r.condition for r in records] + [c[2] for c in planned])
    _check_paired(records, planned, *pair)
    report = analyse_ab(
        records_for_pair(records, *pair),
        *pair,
        seed=seed,
        min_samples=min_samples,
        planned=planned,
    )
    report.pair_from = gate_sides(treatment, baseline, None).pair_from  # (no gate read here)
    return report


def _check_paired(
    records: Sequence[TrialRecord], planned: Sequence[Cell], treatment: str, baseline: str
) -> None:
    """A ConfigError (exit 2) when no case × agent ran, or was planned, under both conditions:
    a paired comparison pairs one case's trials under two conditions, and two conditions of
    different cases make no pair (the report would say nothing was incomplete)."""
    under: dict[str, set[tuple[str, str]]] = {treatment: set(), baseline: set()}
    for case, agent, condition in [*((r.case, r.agent, r.condition) for r in records),
                                   *((c[0], c[1], c[2]) for c in planned)]:  # fmt: skip
        if condition in under:
            under[condition].add((case, agent))
    if under[treatment] & under[baseline]:
        return

    def cases(condition: str) -> str:
        names = sorted({case for case, _ in under[condition]})
        return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")

    raise ConfigError(
        f"no case ran under both {treatment!r} and {baseline!r} ({treatment}: "
        f"{cases(treatment) or 'none'}; {baseline}: {cases(baseline) or 'none'}): an A/B "
        "comparison pairs each case's trials under the two conditions; run cases that define "
        "both, under both"
    )


def _groups(records: Sequence[TrialRecord]) -> dict[GroupKey, list[TrialRecord]]:
    groups: dict[GroupKey, list[TrialRecord]] = defaultdict(list)
    for record in records:
        groups[(record.case, record.agent, record.condition)].append(record)
    return groups


def _renamed(
    before: dict[GroupKey, list[TrialRecord]], after: dict[GroupKey, list[TrialRecord]]
) -> list[tuple[GroupKey, GroupKey]]:
    """The groups of a case × agent that ran under exactly one condition in each run, under
    two names: the run before a change and the run after it, each with its own condition
    (``baseline`` then ``with-plugin``), compare that case × agent as one group. A case × agent
    with more conditions in either run is matched by condition only: which of them stands for
    which is not known."""
    conditions: dict[tuple[str, str], tuple[set[str], set[str]]] = defaultdict(
        lambda: (set(), set())
    )
    for side, groups in enumerate((before, after)):
        for case, agent, condition in groups:
            conditions[(case, agent)][side].add(condition)
    matched: list[tuple[GroupKey, GroupKey]] = []
    for (case, agent), (was, now) in conditions.items():
        if len(was) == 1 and len(now) == 1 and was != now:
            matched.append(((case, agent, min(was)), (case, agent, min(now))))
    return matched


def _only(keys: set[GroupKey], groups: dict[GroupKey, list[TrialRecord]]) -> list[RunOnly]:
    return [
        RunOnly(case=c, agent=a, condition=k, trials=len(groups[(c, a, k)]))
        for c, a, k in sorted(keys)
    ]


def _run_group(
    keys: tuple[GroupKey, GroupKey],
    before: Sequence[TrialRecord],
    after: Sequence[TrialRecord],
    seed: int,
    min_samples: int,
) -> RunGroup:
    key, candidate = keys
    scored_before = [r for r in before if is_scored(r)]
    scored_after = [r for r in after if is_scored(r)]
    classification, note = classify_outcomes(
        [succeeded(r) for r in scored_after],
        [succeeded(r) for r in scored_before],
        min_samples,
        "scored trial",
        " on the smaller side",
    )
    return RunGroup(
        case=key[0],
        agent=key[1],
        condition=key[2],
        candidate_condition=candidate[2] if candidate != key else None,
        labels=(after or before)[0].labels,
        before_scored=len(scored_before),
        before_passes=sum(map(succeeded, scored_before)),
        before_errors=_errors(before),
        after_scored=len(scored_after),
        after_passes=sum(map(succeeded, scored_after)),
        after_errors=_errors(after),
        classification=classification,
        note=note,
        comparisons=_unpaired(scored_after, scored_before, seed, min_samples),
    )


def _errors(records: Sequence[TrialRecord]) -> int:
    """The trials that ended in an error status: neither scored nor skipped (a trial a person
    excluded with ``proctor annotate`` is skipped, not an error)."""
    return sum(1 for r in records if not is_scored(r) and r.status != "skipped")


def _by_group(
    common: Sequence[tuple[GroupKey, GroupKey]],
    after: dict[GroupKey, list[TrialRecord]],
    before: dict[GroupKey, list[TrialRecord]],
    seed: int,
    min_samples: int,
) -> dict[str, MetricComparison]:
    """The overall comparison, with each group (case × agent × condition) as one paired sample:
    a metric's value in a group is its mean (a rate) or median over the group's scored trials,
    and the groups' values are compared pair by pair. Pooling the trials instead would let the
    mix of cases decide: with more trials of an easy case in one run and of a hard case in the
    other, the pooled pass rate moves although no case changed."""
    result: dict[str, MetricComparison] = {}
    for name, measure, higher_is_better, statistic in METRICS:
        of = statistic_named(statistic)
        pairs: list[tuple[float, float]] = []
        for was, now in common:
            ours, theirs = _measured(after[now], measure), _measured(before[was], measure)
            if ours and theirs:
                pairs.append((of(ours), of(theirs)))
        comparison = compare_samples(
            name,
            [a for a, _ in pairs],
            [b for _, b in pairs],
            higher_is_better=higher_is_better,
            statistic=statistic,
            min_samples=min_samples,
            seed=seed,
            paired=True,
        )
        result[name] = metric_comparison(comparison)
    return result


def _measured(
    records: Sequence[TrialRecord], measure: Callable[[ABSide], float | None]
) -> list[float]:
    """A measure of each scored trial that has it."""
    values = (measure(side_of(r)) for r in records if is_scored(r))
    return [v for v in values if v is not None]


def _unpaired(
    after: Sequence[TrialRecord], before: Sequence[TrialRecord], seed: int, min_samples: int
) -> dict[str, MetricComparison]:
    return compare_sides(
        [side_of(r) for r in after],
        [side_of(r) for r in before],
        paired=False,
        seed=seed,
        min_samples=min_samples,
    )


def compare_runs(
    baseline_records: Sequence[TrialRecord],
    candidate_records: Sequence[TrialRecord],
    seed: int = 0,
    *,
    min_samples: int = 3,
) -> RunComparison:
    """Per case × agent × condition: the baseline run (before) against the candidate (after).

    Pass rates count passed / (passed + failed + timeout); error statuses are counted as errors
    and left out (skipped trials, a person's exclusions among them, are neither). A group's
    deltas are after - before with unpaired CIs; classification is ``classify_case`` on the
    scored outcomes, "insufficient-data" below ``min_samples`` on a side. The overall
    comparison takes each common group as one paired sample (see :func:`_by_group`), so it
    needs ``min_samples`` groups. A case × agent that ran under one condition in each run,
    named differently in the two (a baseline run, then a run of the change as a condition of
    its own), is one group of both (see :func:`_renamed`). Groups in one run only are listed,
    not compared. Two empty runs give no groups, zero counts and "insufficient-data" overall
    comparisons. Raises ValueError if min_samples < 1, and TypeError for an argument of the
    wrong type.
    """
    where = "compare_runs()"
    baseline_records, _ = checked_arguments(
        where, baseline_records, seed=seed, min_samples=min_samples, name="baseline_records"
    )
    candidate_records, _ = checked_arguments(
        where, candidate_records, seed=seed, name="candidate_records"
    )
    if min_samples < 1:
        raise ValueError(f"min_samples must be >= 1, got {min_samples}")
    before, after = _groups(baseline_records), _groups(candidate_records)
    common = [(key, key) for key in sorted(set(before) & set(after))]
    common += _renamed(before, after)
    common.sort()
    groups = [_run_group(k, before[k[0]], after[k[1]], seed, min_samples) for k in common]
    matched_before, matched_after = {k for k, _ in common}, {k for _, k in common}
    summary = {verdict: 0 for verdict in get_args(CaseVerdict)}
    for group in groups:
        summary[group.classification] += 1
    return RunComparison(
        seed=seed,
        min_samples=min_samples,
        groups=groups,
        only_in_baseline=_only(set(before) - matched_before, before),
        only_in_candidate=_only(set(after) - matched_after, after),
        summary=summary,
        overall=_by_group(common, after, before, seed, min_samples),
    )
