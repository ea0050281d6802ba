"""The outcome measures of one trial, and their rates over a group (with controls)."""

from __future__ import annotations

from proctor.models.process import ContextMetrics, ProcessMetrics, StepCounts
from proctor.models.trial import TrialRecord
from proctor.report.ab.measures import (
    abandoned,
    file_hit,
    patch_in_area,
    search_steps,
    wrong_context,
)
from proctor.report.effort import outcome_rates


def record(
    edited: list[str],
    *,
    expected: list[str] | None = None,
    hit: bool | None = None,
    wrong: int = 0,
    task: bool = True,
    searches: int = 0,
    status: str = "passed",
) -> TrialRecord:
    context = ContextMetrics(
        basis="expected" if expected else "edited-proxy" if edited else "none",
        expected_files=expected or edited,
        edited_files=edited,
        correct_file_hit=hit,
        wrong_context_events=wrong if expected else None,
    )
    process = ProcessMetrics(is_task=task, context=context, steps=StepCounts(searches=searches))
    return TrialRecord(case="c", agent="a", repeat=1, status=status, process=process)  # type: ignore[arg-type]


def test_each_measure_on_one_trial() -> None:
    inside = record(["src/app/a.py", "src/app/new.py"], expected=["src/app/a.py"], hit=True)
    assert (file_hit(inside), patch_in_area(inside), wrong_context(inside)) == (1.0, 1.0, 0.0)
    outside = record(["docs/x.py"], expected=["src/app/a.py"], hit=False, wrong=1)
    assert (file_hit(outside), patch_in_area(outside), wrong_context(outside)) == (0.0, 0.0, 1.0)
    gave_up = record([], expected=["src/app/a.py"], hit=False, task=False)
    assert (abandoned(gave_up), patch_in_area(gave_up)) == (1.0, None)
    assert abandoned(inside) == 0.0
    no_gold = record(["a.py"], searches=3)
    assert (file_hit(no_gold), patch_in_area(no_gold), abandoned(no_gold)) == (None, None, None)
    assert search_steps(no_gold) == 3.0


def test_rates_over_scored_trials_only() -> None:
    rows = [
        record(["a.py"], expected=["a.py"], hit=True),
        record(["b.py"], expected=["a.py"], hit=False, wrong=1),
        record([], expected=["a.py"], hit=False, task=False, status="agent-error"),  # not scored
    ]
    rates = outcome_rates(rows)
    assert (rates.file_hit.k, rates.file_hit.n, rates.file_hit.rate) == (1, 2, 0.5)
    assert (rates.wrong_context.k, rates.abandoned.k, rates.abandoned.n) == (1, 0, 2)
    assert rates.file_hit.ci is not None and rates.file_hit.ci.low <= 0.5 <= rates.file_hit.ci.high


def test_control_a_patch_outside_the_expected_folders_is_not_in_area() -> None:
    near = record(["src/app/util.py"], expected=["src/app/a.py"], hit=True)
    far = record(["src/other/util.py"], expected=["src/app/a.py"], hit=True)
    assert (patch_in_area(near), patch_in_area(far)) == (1.0, 0.0)
