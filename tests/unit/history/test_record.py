"""SessionRecord, the summary a replay carries, against SessionSummary, the model a report's
session is: the same JSON both ways, the model's reading wherever the fast one declines, and
the report's JSON as the model would write it. Controls that must break each check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from proctor.history.readback import RESPONSES
from proctor.history.record import (
    OrientationRecord,
    SessionRecord,
    StepsRecord,
    UsageRecord,
    from_summary,
    record_of,
    records_json,
    records_of,
    responses_of,
    to_summary,
    write_records,
)
from proctor.history.replay import Filters, measure_session, replay
from proctor.history.sources import sessions_under
from proctor.history.summary import history_json, history_report, in_order
from proctor.models.config import ModelPrice
from proctor.models.history import HistoryReport, SessionSummary, Unavailable
from proctor.models.io import model_to_json
from proctor.models.pricing import PriceTable
from proctor.models.process import Orientation, StepCounts
from proctor.models.trajectory import ModelUsage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
AGENTS = ["claude-code", "codex", "gemini-cli"]
PRICES = PriceTable(prices={"claude-opus-4-8": ModelPrice(input_per1_m=5.0, output_per1_m=25.0)})
FULL = SessionSummary(
    agent="claude-code",
    path="/h/s.jsonl",
    session_id="s",
    project="/w/café",
    started_at="2026-11-03T10:00:00+00:00",
    ended_at="2026-11-03T10:05:00.500000+00:00",
    duration_seconds=300.5,
    is_task=True,
    verified=False,
    steps=StepCounts(tool_calls=5, by_kind={"read": 2, "edit": 3}, reads=2, edits=3),
    orientation=Orientation(
        reads_before_first_edit=2, steps_before_first_edit=2, seconds_to_first_edit=1e-7
    ),
    checks=1,
    failed_checks=1,
    loops=1,
    rules_fired=["unverified", "loops"],
    edited_files=["a.py", "b.py"],
    redundancy_proxy=0.25,
    auc_cov_proxy=0.875,
    usage={
        "m-1": ModelUsage(
            input_tokens=10,
            output_tokens=2,
            responses=1,
            cache_write_tokens=4,
            cache_write_1h_tokens=3,
        ),
        "m-2": ModelUsage(),
    },
    cost_by_model={"m-1": 0.000125, "m-2": None, "m-3": 1e-7},
    cost_usd=0.000125,
    unpriced_models=["m-2"],
    unknown_records=3,
)


def differences(record_type: type[msgspec.Struct], model: SessionSummary) -> list[str]:
    """Where a record type's JSON of ``model`` differs from the model's own (its fields' names,
    order, types and defaults all show there)."""
    theirs = model.model_dump_json(by_alias=True).encode()
    found = msgspec.json.decode(theirs, type=record_type)
    ours = msgspec.json.encode(found)
    if ours == theirs:
        return []
    return [f"record: {ours[:300]!r}", f"model: {theirs[:300]!r}"]


@pytest.mark.parametrize("model", [SessionSummary(agent="a", path="p"), FULL])
def test_a_record_writes_every_summary_as_the_model_writes_it(model: SessionSummary) -> None:
    assert differences(SessionRecord, model) == []
    # Made with no value given, the two write their defaults alike.
    assert msgspec.json.encode(SessionRecord(agent="a", path="p")) == (
        SessionSummary(agent="a", path="p").model_dump_json(by_alias=True).encode()
    )
    for record, default in (
        (StepsRecord(), StepCounts()),
        (OrientationRecord(), Orientation()),
        (UsageRecord(), ModelUsage()),
    ):
        assert msgspec.json.encode(record) == default.model_dump_json(by_alias=True).encode()


def test_control_a_record_with_its_fields_in_another_order_is_caught() -> None:
    class Swapped(msgspec.Struct, rename="camel"):
        path: str
        agent: str

    class Short(msgspec.Struct, rename="camel"):
        agent: str
        path: str

    plain = SessionSummary(agent="a", path="p")
    assert differences(Swapped, plain) != []  # another order
    assert differences(Short, plain) != []  # fields left out


def test_a_record_and_the_model_convert_into_each_other() -> None:
    with_digests = FULL.model_copy(update={"response_ids": [7, 8], "response_rows": b"[]"})
    record = from_summary(with_digests)
    assert responses_of(record) == ([7, 8], b"[]")
    assert to_summary(record) == FULL
    assert msgspec.json.encode(record) == FULL.model_dump_json(by_alias=True).encode()
    assert responses_of(from_summary(FULL)) == (None, None)


def fixture_blobs() -> list[bytes]:
    sessions, _ = sessions_under([FIXTURES], AGENTS)
    blobs = [measure_session(session, None, PRICES) for session in sessions]
    found = [blob.split(RESPONSES, 1)[0] for blob in blobs if isinstance(blob, bytes)]
    assert len(found) >= 30
    return found


def test_every_fixture_session_reads_back_as_the_model_reads_it() -> None:
    blobs = fixture_blobs()
    records = records_of(blobs)
    for blob, record in zip(blobs, records, strict=True):
        assert record is not None
        assert to_summary(record) == SessionSummary.model_validate_json(blob)
        assert msgspec.json.encode(record) == blob  # byte for byte, as the worker wrote it


ODD = [
    b'{"agent":"a","path":"p","isTask":1}',  # a value the model converts
    b'{"agent":"a","path":"p","durationSeconds":"2.5"}',
    b'{"agent":"a","path":"p","is_task":true,"session_id":"s"}',  # field names, not JSON names
    b'{"agent":"a","path":"p","somethingNewer":[1]}',  # a field of a later proctor
    b'{"agent":"a","path":"p","steps":{"toolCalls":2,"extra":0}}',
    b'{"agent":"a","path":"p","usage":{"m":{"inputTokens":1.0}}}',
    b'{"agent":"a","path":"p","loops":123456789012345678901234567890}',
    b'{"agent":"a","path":"p","checks":-1}',
    b'{"agent":"a"}',  # no path: not a summary
    b'{"agent":"a","path":null}',
    b'{"agent":"a","path":"p","verified":"maybe"}',
    b"[1,2]",
    b"not json",
    b"",
    b'{"agent":"a","path":"bad\\udcffname"}',
]


@pytest.mark.parametrize("text", ODD)
def test_a_text_out_of_the_replays_shape_is_read_as_the_model_reads_it(text: bytes) -> None:
    try:
        expected: SessionSummary | None = SessionSummary.model_validate_json(text)
    except ValueError:
        expected = None
    found = record_of(text)
    if expected is None:
        assert found is None
    else:
        assert found is not None and to_summary(found) == expected


def test_a_batch_with_a_damaged_summary_reads_the_others() -> None:
    blobs = fixture_blobs()[:5]
    texts = [*blobs[:2], b'{"agent":"a"}', b'{"agent":"a","path":"p","isTask":1}', *blobs[2:]]
    found = records_of(texts)
    assert found[2] is None
    assert found[3] is not None and found[3].is_task is True
    assert [msgspec.json.encode(r) for r in found[:2] + found[4:]] == blobs  # type: ignore[arg-type]
    assert records_of([]) == []


def test_the_report_is_written_as_the_model_would_write_it() -> None:
    sessions, unavailable = sessions_under([FIXTURES], AGENTS)
    found = list(replay(sessions, Filters(), PRICES, workers=1))
    records = in_order(r for r in found if isinstance(r, SessionRecord))
    gone = [*unavailable, *(r for r in found if isinstance(r, Unavailable))]
    gone.append(Unavailable(agent="codex", path="/h/x.jsonl", reason="empty"))
    for by in (None, "project", "week", "agent"):
        report = history_report(records, gone, PRICES, by)  # type: ignore[arg-type]
        assert report.sessions == []
        models = report.model_copy(update={"sessions": [to_summary(r) for r in records]})
        assert history_json(report, records) + b"\n" == model_to_json(models).encode()


def test_control_a_report_with_its_sessions_out_of_order_is_caught() -> None:
    sessions, _ = sessions_under([FIXTURES], AGENTS)
    found = [r for r in replay(sessions, Filters(), PRICES, workers=1)]
    records = in_order(r for r in found if isinstance(r, SessionRecord))
    report = history_report(records, [], PRICES)
    models = report.model_copy(update={"sessions": [to_summary(r) for r in records]})
    assert history_json(report, records[::-1]) + b"\n" != model_to_json(models).encode()


def test_a_name_that_is_not_utf8_is_written_escaped_as_the_model_writes_it() -> None:
    record = SessionRecord(agent="codex", path="bad\udcffname", project="/w/caf\udce9")
    plain = SessionRecord(agent="codex", path="ok")
    assert json.loads(records_json([plain, record])) == [
        json.loads(msgspec.json.encode(plain)),
        {
            **json.loads(msgspec.json.encode(plain)),
            "path": "bad\\xffname",
            "project": "/w/caf\\xe9",
        },
    ]
    # Written after what a buffer holds, as the report's text is made: nothing of the first
    # try (which stops at the name it cannot encode) left in it.
    buffer = bytearray(b'{"sessions":')
    write_records([plain, record], buffer)
    assert bytes(buffer) == b'{"sessions":' + records_json([plain, record])
    gone = [Unavailable(agent="codex", path="/h/caf\udce9.jsonl", reason="empty")]
    report = history_report([record], gone, PRICES, "project")
    models = report.model_copy(update={"sessions": [to_summary(record)]})
    text = history_json(report, [record])
    text.decode("utf-8")  # nothing left that UTF-8 cannot hold
    data: dict[str, Any] = json.loads(text)
    assert data == json.loads(model_to_json(models))
    assert data["groups"][0]["key"] == "/w/caf\\xe9"
    assert isinstance(HistoryReport.model_validate(data), HistoryReport)
