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
from proctor.models.io import read_record, write_record, write_text_atomic
from proctor.models.run import JournalEntry, JournalEvent, RunManifest
from proctor.models.suite import SuiteRecord
from proctor.models.trajectory import Event, event_json, make_event
from proctor.models.trial import EvaluatorResult, Timings, TrialRecord
from proctor.paths import RunPaths
from proctor.report.aggregate import aggregate
from proctor.util.processes import process_start

STARTED, FINISHED = "2026-12-01T00:00:00.000Z", "2026-12-01T00:10:00.000Z"
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
        started_at=STARTED,
        finished_at=FINISHED if finished else None,
        source="synthetic",
        trials_planned=trials,
        trials_finished=len(records),
    )
    # As a run writes its journal: its start (naming this process, which plays the
    # orchestrator of an unfinished run), each trial's start and end, and a finished run's end.
    lines = [_run_line("run-started", STARTED), _line("trials-started")]
    for record in records:
        lines.append(_line("trial-started", record))
        lines.append(_line("trial-finished", record, status=record.status))
    if finished:
        lines.append(_run_line("run-finished", FINISHED))
    write_text_atomic(paths.journal, "".join(lines))
    write_record(paths.run_json, manifest)
    if suite and finished:
        write_record(paths.suite_json, aggregate_of(records, name))
    return paths


def _run_line(event: JournalEvent, time: str) -> str:
    pid = os.getpid()
    entry = JournalEntry(event=event, time=time, pid=pid, pid_start=process_start(pid))
    return entry.model_dump_json(by_alias=True, exclude_none=True) + "\n"


def _line(event: JournalEvent, record: TrialRecord | None = None, **facts: str) -> str:
    cell: dict[str, object] = {}
    if record is not None:
        cell = dict(case=record.case, agent=record.agent, condition=record.condition)
        cell["repeat"] = record.repeat
    entry = JournalEntry.model_validate({"event": event, "time": STARTED, **cell, **facts})
    return entry.model_dump_json(by_alias=True, exclude_none=True) + "\n"


def _append(paths: RunPaths, line: str) -> None:
    with paths.journal.open("a", encoding="utf-8") as fh:
        fh.write(line)


def start_trial(paths: RunPaths, case: str, repeat: int, condition: str = "default") -> Path:
    """A trial of a run in progress started, as the executor starts one: its folder made,
    then its ``trial-started`` journal line; the folder."""
    folder = paths.trial(case, "scripted", condition, repeat).root
    folder.mkdir(parents=True, exist_ok=True)
    _append(paths, _line("trial-started", trial_record(case, "scripted", condition, repeat)))
    return folder


def end_trial(paths: RunPaths, case: str, repeat: int, condition: str = "default") -> None:
    """A trial of a run in progress ended, as the executor ends one: its ``trial.json``
    written, then its ``trial-finished`` journal line (nothing else of the run is written)."""
    record = trial_record(case, "scripted", condition, repeat)
    write_record(paths.trial(case, "scripted", condition, repeat).trial_json, record)
    _append(paths, _line("trial-finished", record, status=record.status))


def end_run(paths: RunPaths) -> None:
    """The run ended, as the orchestrator ends one: run.json records its end, then the
    journal its ``run-finished`` line (no suite.json: see :func:`aggregate_of`)."""
    manifest = read_record(paths.run_json, RunManifest)
    write_record(paths.run_json, manifest.model_copy(update={"finished_at": FINISHED}))
    _append(paths, _run_line("run-finished", FINISHED))


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
