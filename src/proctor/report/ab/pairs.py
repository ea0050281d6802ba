"""Pairing: the treatment and baseline trials of the same case, agent and repeat index.

A key whose side is missing, duplicated, in an error status (agent-, infra-, eval-error or
skipped) or excluded by a person (``proctor annotate --verdict excluded``) becomes an
:class:`IncompletePair` with a reason; it is reported, never dropped. A timeout is a failure
and pairs normally. Trials of other conditions are not part of the pair.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from proctor.models.ab import ABDelta, ABPair, ABSide, IncompletePair
from proctor.models.trial import CaseLabels, TrialRecord
from proctor.report.ab.measures import (
    INCOMPLETE_STATUSES,
    abandoned,
    elapsed_seconds,
    excluded_by_hand,
    file_hit,
    first_relevant_seconds,
    patch_in_area,
    search_steps,
    succeeded,
    symbol_hit,
    tool_calls,
    total_tokens,
    wrong_context,
)
from proctor.report.ab.sides import rounded

__all__ = ["pair_trials", "side_of"]

Key = tuple[str, str, int]
Cell = tuple[str, str, str, int]
"""A planned trial: case, agent, condition, repeat."""


def side_of(record: TrialRecord) -> ABSide:
    """The measures of one trial as one side of a pair."""
    return ABSide(
        condition=record.condition,
        status=record.status,
        passed=succeeded(record),
        elapsed_seconds=elapsed_seconds(record),
        tool_calls=tool_calls(record),
        tokens=total_tokens(record),
        first_relevant_seconds=first_relevant_seconds(record),
        file_hit=file_hit(record),
        symbol_hit=symbol_hit(record),
        patch_in_area=patch_in_area(record),
        search_steps=search_steps(record),
        wrong_context=wrong_context(record),
        abandoned=abandoned(record),
    )


def _minus(treatment: float | None, baseline: float | None) -> float | None:
    """The difference of two measured seconds, to a microsecond (no float noise)."""
    return None if treatment is None or baseline is None else rounded(treatment - baseline)


def _delta(t: ABSide, b: ABSide) -> ABDelta:
    return ABDelta(
        success=int(t.passed) - int(b.passed),
        elapsed_seconds=_minus(t.elapsed_seconds, b.elapsed_seconds),
        tool_calls=t.tool_calls - b.tool_calls,
        tokens=t.tokens - b.tokens,
        first_relevant_seconds=_minus(t.first_relevant_seconds, b.first_relevant_seconds),
    )


def _labels(treatment: TrialRecord, baseline: TrialRecord) -> CaseLabels:
    """The baseline trial's labels, any missing field taken from the treatment trial."""
    fields = CaseLabels.model_fields
    return CaseLabels.model_validate(
        {name: getattr(baseline.labels, name) or getattr(treatment.labels, name) for name in fields}
    )


def _problem(side: str, trials: Sequence[TrialRecord]) -> str | None:
    if not trials:
        return f"missing {side}"
    if len(trials) > 1:
        return f"{len(trials)} {side} trials for one repeat"
    if excluded_by_hand(trials[0]):  # status skipped, but a person left it out, not the run
        return f"{side} excluded by hand"
    if trials[0].status in INCOMPLETE_STATUSES:
        return f"{side} {trials[0].status}"
    return None


def _status(trials: Sequence[TrialRecord]) -> str | None:
    return trials[0].status if len(trials) == 1 else None


def pair_trials(
    records: Sequence[TrialRecord],
    treatment: str,
    baseline: str,
    planned: Iterable[Cell] = (),
) -> tuple[list[ABPair], list[IncompletePair]]:
    """Complete pairs and incomplete ones, each sorted by case, agent and repeat.

    ``planned`` is the run's matrix (case, agent, condition, repeat). With it, only the cases
    (× agent) it planned under both conditions are compared (a case without conditions runs
    under ``default`` and is no pair), and a repeat planned and never started on either side
    (an interrupted run) is listed as incomplete too. Empty input, or input without either
    condition, gives two empty lists. Raises ValueError when ``treatment == baseline``.
    """
    if treatment == baseline:
        raise ValueError(f"treatment and baseline are the same condition: {treatment!r}")
    cells = list(planned)
    under: dict[tuple[str, str], set[str]] = defaultdict(set)
    for case, agent, condition, _ in cells:
        under[(case, agent)].add(condition)
    compared = {key for key, names in under.items() if {treatment, baseline} <= names}

    def counts(case: str, agent: str) -> bool:
        return not cells or (case, agent) in compared

    sides: dict[Key, dict[str, list[TrialRecord]]] = defaultdict(lambda: defaultdict(list))
    for case, agent, condition, repeat in cells:
        if condition in (treatment, baseline) and counts(case, agent):
            sides.setdefault((case, agent, repeat), defaultdict(list))
    for record in records:
        if record.condition in (treatment, baseline) and counts(record.case, record.agent):
            sides[(record.case, record.agent, record.repeat)][record.condition].append(record)
    pairs: list[ABPair] = []
    incomplete: list[IncompletePair] = []
    for key in sorted(sides):
        case, agent, repeat = key
        t_trials, b_trials = sides[key][treatment], sides[key][baseline]
        problems = [
            p for p in (_problem("treatment", t_trials), _problem("baseline", b_trials)) if p
        ]
        if not t_trials and not b_trials:
            problems = ["neither side ran (the run stopped before this repeat)"]
        if problems:
            incomplete.append(
                IncompletePair(
                    case=case,
                    agent=agent,
                    repeat=repeat,
                    reason="; ".join(problems),
                    treatment_status=_status(t_trials),
                    baseline_status=_status(b_trials),
                )
            )
            continue
        t_side, b_side = side_of(t_trials[0]), side_of(b_trials[0])
        pairs.append(
            ABPair(
                case=case,
                agent=agent,
                repeat=repeat,
                labels=_labels(t_trials[0], b_trials[0]),
                treatment=t_side,
                baseline=b_side,
                delta=_delta(t_side, b_side),
            )
        )
    return pairs, incomplete
