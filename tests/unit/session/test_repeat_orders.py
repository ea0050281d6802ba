"""The orders `proctor plan-repeats` gives each pair: a Williams square of the conditions."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from proctor.session.repeats import plan_repeats, williams_orders


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
