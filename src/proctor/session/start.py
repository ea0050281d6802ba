"""The start of a run: its plan (discovery and the matrix), its folder, and the records
written before its first trial (``config.json``, ``resolved.json``, then ``run.json``), with
the suite its findings belong to and the warnings said before it starts."""

from __future__ import annotations

import os
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proctor._version import __version__
from proctor.discover.folders import is_case_folder
from proctor.errors import ConfigError
from proctor.models.io import write_json, write_record
from proctor.models.plan import RunPlan
from proctor.models.run import ConfigRecord, HostInfo, RunManifest
from proctor.paths import (
    RunPaths,
    names_stdin,
    read_against,
    started_path,
    stdin_file,
    suite_of,
)
from proctor.plan.records import recorded_configuration, resolved_record
from proctor.plan.resolve import load_run_plan
from proctor.session.request import RunRequest
from proctor.util.clock import now_iso
from proctor.util.logs import say
from proctor.util.masking import mask


def new_run_paths(out: Path) -> RunPaths:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    root = out / f"run-{stamp}-{secrets.token_hex(3)}"
    try:
        root.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise ConfigError(
            f"--out {out}: cannot create the run folder ({exc.strerror or exc})"
        ) from exc
    return RunPaths(root)


def plan_run(request: RunRequest) -> RunPlan:
    """Discover the cases and expand the matrix (nothing runs). On Ray, the source and the
    configuration are taken by their whole paths: a node runs its trials from a folder of its
    own, where a relative path names nothing (docs/scale.md)."""
    cwd = request.started_in()
    source, config = request.source, request.config
    if request.executor == "ray":
        source = Path(os.path.abspath(read_against(cwd, source)))
        config = Path(os.path.abspath(read_against(cwd, config))) if config is not None else None
    others: list[str] = []  # a case --case or --tag leaves out, whose problem stops no run
    args = (request.key_folder(), request.unread, request.config_folder, others, request.chosen_by)
    try:
        return load_run_plan(source, config, request.overrides, cwd, None, *args)
    finally:  # said before an error the plan has for the cases chosen
        for said in others:
            warn(said)


def write_start_records(paths: RunPaths, plan: RunPlan, request: RunRequest) -> RunManifest:
    """The records a run folder holds before its first trial: ``config.json``,
    ``resolved.json`` and, last, the manifest ``run.json`` (returned, to be closed at the end)."""
    cwd = request.started_in()  # None: gone, recorded as none (every path given is whole)
    manifest = RunManifest(
        run_id=paths.root.name,
        proctor_version=__version__,
        started_at=now_iso(),
        argv=list(request.argv),
        host=HostInfo.here(),
        source=started_path(cwd, request.source),
        cwd=str(cwd) if cwd is not None else None,
        trials_planned=len(plan.trials),
        session_label=request.session_label,
        repetition=request.repetition,
        reporters=list(request.reporters),
        suite=run_suite_name(request, paths.root.parent),
        eval_files=list(request.eval_files),
    )
    # run.json last: a folder that has it has every record a resume reads.
    write_json(paths.config_json, config_record(plan, cwd))
    write_record(
        paths.resolved_json, resolved_record(plan, cluster_sized=cluster_sized(plan, request))
    )
    write_record(paths.run_json, manifest)
    return manifest


def run_suite_name(request: RunRequest, results_dir: Path) -> str:
    """The suite a run's findings belong to: the one ``request`` names, else its source's
    (see :func:`~proctor.paths.suite_of`). A source that is one case folder names the folder
    that holds it, the suite a run of every case there names too: one case run alone (to
    check a fix) checks the same findings."""
    if request.suite is not None:
        return request.suite
    return source_suite(read_against(request.started_in(), request.source), results_dir)


def source_suite(source: Path, results_dir: Path) -> str:
    """The suite of the cases at ``source`` (a folder of cases, one case folder, a task
    file) whose runs go to ``results_dir``: a case folder's is the folder that holds it."""
    if source.is_dir() and is_case_folder(source):
        source = Path(os.path.realpath(source)).parent  # `--source .` inside it, too
    return suite_of(source, results_dir)


def config_record(plan: RunPlan, cwd: Path | None = None) -> dict[str, Any]:
    """``config.json`` (a :class:`ConfigRecord`): the keys set in the configuration file (its
    path whole: :func:`~proctor.paths.started_path`; ``/dev/stdin`` for standard input read
    once, a pipe's or a file unlinked since, that no path names), and the CLI options not at
    defaults."""
    config_file = plan.config_path
    recorded = None
    if config_file and names_stdin(config_file) and stdin_file() is None:
        recorded = "/dev/stdin"
    elif config_file:
        recorded = started_path(cwd, config_file)
    return {
        "schemaVersion": ConfigRecord.current_schema_version,
        "configFile": recorded,
        # Environment values and add-on credentials as resolved.json keeps them: ***.
        "config": recorded_configuration(
            plan.top.model_dump(mode="json", by_alias=True, exclude_unset=True)
        ),
        "cli": plan.overrides.model_dump(mode="json", by_alias=True, exclude_defaults=True),
    }


def cluster_sized(plan: RunPlan, request: RunRequest) -> bool:
    """Whether the executor sizes the run's concurrency: Ray, without a concurrency of the
    user's, runs a trial per CPU of its cluster."""
    given = plan.overrides.concurrency is not None or plan.top.concurrency is not None
    return request.executor == "ray" and not given


def warn(message: str) -> None:
    """A warning before the run starts, masked, that stderr shows as ``proctor: warning: …``."""
    say("warning", mask(message))
