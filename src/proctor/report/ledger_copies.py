"""The runs the findings ledger has yet to take in, each once: a copy of a run (a folder whose
``run.json`` gives the id of a run taken in, or taken in from another folder) is left out, said
once, and recorded in the ledger's ``copies`` so that it is neither said nor read again. A copy
of a run that is itself pending is recorded only once that run is applied: until then the run
may fail to read, or its folder be removed, leaving the copy the run's only folder."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from proctor.models.findings import FindingsLedger

__all__ = ["PendingRun", "RunCopy", "copies_held_back", "each_run_once"]


class PendingRun(NamedTuple):
    root: Path
    suite: str | None
    """The suite it ran (see :func:`proctor.report.findings.run_suite`)."""
    interrupted_at: str | None = None
    """Its ``finishedAt`` when it was interrupted (a ``--resume`` may add to it later)."""
    run_id: str = ""
    """The run id its ``run.json`` records (its folder's name, unless copied or renamed)."""


class RunCopy(NamedTuple):
    name: str
    """Its folder's name."""
    run_id: str
    """The run id its ``run.json`` gives."""
    note: str
    """What to say of it once it is recorded."""
    original: str | None = None
    """The folder of the pending run it copies, None when that run was applied already: the
    copy is recorded (and said) only once that folder is applied."""


def each_run_once(
    ledger: FindingsLedger, pending: list[PendingRun]
) -> tuple[list[PendingRun], list[RunCopy]]:
    """``pending`` without the copies of a run (a folder whose ``run.json`` gives the id of a
    run applied or pending under another name): applied twice, its failures would count
    twice. Each is returned for the ledger to record and say; of a run's folders, the one its
    id names goes first."""
    applied: dict[str, str] = {}  # run id -> the folder it was taken from
    for name in ledger.runs:  # (the id the ledger recorded; a run an older proctor applied
        # has one once its folder's run.json read, see known_suites; else its folder's name)
        applied.setdefault(ledger.run_ids.get(name, name), name)
    by_id: dict[str, PendingRun] = {}
    copies: list[RunCopy] = []
    for run in sorted(pending, key=lambda r: r.root.name != r.run_id):
        if run.run_id in applied or run.run_id in by_id:
            first = by_id.get(run.run_id)
            took = f"takes in from {first.root.name}" if first else "took in already"
            if not first and applied[run.run_id] != run.run_id:
                took += f" from {applied[run.run_id]}"
            note = (
                f"{run.root}: a copy of the run {run.run_id} (its run.json gives that run id), "
                f"which the findings ledger {took}; not applied again, or its failures would "
                "count twice (the ledger records it as a copy, so this is said once)"
            )
            original = first.root.name if first else None
            copies.append(RunCopy(run.root.name, run.run_id, note, original))
        else:
            by_id[run.run_id] = run
    kept = {id(run) for run in by_id.values()}
    return [run for run in pending if id(run) in kept], copies


def copies_held_back(results_dir: Path, copies: list[RunCopy], original: str) -> list[str]:
    """A note for each of ``copies`` of the pending run in ``original``, which does not read:
    the copy is held back with it (neither applied nor recorded), said each time, as the run
    is, so it is not left out unsaid."""
    return [
        f"{results_dir / copy.name}: a copy of the run {copy.run_id} (its run.json gives that "
        f"run id), held back with {original}, whose records do not read: applied neither as "
        "the run nor as its copy until that run is applied (then recorded as its copy) or "
        "its folder is removed (then applied in its stead)"
        for copy in copies
        if copy.original == original
    ]
