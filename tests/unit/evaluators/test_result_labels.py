"""Each evaluator result in ``trial.json`` carries its entry's ``label``, the name findings and
reports give its check (None when the entry has none); a record written before it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.evaluators.base import parse_evaluator_specs
from proctor.execute.evaluate import evaluated
from proctor.models.trial import EvaluatorResult, TrialRecord
from tests.unit.evaluators.helpers import context


def test_each_result_names_its_entry_s_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = [
        {"use": "command", "run": "true", "label": "tests pass"},
        {"use": "command", "run": "true"},
        {"use": "command", "run": "false", "label": "treated only", "conditions": ["with"]},
        {"use": "file-exists", "must": ["x"], "label": "has x"},
    ]
    specs = parse_evaluator_specs(entries, "config.json")
    results = [evaluated(spec, context(tmp_path), "baseline") for spec in specs]
    assert [r.label for r in results] == ["tests pass", None, "treated only", "has x"]
    written = [r.to_dict() for r in results]
    assert written[0]["label"] == "tests pass" and written[1]["label"] is None

    from proctor.evaluators import base

    class Crashes:
        def evaluate(self, *_: object) -> EvaluatorResult:
            raise RuntimeError("boom")

    monkeypatch.setattr("proctor.execute.evaluate.get_evaluator", lambda _: Crashes())
    crashed = evaluated(specs[0], context(tmp_path), "baseline")
    assert crashed.error and crashed.label == "tests pass"
    assert base.error_result(specs[1], "x").label is None


def test_a_record_written_before_labels_were_kept_reads() -> None:
    old = {"case": "c", "agent": "a", "repeat": 1, "status": "passed", "score": 100.0}
    old["evaluators"] = [{"use": "command", "passed": True, "score": 100.0}]
    record = TrialRecord.model_validate(old)
    assert record.evaluators[0].label is None and record.evaluators[0].counted
