"""What the latest run of a suite did with an open finding's case × agent × condition, as
``proctor findings`` says it of the findings that run did not check: ran it without a result,
was cut short before it, skipped its case, ran it on other agents or conditions only, or
left it out (gone)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from proctor.util.text import one_line

if TYPE_CHECKING:
    from proctor.models.findings import Finding
    from proctor.models.run import RunManifest
    from proctor.models.trial import TrialRecord

Cell = tuple[str, str, str]


class Cells(NamedTuple):
    """What a stored run recorded of its cells (case × agent × condition)."""

    checked: set[Cell]
    """Those that recorded a check (or whose evaluators left every check out)."""
    cut: set[Cell]
    """Those with a trial a stop cut short (or that the ledger has not taken in yet)."""
    recorded: set[Cell]
    """Those with any trial recorded."""
    unread: dict[Cell, list[Path]]
    """The ``trial.json`` files of each that do not read."""
    unevaluated: dict[Cell, set[str]]
    """Those whose every trial ran without being evaluated, with why, as their reasons say
    (``--no-evaluate``; see :func:`~proctor.models.trial.not_evaluated_cause`)."""


def other_cells(folder: Path, run: str | None, finding: Finding) -> str:
    """The agents and conditions (``claude-code/default, …``) run ``run`` ran the finding's case
    on, when it ran the case but not on the finding's agent and condition; else ``""``."""
    if run is None:
        return ""
    case = folder / run / "trials" / finding.case
    try:
        if case.joinpath(finding.agent, finding.condition).is_dir():
            return ""
        cells = sorted(f"{a.name}/{c.name}" for a in case.iterdir() for c in a.iterdir())
    except (OSError, ValueError):  # no trial of the case, or a name that is no folder's
        return ""
    return ", ".join(one_line(cell) for cell in cells)


def cell_in(
    folder: Path,
    run: str | None,
    finding: Finding,
    told: dict[str, Cells | None],
    cuts: dict[str, str],
) -> str:
    """What run ``run`` of the results directory ``folder`` did with the finding's case ×
    agent × condition: ``checked`` (it recorded a check of the cell, or its evaluators left
    every check out, see :func:`left_out`: the finding's is gone, renamed, relabelled,
    restricted to other conditions or left out), ``cut`` (a stop cut a trial of it short, or
    the ledger has not taken its trials in yet: a ``--resume`` ran them after the time the
    ledger read the interrupted run at, ``cuts``, and is running or was stopped), ``unread``
    (it recorded no check, and the record of a trial of it does not read: nothing is known of
    that trial, see ``told[run].unread``), ``ran`` (it ran the cell without recording any
    check: each trial ended in a status that says nothing of one, an error, a timeout, a skip,
    a trial not evaluated, see ``told[run].unevaluated``, an exclusion by ``proctor
    annotate``) or ``absent`` (no trial of it, or the run does not read). ``told``: each run's
    cells, read once."""
    if run is None:
        return "absent"
    cell = (finding.case, finding.agent, finding.condition)
    try:
        if not folder.joinpath(run, "trials", *cell).is_dir():
            return "absent"
    except (OSError, ValueError):  # a name that is no folder's
        return "absent"
    if run not in told:
        told[run] = cells_told(folder / run, cuts.get(run))
    cells = told[run]
    if cells is None:
        return "absent"
    if cell in cells.checked:
        return "checked"
    if cell in cells.cut:
        return "cut"
    if cell in cells.unread:
        return "unread"
    # No trial of it recorded: one is running (a resume's), or a stop killed it mid-way.
    return "ran" if cell in cells.recorded else "absent"


def cells_told(run_dir: Path, since: str | None) -> Cells | None:
    """The cells of a stored run that recorded a check, and those with a trial a stop cut
    short or that started after ``since`` (when the ledger read the run, interrupted: a
    resume's trial, which the ledger takes in when the resume finishes); None when the run
    does not read (the ledger has not taken it in either). A trial whose record does not read
    is listed by its ``trial.json``; a cell whose every trial was not evaluated, by why."""
    from proctor.errors import ProctorError
    from proctor.execute.context import was_interrupted
    from proctor.models.trial import not_evaluated_cause
    from proctor.paths import RunPaths
    from proctor.report.checks import started_after, started_instant, stored_trial_checks
    from proctor.report.trial_records import is_stand_in

    checked: set[Cell] = set()
    cut: set[Cell] = set()
    recorded: set[Cell] = set()
    unread: dict[Cell, list[Path]] = {}
    causes: dict[Cell, set[str]] = {}
    evaluated: set[Cell] = set()  # (a trial not said to be left unevaluated)
    read_at = started_instant(since)
    try:
        for record, results in stored_trial_checks(run_dir):
            cell = (record.case, record.agent, record.condition)
            recorded.add(cell)
            cause = not_evaluated_cause(record.reason)
            if cause is None:
                evaluated.add(cell)
            else:
                causes.setdefault(cell, set()).add(cause)
            if is_stand_in(record):
                trial = RunPaths(run_dir).trial(*cell, record.repeat)
                unread.setdefault(cell, []).append(trial.trial_json)
            if started_after(record, read_at):
                cut.add(cell)
            elif results or left_out(record):
                checked.add(cell)
            elif was_interrupted(record.reason):
                cut.add(cell)
    except (ProctorError, OSError):
        return None
    unevaluated = {cell: why for cell, why in causes.items() if cell not in evaluated}
    return Cells(checked, cut, recorded, unread, unevaluated)


def left_out(record: TrialRecord) -> bool:
    """A trial judged fairly (``passed`` or ``failed``) whose evaluators ran, none in error,
    and recorded no check: each was left out under its condition (an entry's
    ``conditions``) or is not counted. No later run checks them there: they are gone, not
    waiting for a result (a trial annotated failed after an error ran no evaluator)."""
    from proctor.report.checks import is_evidence

    return (
        is_evidence(record)
        and bool(record.evaluators)
        and not any(result.error for result in record.evaluators)
    )


def cut_short(folder: Path, run: str, kept: bool) -> tuple[str, frozenset[str]]:
    """How run ``run`` was cut short, with the cases it was to run (its ``resolved.json``'s):
    ``interrupted`` (its ``run.json`` says so, and the ledger keeps it as interrupted: what a
    resume adds is applied, ``kept``), ``unkept`` (interrupted, and a ledger of an older
    proctor took it in: a resume would not be applied) or ``resumed`` (that, then resumed, and
    stopped again); ``""`` and none when it was not cut short (a resume that finished it
    reached every case), or a file cannot be read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ResolvedRecord, RunManifest
    from proctor.paths import RunPaths

    paths = RunPaths(folder / run)
    try:
        manifest = read_record(paths.run_json, RunManifest)
        if not manifest.interrupted:  # (a resume that finished left no case unreached)
            how = ""
        elif kept:
            how = "interrupted"
        else:
            how = "resumed" if manifest.resumed_at else "unkept"
        if not how:
            return "", frozenset()
        resolved = read_record(paths.resolved_json, ResolvedRecord)
    except (ProctorError, OSError, ValueError):
        return "", frozenset()
    return how, frozenset(case.case for case in resolved.cases)


def skipped_cases(folder: Path, run: str) -> dict[str, str]:
    """The cases run ``run`` skipped (a case folder that did not load), with why (its
    ``resolved.json``'s); none when it cannot be read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import ResolvedRecord
    from proctor.paths import RunPaths

    try:
        resolved = read_record(RunPaths(folder / run).resolved_json, ResolvedRecord)
    except (ProctorError, OSError, ValueError):
        return {}
    return {skip.case: skip.reason for skip in resolved.skipped}


def chosen_by(folder: Path, run: str | None) -> str:
    """The part of its suite run ``run`` chose: the ``--case`` and ``--tag`` options it was
    started with, as its ``run.json`` records its command (``--case fix-a-bug``), or the one
    case folder its ``--source`` named (``the case folder suites/api/login alone``); ``""``
    when it chose no part of its suite so, or cannot be read."""
    from proctor.errors import ProctorError
    from proctor.models.io import read_record
    from proctor.models.run import RunManifest
    from proctor.paths import RunPaths

    if run is None:
        return ""
    try:
        manifest = read_record(RunPaths(folder / run).run_json, RunManifest)
    except (ProctorError, OSError, ValueError):
        return ""
    argv = manifest.argv
    chosen: list[str] = []
    alone = _case_folder_alone(manifest, folder)
    if alone:
        chosen.append(f"the case folder {alone} alone")
    for i, arg in enumerate(argv):
        for option in ("--case", "--tag"):
            if arg == option and i + 1 < len(argv):
                chosen.append(f"{option} {argv[i + 1]}")
            elif arg.startswith(f"{option}="):
                chosen.append(f"{option} {arg.partition('=')[2]}")
    return one_line(" ".join(chosen))


def _case_folder_alone(manifest: RunManifest, folder: Path) -> str:
    """The case folder a run's ``--source`` named, as its suite names it
    (``suites/api/login``), when the run ran that one case of the suite holding it; ``""``
    when its source was the suite itself (or another source, or none)."""
    import os

    from proctor.paths import suite_of

    if not manifest.source or not manifest.suite:
        return ""
    source = os.path.join(manifest.cwd or "", manifest.source)
    if not os.path.isabs(source):  # a run that did not record where it ran
        return ""
    if suite_of(source, folder) == manifest.suite:
        return ""
    if suite_of(os.path.dirname(os.path.realpath(source)), folder) != manifest.suite:
        return ""
    return f"{manifest.suite}/{os.path.basename(os.path.realpath(source))}"
