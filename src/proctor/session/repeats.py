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

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.errors import ConfigError
from proctor.models.config import GOAL_SHAPES, SAFE_NAME, SAFE_NAME_RULE, check_goal_labels
from proctor.models.io import read_record
from proctor.models.run import ManifestRun, RepeatManifest
from proctor.plan.orders import williams_orders
from proctor.util.json_shown import name_shown
from proctor.util.text import plural

if TYPE_CHECKING:
    from proctor.models.plan import TrialSpec


def plan_repeats(
    goal_labels: dict[str, str], goal_shape: str | None, pairs: int, conditions: list[str]
) -> RepeatManifest:
    check_goal_shape(goal_shape)
    check_goal_labels(goal_labels)
    check_conditions(conditions)
    tasks = tasks_of(goal_labels, goal_shape)
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


def check_goal_shape(goal_shape: str | None) -> None:
    """A ConfigError unless ``goal_shape`` (``--goal-shape``) is None or one proctor knows."""
    if goal_shape is not None and goal_shape not in GOAL_SHAPES:
        raise ConfigError(
            f"--goal-shape {name_shown(goal_shape)}: expected one of {', '.join(GOAL_SHAPES)}"
        )


def check_conditions(conditions: list[str]) -> None:
    """A ConfigError unless ``conditions`` (``--conditions``) are two or more different
    names a condition can have."""
    for condition in conditions:
        if not SAFE_NAME.fullmatch(condition):
            raise ConfigError(
                f"--conditions: {condition!r} cannot name a condition ({SAFE_NAME_RULE})"
            )
    twice = next((c for i, c in enumerate(conditions) if c in conditions[:i]), None)
    if twice is not None:
        raise ConfigError(
            f"--conditions: {twice!r} is named twice; give two or more different conditions, "
            "comma-separated, each once"
        )
    if len(conditions) < 2:
        raise ConfigError("--conditions: give two or more different conditions, comma-separated")


def tasks_of(goal_labels: dict[str, str], goal_shape: str | None) -> list[str]:
    """The tasks of ``goal_labels`` of ``goal_shape`` (of every shape when None), sorted; a
    ConfigError when there are none."""
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
    return tasks


def order_note(
    orders: Sequence[Sequence[str]], conditions: Sequence[str], unit: str, balance: str | None
) -> str:
    """A sentence when the conditions do not each run first equally often over ``orders`` (the
    conditions of each pair or repeat in the order they ran, each a ``unit``), naming which ran
    first more often; else when one condition runs before another more often than after it
    (three conditions rotated, A B C, B C A, C A B: each first once, but A before B in 2 of
    3), naming the most lopsided two; empty when balanced. ``balance``: what would balance the
    order (``a multiple of 2 pairs balances it``), said in brackets after it."""
    counts = Counter(order[0] for order in orders)
    if len({counts[name] for name in conditions}) > 1:
        ranked = sorted(conditions, key=lambda name: -counts[name])  # (stable: the order given)
        rest = ", ".join(f"{name} in {counts[name]}" for name in ranked[1:])
        said = (
            f"the order of the conditions is not balanced: {ranked[0]} runs first in "
            f"{counts[ranked[0]]} of {plural(len(orders), unit)}, {rest}"
        )
    else:
        said = _before_note(orders, conditions, unit)
        if not said:
            return ""
    return said if balance is None else f"{said} ({balance})"


def _before_note(orders: Sequence[Sequence[str]], conditions: Sequence[str], unit: str) -> str:
    """The two conditions one of which runs before the other most often more than after it,
    said as :func:`order_note` says it; empty when each runs before each other one as often as
    after it."""
    worst: tuple[int, str, str, int, int] | None = None
    for i, one in enumerate(conditions):
        for other in conditions[i + 1 :]:
            both = [o for o in orders if one in o and other in o]
            before = sum(1 for o in both if list(o).index(one) < list(o).index(other))
            after = len(both) - before
            if before != after and (worst is None or abs(before - after) > worst[0]):
                first, then = (one, other) if before > after else (other, one)
                worst = (abs(before - after), first, then, max(before, after), len(both))
    if worst is None:
        return ""
    _, first, then, more, total = worst
    return (
        f"the order of the conditions is not balanced: {first} runs before {then} in "
        f"{more} of {plural(total, unit)}, after it in {total - more}"
    )


def manifest_order_note(manifest: RepeatManifest) -> str:
    """:func:`order_note` over a manifest's runs (every pair listed: a share of a manifest split
    between machines is balanced only with the others)."""
    if len(manifest.runs) < manifest.pairs:
        return ""
    square = len(williams_orders(manifest.conditions))
    balance = f"a multiple of {plural(square, 'pair')} balances it"
    return order_note([run.order for run in manifest.runs], manifest.conditions, "pair", balance)


def plan_order_note(trials: Sequence[TrialSpec], first: str | None) -> str:
    """:func:`order_note` over a run's plan, for each agent and set of conditions on its own
    (:func:`grouped_order_note`): the condition each case × agent × repeat of two or more
    conditions (a case repeat) runs first (none with ``--first-condition``, an order asked
    for)."""
    if first is not None:
        return ""
    started: dict[tuple[str, str, int], list[str]] = {}
    repeats: dict[tuple[str, str], int] = {}
    for trial in sorted(trials, key=lambda t: t.index):
        started.setdefault((trial.case.name, trial.agent, trial.repeat), []).append(trial.condition)
        repeats[trial.case.name, trial.agent] = trial.case.repeats
    units = [(agent, names) for (_, agent, _), names in started.items() if len(set(names)) > 1]
    # The cases × agents of each group, each with its repeats.
    cases: dict[tuple[str, frozenset[str]], dict[str, int]] = {}
    for (case, agent, _), names in started.items():
        if len(set(names)) > 1:
            cases.setdefault((agent, frozenset(names)), {})[case] = repeats[case, agent]

    def balance(agent: str, conditions: frozenset[str]) -> str:
        # A whole Williams square balances it (condition_order runs its rows, from repeat to
        # repeat and from case to case among an agent's cases of these conditions): k repeats
        # (or cases), 2k for an odd k. So do as many cases when each runs as many repeats:
        # over them every row of the square then runs equally often; when one case runs more
        # rows than another, a count of cases balances nothing.
        size = len(williams_orders(sorted(conditions)))
        said = f"a multiple of {plural(size, 'repeat')}"
        if len(set(cases[agent, conditions].values())) == 1:
            said += f", or of {plural(size, 'case')},"
        return f"{said} balances it"

    return grouped_order_note(units, "case repeat", balance)


def grouped_order_note(
    units: Sequence[tuple[str, Sequence[str]]],
    unit: str,
    balance: Callable[[str, frozenset[str]], str | None],
) -> str:
    """:func:`order_note` over ``units`` (each an agent and the conditions of one of its case
    repeats in the order they ran), for each agent and set of conditions on its own: a
    comparison of two conditions pairs an agent's trials with the same agent's, so an order
    balanced over all agents together can still be one agent's A first and another's B first,
    and the repeats of another set of conditions balance nothing of this one's. One agent of
    one set of conditions is said as :func:`order_note` says it; more, each one not balanced
    named (``for agent claude-code:``, ``for conditions a, b:``, or both), joined by ``; ``.
    ``balance``: what balances a group's order (its agent and conditions), or None. Empty when
    every group is balanced."""
    groups: dict[tuple[str, frozenset[str]], list[Sequence[str]]] = {}
    for agent, names in units:
        groups.setdefault((agent, frozenset(names)), []).append(names)
    agents = {agent for agent, _ in groups}
    sets = {conditions for _, conditions in groups}
    said: list[str] = []
    for (agent, conditions), orders in groups.items():
        names = list(dict.fromkeys(name for order in orders for name in order))
        note = order_note(orders, names, unit, balance(agent, conditions))
        if not note:
            continue
        whose = [f"agent {agent}"] if len(agents) > 1 else []
        if len(sets) > 1:
            whose.append(f"conditions {', '.join(names)}")
        if whose:
            note = note.replace("not balanced: ", f"not balanced for {' and '.join(whose)}: ", 1)
        said.append(note)
    if len(said) > 1:  # one sentence: the later groups by their names alone
        head = "the order of the conditions is not balanced "
        said = [said[0], *(s.removeprefix(head) for s in said[1:])]
    return "; ".join(said)


def read_manifest(path: Path) -> RepeatManifest:
    return read_record(path, RepeatManifest)


def runs_order_note(
    runs: Sequence[Sequence[tuple[str, str, str, int]]], pairs: Sequence[bool] = ()
) -> str:
    """:func:`order_note` over runs read as one sample set, for each agent and set of
    conditions on its own (:func:`grouped_order_note`), each run given by its planned cells
    (case, agent, condition, repeat) in the order it ran them: the condition each case × agent
    × repeat of two or more conditions ran first (and before which other), in every run (the
    pairs of a manifest split between machines balance only when every pair's run is read).
    ``pairs``: for each run, whether it is a pair of a repeat manifest (``run --manifest``),
    which decides what the note advises. Empty when balanced."""
    units: list[tuple[str, list[str]]] = []
    for cells in runs:
        started: dict[tuple[str, str, int], list[str]] = {}
        for case, agent, condition, repeat in cells:
            started.setdefault((case, agent, repeat), []).append(condition)
        units.extend(
            (agent, names) for (_, agent, _), names in started.items() if len(set(names)) > 1
        )
    note = grouped_order_note(units, "case repeat", lambda agent, conditions: None)
    if not note:
        return ""
    advice = []
    if any(pairs):  # the share of a manifest split between machines, read without the others
        advice.append(
            "read the run folders of every pair of the repeat manifest together, or, if these "
            "are all its pairs, plan a number of pairs that balances it (`proctor "
            "plan-repeats` says how many)"
        )
    if not pairs or not all(pairs):
        advice.append(
            "a run of the same cases and repeats runs the conditions in the same order again, "
            "so more such runs leave it as it is; `proctor plan-repeats` plans runs whose "
            "orders balance"
        )
    return (
        f"over the runs read, {note}: a difference may come from the order as much as from "
        f"the conditions ({'; '.join(advice)})"
    )
