"""A Claude response whose inference ran in the US only (``usage.inference_geo`` is ``"us"``)
costs 1.1 times its model's rates, every kind of token, on top of fast mode (Anthropic's data
residency pricing): every reader of Claude Code's sessions counts its tokens for the model with
``-us`` after its name, and such a name without a price of its own costs its model's price
1.1 times over, whether the list's or a configured one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.models.list_prices import LIST_PRICES, list_name
from proctor.models.pricing import PriceTable, price_usage
from proctor.models.trajectory import ModelUsage
from tests.unit.transcripts.usage_session import (
    measured,
    read_alike,
    response_dollars,
    session_file,
    usage_line,
)


def _line(number: int, model: str, geo: Any, speed: Any = None) -> str:
    return usage_line(number, model, inference_geo=geo, speed=speed)


SESSION = [
    ("claude-opus-4-8", "us", None),
    ("claude-opus-4-8", "global", None),
    ("claude-opus-4-8", None, None),  # an older release: no inference_geo
    ("claude-opus-4-8", "us", None),
    ("claude-opus-4-8", "us", "fast"),
    ("claude-sonnet-4-6", "us", None),
    ("claude-opus-9", "us", None),  # no list price: nor has its US-only form
    ("claude-opus-4-8", "US", None),  # not the value the API writes: its model's rates
    ("claude-opus-4-8", "", None),
]


def _session(tmp_path: Path, lines: list[str] | None = None) -> Path:
    return session_file(tmp_path, lines or [_line(i, *row) for i, row in enumerate(SESSION)])


_summary = measured
_response = response_dollars


def test_every_reader_counts_a_us_only_response_for_the_us_only_model(tmp_path: Path) -> None:
    full = read_alike(_session(tmp_path))
    assert sorted(full) == [
        "claude-opus-4-8",
        "claude-opus-4-8-fast-us",
        "claude-opus-4-8-us",
        "claude-opus-9-us",
        "claude-sonnet-4-6-us",
    ]
    assert full["claude-opus-4-8-us"].responses == 2
    assert full["claude-opus-4-8"].responses == 4


def test_us_only_rates_are_its_models_times_one_point_one(tmp_path: Path) -> None:
    summary = _summary(_session(tmp_path))
    by_model = summary["costByModel"]
    assert by_model["claude-opus-4-8-us"] == pytest.approx(2 * _response(5, 25, 1.1), abs=1e-6)
    assert by_model["claude-opus-4-8-fast-us"] == pytest.approx(_response(10, 50, 1.1), abs=1e-6)
    assert by_model["claude-sonnet-4-6-us"] == pytest.approx(_response(3, 15, 1.1), abs=1e-6)
    assert by_model["claude-opus-4-8"] == pytest.approx(4 * _response(5, 25), abs=1e-6)
    assert by_model["claude-opus-9-us"] is None
    assert summary["unpricedModels"] == ["claude-opus-9-us"]


def test_control_the_same_session_served_anywhere_costs_a_tenth_less(tmp_path: Path) -> None:
    us = _summary(_session(tmp_path, [_line(i, "claude-opus-4-8", "us") for i in range(3)]))
    (tmp_path / "global").mkdir()
    anywhere = [_line(i, "claude-opus-4-8", "global") for i in range(3)]
    other = _summary(_session(tmp_path / "global", anywhere))
    assert list(other["usage"]) == ["claude-opus-4-8"]
    assert us["usage"]["claude-opus-4-8-us"] == other["usage"]["claude-opus-4-8"]
    assert us["costUsd"] == pytest.approx(1.1 * other["costUsd"], abs=1e-6)
    assert us["costUsd"] != pytest.approx(other["costUsd"])


def test_a_long_prompts_rates_are_multiplied_too() -> None:
    prices = {
        "claude-opus-4-8": {
            "inputPer1M": 2,
            "outputPer1M": 10,
            "longContext": {"overPromptTokens": 1000, "inputPer1M": 4, "outputPer1M": 20},
        }
    }
    table = PriceTable.model_validate({"prices": prices})
    price = table.price_of("claude-opus-4-8-us")
    assert price is not None and price.long_context is not None
    assert (price.input_per1_m, price.output_per1_m) == (2.2, 11.0)
    assert (price.long_context.input_per1_m, price.long_context.output_per1_m) == (4.4, 22.0)
    assert price.long_context.over_prompt_tokens == 1000
    assert price.long_context.cache_read_per1_m is None  # left to the model's own, as given


def test_a_configured_price_reaches_the_us_only_form_and_one_of_its_own_lies_over_it(
    tmp_path: Path,
) -> None:
    path = _session(tmp_path)
    prices = {
        "claude-opus-4-8": {"inputPer1M": 1, "outputPer1M": 1},
        "claude-sonnet-4-6-us": {"inputPer1M": 8, "outputPer1M": 40},
        "claude-opus-9": {"inputPer1M": 2, "outputPer1M": 3},
    }
    summary = _summary(path, PriceTable.model_validate({"prices": prices}))
    by_model = summary["costByModel"]
    # The configured rates over the list's, then 1.1 times over.
    configured = (1000 * 1 + 200 * 1 + 3000 * 0.5 + 100 * 6.25 + 300 * 10) / 1e6
    assert by_model["claude-opus-4-8"] == pytest.approx(4 * configured)
    assert by_model["claude-opus-4-8-us"] == pytest.approx(2 * 1.1 * configured)
    # A price configured for the US-only form gives its rates; the others are its model's
    # list rates 1.1 times over (cache reads $0.30, writes $3.75 and for an hour $6).
    own = 1000 * 8 + 200 * 40 + 1.1 * (3000 * 0.3 + 100 * 3.75 + 300 * 6)
    assert by_model["claude-sonnet-4-6-us"] == pytest.approx(own / 1e6, abs=1e-6)
    # A model off the list, priced by the configuration: its US-only form too.
    assert by_model["claude-opus-9-us"] == pytest.approx(1.1 * (1000 * 2 + 200 * 3) / 1e6)
    assert summary["unpricedModels"] == []


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("claude-opus-4-8-us", "claude-opus-4-8-us"),
        ("claude-opus-4-8-20260101-us", "claude-opus-4-8-us"),
        ("claude-opus-4-8[1m]-us", "claude-opus-4-8-us"),
        ("claude-opus-4-8[1m]-fast-us", "claude-opus-4-8-fast-us"),
        ("anthropic/claude-opus-4.8-fast-us", "claude-opus-4-8-fast-us"),
        ("claude-opus-4-8", "claude-opus-4-8"),
    ],
)
def test_the_list_name_keeps_the_us_only_mark(model: str, name: str) -> None:
    assert list_name(model) == name
    assert name.removesuffix("-us") in LIST_PRICES


def test_a_us_suffix_on_another_makers_id_is_no_claude_inference_geo() -> None:
    assert list_name("gpt-5-2025-08-07-us") == "gpt-5-2025-08-07-us"
    assert PriceTable().price_of("gpt-5-us") is None


def test_a_trials_usage_prices_the_us_only_model_apart() -> None:
    usage = {
        "claude-opus-4-8": ModelUsage(input_tokens=1_000_000),
        "claude-opus-4-8-us": ModelUsage(input_tokens=1_000_000),
        "claude-opus-4-8-fast-us": ModelUsage(input_tokens=1_000_000),
    }
    cost = price_usage(usage, PriceTable())
    assert cost.by_model == {
        "claude-opus-4-8": 5,
        "claude-opus-4-8-us": pytest.approx(5.5),
        "claude-opus-4-8-fast-us": pytest.approx(11),
    }
    assert cost.total_usd == pytest.approx(21.5)


def test_the_usage_check_counts_a_us_only_response_as_the_cli_reports_it() -> None:
    from proctor.execute.collect import usage_check

    parsed = {
        "claude-opus-4-8": ModelUsage(input_tokens=10, output_tokens=2, responses=1),
        "claude-opus-4-8-us": ModelUsage(input_tokens=30, output_tokens=4, responses=1),
        "claude-opus-4-8-fast-us": ModelUsage(input_tokens=5, output_tokens=1, responses=1),
    }
    # Claude Code's modelUsage names the model itself: all three count there.
    reported = {"claude-opus-4-8": {"inputTokens": 45, "outputTokens": 7}}
    assert usage_check(parsed, reported).ok
    # A report that names the fast mode apart takes the fast US-only responses.
    fast = {
        "claude-opus-4-8": {"inputTokens": 40, "outputTokens": 6},
        "claude-opus-4-8-fast": {"inputTokens": 5, "outputTokens": 1},
    }
    assert usage_check(parsed, fast).ok
    # Control: a report short of the US-only responses' tokens still differs.
    short = {"claude-opus-4-8": {"inputTokens": 15, "outputTokens": 3}}
    check = usage_check(parsed, short)
    assert not check.ok
    assert check.differences == {"claude-opus-4-8": {"inputTokens": -30, "outputTokens": -4}}


@pytest.mark.parametrize(
    ("model", "rate"),
    [
        ("claude-opus-4-6", 1.1),
        ("claude-sonnet-4-6", 1.1),
        ("claude-opus-5", 1.1),
        ("claude-opus-4-8-fast", 1.1),
        ("claude-haiku-4-5", 1.0),  # before Claude 4.6: the parameter is refused, and
        ("claude-opus-4-1", 1.0),  # such a model "always uses standard pricing"
        ("claude-sonnet-4-20250514", 1.0),
        ("claude-3-5-haiku", 1.0),
    ],
)
def test_only_claude_4_6_and_later_cost_more_in_the_us(model: str, rate: float) -> None:
    table = PriceTable()
    base, us = table.price_of(model), table.price_of(model + "-us")
    assert base is not None and us is not None
    assert us.input_per1_m == pytest.approx(rate * base.input_per1_m)
    assert us.output_per1_m == pytest.approx(rate * base.output_per1_m)
    assert us.cache_read_per1_m == pytest.approx(rate * base.cache_read_per1_m)


def test_odd_names_are_no_us_only_model_or_none_priced_twice() -> None:
    table = PriceTable()
    base = table.price_of("claude-opus-4-8")
    assert base is not None
    upper = table.price_of("claude-opus-4-8-US")  # as the list reads names: lower case
    assert upper is not None and upper.input_per1_m == pytest.approx(5.5)
    assert table.price_of("claude-opus-4-8-us-us") is None  # not 1.21 times over
    proxy = PriceTable.model_validate({"prices": {"my-claude-proxy": {"inputPer1M": 2}}})
    assert proxy.price_of("my-claude-proxy-us") is None  # not a Claude id


def test_the_usage_check_folds_claude_names_only() -> None:
    from proctor.execute.collect import usage_check

    parsed = {"gemini-x-us": ModelUsage(input_tokens=5, responses=1)}
    assert not usage_check(parsed, {"gemini-x": {"inputTokens": 5}}).ok
