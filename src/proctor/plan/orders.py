"""The order the conditions of a pair or repeat run in: the rows of a Williams square, so that
order is never confounded with condition (``proctor run``'s repeats, from case to case too,
``proctor plan-repeats``' pairs)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["condition_order", "rotation_places", "starting_order", "williams_orders"]


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


def starting_order(conditions: Iterable[str], asked: Sequence[str]) -> list[str]:
    """A case's ``conditions`` in the order the rows of its Williams square start from: those
    ``--condition`` lists (``asked``: a manifest's pair order) in its order, then the others
    in the order its configuration gives them."""
    names = list(conditions)
    listed = list(dict.fromkeys(n for n in asked if n in names))
    return listed + [n for n in names if n not in listed]


def rotation_places(cells: Iterable[tuple[str, Sequence[str]]]) -> list[tuple[list[str], int]]:
    """For each case × agent of a run, given as the agent and the case's conditions in its
    :func:`starting_order`, the order the rows of its Williams square start from and its place
    in the rotation from case to case. The cases that run the same set of conditions start
    from one order, the one the first of them in the run gives; each agent's cases of that set
    rotate on their own, each case's place counted among that agent's cases of that set only
    (0 for the first). So each agent's order of each set of conditions balances on its own,
    whatever the other agents or the other cases run: a case that lists the same conditions
    the other way round, a case of other conditions between two A/B cases, or an A/B case of
    another agent does not shift its row. A case of fewer than two conditions keeps its order
    and takes no place."""
    common: dict[frozenset[str], list[str]] = {}
    placed: Counter[tuple[str, frozenset[str]]] = Counter()
    rotation: list[tuple[list[str], int]] = []
    for agent, names in cells:
        group = frozenset(names)
        if len(group) < 2:
            rotation.append((list(names), 0))
            continue
        rotation.append((common.setdefault(group, list(names)), placed[agent, group]))
        placed[agent, group] += 1
    return rotation


def condition_order(
    names: list[str],
    repeat: int,
    first: str | None,
    case: int = 0,
    rows_from: list[str] | None = None,
) -> list[str]:
    """The order conditions run in for one repeat of one case, so order is not confounded
    with condition.

    With ``first`` that condition always runs first, the others after it in the order of
    ``names`` (the case's :func:`starting_order`); otherwise repeat r of the case at place
    ``case`` among the agent's cases of the same conditions in the run (:func:`rotation_places`,
    whose order ``rows_from`` the rows start from; ``names`` when not given) runs row r - 1 +
    ``case`` of their Williams square (:func:`williams_orders`, cycling): two conditions
    alternate (A B, B A) from repeat to repeat and from case to case, so that one repeat of an
    even number of an agent's cases is balanced too; three run A B C, B C A, C A B, then the
    mirror rows C B A, A C B, B A C, so that over 6 repeats (or 6 cases) each one runs before
    each other one as often as after it, which the rotation alone (A B C, B C A, C A B, again
    and again) never gave: A ran before B in 2 of every 3 repeats.
    """
    if first is not None and first in names:
        return [first, *(n for n in names if n != first)]
    if len(names) < 2:
        return list(names)
    rows = williams_orders(rows_from if rows_from is not None else names)
    return rows[(repeat - 1 + case) % len(rows)]
