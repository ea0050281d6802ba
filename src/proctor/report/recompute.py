"""Recomputing a stored run's aggregate from its trials, as ``proctor report`` does: with the
run's own gate (its ``resolved.json``'s), or another configuration file's, checked against
the conditions the run ran or planned. Nothing here re-runs an agent or an evaluator.

    run, suite = recompute("proctor-results/run-20261201T120000Z-abc123")
    suite.exit_code, suite.ab_gate
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from proctor.errors import ConfigError
from proctor.models.compact import compact
from proctor.models.config import Gate
from proctor.models.gating import applied_gate
from proctor.models.journal import unrecorded
from proctor.models.loading import load_top_config
from proctor.models.suite import GateFrom, SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.run_wall import run_wall
from proctor.report.stored import StoredRun, load_run, run_name


def check_own_gate(
    suite: SuiteRecord,
    records: Iterable[TrialRecord],
    cells: Iterable[tuple[str, str, str, int]],
    pooled: bool = False,
) -> None:
    """A ConfigError (exit 2) for a run whose own A/B gate (its ``resolved.json``'s
    ``gate.ab``, the first run's of several) names a condition the runs neither ran nor
    planned (a ``resolved.json`` edited by hand, or of another run): the gate could only fail
    for want of a pair, which would read as a regression; `proctor compare RUN` refuses it
    alike, and so does :func:`proctor.recompute_run` of the run without a ``config``. A
    condition planned and never reached is gated on, and fails."""
    from proctor.report.ab.choose import gate_missing

    ab = suite.gate.ab
    if ab is None:
        return
    names = {r.condition for r in records} | {cell[2] for cell in cells}
    said = gate_missing(
        (ab.treatment, ab.baseline), names, "the first run's" if pooled else "the run's"
    )
    if said is not None:
        raise ConfigError(
            f"{said}, so it could only fail; `proctor report RUN --config FILE` applies "
            "another file's gate"
        )


def config_gate(config: Path) -> Gate | None:
    """The gate a configuration file holds; None when it holds none."""
    top, _ = load_top_config(config, None)  # (a path given: the current folder is not read)
    return top.gate


def gate_from(
    config: Path, records: list[TrialRecord], cells: Iterable[tuple[str, str, str, int]] = ()
) -> tuple[Gate, bool]:
    """The gate of another configuration file, checked against the conditions that ran or
    were planned (``cells``, the run's matrix: a run stopped before a condition ran has it),
    and whether the file holds one (when not, the gate is proctor's default)."""
    held = config_gate(config)
    gate = applied_gate(held)
    ran = {r.condition for r in records} | {cell[2] for cell in cells}
    for name in (gate.ab.treatment, gate.ab.baseline) if gate.ab is not None else ():
        if name not in ran:
            raise ConfigError(
                f"{config}: field 'gate.ab': condition '{name}' is not in this run "
                f"(conditions: {', '.join(sorted(ran))})"
            )
    return gate, held is not None


Relabel = Callable[[list[TrialRecord]], list[TrialRecord]]


def recompute(
    run_dir: Path | str,
    config: Path | None = None,
    labels: Relabel | None = None,
    *,
    compact_records: bool = False,
    strict_annotations: bool = False,
) -> tuple[StoredRun, SuiteRecord]:
    """The stored run and its aggregate recomputed from its trials (with the gate of
    ``config`` when given, else the run's own; ``labels`` rewrites the trials' labels). With
    ``compact_records`` the run's records are compact stand-ins (see :func:`load_run`)."""
    root = Path(run_dir)
    run = load_run(
        root,
        need_gate=config is None,
        compact_records=compact_records and labels is None,
        strict_annotations=strict_annotations,
    )
    if labels is not None:
        run.records = labels(run.records)
        if compact_records:
            run.records = [compact(r) for r in run.records]
    gate, held = (
        gate_from(config, run.records, run.cells) if config is not None else (run.gate, True)
    )
    wall = run_wall(run)
    suite = aggregate(
        run.records,
        gate,
        run_id=run_name(run),
        skipped_cases=run.skipped_cases,
        interrupted=run.stopped_short,
        planned=run.planned,
        unrecorded=run.stopped_short and unrecorded(run.paths.journal, run.cells, run.records),
        wall_ms=wall[0],
        cells=run.cells,
        wall_lower_bound=wall[1],
        wall_session=run.manifest is not None and run.manifest.by_record,
        stopped_because=run.manifest.stopped_because
        if run.manifest is not None and run.stopped_short
        else None,
    )
    own = run.gate if run.resolved is not None else None
    if config is not None and own != gate:  # the report says its gate is not the run's own
        source = GateFrom(config=str(config), run_gate=own, no_gate=not held)
        suite = suite.model_copy(update={"gate_from": source})
    return run, suite
