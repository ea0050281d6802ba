"""A method ``t.judge`` does not have, and none near it, is said with the few it has: Python's
``'Judge' object has no attribute 'rubric'`` alone does not say what to call instead."""

from __future__ import annotations

from typing import Any, cast

from proctor.evals.context import TestContext
from proctor.evals.names import near_names


def _error_of(t: TestContext, name: str) -> AttributeError:
    try:
        getattr(t.judge, name)
    except AttributeError as exc:
        return exc
    raise AssertionError(f"t.judge has {name}")


def test_a_method_t_judge_does_not_have_is_said_with_those_it_has() -> None:
    t = TestContext(cast(Any, None))
    assert near_names(_error_of(t, "rubric")) == (
        " (t.judge has model, factuality, summarizes, closed_qa and sql)"
    )
    assert near_names(_error_of(t, "factualty")) == " (did you mean 'factuality'?)"
