"""A plan step no message reached is named by its path in the plan the eval wrote, also when
ids pick some iterations only: ``a/x/2`` run alone plays the second variant, and the warning
names ``variants[1][…]``, not the first of the generated plan.json, which holds that one only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import project, run_json

Run = Any

EVAL = """
    from proctor.evals import case, define_eval
    PLAN = {"variants": [
        [{"say": "one"}],
        [{"say": "x"}, {"endTurn": True}, {"say": "y"}],
    ]}
    async def test(t):
        await t.send("hi")
    eval = define_eval(plan=PLAN, cases=[case(id="x", test=test, iterations=3)])
"""
SAID = (
    "the plan has 2 turns (split by endTurn) and the test sent 1 message, so these steps "
    "never played: variants[1][2] (say)"
)


@pytest.mark.parametrize("ids", [(), ("a/x/2",), ("a/x/2", "a/x/3")])
def test_the_step_is_named_by_the_variant_the_iteration_plays(
    proctor: Run, tmp_path: Path, ids: tuple[str, ...]
) -> None:
    root = project(tmp_path, {"a.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path, *ids)
    assert result.code == 0, result.err
    warnings = {r["id"]: r["warnings"] for r in out["results"]}
    assert warnings["a/x/2"] == [SAID]
    assert all(not said for id_, said in warnings.items() if id_ != "a/x/2"), warnings
