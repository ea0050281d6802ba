"""JSON Schemas of proctor's files, generated from the models.

``python -m proctor.models.schemas DIR`` (or ``make schemas``) writes one
``<name>.schema.json`` per file kind; a test keeps the committed copies in step with the models.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

from proctor.models.config import CaseConfig, TopConfig
from proctor.models.findings import FindingsLedger
from proctor.models.history import ChangeComparison, ChangeMark, HistoryReport
from proctor.models.logs import EvaluatorLog, RequestRecord
from proctor.models.run import (
    AnnotationsRecord,
    ConfigRecord,
    JournalEntry,
    RepeatManifest,
    ResolvedRecord,
    RunManifest,
)
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import EVENT_ADAPTER
from proctor.models.trial import EvalResultRecord, QuestionRecord, TrialRecord

SCHEMAS: dict[str, tuple[type[BaseModel] | TypeAdapter[Any], str]] = {
    "trial": (TrialRecord, "trial.json: one trial's status, verdict, timings and usage"),
    "eval": (EvalResultRecord, "eval.json: an eval's assertions, logs, metrics and inputs"),
    "suite": (SuiteRecord, "suite.json: per-group statistics, gate result and exit code"),
    "run": (RunManifest, "run.json: the run manifest"),
    "config": (ConfigRecord, "config.json: the configuration as given"),
    "resolved": (ResolvedRecord, "resolved.json: the configuration after layering, the matrix"),
    "annotations": (AnnotationsRecord, "annotations.json: people's marks on trials"),
    "repeat-manifest": (RepeatManifest, "proctor plan-repeats --output FILE"),
    "journal": (JournalEntry, "one line of journal.jsonl: a trial started, retried or finished"),
    "trajectory-event": (EVENT_ADAPTER, "one line of trajectory.jsonl"),
    "question": (QuestionRecord, "one line of questions.jsonl"),
    "evaluator-log": (EvaluatorLog, "evaluators/<n>-<use>.json: what an evaluator ran"),
    "request": (RequestRecord, "one line of model-requests.jsonl or harness-requests.jsonl"),
    "findings": (FindingsLedger, "findings.json: the failing checks tracked across runs"),
    "history": (HistoryReport, "proctor history --json: recorded sessions measured"),
    "change": (ChangeMark, "one line of the change journal (proctor mark)"),
    "changes": (
        TypeAdapter(list[ChangeComparison]),
        "proctor history --changes --json: the tasks before and after each change",
    ),
    "case-config": (CaseConfig, "a case folder's config.json"),
    "proctor-config": (TopConfig, "the top-level proctor.json"),
}


def schema_for(name: str) -> dict[str, Any]:
    model, description = SCHEMAS[name]
    if isinstance(model, TypeAdapter):
        schema = model.json_schema(by_alias=True, mode="serialization")
    else:
        schema = model.model_json_schema(by_alias=True, mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://proctor.dev/schemas/{name}.schema.json"
    schema["description"] = description
    return schema


def render(name: str) -> str:
    return json.dumps(schema_for(name), indent=2, sort_keys=True) + "\n"


def write_all(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMAS:
        path = directory / f"{name}.schema.json"
        path.write_text(render(name), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")):
        print(path)
