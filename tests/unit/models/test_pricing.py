"""The one pricing rule: known prices by ``provider/model`` or bare name, the scripted model
free, an unpriced model unknown (never 0), and any sum with an unknown in it unknown."""

from __future__ import annotations

from proctor.models.config import ModelPrice
from proctor.models.pricing import CostInfo, PriceTable, merge_costs, price_usage, total
from proctor.models.trajectory import ModelUsage

PRICE = ModelPrice(input_per1_m=3.0, output_per1_m=15.0, cache_read_per1_m=0.3)
TABLE = PriceTable(prices={"anthropic/claude-x": PRICE})


def test_a_priced_model_costs_its_tokens() -> None:
    usage = {
        "claude-x": ModelUsage(
            input_tokens=1_000_000, output_tokens=500_000, cache_read_tokens=2_000_000
        )
    }
    cost = price_usage(usage, TABLE)
    assert cost.by_model == {"claude-x": 3.0 + 7.5 + 0.6} and cost.total_usd == 11.1
    assert price_usage({"anthropic/claude-x": usage["claude-x"]}, TABLE).total_usd == 11.1


def test_control_an_unpriced_model_makes_the_total_unknown() -> None:
    usage = {"claude-x": ModelUsage(output_tokens=1_000_000), "other": ModelUsage(input_tokens=1)}
    cost = price_usage(usage, TABLE)
    assert cost.by_model == {"claude-x": 15.0, "other": None}
    assert cost.total_usd is None and cost.unpriced == ["other"]


def test_the_scripted_model_is_free_and_no_usage_costs_nothing() -> None:
    assert price_usage({"scripted": ModelUsage(input_tokens=9)}, PriceTable()).total_usd == 0.0
    assert (
        price_usage({"judge:scripted/judge": ModelUsage(input_tokens=9)}, PriceTable()).total_usd
        == 0.0
    )
    assert price_usage({}, PriceTable()).total_usd == 0.0


def test_a_role_key_is_priced_by_its_model() -> None:
    usage = {"judge:anthropic/claude-x": ModelUsage(output_tokens=1_000_000)}
    assert price_usage(usage, TABLE).total_usd == 15.0


def test_sums_with_an_unknown_are_unknown() -> None:
    assert total([1.0, 2.0]) == 3.0 and total([]) == 0.0 and total([1.0, None]) is None
    known = CostInfo(total_usd=1.0, by_model={"m": 1.0})
    unknown = CostInfo(total_usd=None, by_model={"x": None}, unpriced=["x"])
    assert merge_costs([known, known]) == (2.0, [])
    assert merge_costs([known, unknown]) == (None, ["x"])
