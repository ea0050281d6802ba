"""A long prompt's response costs its model's long-context rates, all its tokens: in a trial
(priced from its usage events) and in a history (each session from its responses, each group
as the sum of its sessions); a response at the threshold, a model without such rates, and
usage priced without its responses keep the base rates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.history.layout import Session
from proctor.history.replay import measure_session
from proctor.history.summary import summarise
from proctor.metrics.effort import effort
from proctor.models.config import ModelPrice
from proctor.models.pricing import LongContextPrice, PriceTable, long_prompts, price_usage
from proctor.models.trajectory import ModelUsage, ResponseTokens, Usage

M = 1_000_000


def _usage(rows: list[ResponseTokens]) -> dict[str, ModelUsage]:
    out: dict[str, ModelUsage] = {}
    for model, inp, out_, read, write, hour in rows:
        used = out.setdefault(model, ModelUsage())
        used.add(
            ModelUsage(
                input_tokens=inp,
                output_tokens=out_,
                cache_read_tokens=read,
                cache_write_tokens=write,
                cache_write_1h_tokens=hour,
                responses=1,
            )
        )
    return out


def test_a_long_prompts_response_costs_the_long_rates_for_all_its_tokens() -> None:
    # Gemini 2.5 Pro: $1.25 in, $10 out, $0.125 cached; over 200,000 prompt tokens $2.50,
    # $15, $0.25.
    rows: list[ResponseTokens] = [
        ("gemini-2.5-pro", 150_000, 1_000, 60_000, 0, 0),  # prompt 210,000: long
        ("gemini-2.5-pro", 100_000, 2_000, 100_000, 0, 0),  # prompt 200,000: not over it
    ]
    cost = price_usage(_usage(rows), PriceTable(), rows)
    long = (150_000 * 2.5 + 1_000 * 15 + 60_000 * 0.25) / M
    base = (100_000 * 1.25 + 2_000 * 10 + 100_000 * 0.125) / M
    assert cost.by_model["gemini-2.5-pro"] == pytest.approx(round(long + base, 6))
    assert long_prompts(rows, ["gemini-2.5-pro"], PriceTable())["gemini-2.5-pro"].responses == 1


def test_control_without_the_responses_every_token_costs_the_base_rates() -> None:
    rows: list[ResponseTokens] = [("gemini-2.5-pro", 150_000, 1_000, 60_000, 0, 0)]
    base = (150_000 * 1.25 + 1_000 * 10 + 60_000 * 0.125) / M
    assert price_usage(_usage(rows), PriceTable()).total_usd == pytest.approx(base)
    assert price_usage(_usage(rows), PriceTable(), rows).total_usd != pytest.approx(base)


def test_the_prompt_counts_cache_reads_and_writes_and_the_hours_writes_keep_their_rate() -> None:
    # Claude Sonnet 4.5 over 200,000: $6 in, $22.50 out, $0.60 read, $7.50 and $12 written.
    rows: list[ResponseTokens] = [("claude-sonnet-4-5", 10, 500, 150_000, 60_000, 20_000)]
    cost = price_usage(_usage(rows), PriceTable(), rows)
    expected = (10 * 6 + 500 * 22.5 + 150_000 * 0.6 + 40_000 * 7.5 + 20_000 * 12) / M
    assert cost.total_usd == pytest.approx(round(expected, 6))


def test_a_model_without_long_rates_never_looks_at_its_responses() -> None:
    class Untouchable:
        def __iter__(self) -> Any:
            raise AssertionError("the responses were read")

    usage = {"claude-opus-4-8": ModelUsage(input_tokens=900_000)}
    assert price_usage(usage, PriceTable(), Untouchable()).total_usd == 4.5  # type: ignore[arg-type]


def test_a_configured_price_may_have_long_rates_of_its_own() -> None:
    price = ModelPrice.model_validate(
        {
            "inputPer1M": 1,
            "outputPer1M": 10,
            "cacheReadPer1M": 0.1,
            "longContext": {"overPromptTokens": 1000, "inputPer1M": 3},
        }
    )
    assert price.long_context == LongContextPrice(over_prompt_tokens=1000, input_per1_m=3)
    table = PriceTable(prices={"mine": price})
    rows: list[ResponseTokens] = [("mine", 2000, M, M, 0, 0), ("mine", 500, 0, 0, 0, 0)]
    # A long rate not given is the model's own: the long response's output and reads cost
    # $10 and $0.10 per million, not nothing.
    expected = (2000 * 3 + M * 10 + M * 0.1 + 500) / M
    assert price_usage(_usage(rows), table, rows).total_usd == pytest.approx(expected)
    with pytest.raises(ValueError, match="overPromptTokens"):
        ModelPrice.model_validate({"longContext": {"inputPer1M": 3}})


def test_a_configured_price_keeps_the_lists_long_rates_unless_it_gives_its_own() -> None:
    # Gemini 2.5 Pro's own base rates, written in proctor.json without its long rates.
    mine = ModelPrice.model_validate({"inputPer1M": 1.25, "outputPer1M": 10})
    rows: list[ResponseTokens] = [("gemini-2.5-pro", 300_000, 0, 0, 0, 0)]
    listed = price_usage(_usage(rows), PriceTable(), rows).total_usd
    configured = price_usage(_usage(rows), PriceTable(prices={"gemini-2.5-pro": mine}), rows)
    assert listed == configured.total_usd == 0.75
    flat = ModelPrice.model_validate({"inputPer1M": 1.25, "longContext": None})
    configured = price_usage(_usage(rows), PriceTable(prices={"gemini-2.5-pro": flat}), rows)
    assert configured.total_usd == 0.375  # none given: none


def test_a_long_write_for_an_hour_without_its_rate_costs_the_long_writes() -> None:
    price = ModelPrice.model_validate(
        {
            "cacheWritePer1M": 3.75,
            "cacheWrite1hPer1M": 6,
            "longContext": {"overPromptTokens": 10, "cacheWritePer1M": 7.5},
        }
    )
    rows: list[ResponseTokens] = [("mine", 0, 0, 0, M, M)]
    table = PriceTable(prices={"mine": price})
    assert price_usage(_usage(rows), table, rows).total_usd == 7.5  # (not the base's $6)


def test_a_harness_roles_long_prompt_costs_the_long_rates() -> None:
    key = "judge:google/gemini-2.5-pro"
    rows: list[ResponseTokens] = [(key, 300_000, 0, 0, 0, 0)]
    assert price_usage(_usage(rows), PriceTable(), rows).total_usd == 0.75


def test_control_a_long_part_larger_than_the_whole_never_costs_less_than_it() -> None:
    usage = {"gemini-2.5-pro": ModelUsage(input_tokens=100_000)}
    rows: list[ResponseTokens] = [("gemini-2.5-pro", 300_000, 0, 0, 0, 0)]
    assert price_usage(usage, PriceTable(), rows).total_usd == 0.75  # (not 0.5)


def test_a_trials_effort_prices_its_usage_events_long_prompts() -> None:
    events = [
        Usage(model="gpt-5.4", input_tokens=300_000, output_tokens=1_000),  # over 272,000
        Usage(model="gpt-5.4", input_tokens=100_000, output_tokens=1_000),
    ]
    expected = (300_000 * 5 + 1_000 * 22.5 + 100_000 * 2.5 + 1_000 * 15) / M
    assert effort(events, 0).cost == pytest.approx(round(expected, 6))


def _gemini_chat(path: Path, prompts: list[int]) -> Path:
    messages = [
        {"id": "u0", "timestamp": "2026-11-02T10:00:00Z", "type": "user", "content": "go"}
    ] + [
        {
            "id": f"g{i}",
            "timestamp": f"2026-11-02T10:00:0{i + 1}Z",
            "type": "gemini",
            "content": "ok",
            "model": "gemini-2.5-pro",
            "tokens": {"input": prompt, "output": 100, "cached": 0, "thoughts": 0, "tool": 0},
        }
        for i, prompt in enumerate(prompts)
    ]
    chat = {
        "sessionId": path.stem,
        "projectHash": "0" * 64,
        "startTime": "2026-11-02T10:00:00Z",
        "lastUpdated": "2026-11-02T10:00:09Z",
        "messages": messages,
    }
    path.write_text(json.dumps(chat))
    return path


def test_a_history_prices_each_sessions_long_prompts_and_sums_them_per_group(
    tmp_path: Path,
) -> None:
    from proctor.history.record import record_of

    records = []
    for name, prompts in (("a", [250_000, 1_000]), ("b", [100_000])):
        path = _gemini_chat(tmp_path / f"session-{name}.json", prompts)
        blob = measure_session(Session("gemini-cli", path), None, PriceTable())
        assert isinstance(blob, bytes), blob
        record = record_of(blob)
        assert record is not None
        records.append(record)
    a = (250_000 * 2.5 + 100 * 15 + 1_000 * 1.25 + 100 * 10) / M
    b = (100_000 * 1.25 + 100 * 10) / M
    assert records[0].cost_by_model == {"gemini-2.5-pro": pytest.approx(round(a, 6))}
    assert records[1].cost_usd == pytest.approx(round(b, 6))
    group = summarise("all", records, PriceTable())
    assert group.cost_by_model["gemini-2.5-pro"] == pytest.approx(round(a + b, 6))
    # Control: the group's summed tokens priced afresh would miss the long prompt.
    summed = price_usage(group.usage, PriceTable()).total_usd
    assert summed == pytest.approx((351_000 * 1.25 + 300 * 10) / M)
    assert group.cost_usd != pytest.approx(summed)
