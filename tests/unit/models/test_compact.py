"""Compact stand-ins for trial records: the aggregate and every reporter read them exactly as
they read the records, in a fraction of the memory."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from proctor.models.compact import compact, is_compact
from proctor.models.config import Gate
from proctor.models.io import model_to_json
from proctor.models.trial import TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.reporters import REPORTERS
from proctor.report.trial_records import load_records

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EXAMPLE_RUN = FIXTURES / "results-v1" / "example-suite"


def ab_records() -> list[list[TrialRecord]]:
    sets = []
    for path in sorted((FIXTURES / "ab").glob("0*.json")):
        trials = json.loads(path.read_text(encoding="utf-8"))["trials"]
        sets.append([TrialRecord.model_validate(t) for t in trials])
    return sets


RECORD_SETS = {"example-suite": load_records(EXAMPLE_RUN)} | {
    f"ab-{i}": records for i, records in enumerate(ab_records(), start=1)
}
GATES = [Gate(), Gate(min_pass_rate=0.8, min_score=50, max_stddev=10)]


@pytest.mark.parametrize("name", sorted(RECORD_SETS))
@pytest.mark.parametrize("gate", GATES, ids=["default-gate", "strict-gate"])
def test_the_aggregate_of_stand_ins_is_the_aggregate_of_the_records(name: str, gate: Gate) -> None:
    records = RECORD_SETS[name]
    stand_ins = [compact(r) for r in records]
    assert all(is_compact(s) for s in stand_ins)
    full = aggregate(records, gate, run_id="r")
    small = aggregate(stand_ins, gate, run_id="r")
    assert model_to_json(small) == model_to_json(full)


@pytest.mark.parametrize("reporter", sorted(REPORTERS))
def test_every_reporter_renders_stand_ins_as_it_renders_records(reporter: str) -> None:
    records = RECORD_SETS["example-suite"]
    suite = aggregate(records, Gate(), run_id="r")
    render = REPORTERS[reporter].render
    full = render(suite, records, run_dir=EXAMPLE_RUN)
    small = render(suite, [compact(r) for r in records], run_dir=EXAMPLE_RUN)
    assert small == full
    assert "compact " not in small  # no stand-in printed by its repr anywhere


def test_a_stand_in_reads_like_its_record() -> None:
    record = RECORD_SETS["example-suite"][0]
    stand_in = compact(record)
    assert stand_in.case == record.case and stand_in.status == record.status
    assert stand_in.timings.total_ms == record.timings.total_ms
    assert [r.rule for r in stand_in.rules] == [r.rule for r in record.rules]
    for model, usage in record.usage.items():
        assert stand_in.usage[model].total_tokens == usage.total_tokens  # properties carried
    assert stand_in.labels == record.labels  # labels stay models, shared when equal
    assert compact(record).labels is stand_in.labels
    with pytest.raises(AttributeError):
        stand_in.model_dump()  # a stand-in is not a model: a caller that needs one must read it


def test_stand_ins_take_a_fraction_of_the_memory() -> None:
    data = [r.model_dump_json(by_alias=True) for r in RECORD_SETS["example-suite"]] * 20

    def held(make: object) -> int:
        tracemalloc.start()
        kept = [make(d) for d in data]  # type: ignore[operator]
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del kept
        return size

    full = held(TrialRecord.model_validate_json)
    small = held(lambda d: compact(TrialRecord.model_validate_json(d)))
    assert small < full / 3, (small, full)


def test_a_stand_in_shifted_to_another_repeat_is_a_copy() -> None:
    from proctor.models.compact import with_repeat

    record = TrialRecord(case="c", agent="a", repeat=2, status="passed", reason="ok", score=90.0)
    stand_in = compact(record)
    shifted = with_repeat(stand_in, 7)
    assert (shifted.repeat, stand_in.repeat) == (7, 2)
    assert (shifted.case, shifted.score, shifted.status) == ("c", 90.0, "passed")
