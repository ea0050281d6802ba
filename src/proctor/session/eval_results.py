"""What an eval run's cases came to: each trial's ``eval.json`` read back into ``proctor eval``'s
summary (its ``--json``), the status a case is shown with, and the exit code of the cases."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from proctor.evals.conversation import EVAL_RESULT
from proctor.evals.discover import EvalPoint
from proctor.execute.context import was_interrupted
from proctor.exit_codes import ExitCode
from proctor.models.trial import ERROR_STATUSES, TrialRecord
from proctor.paths import RunPaths
from proctor.report.aggregate import gate_failed

FAILED_STATUSES = frozenset({"failed", "timeout"})
"""Scored and not passed: a case still running at its timeout failed, as in a case folder."""


def exit_code_of(records: Sequence[TrialRecord]) -> int:
    """1 when a case failed or timed out, or a gate failed in a case that then errored (its
    status is the error, but the gate's failure stands); else 3 for any error status; else 0.
    A skipped case decides nothing, whatever its gates said before ``t.skip``. The same rule
    as the run's aggregate (``suite.json``, ``proctor report``)."""
    if any(
        r.status in FAILED_STATUSES or (r.status in ERROR_STATUSES and gate_failed(r))
        for r in records
    ):
        return int(ExitCode.GATE_FAILED)
    if any(r.status in ERROR_STATUSES for r in records):
        return int(ExitCode.TRIAL_ERRORS)
    return int(ExitCode.OK)


def shown_status(record: TrialRecord) -> str:
    """A case's status as ``proctor eval`` shows it: its record's, but ``interrupted`` for a
    case the stop cut short (recorded in an error status, as ``proctor run`` records such a
    trial, whose exit reason counts it apart from the errors: it says nothing of the case)."""
    if record.status in ERROR_STATUSES and was_interrupted(record.reason):
        return "interrupted"
    return record.status


def eval_json(paths: RunPaths, record: TrialRecord) -> dict[str, Any]:
    folder = paths.trial(record.case, record.agent, record.condition, record.repeat).root
    try:
        data = json.loads((folder / EVAL_RESULT).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # (UnicodeDecodeError and JSONDecodeError too)
        return {}
    return data if isinstance(data, dict) else {}


def summarise(
    paths: RunPaths, records: Sequence[TrialRecord], chosen: list[tuple[EvalPoint, list[int]]]
) -> dict[str, Any]:
    by_case = {p.case_name: (p, picked) for p, picked in chosen}
    results = []
    for record in sorted(records, key=lambda r: (r.case, r.repeat)):
        point, picked = by_case.get(record.case, (None, []))
        data = eval_json(paths, record)
        iteration = (
            picked[record.repeat - 1] if point and record.repeat <= len(picked) else record.repeat
        )
        run_id = point.ids()[iteration - 1] if point else record.case
        skipped = record.status == "skipped"
        status = shown_status(record)
        results.append(
            {
                "id": run_id,
                "ok": record.status == "passed" or skipped,
                "skipped": skipped,
                "status": status,
                "description": point.description if point else None,
                "assertions": data.get("assertions", []),
                "sessionId": record.session_id,
                "inputs": data.get("inputs", []),
                "toolCalls": data.get("toolCalls", []),
                "logs": data.get("logs", []),
                "metrics": data.get("metrics", {}),
                "durationMs": round(record.timings.total_ms, 1),
                "finalText": data.get("finalText", ""),
                "warnings": data.get("warnings", []),
                "error": data.get("error")
                or (
                    None
                    if status in ("passed", "failed", "skipped", "interrupted")
                    else record.reason
                ),
                "reason": record.reason,
            }
        )
    passed = sum(1 for r in results if r["status"] == "passed")
    failed = sum(1 for r in results if r["status"] in FAILED_STATUSES)
    skipped_n = sum(1 for r in results if r["skipped"])
    cut_short = sum(1 for r in results if r["status"] == "interrupted")
    return {
        "ok": exit_code_of(records) == 0,
        "passed": passed,
        "failed": failed,
        "skipped": skipped_n,
        "errored": len(results) - passed - failed - skipped_n - cut_short,
        "cutShort": cut_short,
        "runDir": str(paths.root),
        "interrupted": False,
        "reason": None,
        "results": results,
    }
