"""What an eval file defines is checked where it is written: a time limit past a day is
refused by ``define_eval`` (and ``--timeout-ms``), in milliseconds, as it was given."""

from __future__ import annotations

import re

import pytest

from proctor.evals.define import MAX_TIMEOUT_MS, EvalDefinitionError, define_eval


async def _test(t: object) -> None: ...


def test_a_time_limit_past_a_day_is_refused_in_the_unit_it_was_given() -> None:
    said = (
        "argument 'timeout_ms': expected a whole number from 1 to 86400000 or None, got 100000000"
    )
    with pytest.raises(EvalDefinitionError, match=re.escape(said)):
        define_eval(test=_test, timeout_ms=100_000_000)


def test_a_day_is_accepted() -> None:
    assert define_eval(test=_test, timeout_ms=MAX_TIMEOUT_MS).timeout_ms == MAX_TIMEOUT_MS


async def _no_context() -> None: ...


async def _two(t: object, extra: object) -> None: ...


async def _flexible(t: object, extra: object = None, *rest: object) -> None: ...


@pytest.mark.parametrize("test", [_no_context, _two])
def test_a_test_that_cannot_take_the_context_is_refused(test: object) -> None:
    with pytest.raises(
        EvalDefinitionError, match=r"'test' is called with one argument.*not async def"
    ):
        define_eval(test=test)  # type: ignore[arg-type]


def test_a_test_that_takes_one_argument_is_accepted() -> None:
    assert define_eval(test=_flexible).test is _flexible
