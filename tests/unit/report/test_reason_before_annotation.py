"""The reason a trial ended with, read back from the reason a person's mark replaced it by
(the Trial page shows the mark once, and this under it)."""

from __future__ import annotations

from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialAnnotation
from proctor.report.annotations import apply_annotations, reason_before_annotation
from proctor.view.synthetic import trial_record


def test_the_reason_before_an_annotation_is_the_trial_s_own() -> None:
    record = trial_record("case-000", "scripted", "default", 1, status="passed")
    assert reason_before_annotation(record) is None
    mark = TrialAnnotation(
        trial="case-000/scripted/default/1", verdict="failed", note="drifted (again)", at="now"
    )
    marked = apply_annotations([record], AnnotationsRecord(annotations=[mark]))[0]
    assert marked.reason.startswith("annotated failed: drifted (again) (was passed: ")
    assert reason_before_annotation(marked) == record.reason
