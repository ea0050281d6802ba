"""The one place that chooses which two conditions an A/B comparison pairs.

Named conditions are checked against the run and the missing one is filled in. With none
named, the pair is the one most cases ran together: for each case × agent that ran under two or
more conditions, its baseline is ``baseline`` if it ran, else ``default``, else the first in
sorted order, and its treatment the first other condition in sorted order; the pair most cases
share wins (ties: sorted order). Only when no case ran under two conditions, and only if the
caller allows it (``proctor compare`` does, the suite's aggregate does not), are conditions that
never ran together chosen: :func:`~proctor.report.ab.runs.compare_conditions` then refuses them
unless a case planned both, naming each one's cases.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from proctor.errors import ConfigError
from proctor.models.ab import PairFrom
from proctor.models.trial import TrialRecord
from proctor.util.json_shown import name_quoted
from proctor.util.text import did_you_mean

PREFERRED_BASELINES = ("baseline", "default")


def conditions_in(records: Iterable[TrialRecord]) -> list[str]:
    """The distinct conditions of the trials, sorted; empty for no trials."""
    return sorted({r.condition for r in records})


def records_for_pair(
    records: Iterable[TrialRecord], treatment: str, baseline: str
) -> list[TrialRecord]:
    """The trials of the cases that ran under either condition of the pair."""
    records = list(records)
    involved = {(r.case, r.agent) for r in records if r.condition in (treatment, baseline)}
    return [r for r in records if (r.case, r.agent) in involved]


def _baseline_of(names: Iterable[str]) -> str | None:
    ordered = sorted(set(names))
    preferred = next((p for p in PREFERRED_BASELINES if p in ordered), None)
    return preferred or (ordered[0] if ordered else None)


def _pair_of(names: Iterable[str]) -> tuple[str, str] | None:
    ordered = sorted(set(names))
    baseline = _baseline_of(ordered)
    treatment = next((c for c in ordered if c != baseline), None)
    return None if baseline is None or treatment is None else (treatment, baseline)


Triple = tuple[str, str, str]
"""A case × agent × condition that ran (a trial's) or was planned (a run's matrix)."""


def _ran_together(triples: Sequence[Triple]) -> list[set[str]]:
    """The conditions of each case × agent that ran (or was planned) under two or more."""
    by_case: dict[tuple[str, str], set[str]] = defaultdict(set)
    for case, agent, condition in triples:
        by_case[(case, agent)].add(condition)
    return [names for names in by_case.values() if len(names) > 1]


def _most_common_pair(triples: Sequence[Triple]) -> tuple[str, str] | None:
    counts = Counter(pair for names in _ran_together(triples) if (pair := _pair_of(names)))
    if not counts:
        return None
    return min(counts, key=lambda pair: (-counts[pair], pair))


def choose_pair(
    records: Sequence[TrialRecord],
    treatment: str | None = None,
    baseline: str | None = None,
    *,
    together_only: bool = False,
    planned: Iterable[tuple[str, str, str, int]] = (),
) -> tuple[str, str] | None:
    """``(treatment, baseline)`` for the trials (see the module docstring), and for the cells
    the run ``planned`` (its matrix): a run stopped before any trial of a condition ran still
    has that condition, its pairs missing that side.

    With names given, raises ConfigError (one sentence for the user) when a name is not in the
    run, both are the same, or no other condition can fill in the missing one. With none given,
    returns None when there is nothing to compare: fewer than two conditions, or (with
    ``together_only``) no case that ran under two.
    """
    records = list(records)
    triples = [(r.case, r.agent, r.condition) for r in records]
    triples += [(case, agent, condition) for case, agent, condition, _ in planned]
    names = sorted({condition for _, _, condition in triples})
    listed = ", ".join(names) or "none"
    if treatment is None and baseline is None:
        found = _most_common_pair(triples)
        if found is not None or together_only:
            return found
        multi = set().union(*_ran_together(triples))
        return _pair_of(multi or names)
    for side, name in (("treatment", treatment), ("baseline", baseline)):
        if name is not None and name not in names:
            near = did_you_mean(name, names)  # then the list is said to be the conditions
            raise ConfigError(
                f"the {side} {name_quoted(name)}: not one of the run's conditions "
                f"({f'{near}conditions: ' if near else ''}{listed})"
            )
    if treatment is not None and treatment == baseline:
        raise ConfigError(
            f"the treatment and the baseline are both {name_quoted(treatment)}: give two of "
            f"the run's conditions ({listed})"
        )
    baseline = baseline or _baseline_of(c for c in names if c != treatment)
    treatment = treatment or next((c for c in names if c != baseline), None)
    if treatment is None or baseline is None:
        raise too_few_conditions(names)
    return treatment, baseline


def gate_pair(run_dir: Path) -> tuple[str, str] | None:
    """The treatment and baseline of the run's A/B gate (its ``resolved.json``'s
    ``gate.ab``), which `proctor report` of the run compares, and so `proctor compare RUN`
    and the viewer's Compare page when no pair is named; None without one, or without a
    ``resolved.json`` (a run not yet planned: the pair is chosen as without a gate).

    A ``resolved.json`` that is there and does not read raises its reader's error:
    ConfigError (not JSON, or a gate `proctor report` refuses too, a hand-edited
    ``gate.ab`` whose two sides are one condition) and SchemaVersionError (a newer
    proctor's): a pair chosen in its place would not be the one the run is gated on."""
    from proctor.models.io import read_record
    from proctor.models.run import ResolvedRecord
    from proctor.paths import RunPaths

    path = RunPaths(run_dir).resolved_json
    if not path.exists():
        return None
    ab = read_record(path, ResolvedRecord).gate.ab
    return None if ab is None else (ab.treatment, ab.baseline)


class Sides(NamedTuple):
    """The sides to compare as named and filled in from the run's A/B gate (a side None is
    left to :func:`choose_pair`), the sides the gate gave, and where the pair came from."""

    treatment: str | None
    baseline: str | None
    from_gate: frozenset[str]
    """``"treatment"``, ``"baseline"``: the sides no one named that are the gate's."""
    pair_from: PairFrom


def gate_sides(treatment: str | None, baseline: str | None, gated: tuple[str, str] | None) -> Sides:
    """The sides `proctor compare RUN` and the viewer's Compare page compare, of the sides
    named and the run's A/B gate ``gated`` (``(treatment, baseline)``, see :func:`gate_pair`):
    none named, the gate's two; one named that is one of the gate's two, the gate's other one
    on the other side (``--treatment`` the gate's baseline compares it with the gate's
    treatment as the baseline); one named that is not the gate's, the gate's condition of the
    other side. Without a gate the side not named is left to :func:`choose_pair`."""
    named = (treatment is not None) + (baseline is not None)
    if gated is None or named == 2:
        where: PairFrom = "named" if named == 2 else "named-and-chosen" if named else "chosen"
        return Sides(treatment, baseline, frozenset(), where)
    if named == 0:
        return Sides(*gated, frozenset({"treatment", "baseline"}), "gate")
    given = treatment if treatment is not None else baseline
    if given in gated:
        other = gated[1] if given == gated[0] else gated[0]
    else:
        other = gated[1] if treatment is not None else gated[0]
    if treatment is None:
        return Sides(other, baseline, frozenset({"treatment"}), "named-and-gate")
    return Sides(treatment, other, frozenset({"baseline"}), "named-and-gate")


def gate_missing(
    gated: tuple[str, str],
    names: Iterable[str],
    whose: str = "the run's",
    used: Collection[str] | None = None,
) -> str | None:
    """The sentence for an A/B gate (``(treatment, baseline)``) that names a condition not
    among ``names`` (the conditions the runs ran or planned), ``whose`` gate it is
    (``the run's``, ``the first run's``); None when it names none such (of those ``used``,
    when given: the gate's conditions a comparison took). `proctor compare` and `proctor
    report` refuse such a gate (exit 2), each with its remedy."""
    present = set(names)
    listed = ", ".join(sorted(present)) or "none"
    conditions = "the runs'" if whose == "the first run's" else whose
    for side, name in zip(("treatment", "baseline"), gated, strict=True):
        if name not in present and (used is None or name in used):
            near = did_you_mean(name, sorted(present))  # then the list is said to be them
            return (
                f"{whose} A/B gate (gate.ab) names the {side} {name_quoted(name)}: not one of "
                f"{conditions} conditions ({f'{near}conditions: ' if near else ''}{listed})"
            )
    return None


def too_few_conditions(names: Iterable[str]) -> ConfigError:
    """The error for a run with nothing to compare within it, of the conditions it has."""
    listed = ", ".join(sorted(set(names))) or "none"
    return ConfigError(
        f"this run has fewer than two conditions ({listed}); to compare two runs, "
        "give both: `proctor compare BASE_RUN CANDIDATE_RUN`"
    )
