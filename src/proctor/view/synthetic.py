"""Synthetic results written with the real record models, for the viewer's benchmarks and
tests: runs of many trials, trajectories of many events, and trials carrying planted text.

    write_run(results, "run-20261201T000000Z-aaaaaa", trials=1000)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from proctor.models.config import DEFAULT_GATE
from proctor.models.io import write_record, write_text_atomic
from proctor.models.run import JournalEntry, RunManifest
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import Event, event_json, make_event
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord
from proctor.paths import RunPaths
from proctor.report.aggregate import aggregate
from proctor.util.processes import process_start

STATUSES = ("passed", "passed", "failed", "passed", "timeout", "agent-error")


def trial_record(
    case: str, agent: str, condition: str, repeat: int, *, status: str = "passed", text: str = ""
) -> TrialRecord:
    scored = status in ("passed", "failed", "timeout")
    passed = status == "passed"
    return TrialRecord(
        case=case,
        agent=agent,
        condition=condition,
        repeat=repeat,
        status=status,
        passed=passed if scored else None,
        score=(100.0 if passed else 0.0) if scored else None,
        reason=text or f"synthetic {status}",
        evaluators=[
            EvaluatorResult(
                use="command",
                passed=passed,
                score=100.0 if passed else 0.0,
                message=text or "exit 0",
            )
        ],
        timings=Timings(total_ms=1000.0 + repeat, agent_ms=800.0, harness_ms=200.0 + repeat),
        tool_calls=3,
        tags=["synthetic"],
    )


def events(count: int, text: str = "") -> Iterator[Event]:
    """``count`` events: turns of a user message, a tool call, its result and a reply."""
    for i in range(count):
        kind = i % 4
        if kind == 0:
            yield make_event("user_message", text=text or f"message {i}")
        elif kind == 1:
            yield make_event(
                "tool_call",
                id=f"t{i}",
                name="Bash",
                kind="shell",
                input={"command": text or f"echo {i}"},
            )
        elif kind == 2:
            yield make_event("tool_result", id=f"t{i - 1}", output=text or f"{i}", is_error=False)
        else:
            yield make_event("assistant_text", text=text or f"done {i}", model="synthetic")


def write_trajectory_lines(path: Path, count: int, text: str = "") -> None:
    """A ``trajectory.jsonl`` of ``count`` events, streamed to disk (never held whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for event in events(count, text):
            fh.write(json.dumps(event_json(event)) + "\n")


def write_run(
    results: Path,
    name: str,
    *,
    trials: int,
    cases: int = 10,
    conditions: tuple[str, ...] = ("default",),
    events_per_trial: int = 8,
    finished: bool = True,
    suite: bool = True,
) -> RunPaths:
    """A run folder of ``trials`` trials spread over ``cases`` cases and the conditions."""
    paths = RunPaths(results / name)
    records = []
    per_cell = max(1, trials // (cases * len(conditions)))
    n = 0
    for c in range(cases):
        for condition in conditions:
            for repeat in range(1, per_cell + 1):
                if n >= trials:
                    break
                status = STATUSES[n % len(STATUSES)]
                record = trial_record(f"case-{c:03d}", "scripted", condition, repeat, status=status)
                folder = paths.trial(record.case, record.agent, condition, repeat)
                write_record(folder.trial_json, record)
                if events_per_trial:
                    write_trajectory_lines(folder.trajectory, events_per_trial)
                records.append(record)
                n += 1
    manifest = RunManifest(
        run_id=name,
        proctor_version="0.1.0",
        started_at="2026-12-01T00:00:00.000Z",
        finished_at="2026-12-01T00:10:00.000Z" if finished else None,
        source="synthetic",
        trials_planned=trials,
        trials_finished=len(records),
    )
    write_record(paths.run_json, manifest)
    pid = os.getpid()  # this process plays the orchestrator of an unfinished run
    entry = JournalEntry(
        event="run-started", time=manifest.started_at, pid=pid, pid_start=process_start(pid)
    )
    write_text_atomic(paths.journal, entry.model_dump_json(by_alias=True) + "\n")
    if suite and finished:
        write_record(paths.suite_json, aggregate_of(records, name))
    return paths


def aggregate_of(records: list[TrialRecord], name: str) -> SuiteRecord:
    return aggregate(records, DEFAULT_GATE, run_id=name)


XSS = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
"""Markup that runs script if a page fails to escape it (the browser tests watch
``window.__pwned``)."""


def write_planted_run(results: Path, name: str, payload: str = XSS) -> RunPaths:
    """A finished run of one trial whose prompt, tool output, reason, a warning, a file name,
    the diff and the terminal all carry ``payload`` (with a terminal escape in the screen)."""
    paths = write_run(results, name, trials=1, cases=1, events_per_trial=0, suite=False)
    trial = paths.trial("case-000", "scripted", "default", 1)
    record = trial_record("case-000", "scripted", "default", 1, status="failed", text=payload)
    record = record.model_copy(update={"warnings": [payload]})
    write_record(trial.trial_json, record)
    write_trajectory_lines(trial.trajectory, 8, text=payload)
    write_text_atomic(
        trial.workspace_diff,
        "diff --git a/x.html b/x.html\n--- a/x.html\n+++ b/x.html\n"
        f"@@ -1 +1 @@\n-old\n+{payload}\n",
    )
    write_text_atomic(trial.screen_log, f"\x1b[31m{payload}\x1b[0m\n")
    write_text_atomic(trial.raw_transcript, json.dumps({"type": "user", "text": payload}) + "\n")
    (trial.root / f"{payload.replace('/', '_')}.txt").write_text(payload)
    write_record(paths.suite_json, aggregate_of([record], name))
    return paths
