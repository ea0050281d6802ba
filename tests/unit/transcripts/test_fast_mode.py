"""A Claude response served in Anthropic's fast mode (``usage.speed`` is ``"fast"``) costs that
mode's rates: every reader of Claude Code's sessions counts its tokens for the model with
``-fast`` after its name (as ccusage names it), and the list prices that model at the mode's
rates, the cache multiples on top."""

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


def _line(number: int, model: str, speed: Any, prompt: int = 1000) -> str:
    return usage_line(number, model, prompt, speed=speed)


SESSION = [
    ("claude-opus-4-8", "fast"),
    ("claude-opus-4-8", "standard"),
    ("claude-opus-4-8", None),  # an older release: no speed
    ("claude-opus-4-8", "fast"),
    ("claude-opus-4-8[1m]", "fast"),
    ("claude-opus-5", "fast"),
    ("claude-opus-4-6", "fast"),
    ("claude-opus-5-5", "fast"),  # its fast mode has no list price
    ("claude-opus-4-8", 1),  # not a speed: the standard rates
]


def _session(tmp_path: Path, lines: list[str] | None = None) -> Path:
    body = lines or [_line(i, model, speed) for i, (model, speed) in enumerate(SESSION)]
    return session_file(tmp_path, body)


_summary = measured


def test_every_reader_counts_a_fast_response_for_the_fast_model(tmp_path: Path) -> None:
    full = read_alike(_session(tmp_path))
    assert sorted(full) == [
        "claude-opus-4-6-fast",
        "claude-opus-4-8",
        "claude-opus-4-8-fast",
        "claude-opus-4-8[1m]-fast",
        "claude-opus-5-5-fast",
        "claude-opus-5-fast",
    ]
    assert full["claude-opus-4-8-fast"].responses == 2
    assert full["claude-opus-4-8"].responses == 3


def test_fast_rates_with_the_cache_multiples_on_top(tmp_path: Path) -> None:
    summary = _summary(_session(tmp_path))
    response = response_dollars

    by_model = summary["costByModel"]
    assert by_model["claude-opus-4-8-fast"] == pytest.approx(2 * response(10, 50))
    assert by_model["claude-opus-4-8[1m]-fast"] == pytest.approx(response(10, 50))
    assert by_model["claude-opus-5-fast"] == pytest.approx(response(10, 50))
    assert by_model["claude-opus-4-6-fast"] == pytest.approx(response(30, 150))
    assert by_model["claude-opus-4-8"] == pytest.approx(3 * response(5, 25))
    assert by_model["claude-opus-5-5-fast"] is None
    assert summary["unpricedModels"] == ["claude-opus-5-5-fast"]


def test_control_without_the_speed_every_response_costs_the_standard_rates(
    tmp_path: Path,
) -> None:
    lines = [_line(i, "claude-opus-4-8", None) for i in range(2)]
    fast = [_line(i, "claude-opus-4-8", "fast") for i in range(2)]
    standard = _summary(_session(tmp_path, lines))
    (tmp_path / "fast").mkdir()
    quick = _summary(_session(tmp_path / "fast", fast))
    assert list(standard["usage"]) == ["claude-opus-4-8"]
    assert quick["costUsd"] == pytest.approx(2 * standard["costUsd"])


def test_opus_4_6_fast_over_200k_tokens_costs_its_long_rates(tmp_path: Path) -> None:
    # Prompt: input + cache reads + cache writes; over 200,000 tokens, strictly.
    over = 200_000 - 3000 - 400 + 1
    lines = [_line(0, "claude-opus-4-6", "fast", over), _line(1, "claude-opus-4-6", "fast", 1000)]
    summary = _summary(_session(tmp_path, lines))
    long = (over * 60 + 200 * 225 + 3000 * 6 + 100 * 75 + 300 * 120) / 1e6
    short = (1000 * 30 + 200 * 150 + 3000 * 3 + 100 * 37.5 + 300 * 60) / 1e6
    assert summary["costByModel"]["claude-opus-4-6-fast"] == pytest.approx(long + short)


def test_a_configured_fast_price_wins_and_the_standard_one_stays_apart(tmp_path: Path) -> None:
    path = _session(tmp_path)
    prices = {
        "claude-opus-4-8": {"inputPer1M": 1, "outputPer1M": 1},
        "claude-opus-5-5-fast": {"inputPer1M": 8, "outputPer1M": 40},
    }
    summary = _summary(path, PriceTable.model_validate({"prices": prices}))
    by_model = summary["costByModel"]
    assert by_model["claude-opus-4-8"] == pytest.approx(
        3 * (1000 * 1 + 200 * 1 + 3000 * 0.5 + 100 * 6.25 + 300 * 10) / 1e6
    )
    # The configured standard price leaves the fast model at its list price.
    assert by_model["claude-opus-4-8-fast"] == pytest.approx(
        2 * (1000 * 10 + 200 * 50 + 3000 * 1 + 100 * 12.5 + 300 * 20) / 1e6
    )
    # A fast model without a list price takes the price configured for it (what it leaves
    # out costs nothing, as for any model off the list).
    assert by_model["claude-opus-5-5-fast"] == pytest.approx((1000 * 8 + 200 * 40) / 1e6)
    assert summary["unpricedModels"] == []


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("claude-opus-4-8-fast", "claude-opus-4-8-fast"),
        ("claude-opus-4-8-20260101-fast", "claude-opus-4-8-fast"),
        ("claude-opus-4-8[1m]-fast", "claude-opus-4-8-fast"),
        ("claude-opus-4-8-20260101-fast[1m]", "claude-opus-4-8-fast"),
        ("anthropic.claude-opus-4-8-v1:0-fast", "claude-opus-4-8-fast"),
        ("anthropic/claude-opus-4.8-fast", "claude-opus-4-8-fast"),
        ("claude-opus-4-8", "claude-opus-4-8"),
    ],
)
def test_the_list_finds_a_fast_model_by_its_forms(model: str, name: str) -> None:
    assert list_name(model) == name
    assert name in LIST_PRICES


def test_a_trials_usage_prices_the_fast_model_apart() -> None:
    usage = {
        "claude-opus-4-8": ModelUsage(input_tokens=1_000_000),
        "claude-opus-4-8-fast": ModelUsage(input_tokens=1_000_000),
    }
    cost = price_usage(usage, PriceTable())
    assert cost.total_usd == pytest.approx(5 + 10)
    assert cost.by_model == {"claude-opus-4-8": 5, "claude-opus-4-8-fast": 10}


def test_the_usage_check_counts_a_fast_mode_as_the_cli_reports_it() -> None:
    from proctor.execute.collect import usage_check

    parsed = {
        "claude-opus-4-8": ModelUsage(input_tokens=10, output_tokens=2, responses=1),
        "claude-opus-4-8-fast": ModelUsage(input_tokens=30, output_tokens=4, responses=1),
    }
    # Claude Code's modelUsage names the model itself: the fast responses count there.
    reported = {"claude-opus-4-8": {"inputTokens": 40, "outputTokens": 6}}
    assert usage_check(parsed, reported).ok
    # A report that names the fast mode apart is compared name for name.
    apart = {
        "claude-opus-4-8": {"inputTokens": 10, "outputTokens": 2},
        "claude-opus-4-8-fast": {"inputTokens": 30, "outputTokens": 4},
    }
    assert usage_check(parsed, apart).ok
    # Control: a report short of the fast responses' tokens still differs.
    short = {"claude-opus-4-8": {"inputTokens": 10, "outputTokens": 2}}
    check = usage_check(parsed, short)
    assert not check.ok
    assert check.differences == {"claude-opus-4-8": {"inputTokens": -30, "outputTokens": -4}}


def test_a_fast_suffix_on_another_makers_id_is_not_a_claude_fast_mode() -> None:
    # (OpenAI's fast mode is not in its ids: such a name keeps its date, and has no price.)
    assert list_name("gpt-5-2025-08-07-fast") == "gpt-5-2025-08-07-fast"
    assert PriceTable().price_of("gpt-5-2025-08-07-fast") is None


def test_of_two_lines_of_a_response_alike_but_for_its_speed_the_one_with_it_counts(
    tmp_path: Path,
) -> None:
    """ccusage's rule: the response is then named as its speed says (its model's -fast)."""
    import json

    first = json.loads(_line(0, "claude-opus-4-8", None))
    second = json.loads(_line(0, "claude-opus-4-8", "fast"))
    second["uuid"] = "a0-again"
    lines = [json.dumps(first), json.dumps(second)]
    assert list(read_alike(_session(tmp_path, lines))) == ["claude-opus-4-8-fast"]
    # The control: the other way round, the line with the speed came first and stays.
    (tmp_path / "s-1.jsonl").unlink()
    assert list(read_alike(_session(tmp_path, lines[::-1]))) == ["claude-opus-4-8-fast"]
    # A larger total still wins over a speed.
    bigger = json.loads(_line(0, "claude-opus-4-8", None, prompt=5000))
    bigger["uuid"] = "a0-bigger"
    (tmp_path / "s-1.jsonl").unlink()
    three = [json.dumps(second), json.dumps(bigger)]
    assert list(read_alike(_session(tmp_path, three))) == ["claude-opus-4-8"]
