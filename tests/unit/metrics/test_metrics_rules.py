"""Task rules: thresholds at their boundaries, non-tasks, messages and group counts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from proctor.metrics import (
    RULE_NAMES,
    MetricsConfig,
    Orientation,
    ProcessMetrics,
    RuleResult,
    count_rules,
    evaluate_rules,
    fired_rules,
)


def task(
    *, verified: bool | None = True, reads: int = 0, rework: int = 0, loops: int = 0
) -> ProcessMetrics:
    return ProcessMetrics(
        is_task=True,
        verified=verified,
        orientation=Orientation(reads_before_first_edit=reads, steps_before_first_edit=reads),
        rework=rework,
        loops=loops,
    )


def fired(metrics: ProcessMetrics, config: MetricsConfig | None = None) -> dict[str, bool]:
    return {r.rule: r.fired for r in evaluate_rules(metrics, config)}


def test_rules_come_in_a_fixed_order() -> None:
    assert [r.rule for r in evaluate_rules(task())] == list(RULE_NAMES)
    assert [r.rule for r in evaluate_rules(ProcessMetrics())] == list(RULE_NAMES)


def test_clean_task_fires_nothing() -> None:
    results = evaluate_rules(task())
    assert not any(r.fired for r in results)
    assert all(r.applicable for r in results)


@pytest.mark.parametrize(("value", "want"), [(True, False), (False, True), (None, True)])
def test_unverified(value: bool | None, want: bool) -> None:
    result = evaluate_rules(task(verified=value))[0]
    assert (result.fired, result.value, result.threshold) == (want, value, None)


def _reads(n: int) -> ProcessMetrics:
    return task(reads=n)


def _rework(n: int) -> ProcessMetrics:
    return task(rework=n)


def _loops(n: int) -> ProcessMetrics:
    return task(loops=n)


@pytest.mark.parametrize(
    ("rule", "build", "limit"),
    [("long-orientation", _reads, 20), ("rework", _rework, 3), ("loops", _loops, 0)],
)
def test_threshold_rules_fire_strictly_above_the_limit(
    rule: str, build: Callable[[int], ProcessMetrics], limit: int
) -> None:
    at = {r.rule: r for r in evaluate_rules(build(limit))}[rule]
    above = {r.rule: r for r in evaluate_rules(build(limit + 1))}[rule]
    assert (at.fired, at.value, at.threshold) == (False, limit, limit)
    assert (above.fired, above.value, above.threshold) == (True, limit + 1, limit)
    assert str(limit + 1) in above.message and str(limit) in above.message


def test_thresholds_are_configurable() -> None:
    config = MetricsConfig(long_orientation_max=2, rework_max=0, loops_max=1)
    assert fired(task(reads=3, rework=1, loops=1), config) == {
        "unverified": False,
        "long-orientation": True,
        "rework": True,
        "loops": False,
    }


def test_non_task_rules_are_not_applicable() -> None:
    metrics = ProcessMetrics(verified=None, rework=10, loops=5)
    for result in evaluate_rules(metrics):
        assert (result.applicable, result.fired, result.value) == (False, False, None)
        assert "not a task" in result.message


def test_count_rules() -> None:
    assert count_rules([]) == dict.fromkeys(RULE_NAMES, 0)
    per_trial = [
        evaluate_rules(task(verified=False, rework=4)),
        evaluate_rules(task(verified=False)),
        evaluate_rules(ProcessMetrics(rework=9)),
        [],
    ]
    assert count_rules(per_trial) == {
        "unverified": 2,
        "long-orientation": 0,
        "rework": 1,
        "loops": 0,
    }
    extra = RuleResult(rule="custom", fired=True, value=1, threshold=0, message="")
    assert count_rules([[extra]])["custom"] == 1


def test_rule_result_to_dict() -> None:
    data = evaluate_rules(task(reads=21))[1].to_dict()
    assert data == {
        "rule": "long-orientation",
        "fired": True,
        "value": 21,
        "threshold": 20,
        "message": data["message"],
        "applicable": True,
    }


@pytest.mark.parametrize("is_task", [True, False])
@pytest.mark.parametrize("verified", [True, False, None])
@pytest.mark.parametrize("value", [0, 1, 3, 4, 20, 21])
def test_fired_rules_names_what_evaluate_rules_fires(
    is_task: bool, verified: bool | None, value: int
) -> None:
    """The names a history replay keeps are the rules' own verdicts, at and around every
    default threshold and under a configuration of its own."""
    metrics = task(verified=verified, reads=value, rework=value, loops=value).model_copy(
        update={"is_task": is_task}
    )
    for config in (None, MetricsConfig(long_orientation_max=3, rework_max=0, loops_max=4)):
        want = [r.rule for r in evaluate_rules(metrics, config) if r.fired]
        assert fired_rules(metrics, config) == want
