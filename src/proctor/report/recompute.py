"""Recompute a stored run's aggregate from its ``trial.json`` files."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from proctor.errors import ConfigError, SchemaVersionError
from proctor.models.config import DEFAULT_GATE, Gate
from proctor.models.io import model_to_json, read_record, write_record, write_text_atomic
from proctor.models.suite import RunManifest, SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.plan.resolve import load_top_config
from proctor.report.aggregate import aggregate
from proctor.report.markdown import render_markdown


@dataclass
class Recomputed:
    suite: SuiteRecord
    records: list[TrialRecord]
    markdown: str
    json: str


def stored_gate(paths: RunPaths) -> Gate:
    try:
        data = json.loads(paths.resolved_json.read_text(encoding="utf-8"))
        return Gate.model_validate(data.get("gate", {}))
    except (OSError, json.JSONDecodeError, ValidationError):
        return DEFAULT_GATE


def stored_wall_ms(paths: RunPaths) -> float | None:
    """The run's wall time from its stored aggregate, when there is one."""
    try:
        data = json.loads(paths.suite_json.read_text(encoding="utf-8"))
        value = data.get("totals", {}).get("wallMs")
        return float(value) if value is not None else None
    except (OSError, json.JSONDecodeError, TypeError, ValueError):
        return None


def stored_planned(paths: RunPaths, finished: int) -> tuple[bool, int | None]:
    """(did the run stop short, trials it planned) from its ``run.json``: interrupted, killed
    before it finished (no ``finishedAt``), or fewer trials on disk than it planned."""
    try:
        manifest = read_record(paths.run_json, RunManifest)
    except ConfigError:
        return False, None
    planned = manifest.trials_planned or None
    short = manifest.interrupted or manifest.finished_at is None
    return short or (planned is not None and finished < planned), planned


def load_records(run_dir: Path) -> list[TrialRecord]:
    """Every stored trial of a run; ConfigError when the folder holds none. A trial.json that
    cannot be read counts as an infra-error trial saying why (named by its folder)."""
    paths = RunPaths(run_dir)
    trial_files = paths.trial_jsons()
    if not trial_files:
        raise ConfigError(f"{run_dir}: no trials/*/*/*/*/trial.json found; is this a run folder?")
    records = []
    for path in trial_files:
        try:
            records.append(read_record(path, TrialRecord))
        except SchemaVersionError:
            raise
        except ConfigError as exc:
            case, agent, condition, repeat = path.parent.parts[-4:]
            records.append(
                TrialRecord(
                    case=case,
                    agent=agent,
                    condition=condition,
                    repeat=int(repeat) if repeat.isdigit() else 0,
                    status="infra-error",
                    reason=f"unreadable trial.json: {exc}",
                )
            )
    return records


def recompute(run_dir: Path, config: Path | None, *, write: bool = False) -> Recomputed:
    paths = RunPaths(run_dir)
    records = load_records(run_dir)
    if config is not None:
        top, _, _ = load_top_config(config, Path.cwd())
        gate = top.gate or DEFAULT_GATE
        ran = {r.condition for r in records}
        for name in (gate.ab.treatment, gate.ab.baseline) if gate.ab is not None else ():
            if name not in ran:
                raise ConfigError(
                    f"{config}: field 'gate.ab': condition '{name}' is not in this run "
                    f"(conditions: {', '.join(sorted(ran))})"
                )
    else:
        gate = stored_gate(paths)
    skipped: list[dict[str, str]] = []
    if paths.suite_json.exists():
        try:
            skipped = read_record(paths.suite_json, SuiteRecord).skipped_cases
        except ConfigError:
            skipped = []
    short, planned = stored_planned(paths, len(records))
    suite = aggregate(
        records,
        gate,
        run_id=run_dir.name,
        skipped_cases=skipped,
        interrupted=short,
        planned=planned,
        wall_ms=stored_wall_ms(paths),
    )
    markdown = render_markdown(suite, records)
    if write:
        write_record(paths.suite_json, suite)
        write_text_atomic(paths.suite_md, markdown)
    return Recomputed(suite, records, markdown, model_to_json(suite))
