"""Several stored runs read back as one sample set (``proctor report RUN_A RUN_B …``, the runs
of a repeat manifest): their trials pooled (see :func:`pooled`), the
gate used, what the runs do not share (their gates, their suites), and each pooled trial's own
run and repeat, for reports that name it.

    read = recompute_many([Path("run-a"), Path("run-b")])
    read.suite.exit_code, read.notes, read.trials[("fix", "scripted", "default", 3)].folder
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path, PurePath
from typing import Any

from proctor.models.compact import is_compact, with_repeat
from proctor.models.config import Gate
from proctor.models.journal import unrecorded
from proctor.models.run import RunManifest, SkippedCaseRecord
from proctor.models.suite import GateFrom, PooledRun, PooledRuns, SuiteRecord
from proctor.models.trial import TrialRecord
from proctor.paths import GENERATED_SOURCES
from proctor.report.ab.pairs import Cell
from proctor.report.aggregate import aggregate
from proctor.report.distinct import check_no_trial_twice
from proctor.report.recompute import Relabel, gate_from
from proctor.report.run_wall import run_wall
from proctor.report.stored import StoredRun, load_run, run_name
from proctor.report.trial_records import TrialKey
from proctor.util.text import code_span, one_line


@dataclass(frozen=True)
class PooledTrial:
    """A pooled trial as its own run knows it."""

    run: int
    """The run's place among the runs read, from 1."""
    run_folder: str
    """The run folder's name (a run given as ``.`` named too)."""
    repeat: int
    """The trial's repeat as its run numbers it (the pooled one is numbered on across runs)."""
    folder: Path
    """The trial's folder."""

    @property
    def where(self) -> str:
        """``<run folder>/trials/<case>/<agent>/<condition>/<repeat>``."""
        return "/".join([self.run_folder, *Path(self.folder).parts[-5:]])


@dataclass(frozen=True)
class RunsRead:
    """What the Markdown report of runs read as one sample set says about them."""

    lines: Sequence[str]
    """Markdown list items (without their ``- ``): the runs read, and what they do not share."""
    wall: str
    """How the wall time shown is had: ``the sum of the 3 runs'``, or why there is none."""


@dataclass
class PooledRead:
    """Runs read as one sample set."""

    runs: list[StoredRun]
    records: list[TrialRecord]
    """Every trial of every run, the repeats numbered on from run to run."""
    suite: SuiteRecord
    notes: list[str] = field(default_factory=list)
    """What the runs do not share (their gates, their suites), one sentence each."""
    markdown: RunsRead = field(default_factory=lambda: RunsRead([], ""))

    @property
    def trials(self) -> dict[TrialKey, PooledTrial]:
        """Each pooled trial (keyed by case, agent, condition and its pooled repeat) as its
        own run knows it."""
        out: dict[TrialKey, PooledTrial] = {}
        per_run, cells = [run.records for run in self.runs], [run.cells for run in self.runs]
        offsets = repeat_offsets(per_run, cells)
        for place, (run, offset) in enumerate(zip(self.runs, offsets, strict=True)):
            for r in run.records:
                folder = run.paths.trial(r.case, r.agent, r.condition, r.repeat).root
                trial = PooledTrial(place + 1, folder_name(run), r.repeat, folder)
                out[(r.case, r.agent, r.condition, offset + r.repeat)] = trial
        return out

    @property
    def sentences(self) -> list[str]:
        """What a report other than the Markdown says of the runs read, in plain sentences:
        which runs, then what they do not share (as stderr's notes say it)."""
        names = ", ".join(folder_name(run) for run in self.runs)
        read = (
            f"Runs read as one sample set: {names} (their repeats numbered on from run to run; "
            "a trial is named by its run folder and its own repeat)."
        )
        return [read, *(f"{note[:1].upper()}{note[1:]}." for note in self.notes)]

    @property
    def folders(self) -> dict[TrialKey, Path]:
        """The folder of each pooled trial, for the reports that show a trial's own files."""
        return {key: trial.folder for key, trial in self.trials.items()}


def folder_name(run: StoredRun) -> str:
    """The run folder's name, that of a run given as ``.`` too."""
    return Path(os.path.abspath(run.paths.root)).name


def run_note(run: StoredRun, note: str) -> str:
    """A note of one of the runs read, as stderr says it: naming the run once. A note that
    names a file of the run by its path already names it; any other gets the folder's name."""
    root = str(run.paths.root)
    if root not in ("", ".") and note.startswith(root.rstrip(os.sep) + os.sep):
        return note
    return f"{folder_name(run)}: {note}"


def recompute_many(
    run_dirs: list[Path],
    config: Path | None = None,
    labels: Relabel | None = None,
    *,
    strict_annotations: bool = False,
) -> PooledRead:
    """Several runs read back and aggregated as one sample set (see
    :func:`pooled`), with the gate of ``config``, else the first run's
    (a note says when the runs' gates differ, another when they are of different suites). The
    wall time is the sum of the runs' (see :func:`proctor.report.run_wall.run_wall`) when each
    recorded one."""
    runs = [
        load_run(
            Path(d), need_gate=config is None and i == 0, strict_annotations=strict_annotations
        )
        for i, d in enumerate(run_dirs)
    ]
    check_no_trial_twice(run_dirs, [run.records for run in runs])
    records = pooled([run.records for run in runs], [run.cells for run in runs])
    if labels is not None:
        records = labels(records)
    cells = pooled_planned([run.cells for run in runs], [run.records for run in runs])
    gate, held = gate_from(config, records, cells) if config is not None else (runs[0].gate, True)
    timed = [run_wall(run) for run in runs]
    walls = [wall for wall, _ in timed]
    wall_ms = None if None in walls else sum(w for w in walls if w is not None)
    suite = aggregate(
        records,
        gate,
        run_id="+".join(run_name(run) for run in runs),
        interrupted=any(run.stopped_short for run in runs),
        planned=planned_of(runs),
        # Each run's trials its journal says started and that left no record, as one run's.
        unrecorded=sum(
            unrecorded(run.paths.journal, run.cells, run.records)
            for run in runs
            if run.stopped_short
        ),
        wall_ms=wall_ms,
        cells=cells,
        skipped_cases=skipped_of(runs),
        wall_lower_bound=any(cut for _, cut in timed),
    )
    notes, lines = [], [_runs_line(runs)]
    # A run whose resolved.json does not read had a gate no one knows (its own note says
    # so): never the default gate it is read with.
    others = [run for run in runs[1:] if run.resolved is not None and run.gate != gate]
    if config is None and others:
        first = folder_name(runs[0])
        unlike = "; ".join(f"{folder_name(run)}'s {gate_words(run.gate)}" for run in others)
        notes.append(
            f"the runs' gates differ: the first run's ({first}: {gate_words(gate)}) is used for "
            f"every trial, not {unlike} (--config FILE gives another)"
        )
        had = "; ".join(f"{_named(run)}: {gate_words(run.gate)}" for run in others)
        lines.append(
            f"The runs' gates differ: the first run's ({_named(runs[0])}) is used for every "
            f"trial; {'these runs' if len(others) > 1 else 'this run'} had another: {had} "
            "(`--config FILE` gives another)."
        )
    suites = suites_note(runs)
    if suites is not None:
        notes.append(suites[0])
        lines.append(suites[1])
    read = RunsRead(lines, _wall_words(runs, walls))
    listed = [
        _pooled_run(run, path, wall) for run, path, wall in zip(runs, run_dirs, timed, strict=True)
    ]
    update: dict[str, object] = {"pooled_runs": PooledRuns(runs=listed, notes=notes)}
    own = runs[0].gate if runs[0].resolved is not None else None
    if config is not None and own != gate:  # (`run --manifest` gives the runs' own)
        update["gate_from"] = GateFrom(config=str(config), run_gate=own, no_gate=not held)
    suite = suite.model_copy(update=update)
    return PooledRead(runs, records, suite, notes, read)


def planned_of(runs: Sequence[StoredRun]) -> int | None:
    """The trials the runs planned together; None when a run's count is not known (no
    ``run.json`` records it): a sum without it would count fewer trials than were planned."""
    counts = [run.planned for run in runs]
    return None if None in counts else sum(c for c in counts if c is not None)


def _pooled_run(run: StoredRun, path: Path, wall: tuple[float | None, bool]) -> PooledRun:
    manifest = run.manifest
    return PooledRun(
        folder=folder_name(run),
        path=str(path),
        run_id=manifest.run_id or None if manifest is not None else None,
        source=manifest.source or None if manifest is not None else None,
        trials=len(run.records),
        planned=run.planned,
        stopped_short=run.stopped_short,
        wall_ms=wall[0],
        wall_lower_bound=wall[1],
    )


def skipped_of(runs: list[StoredRun]) -> list[SkippedCaseRecord]:
    """The cases the runs found and did not run, each case and reason once (by case); a
    reason not every run gave names the runs that gave it: ``prompt.md is empty (in
    run-A: 1 of the 2 runs read)``."""
    by_reason: dict[tuple[str, str], list[str]] = {}
    for run in runs:
        for skipped in run.skipped_cases:
            names = by_reason.setdefault((skipped.case, skipped.reason), [])
            if folder_name(run) not in names:
                names.append(folder_name(run))
    out = []
    for (case, reason), names in sorted(by_reason.items(), key=lambda item: item[0][0]):
        if len(names) < len(runs):
            reason += f" (in {', '.join(names)}: {len(names)} of the {len(runs)} runs read)"
        out.append(SkippedCaseRecord(case=case, reason=reason))
    return out


def _named(run: StoredRun) -> str:
    return code_span(one_line(folder_name(run)))


def _runs_line(runs: list[StoredRun]) -> str:
    return (
        f"Runs read as one sample set: {', '.join(_named(run) for run in runs)} (their repeats "
        "numbered on from run to run; a trial is named by its run folder and its own repeat)."
    )


def suites_note(
    runs: list[StoredRun], read: str = "their trials are read as one sample set all the same"
) -> tuple[str, str] | None:
    """When the runs are of different suites (``run.json``'s ``source``): the note stderr
    says (ending with how they are ``read``), and the Markdown list item (without its ``- ``)
    that says it; else None."""
    sources = _sources(runs)
    if sources is None:
        return None
    manifests = [run.manifest for run in runs if run.manifest is not None]
    generated = any(suite_ran(m) != m.source for m in manifests)
    of, of_md = ("", "")
    if generated:
        of = ", or of a run of generated cases, its suite and evalFiles"
        of_md = ", or of a run of generated cases, its `suite` and `evalFiles`"
    note = (
        f"the runs are of different suites (run.json's source{of}): "
        + "; ".join(f"{', '.join(names)}: {source}" for source, names in sources.items())
        + f"; {read}"
    )
    line = (
        f"The runs are of different suites (`run.json`'s `source`{of_md}): "
        + "; ".join(
            f"{', '.join(code_span(one_line(n)) for n in names)}: {code_span(one_line(s))}"
            for s, names in sources.items()
        )
        + "."
    )
    return note, line


def runs_suites_note(runs: list[StoredRun], groups: Sequence[Any]) -> tuple[str, str] | None:
    """Of two runs compared group by group (``proctor compare RUN RUN2``, the viewer's Compare
    page), when they are of different suites: the note (stderr's, the page's) and the
    Markdown list item that say so and how their ``groups`` were matched; else None. Runs that
    share no group are said to be of different suites whenever they are; runs that share
    groups only when their suites' folders are named apart (``suites/api``, ``suites/cli``),
    not when they are one suite's folder in two checkouts (``main/cases``, ``branch/cases``)
    or a suite and one of its case folders."""
    if not groups:
        return suites_note(runs, "their groups are matched by case, agent and condition")
    if not suites_named_apart(runs):
        return None
    said = suites_note(
        runs, f"{matched_by(groups)}: a case of one name in both is compared as one case"
    )
    if said is None:
        return None
    return said[0], f"{said[1]} Cases of one name in both are compared as one case."


def matched_by(groups: Sequence[Any]) -> str:
    """How the groups of two runs were matched: by case, agent and condition, or by case and
    agent where each run ran its case under one condition, named apart (a baseline run, then
    a run of the change as a condition of its own)."""
    renamed = list(
        dict.fromkeys(
            f"{g.condition} vs {g.candidate_condition}"
            for g in groups
            if g.candidate_condition is not None
        )
    )
    if not renamed:
        return "their groups are matched by case, agent and condition"
    differing = f"the conditions differing: {', '.join(renamed)}"
    if all(g.candidate_condition is not None for g in groups):
        return f"their groups are matched by case and agent, {differing}"
    return (
        "their groups are matched by case, agent and condition, or by case and agent where a "
        f"case ran under one condition in each run ({differing})"
    )


def suites_named_apart(runs: list[StoredRun]) -> bool:
    """Whether two runs ran suites whose folders are named apart (``suites/api`` and
    ``suites/cli``), not one suite's folder in two checkouts (``main/cases``, ``branch/cases``)."""
    sources = [
        PurePath(source)
        for run in runs
        if run.manifest is not None and (source := suite_ran(run.manifest))
    ]
    # A run of one case folder (or task file) of the other run's suite is of that suite.
    if any(a != b and a.is_relative_to(b) for a in sources for b in sources):
        return False
    return len({source.name for source in sources}) > 1


def _sources(runs: list[StoredRun]) -> dict[str, list[str]] | None:
    """Each suite the runs ran (see :func:`suite_ran`) and the runs that ran it, when there
    are two or more (a run whose ``run.json`` names none is listed as such)."""
    by_source: dict[str, list[str]] = {}
    for run in runs:
        source = suite_ran(run.manifest) if run.manifest is not None else None
        by_source.setdefault(source or "not recorded", []).append(folder_name(run))
    known = [s for s in by_source if s != "not recorded"]
    return by_source if len(known) > 1 else None


def suite_ran(manifest: RunManifest) -> str | None:
    """The suite a run ran, as reports of several runs tell them apart: its ``source``; for
    a run of the cases proctor writes for each run into a folder of its own (``proctor
    eval``'s ``evals-src/<timestamp>``, ``proctor run --prompt``'s ``inline/<timestamp>``),
    the suite it recorded and, of an eval run, the eval files it ran
    (``app/evals (builds/index.eval.py)``)."""
    source = manifest.source
    if not source or PurePath(source).parent.name not in GENERATED_SOURCES:
        return source
    if not manifest.suite:  # (a run of a proctor that recorded no suite)
        return source
    files = ", ".join(manifest.eval_files)
    return f"{manifest.suite} ({files})" if files else manifest.suite


def _wall_words(runs: list[StoredRun], walls: Sequence[float | None]) -> str:
    if None not in walls:
        return f"the sum of the {len(runs)} runs'"
    said = []
    for by_record, why in (
        (False, "no journal.jsonl or suite.json of it dates it"),
        (True, "a recorded session whose transcript gives no times"),
    ):
        missing = [
            _named(run)
            for run, wall in zip(runs, walls, strict=True)
            if wall is None and (run.manifest is not None and run.manifest.by_record) is by_record
        ]
        if missing:
            recorded = "recorded none" if len(missing) == 1 else "each recorded none"
            said.append(f"{', '.join(missing)} {recorded}: {why}")
    return "; ".join(said)


def gate_words(gate: Gate) -> str:
    """A gate as the reports' `Gate:` line says it (``minPassRate 1.0, minScore 60``, ``A/B
    with-skill vs baseline (maxPassRateDrop 0.1)``), or ``no gate``."""
    fields = gate.model_dump(by_alias=True, exclude_none=True, exclude={"ab"})
    parts = [f"{k} {v}" for k, v in fields.items()]
    if gate.ab is not None:
        parts.append(
            f"A/B {gate.ab.treatment} vs {gate.ab.baseline} "
            f"(maxPassRateDrop {gate.ab.max_pass_rate_drop})"
        )
    return ", ".join(parts) or "no gate"


def gate_line(suite: SuiteRecord, markdown: bool = False) -> str:
    """The reports' `Gate:` line after its label, the same in the Markdown and the HTML report:
    the thresholds applied (``none (always passes)``), and where they come from when they are
    not the run's own (see :func:`gate_source_words`)."""
    what = gate_words(suite.gate)
    source = gate_source_words(suite, markdown=markdown)
    return ("none (always passes)" if what == "no gate" else what) + (
        f" ({source})" if source else ""
    )


def gate_source_words(suite: SuiteRecord, markdown: bool = False) -> str | None:
    """Where the report's gate comes from when it is not the run's own (``--config FILE``
    giving another, or the run's own not known), and what the run's own is: ``from g.json,
    given with --config; the run's own gate is minPassRate 1.0`` (its names in code spans for
    the ``markdown`` report; of a file that holds no gate, ``proctor's default: g.json, given
    with --config, holds no gate; …``); else None."""
    source = suite.gate_from
    if source is None:
        return None
    code = (lambda text: code_span(one_line(text))) if markdown else (lambda text: text)
    whose = "the first run's gate" if suite.pooled_runs is not None else "the run's own gate"
    head = (
        f"proctor's default: {code(source.config)}, given with {code('--config')}, holds no gate"
        if source.no_gate
        else f"from {code(source.config)}, given with {code('--config')}"
    )
    if source.run_gate is None:
        return (
            f"{head}; {whose} is not known ({code('resolved.json')}, which holds it, does not read)"
        )
    return f"{head}; {whose} is {gate_words(source.run_gate)}"


def pooled(
    records_per_run: list[list[TrialRecord]], cells_per_run: Sequence[Sequence[Cell]] = ()
) -> list[TrialRecord]:
    """Several runs' trials as one sample set, each run's repeats shifted past the previous
    runs' (recorded or planned: ``cells_per_run``, each run's matrix, when known), so the
    trials of one repeat stay together and A/B pairs form within a run as they did."""
    out: list[TrialRecord] = []
    offsets = repeat_offsets(records_per_run, cells_per_run)
    for records, offset in zip(records_per_run, offsets, strict=True):
        out += [
            with_repeat(r, offset + r.repeat)
            if is_compact(r)
            else r.model_copy(update={"repeat": offset + r.repeat})
            for r in records
        ]
    return out


def repeat_offsets(
    records_per_run: list[list[TrialRecord]], cells_per_run: Sequence[Sequence[Cell]] = ()
) -> list[int]:
    """How far :func:`pooled` shifts each run's repeats: past the previous runs' last repeat,
    recorded or planned (a repeat planned and never started keeps its place)."""
    planned = list(cells_per_run) or [()] * len(records_per_run)
    offsets, offset = [], 0
    for records, cells in zip(records_per_run, planned, strict=True):
        offsets.append(offset)
        offset += max(chain((r.repeat for r in records), (c[3] for c in cells)), default=0)
    return offsets


def pooled_planned(
    cells_per_run: Sequence[Sequence[Cell]], records_per_run: list[list[TrialRecord]]
) -> list[Cell]:
    """The trials the runs planned (each run's matrix), numbered as :func:`pooled` numbers
    their records: every repeat planned and not complete is an incomplete pair."""
    offsets = repeat_offsets(records_per_run, cells_per_run)
    return [
        (c, a, k, offset + n)
        for cells, offset in zip(cells_per_run, offsets, strict=True)
        for c, a, k, n in cells
    ]
