"""The orders `proctor plan-repeats` gives each pair: a Williams square of the conditions."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from proctor.session.repeats import (
    manifest_order_note,
    order_note,
    plan_repeats,
    runs_order_note,
    williams_orders,
)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_every_condition_takes_every_place_and_follows_every_other_equally(k: int) -> None:
    conditions = [f"c{i}" for i in range(k)]
    rows = williams_orders(conditions)
    assert rows[0] == conditions  # the first pair runs them in the order given
    assert len(rows) == (k if k % 2 == 0 else 2 * k)
    for place in range(k):
        counts = Counter(row[place] for row in rows)
        assert set(counts.values()) == {len(rows) // k}
    follows = Counter(pair for row in rows for pair in pairwise(row))
    assert len(follows) == k * (k - 1) and len(set(follows.values())) == 1


def test_two_conditions_alternate_and_three_do_not_keep_one_in_the_middle() -> None:
    assert williams_orders(["a", "b"]) == [["a", "b"], ["b", "a"]]
    manifest = plan_repeats({"t": "single_goal"}, None, 6, ["a", "b", "c"])
    middles = {run.order[1] for run in manifest.runs}
    assert middles == {"a", "b", "c"}  # reversing the list alone kept "b" second in every pair


def test_three_conditions_each_first_once_are_said_unbalanced_in_what_runs_before_what() -> None:
    """Three pairs of three conditions (A B C, B C A, C A B) run each first once, but A before
    B in 2 of 3: a comparison of A and B would read the order as part of their difference."""
    manifest = plan_repeats({"t": "single_goal"}, None, 3, ["a", "b", "c"])
    assert manifest_order_note(manifest) == (
        "the order of the conditions is not balanced: a runs before b in 2 of 3 pairs, after "
        "it in 1 (a multiple of 6 pairs balances it)"
    )
    assert manifest_order_note(plan_repeats({"t": "single_goal"}, None, 6, ["a", "b", "c"])) == ""
    cells = [
        [("t", "x", name, 1) for name in order]
        for order in (["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"])
    ]
    assert runs_order_note(cells).startswith(
        "over the runs read, the order of the conditions is not balanced: a runs before b in 2 "
        "of 3 case repeats, after it in 1: "
    )


def test_runs_read_together_are_advised_as_what_they_are() -> None:
    """The pairs of a repeat manifest are told to be read with the others; ordinary runs,
    which a manifest's advice does not fit, that more of them keep their order."""
    cells = [[("t", "x", "a", 1), ("t", "x", "b", 1)], [("u", "x", "a", 1), ("u", "x", "b", 1)]]
    said = "a difference may come from the order as much as from the conditions ("
    manifest = (  # (every pair read: their number is the cause, which it names too)
        "read the run folders of every pair of the repeat manifest together, or, if these are "
        "all its pairs, plan a number of pairs that balances it (`proctor plan-repeats` says "
        "how many)"
    )
    ordinary = (
        "a run of the same cases and repeats runs the conditions in the same order again, so "
        "more such runs leave it as it is; `proctor plan-repeats` plans runs whose orders "
        "balance"
    )
    assert runs_order_note(cells, [True, True]).endswith(f"{said}{manifest})")
    assert runs_order_note(cells, [False, False]).endswith(f"{said}{ordinary})")
    assert runs_order_note(cells).endswith(f"{said}{ordinary})")
    assert runs_order_note(cells, [True, False]).endswith(f"{said}{manifest}; {ordinary})")


def test_who_runs_first_more_often_is_said_before_what_runs_before_what() -> None:
    orders = [["a", "b"], ["a", "b"], ["b", "a"]]
    balance = "a multiple of 2 pairs balances it"
    assert order_note(orders, ["a", "b"], "pair", balance) == (
        "the order of the conditions is not balanced: a runs first in 2 of 3 pairs, b in 1 "
        "(a multiple of 2 pairs balances it)"
    )
    assert order_note([["a", "b"], ["b", "a"]], ["a", "b"], "pair", balance) == ""


def test_runs_read_together_count_the_order_of_each_agent_on_its_own() -> None:
    """x ran a first and y b first: all together each condition ran first once, but each
    agent's comparison of a and b reads its own trials, the order one with the condition."""
    cells = [
        [("t", "x", "a", 1), ("t", "x", "b", 1), ("t", "y", "b", 1), ("t", "y", "a", 1)],
    ]
    assert runs_order_note(cells).startswith(
        "over the runs read, the order of the conditions is not balanced for agent x: a runs "
        "first in 1 of 1 case repeat, b in 0; for agent y: b runs first in 1 of 1 case repeat, "
        "a in 0: a difference may come from the order"
    )
    balanced = [[*cells[0], ("u", "x", "b", 1), ("u", "x", "a", 1)], [("u", "y", "a", 1)]]
    balanced[1].append(("u", "y", "b", 1))
    assert runs_order_note(balanced) == ""
