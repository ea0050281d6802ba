"""A person's marks on a stored run's trials (its ``annotations.json``, written by ``proctor
annotate``) and the records as they read once marked: ``failed`` counts as a failure,
``excluded`` leaves the statistics, and the reason the trial ended with before is kept.

    marks = read_annotations(run_dir)
    records = apply_annotations(records, marks)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.io import read_record
from proctor.models.run import AnnotationsRecord
from proctor.models.trial import TrialAnnotation, TrialRecord
from proctor.paths import RunPaths


def trial_id(record: TrialRecord) -> str:
    """The trial's id as a mark names it: ``case/agent/condition/repeat``."""
    return f"{record.case}/{record.agent}/{record.condition}/{record.repeat}"


def read_annotations(
    run_dir: Path, notes: list[str] | None = None, *, strict: bool = False
) -> AnnotationsRecord:
    """The run's ``annotations.json`` (empty when there is none; unreadable: a note, or the
    ConfigError itself when ``strict``)."""
    path = RunPaths(run_dir).annotations
    if not path.exists():
        return AnnotationsRecord()
    try:
        return read_record(path, AnnotationsRecord)
    except SchemaVersionError:
        raise
    except ConfigError as exc:
        if strict:
            raise
        if notes is not None:
            notes.append(f"{exc}; the run is read without its annotations")
        return AnnotationsRecord()


def read_marks(run_dir: Path, notes: list[str], strict: bool) -> AnnotationsRecord:
    """:func:`read_annotations` for a reader of the run's trials: one that does not read is a
    note, or, when ``strict``, a ConfigError saying nothing was recomputed without it."""
    if not strict:
        return read_annotations(run_dir, notes)
    try:
        return read_annotations(run_dir, strict=True)
    except ConfigError as exc:
        raise ConfigError(
            f"{exc}; nothing was recomputed, as the marks it holds would be left out: mend it, "
            "or move it away to read the run without them"
        ) from exc


def apply_annotations(
    records: list[TrialRecord], annotations: AnnotationsRecord
) -> list[TrialRecord]:
    """Each annotated trial as the person said: ``failed`` counts as a failure (score 0),
    ``excluded`` leaves the statistics (status ``skipped``); both keep the note."""
    marks = {a.trial: a for a in annotations.annotations}
    return [_annotated(record, marks) for record in records]


def annotator(annotations: AnnotationsRecord) -> Callable[[TrialRecord], TrialRecord]:
    """:func:`apply_annotations` for one record at a time."""
    marks = {a.trial: a for a in annotations.annotations}
    return lambda record: _annotated(record, marks)


def _annotated(record: TrialRecord, marks: Mapping[str, TrialAnnotation]) -> TrialRecord:
    mark = marks.get(trial_id(record))
    if mark is None:
        return record
    if mark.verdict == "failed":
        update = {"status": "failed", "passed": False, "score": 0.0}
        reason = f"annotated failed: {mark.note} (was {record.status}: {record.reason})"
    else:
        update = {"status": "skipped", "passed": None, "score": None}
        reason = f"annotated excluded: {mark.note} (was {record.status}: {record.reason})"
    was = {"reason": reason, "annotation": mark, "status_before_annotation": record.status}
    return record.model_copy(update={**update, **was})


def reason_before_annotation(record: TrialRecord) -> str | None:
    """The reason the trial ended with before a person's mark replaced it; None for a trial
    no mark changed."""
    mark, was = record.annotation, record.status_before_annotation
    if mark is None or was is None:
        return None
    prefix = f"annotated {mark.verdict}: {mark.note} (was {was}: "
    if record.reason.startswith(prefix) and record.reason.endswith(")"):
        return record.reason[len(prefix) : -1]
    return None
