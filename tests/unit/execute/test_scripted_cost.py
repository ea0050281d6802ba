"""A trial on the scripted model costs nothing, whatever model its responses name."""

from __future__ import annotations

from pathlib import Path

from proctor.models.pricing import price_usage
from proctor.models.trajectory import ModelUsage
from tests.unit.execute.test_executor import spec as one_spec

USAGE = {"claude-opus-4-8": ModelUsage(input_tokens=76_868, output_tokens=1_000)}


def test_the_scripted_model_prices_the_model_it_names_at_nothing() -> None:
    on_scripted = one_spec(Path("/nonexistent")).model_copy(update={"backend": "scripted"})
    cost = price_usage(USAGE, on_scripted.agent_pricing)
    assert cost.total_usd == 0.0 and cost.by_model == {"claude-opus-4-8": 0.0}
    assert cost.unpriced == []


def test_a_provider_prices_the_same_responses_at_the_list_price() -> None:
    on_provider = one_spec(Path("/nonexistent")).model_copy(update={"backend": "provider"})
    assert on_provider.agent_pricing is on_provider.pricing
    cost = price_usage(USAGE, on_provider.agent_pricing)
    assert cost.total_usd is not None and cost.total_usd > 0.3
