"""Repeated-run view against tests/fixtures/ab/repeated_runs.json, with controls and edge cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest

from proctor.models.run import AnnotationsRecord
from proctor.models.suite import RepeatedRow
from proctor.models.suite import RepeatedSpread as Spread
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.report import repeated
from proctor.report.annotations import apply_annotations
from proctor.report.repeated import repeated_runs, spread_of
from proctor.stats import Summary, summarize
from tests.unit.report.test_ab_fixtures import load, mismatches, records_of

RAW = load("repeated_runs.json")
RECORDS = records_of(RAW["trials"])
EXPECTED = RAW["expected"]


def key(row: RepeatedRow) -> str:
    return f"{row.case}/{row.agent}/{row.condition}"


def rows_by_key(rows: list[RepeatedRow]) -> dict[str, dict[str, Any]]:
    return {key(r): r.to_dict() for r in rows}


def all_rows(records: list[TrialRecord] = RECORDS) -> dict[str, dict[str, Any]]:
    return rows_by_key(repeated_runs(records, min_samples=0))


def test_rows_agree_with_the_hand_worked_fixture() -> None:
    assert mismatches(EXPECTED["rows"], all_rows()) == []


@pytest.mark.parametrize("query", EXPECTED["queries"], ids=str)
def test_filters_keep_the_expected_rows_in_order(query: dict[str, Any]) -> None:
    rows = repeated_runs(RECORDS, goal_shape=query["goalShape"], min_samples=query["minSamples"])
    assert [key(r) for r in rows] == query["keys"]


def _mean_as_median(values: Any) -> Summary:
    s = summarize(values)
    return Summary(n=s.n, min=s.min, max=s.max, mean=s.mean, median=s.mean, stddev=s.stddev)


def _stability_over_found() -> dict[str, dict[str, Any]]:
    rows = all_rows()
    for row in rows.values():
        found, stability = row["firstRelevantFound"], row["firstRelevantStability"]
        if stability is not None:
            row["firstRelevantStability"] = stability * row["samples"] / found
    return rows


def _patched(name: str, replacement: Callable[..., Any]) -> Callable[[], dict[str, Any]]:
    def broken() -> dict[str, Any]:
        with mock.patch.object(repeated, name, replacement):
            return all_rows()

    return broken


def _first_file_read(record: TrialRecord) -> str | None:
    files = record.process.context.files_read if record.process else []
    return files[0] if files else None


CONTROLS: dict[str, Callable[[], dict[str, Any]]] = {
    "median-replaced-by-mean": _patched("summarize", _mean_as_median),
    "error-trials-included": _patched("is_scored", lambda r: True),
    "stability-over-found-only": _stability_over_found,
    "first-file-ignores-expected": _patched("first_relevant_file", _first_file_read),
}

Query = dict[str, Any]
QUERY_CONTROLS: dict[str, Callable[[Query], list[RepeatedRow]]] = {
    "goal-shape-ignored": lambda q: repeated_runs(RECORDS, min_samples=q["minSamples"]),
    "min-samples-ignored": lambda q: repeated_runs(RECORDS, goal_shape=q["goalShape"]),
    "min-samples-strict": lambda q: repeated_runs(
        RECORDS, goal_shape=q["goalShape"], min_samples=q["minSamples"] + 1
    ),
}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_broken_row_variant_disagrees_with_the_fixture(name: str) -> None:
    assert mismatches(EXPECTED["rows"], CONTROLS[name]())


@pytest.mark.parametrize("name", list(QUERY_CONTROLS))
def test_broken_filter_disagrees_with_a_query(name: str) -> None:
    broken = QUERY_CONTROLS[name]
    assert any([key(r) for r in broken(q)] != q["keys"] for q in EXPECTED["queries"])


def test_empty_input_gives_no_rows() -> None:
    assert repeated_runs([]) == []
    assert repeated_runs([], min_samples=0) == []


def test_negative_min_samples_is_refused() -> None:
    with pytest.raises(ValueError, match="min_samples"):
        repeated_runs(RECORDS, min_samples=-1)


def test_tied_first_relevant_files_pick_the_smallest_path() -> None:
    def t(repeat: int, path: str) -> TrialRecord:
        context = {"firstRelevantFile": path, "expectedFiles": [path], "filesRead": [path]}
        return TrialRecord.model_validate(
            {
                "case": "c",
                "agent": "a",
                "repeat": repeat,
                "status": "passed",
                "process": {"context": context},
            }
        )

    (row,) = repeated_runs([t(1, "b.py"), t(2, "a.py")])
    assert (row.first_relevant_file, row.first_relevant_stability) == ("a.py", 0.5)


def test_spread_of_nothing_is_all_none() -> None:
    assert spread_of([]) == Spread(n=0, median=None, mean=None, min=None, max=None)


def test_row_json_uses_camel_case() -> None:
    data = repeated_runs(RECORDS)[0].to_dict()
    assert {"goalShape", "elapsedSeconds", "toolCalls", "firstRelevantStability"} <= set(data)


def test_a_trial_a_person_excluded_is_neither_a_sample_nor_an_error() -> None:
    def t(repeat: int, status: str) -> TrialRecord:
        record = {"case": "c", "agent": "a", "repeat": repeat, "status": status}
        return TrialRecord.model_validate(record)

    marks = AnnotationsRecord(
        annotations=[TrialAnnotation(trial="c/a/default/2", verdict="excluded", note="x", at="")]
    )
    trials = apply_annotations([t(1, "passed"), t(2, "failed"), t(3, "infra-error")], marks)
    (row,) = repeated_runs(trials)
    assert (row.samples, row.errors, row.passes) == (1, 1, 1)
