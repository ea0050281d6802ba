"""Controls: deliberately broken implementations disagree with the hand-worked fixtures.

Each broken variant must give, on at least one fixture, a value other than the one fixed by
hand; otherwise the fixtures could not tell it from the real implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from metrics_broken import METRIC_CONTROLS, Broken, steps_of, task_and
from metrics_broken_context import CONTEXT_CONTROLS
from metrics_fixtures import FIXTURES, Fixture, actual, disagreements, lookup

from proctor.metrics import trace
from proctor.metrics.loops import find_loops
from proctor.models.trajectory import Event

RULE_CONTROLS: dict[str, tuple[str, Broken]] = {
    "unverified-always-silent": ("rules.unverified", lambda fx: False),
    "unverified-always-fires": ("rules.unverified", lambda fx: True),
    "unverified-any-pass-anywhere": (
        "rules.unverified",
        task_and(lambda m, fx: not any(c.outcome == "pass" for c in m.checks)),
    ),
    "long-orientation-always-silent": ("rules.long-orientation", lambda fx: False),
    "long-orientation-always-fires": ("rules.long-orientation", lambda fx: True),
    "long-orientation-off-by-one": (
        "rules.long-orientation",
        task_and(lambda m, fx: (m.orientation.reads_before_first_edit or 0) >= 20),
    ),
    "rework-always-silent": ("rules.rework", lambda fx: False),
    "rework-always-fires": ("rules.rework", lambda fx: True),
    "rework-off-by-one": ("rules.rework", task_and(lambda m, fx: m.rework >= 3)),
    "loops-always-silent": ("rules.loops", lambda fx: False),
    "loops-always-fires": ("rules.loops", lambda fx: True),
    "loops-off-by-one": (
        "rules.loops",
        task_and(lambda m, fx: len(find_loops(steps_of(fx), fx.config.loop_repeat - 1)) > 0),
    ),
    "rules-applicable-without-edits": ("rulesApplicable", lambda fx: True),
}

CONTROLS = {**RULE_CONTROLS, **METRIC_CONTROLS, **CONTEXT_CONTROLS}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_broken_variant_disagrees_with_a_fixture(name: str) -> None:
    path, broken = CONTROLS[name]
    assert disagreements(path, broken), f"{name} agrees with every fixture at {path}"


@pytest.mark.parametrize("name", list(CONTROLS))
def test_real_implementation_agrees_where_the_control_disagrees(name: str) -> None:
    path, _ = CONTROLS[name]
    assert disagreements(path, lambda fx: lookup(actual(fx), path)[1]) == []


def _outcome_unknown_is_pass(result: Event | None) -> trace.CheckOutcome:
    return "fail" if result is not None and result.is_error else "pass"


def _outcome_denied_is_fail(result: Event | None) -> trace.CheckOutcome:
    if result is None or result.is_error is None:
        return "unknown"
    return "fail" if result.is_error else "pass"


@pytest.mark.parametrize(
    ("broken_outcome", "paths"),
    [
        (_outcome_unknown_is_pass, ["verified", "rules.unverified"]),
        (_outcome_denied_is_fail, ["checks", "rework"]),
    ],
    ids=["unknown-outcome-counts-as-pass", "denied-counts-as-fail"],
)
def test_broken_outcome_disagrees(
    monkeypatch: pytest.MonkeyPatch,
    broken_outcome: Callable[[Event | None], trace.CheckOutcome],
    paths: list[str],
) -> None:
    monkeypatch.setattr(trace, "outcome", broken_outcome)
    for path in paths:

        def patched(fx: Fixture, path: str = path) -> Any:
            return lookup(actual(fx), path)[1]

        assert disagreements(path, patched), path


def test_controls_cover_every_rule_and_metric_group() -> None:
    paths = {path for path, _ in CONTROLS.values()}
    for rule in ("unverified", "long-orientation", "rework", "loops"):
        assert f"rules.{rule}" in paths
    assert {"verified", "rework", "loops", "steps.checks"} <= paths
    assert {"orientation.readsBeforeFirstEdit", "effort.cost", "context.aucCov"} <= paths
    assert FIXTURES
