"""Stored records read back one at a time keep every rule of reading them whole."""

from __future__ import annotations

import shutil
from pathlib import Path

from proctor.models.io import write_record
from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialAnnotation
from proctor.paths import RunPaths
from proctor.report.stored import iter_records, load_records

EXAMPLE_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "results-v1" / "example-suite"


def test_an_unreadable_trial_is_annotated_like_any_other(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(EXAMPLE_RUN, run)
    broken = run / "trials" / "fix-a-bug" / "scripted" / "default" / "1" / "trial.json"
    broken.write_text("{ not json")
    mark = TrialAnnotation(
        trial="fix-a-bug/scripted/default/1", verdict="excluded", note="infra", at="now"
    )
    write_record(RunPaths(run).annotations, AnnotationsRecord(annotations=[mark]))
    (lost,) = [r for r in load_records(run) if r.case == "fix-a-bug" and r.repeat == 1]
    assert lost.status == "skipped" and lost.reason.startswith("annotated excluded: infra")


def test_reading_one_at_a_time_gives_the_records_read_whole() -> None:
    assert [r.model_dump() for r in iter_records(EXAMPLE_RUN)] == [
        r.model_dump() for r in load_records(EXAMPLE_RUN)
    ]
