"""An evaluator entry's ``conditions``: the add-on checks (``hook-transcript-check``,
``skill-loaded``) run under the condition that provisions the add-on, and a baseline's trials
are not failed for lacking it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.drive.driver import TurnOutcome
from proctor.errors import ConfigError
from proctor.evaluators.base import parse_evaluator_specs
from proctor.execute.evaluate import evaluated
from proctor.execute.verdict import decide
from proctor.models.trial import NOT_EVALUATED_HERE, EvaluatorResult
from tests.unit.evaluators.helpers import context

FAILS = {"use": "command", "run": "false"}
PASSES = {"use": "command", "run": "true"}


def test_an_evaluator_runs_under_its_conditions_only(tmp_path: Path) -> None:
    entries = [PASSES, {**FAILS, "conditions": ["with-plugin"]}]
    specs = parse_evaluator_specs(entries, "config.json")
    ctx = context(tmp_path)
    baseline = [evaluated(spec, ctx, "baseline") for spec in specs]
    assert [(r.passed, r.counted) for r in baseline] == [(True, True), (True, False)]
    assert baseline[1].message == ("not run under condition 'baseline' (it runs under with-plugin)")
    treated = [evaluated(spec, ctx, "with-plugin") for spec in specs]
    assert [(r.passed, r.counted) for r in treated] == [(True, True), (False, True)]
    assert status(baseline) == ("passed", 100.0)
    assert status(treated) == ("failed", 50.0)


def status(results: list[EvaluatorResult]) -> tuple[str, float | None]:
    verdict = decide(
        TurnOutcome("turn-end"),
        0,
        None,
        results,
        combiner="gated-mean",
        threshold=70,
        timeout_sec=5,
    )
    return verdict.status, verdict.score


@pytest.mark.parametrize("value", ["with-plugin", [], [""], ["a", "a"], [1], None])
def test_conditions_that_name_no_condition_list_are_refused(value: Any) -> None:
    with pytest.raises(ConfigError, match=r"^config.json: field 'evaluators\[0\].conditions': "):
        parse_evaluator_specs([{**PASSES, "conditions": value}], "config.json")


def test_a_trial_none_of_whose_evaluators_ran_is_skipped_not_passed(tmp_path: Path) -> None:
    # Nothing judged the baseline trial: a pass would inflate the baseline's pass rate.
    specs = parse_evaluator_specs([{**FAILS, "conditions": ["with-plugin"]}], "config.json")
    baseline = [evaluated(spec, context(tmp_path), "baseline") for spec in specs]
    verdict = decide(
        TurnOutcome("turn-end"), 0, None, baseline, combiner="gated-mean", threshold=70,
        timeout_sec=5,
    )  # fmt: skip
    assert (verdict.status, verdict.passed, verdict.score) == ("skipped", None, None)
    assert verdict.reason == NOT_EVALUATED_HERE
    # Control: one evaluator that ran decides, as before.
    assert status(
        [
            *baseline,
            evaluated(parse_evaluator_specs([PASSES], "c")[0], context(tmp_path), "baseline"),
        ]
    ) == ("passed", 100.0)
