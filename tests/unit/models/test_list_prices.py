"""The list prices proctor ships: a model the configuration does not price takes its maker's
list price, by its own id or a provider's form of it; a model with none stays unpriced; a
configured price wins; cache writes kept for an hour cost their own price."""

from __future__ import annotations

import pytest

from proctor.models.config import ModelPrice
from proctor.models.list_prices import LIST_PRICES, list_name
from proctor.models.pricing import PriceTable, dollars, price_usage
from proctor.models.trajectory import ModelUsage

MILLION = 1_000_000


def _each(model: str, table: PriceTable | None = None) -> tuple[float | None, ...]:
    """The dollars of a million tokens of each kind: input, output, cache read, cache write
    for five minutes, cache write for an hour."""
    table = table or PriceTable()
    kinds = (
        ModelUsage(input_tokens=MILLION),
        ModelUsage(output_tokens=MILLION),
        ModelUsage(cache_read_tokens=MILLION),
        ModelUsage(cache_write_tokens=MILLION),
        ModelUsage(cache_write_tokens=MILLION, cache_write_1h_tokens=MILLION),
    )
    return tuple(price_usage({model: used}, table).total_usd for used in kinds)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # Anthropic's page: input, output, cache read (0.1x), 5-minute write (1.25x), 1-hour
        # write (2x).
        ("claude-opus-4-8", (5, 25, 0.5, 6.25, 10)),
        ("claude-opus-4-5-20251101", (5, 25, 0.5, 6.25, 10)),
        ("claude-opus-4-1-20250805", (15, 75, 1.5, 18.75, 30)),
        ("claude-sonnet-4-6", (3, 15, 0.3, 3.75, 6)),
        ("claude-sonnet-4-5-20250929", (3, 15, 0.3, 3.75, 6)),
        ("claude-haiku-4-5-20251001", (1, 5, 0.1, 1.25, 2)),
        ("claude-3-5-haiku-20241022", (0.8, 4, 0.08, 1, 1.6)),
        ("claude-3-haiku-20240307", (0.25, 1.25, 0.03, 0.3, 0.5)),
        ("claude-sonnet-5", (2, 10, 0.2, 2.5, 4)),
        # OpenAI's: cached input at its price, a cache write priced as input (to GPT-5.5),
        # 1.25x from GPT-5.6.
        ("gpt-5-codex", (1.25, 10, 0.125, 1.25, 1.25)),
        ("gpt-5.1-codex-mini", (0.25, 2, 0.025, 0.25, 0.25)),
        ("gpt-5.3-codex", (1.75, 14, 0.175, 1.75, 1.75)),
        ("gpt-5.5", (5, 30, 0.5, 5, 5)),
        ("gpt-5.6-terra", (2, 12, 0.2, 2.5, 2.5)),
        # Google's: cached tokens at the context caching price.
        ("gemini-2.5-pro", (1.25, 10, 0.125, 1.25, 1.25)),
        ("gemini-2.5-flash", (0.3, 2.5, 0.03, 0.3, 0.3)),
        ("gemini-3-pro-preview", (2, 12, 0.2, 2, 2)),
    ],
)
def test_a_model_takes_its_makers_list_price(model: str, expected: tuple[float, ...]) -> None:
    assert _each(model) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("written", "listed"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic/claude-opus-4-8", "claude-opus-4-8"),
        ("judge:anthropic/claude-haiku-4-5", "claude-haiku-4-5"),
        ("claude-opus-4-5@20251101", "claude-opus-4-5"),  # Vertex AI
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),  # Bedrock
        ("global.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5"),
        ("openrouter/anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("claude-opus-4-6[1m]", "claude-opus-4-6"),
        ("gpt-5-2025-08-07", "gpt-5"),
        ("openai/gpt-5.1-codex", "gpt-5.1-codex"),
        ("models/gemini-2.5-flash", "gemini-2.5-flash"),
        ("Claude-Sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ],
)
def test_a_providers_form_of_an_id_finds_the_list_price(written: str, listed: str) -> None:
    assert list_name(written) == listed and listed in LIST_PRICES
    assert _each(written) == _each(listed)


@pytest.mark.parametrize(
    "model",
    [
        "claude-sonnet-4-7",  # a version the list does not have is never priced as another
        "claude-opus-4-9",
        "claude-sonnet-4-5-preview",
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",  # Bedrock's regional rate is its own
        "gemini-2.5-pro-preview-06-05",
        "gpt-5.6-sol",  # an offer's price that was about to end
        "gpt-oss:20b",
        "my-model",
    ],
)
def test_control_a_model_without_a_list_price_stays_unpriced(model: str) -> None:
    cost = price_usage({model: ModelUsage(input_tokens=MILLION)}, PriceTable())
    assert cost.total_usd is None and cost.unpriced == [model]


def test_a_configured_price_wins_over_the_list_for_the_rates_it_gives() -> None:
    mine = ModelPrice.model_validate({"inputPer1M": 1.0, "outputPer1M": 2.0})
    for key in ("claude-opus-4-8", "anthropic/claude-opus-4-8"):
        table = PriceTable(prices={key: mine})
        # The rates it leaves out are the list's (cache reads and writes here), not free.
        assert _each("claude-opus-4-8", table) == (1.0, 2.0, 0.5, 6.25, 10.0)
    every = ModelPrice.model_validate(
        {"inputPer1M": 1, "outputPer1M": 2, "cacheReadPer1M": 0, "cacheWritePer1M": 0}
    )
    table = PriceTable(prices={"claude-opus-4-8": every})
    assert _each("claude-opus-4-8", table) == (1.0, 2.0, 0.0, 0.0, 0.0)  # 0 as given
    # A model the configuration does not name keeps its list price beside it.
    table = PriceTable(prices={"anthropic/claude-opus-4-8": mine})
    assert _each("claude-haiku-4-5", table) == _each("claude-haiku-4-5")
    # A model with no list price: the rates it leaves out cost nothing, as before.
    assert _each("my-model", PriceTable(prices={"my-model": mine})) == (1.0, 2.0, 0, 0, 0)


@pytest.mark.parametrize(
    "written",
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5[1m]", "anthropic/claude-sonnet-4-5"],
)
def test_a_configured_key_finds_the_ids_the_list_would(written: str) -> None:
    table = PriceTable(prices={"claude-sonnet-4-5": ModelPrice.model_validate({"inputPer1M": 1})})
    assert _each(written, table)[0] == 1.0  # not the list's $3
    # Control: another model's key is never taken for it.
    other = PriceTable(prices={"claude-sonnet-4": ModelPrice.model_validate({"inputPer1M": 1})})
    assert _each(written, other)[0] == 3.0


def test_cache_writes_for_an_hour_cost_their_own_price() -> None:
    opus = PriceTable().price_of("claude-opus-4-8")
    assert opus is not None
    used = ModelUsage(cache_write_tokens=3 * MILLION, cache_write_1h_tokens=MILLION)
    assert dollars(used, opus) == pytest.approx(2 * 6.25 + 10)
    # A count of an hour's writes larger than the writes (a damaged line) is the writes.
    broken = ModelUsage(cache_write_tokens=MILLION, cache_write_1h_tokens=5 * MILLION)
    assert dollars(broken, opus) == pytest.approx(10)


def test_control_a_price_without_an_hours_rate_prices_every_write_alike() -> None:
    flat = ModelPrice(cache_write_per1_m=4.0)
    used = ModelUsage(cache_write_tokens=2 * MILLION, cache_write_1h_tokens=MILLION)
    assert dollars(used, flat) == 8.0
    hourly = ModelPrice(cache_write_per1_m=4.0, cache_write1h_per1_m=6.0)
    assert dollars(used, hourly) == 10.0


def test_the_hours_rate_is_read_from_the_configuration() -> None:
    price = ModelPrice.model_validate({"cacheWritePer1M": 3.75, "cacheWrite1hPer1M": 6})
    assert price.cache_write1h_per1_m == 6.0
    with pytest.raises(ValueError, match="cacheWrite1hPer1M"):
        ModelPrice.model_validate({"cacheWrite1hPer1M": -1})
