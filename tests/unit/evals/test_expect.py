"""Expectation builders, each with a value that meets it and a control that must fail it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel

from proctor.evals import (
    equals,
    includes,
    matches,
    normalized_similarity,
    satisfies,
    similarity,
)


class Reply(BaseModel):
    status: str
    count: int


@pytest.mark.parametrize(
    ("expectation", "good", "control"),
    [
        (includes("health"), "adds a /health endpoint", "adds a ping endpoint"),
        (includes(re.compile(r"\d+ tests?")), "ran 12 tests", "ran the tests"),
        (includes("b"), ["a", "b"], ["a", "c"]),
        (includes({"a": 1}), {"a": 1, "b": 2}, {"a": 2, "b": 2}),
        (equals({"a": [1, {"b": 2}]}), {"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}),
        (matches(Reply), {"status": "ok", "count": 3}, {"status": "ok"}),
        (matches(Reply), '{"status": "ok", "count": 3}', '{"status": "ok", "count": "x"}'),
        (similarity("The tests pass now", 0.8), "the tests pass now!", "the build is broken"),
        (satisfies(lambda v: v > 3, "more than 3"), 4, 2),
        (satisfies(lambda v: v.upper() == "OK", "ok"), "ok", None),  # raising counts as false
    ],
)
def test_a_builder_accepts_its_value_and_refuses_the_control(
    expectation: Any, good: Any, control: Any
) -> None:
    assert expectation(good).passed
    outcome = expectation(control)
    assert not outcome.passed and outcome.message


def test_normalized_similarity() -> None:
    assert normalized_similarity("Hello, World!", "hello world") == 1.0
    assert normalized_similarity("", "") == 1.0
    assert normalized_similarity("abc", "xyz") == 0.0
    assert 0.5 < normalized_similarity("the tests pass", "the tests passed") < 1.0
    with pytest.raises(ValueError):
        similarity("x", 1.5)
