"""Every hand-worked trajectory in tests/fixtures/metrics gives its hand-computed answers."""

from __future__ import annotations

import pytest
from metrics_fixtures import FIXTURES, Fixture, actual, mismatches

from proctor.metrics import RULE_NAMES

TOP_LEVEL_KEYS = {"isTask", "steps", "checks", "orientation", "verified", "rework", "loops"}


@pytest.mark.parametrize("fx", FIXTURES, ids=[fx.name for fx in FIXTURES])
def test_fixture_matches_hand_computed_answers(fx: Fixture) -> None:
    assert mismatches(fx.expected, actual(fx)) == [], fx.description


@pytest.mark.parametrize("fx", FIXTURES, ids=[fx.name for fx in FIXTURES])
def test_fixture_pins_the_core_answers(fx: Fixture) -> None:
    assert fx.description
    assert TOP_LEVEL_KEYS | {"rules", "rulesApplicable"} <= fx.expected.keys()
    assert set(fx.expected["rules"]) == set(RULE_NAMES)


def test_enough_fixtures() -> None:
    assert len(FIXTURES) >= 9


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_every_rule_fires_and_stays_silent_somewhere(rule: str) -> None:
    fired = [fx.name for fx in FIXTURES if fx.expected["rules"][rule]]
    silent = [
        fx.name
        for fx in FIXTURES
        if fx.expected["rulesApplicable"] and not fx.expected["rules"][rule]
    ]
    assert fired
    assert silent


def test_fixtures_cover_the_required_situations() -> None:
    exp = {fx.name: fx.expected for fx in FIXTURES}
    assert any(e["verified"] is True for e in exp.values())
    assert any(e["verified"] is False for e in exp.values())
    assert any(
        e["verified"] is False and e["checks"] and e["checks"][-1]["outcome"] == "unknown"
        for e in exp.values()
    )
    assert {21, 20} <= {e["orientation"]["readsBeforeFirstEdit"] for e in exp.values()}
    assert 4 in {e["rework"] for e in exp.values()}
    assert any(e["loops"] > 0 for e in exp.values())
    assert any(e["isTask"] and not any(e["rules"].values()) for e in exp.values())
    assert any(not e["isTask"] and e["steps"]["toolCalls"] > 0 for e in exp.values())
