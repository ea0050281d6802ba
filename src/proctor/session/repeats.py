"""Counterbalanced repeats of an A/B suite, planned ahead: ``proctor plan-repeats`` writes a
manifest and ``proctor run --manifest`` executes it.

The manifest lists the tasks (from a goal-label file, optionally only one goal shape), the
conditions, and one run per pair, its conditions in the order of a row of a Williams square
(:func:`williams_orders`): with two conditions, pair 1 runs them in the order given and pair 2 in
the reverse order; with more, every condition takes every place, and follows every other one,
equally often over a whole square of pairs, so that order is never confounded with condition.
Each run writes an ordinary run folder under ``<out>/<results>`` labelled with its session label;
``proctor report`` over all of them reads them as one sample set.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.errors import ConfigError
from proctor.models.config import GOAL_SHAPES, SAFE_NAME, SAFE_NAME_RULE, check_goal_labels
from proctor.models.io import read_record
from proctor.models.run import ManifestRun, RepeatManifest
from proctor.util.json_shown import name_shown
from proctor.util.text import plural

if TYPE_CHECKING:
    from proctor.models.plan import TrialSpec


def plan_repeats(
    goal_labels: dict[str, str], goal_shape: str | None, pairs: int, conditions: list[str]
) -> RepeatManifest:
    if goal_shape is not None and goal_shape not in GOAL_SHAPES:
        raise ConfigError(
            f"--goal-shape {name_shown(goal_shape)}: expected one of {', '.join(GOAL_SHAPES)}"
        )
    check_goal_labels(goal_labels)
    for condition in conditions:
        if not SAFE_NAME.fullmatch(condition):
            raise ConfigError(
                f"--conditions: {condition!r} cannot name a condition ({SAFE_NAME_RULE})"
            )
    tasks = sorted(
        t for t, shape in goal_labels.items() if goal_shape is None or shape == goal_shape
    )
    if not tasks and goal_shape is None:
        raise ConfigError("--goal-labels: the file names no task")
    if not tasks:
        shapes = ", ".join(sorted(set(goal_labels.values())))
        raise ConfigError(
            f"--goal-shape {name_shown(goal_shape or '')}: no task has that goal shape "
            f"(shapes: {shapes})"
        )
    twice = next((c for i, c in enumerate(conditions) if c in conditions[:i]), None)
    if twice is not None:
        raise ConfigError(
            f"--conditions: {twice!r} is named twice; give two or more different conditions, "
            "comma-separated, each once"
        )
    if len(conditions) < 2:
        raise ConfigError("--conditions: give two or more different conditions, comma-separated")
    orders = williams_orders(conditions)
    runs = [
        ManifestRun(
            pair=pair,
            order=orders[(pair - 1) % len(orders)],
            results=f"pair-{pair}",
            session=f"{goal_shape or 'all'}-pair-{pair}",
        )
        for pair in range(1, pairs + 1)
    ]
    return RepeatManifest(
        goal_shape=goal_shape, conditions=conditions, tasks=tasks, pairs=pairs, runs=runs
    )


def williams_orders(conditions: list[str]) -> list[list[str]]:
    """The rows of a Williams square of the conditions, the first in the order given: each
    condition in each place once per square, and right after each other condition once (an even
    count of conditions: a square of as many rows) or twice (an odd count: the square and its
    mirror, twice as many rows). Two conditions give their order and its reverse."""
    k = len(conditions)
    first = [0]
    low, high = 1, k - 1
    while len(first) < k:  # 0, 1, k-1, 2, k-2, …
        first.append(low)
        low += 1
        if len(first) < k:
            first.append(high)
            high -= 1
    rows = [[(place + shift) % k for place in first] for shift in range(k)]
    if k % 2:
        rows += [list(reversed(row)) for row in rows]
    # Relabelled so that the first row is the order given (a relabelling keeps the balance).
    label = {index: conditions[place] for place, index in enumerate(first)}
    return [[label[i] for i in row] for row in rows]


def order_note(
    firsts: Sequence[str], conditions: Sequence[str], unit: str, balanced_by: int | None
) -> str:
    """A sentence when the conditions do not each run first equally often over ``firsts`` (the
    condition that ran first in each pair or repeat), naming which ran first more often; empty
    when balanced. ``balanced_by``: a count of ``unit`` that would balance the order."""
    counts = Counter(firsts)
    if len({counts[name] for name in conditions}) <= 1:
        return ""
    ranked = sorted(conditions, key=lambda name: -counts[name])  # (stable: the order given)
    rest = ", ".join(f"{name} in {counts[name]}" for name in ranked[1:])
    said = (
        f"the order of the conditions is not balanced: {ranked[0]} runs first in "
        f"{counts[ranked[0]]} of {plural(len(firsts), unit)}, {rest}"
    )
    if balanced_by is None:
        return said
    return f"{said} (a multiple of {plural(balanced_by, unit)} balances it)"


def manifest_order_note(manifest: RepeatManifest) -> str:
    """:func:`order_note` over a manifest's runs (every pair listed: a share of a manifest split
    between machines is balanced only with the others)."""
    if len(manifest.runs) < manifest.pairs:
        return ""
    square = len(williams_orders(manifest.conditions))
    firsts = [run.order[0] for run in manifest.runs]
    return order_note(firsts, manifest.conditions, "pair", square)


def plan_order_note(trials: Sequence[TrialSpec], first: str | None) -> str:
    """:func:`order_note` over a run's plan: the condition each case × agent × repeat of two or
    more conditions runs first (none with ``--first-condition``, an order asked for)."""
    if first is not None:
        return ""
    started: dict[tuple[str, str, int], list[str]] = {}
    for trial in sorted(trials, key=lambda t: t.index):
        started.setdefault((trial.case.name, trial.agent, trial.repeat), []).append(trial.condition)
    units = [names for names in started.values() if len(set(names)) > 1]
    conditions = list(dict.fromkeys(name for names in units for name in names))
    sizes = {len(set(names)) for names in units}
    return order_note([names[0] for names in units], conditions, "repeat", math.lcm(*sizes or {1}))


def read_manifest(path: Path) -> RepeatManifest:
    return read_record(path, RepeatManifest)


def runs_order_note(runs: Sequence[Sequence[tuple[str, str, str, int]]]) -> str:
    """:func:`order_note` over runs read as one sample set, each given by its planned cells
    (case, agent, condition, repeat) in the order it ran them: the condition each case × agent
    × repeat of two or more conditions ran first, in every run (the pairs of a manifest split
    between machines balance only when every pair's run is read). Empty when balanced."""
    firsts: list[str] = []
    conditions: list[str] = []
    for cells in runs:
        started: dict[tuple[str, str, int], list[str]] = {}
        for case, agent, condition, repeat in cells:
            started.setdefault((case, agent, repeat), []).append(condition)
        for names in started.values():
            if len(set(names)) > 1:
                firsts.append(names[0])
                conditions.extend(names)
    note = order_note(firsts, list(dict.fromkeys(conditions)), "repeat", None)
    return (
        f"over the runs read, {note}: a difference may come from the order as much as from "
        "the conditions (read the run folders of every pair of a repeat manifest together)"
        if note
        else ""
    )
