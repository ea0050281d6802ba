"""Claude Code's cache writes kept for an hour (``usage.cache_creation.ephemeral_1h_input_tokens``)
are counted apart, as a part of the cache writes, by every reader of its sessions alike (the
full parse, the reader for a measure, the token totals and a history), and priced at their
own rate: twice the input, where a write for five minutes costs 1.25 times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from proctor.history.layout import Session
from proctor.history.replay import measure_session
from proctor.models.pricing import PriceTable
from proctor.transcripts.claude import claude_usage_totals, parse_claude_session
from proctor.transcripts.claude.measure import parse_claude_for_measure

MODEL = "claude-opus-4-8"


def _line(number: int, usage: dict[str, Any], model: str = MODEL) -> str:
    record = {
        "type": "assistant",
        "uuid": f"a{number}",
        "parentUuid": None,
        "sessionId": "s-1",
        "cwd": "/w",
        "timestamp": f"2026-11-02T10:00:0{number}.000Z",
        "requestId": f"req_{number}",
        "message": {
            "id": f"msg_{number}",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": usage,
        },
    }
    return json.dumps(record, separators=(",", ":"))


def _usage(write: int, creation: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": 10,
        "output_tokens": 100,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": write,
    }
    if creation is not None:
        usage["cache_creation"] = creation
    return usage


SESSION = [
    # Written for an hour only (as Claude Code 2.1 writes them).
    _usage(8655, {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 8655}),
    # Both kinds in one response.
    _usage(3000, {"ephemeral_5m_input_tokens": 1000, "ephemeral_1h_input_tokens": 2000}),
    # An older release: no split, every write taken as five minutes'.
    _usage(500, None),
    # Damaged splits: not a dict, a count that is no count, more than the writes.
    _usage(40, "x"),
    _usage(40, {"ephemeral_1h_input_tokens": -5}),
    _usage(40, {"ephemeral_1h_input_tokens": "12"}),
    _usage(70, {"ephemeral_1h_input_tokens": 900}),
]
HOUR = 8655 + 2000 + 70  # the last one: at most the writes


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "s-1.jsonl"
    path.write_text("\n".join(_line(i, u) for i, u in enumerate(SESSION)) + "\n")
    return path


def test_every_reader_counts_the_hours_writes_alike(tmp_path: Path) -> None:
    path = _session(tmp_path)
    full = parse_claude_session(path).usage[MODEL]
    assert full.cache_write_tokens == 8655 + 3000 + 500 + 40 * 3 + 70
    assert full.cache_write_1h_tokens == HOUR
    assert claude_usage_totals(path)[MODEL] == full
    assert parse_claude_for_measure(path).usage[MODEL] == full
    blob = measure_session(Session("claude-code", path), None, PriceTable())
    assert isinstance(blob, bytes)
    summary = orjson.loads(blob.split(b"\x00", 1)[0])
    assert summary["usage"][MODEL]["cacheWrite1hTokens"] == HOUR


def test_a_session_costs_its_hours_writes_at_their_rate(tmp_path: Path) -> None:
    path = _session(tmp_path)
    blob = measure_session(Session("claude-code", path), None, PriceTable())
    assert isinstance(blob, bytes)
    summary = orjson.loads(blob.split(b"\x00", 1)[0])
    writes = 8655 + 3000 + 500 + 40 * 3 + 70
    expected = (
        len(SESSION) * (10 * 5 + 100 * 25 + 1000 * 0.5)
        + (writes - HOUR) * 6.25
        + HOUR * 10  # Opus 4.8: $10 per million written for an hour, $6.25 for five minutes
    ) / 1_000_000
    assert summary["costUsd"] == pytest.approx(round(expected, 6))
    assert summary["unpricedModels"] == []


def test_control_without_the_split_every_write_costs_the_five_minutes_rate(
    tmp_path: Path,
) -> None:
    (tmp_path / "plain").mkdir()
    path = tmp_path / "plain" / "s-1.jsonl"
    plain = [{k: v for k, v in usage.items() if k != "cache_creation"} for usage in SESSION]
    path.write_text("\n".join(_line(i, u) for i, u in enumerate(plain)) + "\n")
    usage = parse_claude_session(path).usage[MODEL]
    assert usage.cache_write_1h_tokens == 0
    costs = []
    for session in (path, _session(tmp_path)):
        blob = measure_session(Session("claude-code", session), None, PriceTable())
        assert isinstance(blob, bytes)
        costs.append(orjson.loads(blob.split(b"\x00", 1)[0])["costUsd"])
    # (each cost rounded to the millionth of a dollar)
    assert costs[1] - costs[0] == pytest.approx(HOUR * (10 - 6.25) / 1_000_000, abs=2e-6)


@pytest.mark.parametrize(
    "damaged", [50.5, True, "50", [[50]], 1e20, -5, "x", [], 7.0, ("whole", 5), ("whole", 0)]
)
def test_a_damaged_hour_count_is_noted_and_the_readers_agree(tmp_path: Path, damaged: Any) -> None:
    if isinstance(damaged, tuple):  # a cache_creation that is not an object, even a number
        creation, damaged = damaged[1], "whole"
    elif damaged in ("x", []):
        creation = damaged
    else:
        creation = {"ephemeral_1h_input_tokens": damaged}
    path = tmp_path / "s-1.jsonl"
    path.write_text(_line(0, _usage(100, creation)) + "\n")
    full = parse_claude_session(path)
    fast = parse_claude_for_measure(path)
    assert full.usage == fast.usage == claude_usage_totals(path)
    counted = full.usage[MODEL].cache_write_1h_tokens
    if damaged == 7.0:  # a whole number written as a float is a count
        assert counted == 7 and full.coverage.unknown_record_types == {}
    else:
        assert counted == 0
        assert full.coverage.unknown_record_types == {"malformed/usage": 1}
        assert fast.coverage.unknown_record_types == {"malformed/usage": 1}


def test_a_better_line_without_an_hours_writes_leaves_none_in_the_event(tmp_path: Path) -> None:
    first = json.loads(_line(0, _usage(500, {"ephemeral_1h_input_tokens": 500})))
    first["message"]["stop_reason"] = None  # a line of the response before its last
    final = json.loads(_line(0, _usage(500, {"ephemeral_5m_input_tokens": 500})))
    final["uuid"] = "a-final"  # the response's last line (same message and request ids)
    path = tmp_path / "s-1.jsonl"
    lines = [json.dumps(line, separators=(",", ":")) for line in (first, final)]
    path.write_text("\n".join(lines) + "\n")
    trajectory = parse_claude_session(path)
    assert trajectory.usage[MODEL].cache_write_1h_tokens == 0
    (event,) = [e for e in trajectory.events if e.type == "usage"]
    assert event.cache_write_1h_tokens is None  # not the first line's 500


def test_the_token_totals_count_as_the_parsers_do(tmp_path: Path) -> None:
    usage = _usage(-100, {"ephemeral_1h_input_tokens": 50})
    usage["input_tokens"] = "12"
    path = tmp_path / "s-1.jsonl"
    path.write_text(_line(0, usage) + "\n")
    totals = claude_usage_totals(path)[MODEL]
    assert totals == parse_claude_session(path).usage[MODEL]
    assert (totals.input_tokens, totals.cache_write_tokens, totals.cache_write_1h_tokens) == (
        0,
        0,
        0,
    )
