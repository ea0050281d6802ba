"""A list price that changes on a day (Gemini 3.8 Flash's offer ends on 2026-12-31) is taken
by the day the session or trial started: a history session, a trial's effort, a session whose
record an older proctor wrote. A response whose day is not known takes the list's own price."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import orjson
import pytest

from proctor.history.layout import Session
from proctor.history.record import SessionRecord, UsageRecord
from proctor.history.replay import measure_session
from proctor.history.summary import _add_dollars
from proctor.metrics.effort import effort, spent_on
from proctor.models.list_prices import LIST_CHANGES
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import Usage
from proctor.util.clock import utc_day

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
GEMINI = CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl"
FLASH = "gemini-3.8-flash"


@pytest.mark.parametrize(
    ("day", "rates"),
    [
        (None, (0.75, 3.75, 0.075)),
        (date(2026, 12, 31), (0.75, 3.75, 0.075)),
        (date(2027, 1, 1), (1.5, 7.5, 0.15)),
        (date(2031, 6, 1), (1.5, 7.5, 0.15)),
    ],
)
def test_the_offer_holds_through_its_last_day(day: date | None, rates: tuple[float, ...]) -> None:
    price = PriceTable().price_of(FLASH, day)
    assert price is not None
    assert (price.input_per1_m, price.output_per1_m, price.cache_read_per1_m) == rates
    # The forms a provider writes find the same price.
    assert PriceTable().price_of(f"models/{FLASH}", day) == price


def test_a_configured_price_wins_on_every_day() -> None:
    table = PriceTable.model_validate({"prices": {FLASH: {"inputPer1M": 9, "outputPer1M": 9}}})
    for day in (None, date(2026, 1, 1), date(2027, 1, 1)):
        price = table.price_of(FLASH, day)
        assert price is not None and price.input_per1_m == 9
        # The rates it leaves out are the list's of that day.
        listed = PriceTable().price_of(FLASH, day)
        assert listed is not None and price.cache_read_per1_m == listed.cache_read_per1_m


def test_every_changing_price_is_of_a_listed_model() -> None:
    from proctor.models.list_prices import LIST_PRICES

    for name, changes in LIST_CHANGES.items():
        assert name in LIST_PRICES
        days = [first for first, _, _ in changes]
        assert days == sorted(days)


def _session(tmp_path: Path, year: str) -> dict[str, object]:
    path = tmp_path / year / GEMINI.name
    path.parent.mkdir()
    path.write_bytes(GEMINI.read_bytes().replace(b'"2026-12-01T', f'"{year}-01-02T'.encode()))
    blob = measure_session(Session("gemini-cli", path), None, PriceTable())
    assert isinstance(blob, bytes)
    summary: dict[str, object] = orjson.loads(blob.split(b"\x00", 1)[0])
    return summary


def test_a_session_after_the_offer_costs_the_later_price(tmp_path: Path) -> None:
    during, after = _session(tmp_path, "2026"), _session(tmp_path, "2027")
    assert str(during["startedAt"]).startswith("2026-01-02")
    assert str(after["startedAt"]).startswith("2027-01-02")
    assert during["usage"] == after["usage"]
    # Every rate of the later price is twice the offer's.
    assert isinstance(during["costUsd"], float) and during["costUsd"] > 0
    assert after["costUsd"] == pytest.approx(2 * during["costUsd"], abs=2e-6)


def test_control_the_same_session_in_the_offer_costs_the_offer(tmp_path: Path) -> None:
    first, second = _session(tmp_path, "2025"), _session(tmp_path, "2026")
    assert first["costUsd"] == second["costUsd"]


def _usage_event(ts: str) -> Usage:
    return Usage(ts=ts, model=FLASH, input_tokens=1_000_000, output_tokens=1_000_000)


def test_a_trials_effort_is_priced_on_the_day_it_started() -> None:
    december = [_usage_event("2026-12-31T23:59:00Z")]
    january = [_usage_event("2027-01-01T00:00:01Z")]
    assert spent_on(december) == date(2026, 12, 31)
    assert effort(december, 0, PriceTable()).cost == pytest.approx(0.75 + 3.75)
    assert effort(january, 0, PriceTable()).cost == pytest.approx(1.5 + 7.5)
    # A trial that ran across the new year is priced on the day it started.
    assert effort(december + january, 0, PriceTable()).cost == pytest.approx(2 * (0.75 + 3.75))
    # Without a time: the list's own price.
    assert effort([Usage(model=FLASH, input_tokens=1_000_000)], 0, PriceTable()).cost == 0.75


def test_an_older_record_without_its_dollars_is_priced_on_its_day() -> None:
    usage = {FLASH: UsageRecord(input_tokens=1_000_000)}
    sums: dict[str, float] = {}
    starts = ("2026-12-31T23:00:00+00:00", "2027-01-01T00:30:00+01:00", "2027-01-01T01:00:00+00:00")
    for started in starts:
        record = SessionRecord(agent="gemini-cli", path="x", started_at=started, usage=usage)
        _add_dollars(sums, record, PriceTable())
    # 00:30 at +01:00 is still 2026-12-31 in UTC.
    assert sums == {FLASH: pytest.approx(0.75 + 0.75 + 1.5)}


@pytest.mark.parametrize(
    ("moment", "day"),
    [
        ("2027-01-01T00:30:00+01:00", date(2026, 12, 31)),
        ("2026-12-31T23:30:00-01:00", date(2027, 1, 1)),
        ("2027-01-01T00:00:00", date(2027, 1, 1)),
        ("0001-01-01T00:30:00+01:00", date(1, 1, 1)),
        ("not a time", None),
        (None, None),
    ],
)
def test_the_day_is_taken_in_utc(moment: str | None, day: date | None) -> None:
    assert utc_day(moment) == day
