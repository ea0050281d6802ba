"""A whole run: results directory, manifest, the matrix, the aggregate and the exit code."""

from __future__ import annotations

import os
import platform
import secrets
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor._version import __version__
from proctor.errors import ConfigError
from proctor.execute.events import Subscriber
from proctor.execute.scheduler import run_matrix
from proctor.execute.trial import WorkerOptions
from proctor.models.io import write_json, write_record, write_text_atomic
from proctor.models.suite import RunManifest, SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.plan.resolve import RunPlan
from proctor.report.aggregate import aggregate
from proctor.report.markdown import render_markdown


@dataclass
class RunResult:
    paths: RunPaths
    suite: SuiteRecord
    records: list[TrialRecord]
    markdown: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_paths(out: Path) -> RunPaths:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    run_id = f"run-{stamp}-{secrets.token_hex(3)}"
    root = out / run_id
    try:
        root.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise ConfigError(
            f"--out {out}: cannot create the run folder ({exc.strerror or exc})"
        ) from exc
    return RunPaths(root)


def execute_plan(
    plan: RunPlan,
    *,
    raw_config: Any,
    argv: list[str],
    source: Path,
    subscribers: list[Subscriber],
) -> RunResult:
    paths = new_run_paths(plan.out)
    run_id = paths.root.name
    manifest = RunManifest(
        run_id=run_id,
        proctor_version=__version__,
        started_at=_now(),
        argv=argv,
        host={
            "hostname": platform.node(),
            "platform": platform.platform(),
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
        },
        source=str(source),
        trials_planned=len(plan.trials),
    )
    write_record(paths.run_json, manifest)
    write_json(
        paths.config_json,
        {
            "schemaVersion": 1,
            "configFile": str(plan.config_path) if plan.config_path else None,
            "config": raw_config,
            "cli": plan.overrides.model_dump(mode="json", by_alias=True, exclude_defaults=True),
        },
    )
    write_json(paths.resolved_json, {"schemaVersion": 1, **plan.resolved_dict()})
    started = time.monotonic()
    outcome = run_matrix(
        plan.trials,
        paths,
        concurrency=plan.concurrency,
        options=WorkerOptions(
            keep_workspace=plan.overrides.keep_workspace, mirror=plan.overrides.mirror
        ),
        subscribers=subscribers,
    )
    skipped = [{"case": s.name, "reason": s.reason} for s in plan.skipped]
    suite = aggregate(
        outcome.records,
        plan.gate,
        run_id=run_id,
        skipped_cases=skipped,
        interrupted=outcome.interrupted,
        planned=len(plan.trials),
        wall_ms=round((time.monotonic() - started) * 1000, 3),
    )
    markdown = render_markdown(suite, outcome.records)
    write_record(paths.suite_json, suite)
    write_text_atomic(paths.suite_md, markdown)
    manifest.finished_at = _now()
    manifest.trials_finished = len(outcome.records)
    manifest.interrupted = outcome.interrupted
    write_record(paths.run_json, manifest)
    return RunResult(paths, suite, outcome.records, markdown)
