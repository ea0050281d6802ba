"""The body of a run once its folder and records are there: its trials executed, then the
run finished (aggregated with the records a resume kept, its reports written, its manifest
and journal closed, its findings ledger updated), stops honoured at each point."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable

from proctor.errors import ProctorError
from proctor.execute.context import WorkerOptions, was_interrupted
from proctor.execute.events import RunEvent, Subscriber, TrialStarted
from proctor.execute.executor import EXECUTORS, RunOutcome
from proctor.execute.refused import StopOnRefusedKey
from proctor.models.compact import compact, is_compact
from proctor.models.io import read_record, write_record
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.run import RunManifest, SkippedCaseRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.session import journal
from proctor.session.reports import update_ledger, write_reports
from proctor.session.request import RunRequest, RunResult
from proctor.session.start import cluster_sized, warn
from proctor.util.clock import ms_since, now_iso
from proctor.util.signals import HeldStops, ignore_stops

REPORTING = ("proctor.report.aggregate", "proctor.report.reporters")
"""The stage after the trials: the parent imports it once the first trial is running (see
:class:`LoadReportingEarly`)."""


class LoadReportingEarly:
    """A subscriber that imports the reporting stage when the first trial starts.

    Until then the parent needs only what plans and runs trials, which the forked workers
    share; the aggregate, the reporters and ``suite.json``'s models are the parent's alone
    and come after the trials. Imported while the first trial runs, on the machine's other
    core, they cost a short run nothing.
    """

    def __init__(self) -> None:
        self.loaded = False

    def __call__(self, event: RunEvent) -> None:
        if not self.loaded and isinstance(event, TrialStarted):
            self.loaded = True
            for module in REPORTING:
                importlib.import_module(module)


def execute_and_finish(
    plan: RunPlan,
    request: RunRequest,
    paths: RunPaths,
    manifest: RunManifest,
    trials: list[TrialSpec],
    kept: list[TrialRecord],
    subscribers: list[Subscriber],
    *,
    held: bool = False,
    stops: HeldStops | None = None,
) -> RunResult:
    """Run ``trials`` into the run folder, then aggregate them with the ``kept`` records (of
    trials that finished before a resume), render the reporters, close the manifest and the
    journal, and update the findings ledger (``held``: it took the run in before this
    resume, without keeping it as interrupted, so that what the resume adds is not applied).

    A stop (Ctrl-C or SIGTERM) that ``stops`` noted since the run folder was made (or the
    resume began) ends the run before its first trial; one from then until the aggregate is
    written ends it as interrupted, the aggregate saying so; one after that cuts short only
    the ledger's update (the next run applies it), and the run ends as its files say."""
    started = time.monotonic()
    # A resumed run's wall time counts the stretches that ran it before this one too.
    before_ms = journal.earlier_wall_ms(paths.journal)
    late = HeldStops()
    try:
        if stops is not None:
            stops.release()  # a stop noted since the run folder was made is raised here
        refused = StopOnRefusedKey()  # a key a provider refused: no trial that meets it starts
        factory = EXECUTORS[request.executor]
        executor = factory(request.executor_address) if request.executor_address else factory()
        outcome = executor.run(
            trials,
            paths,
            concurrency=None if cluster_sized(plan, request) else plan.concurrency,
            options=WorkerOptions(
                keep_workspace=plan.overrides.keep_workspace,
                mirror=plan.overrides.mirror,
                retry_errors=plan.overrides.retry_errors,
                limits=plan.top.limits,
                dotenv_dir=request.key_folder(),
            ),
            subscribers=[
                LoadReportingEarly(),
                journal.Journal(paths.journal),
                refused,
                *subscribers,
            ],
            held_back=refused.holds,
        )
        # Why it stopped short, when it did for a refused key: its exit reason says it (the
        # line on stderr, the reports, run.json), once.
        because = refused.cause(len(trials) - outcome.count) if outcome.requested else None
        late.hold()  # the trials are done: a stop is noted until the aggregate is written
    except KeyboardInterrupt:
        # A Ctrl-C or SIGTERM the executor's own stop did not take (before it began, or the
        # instant after its end): the trials that ended are read back from their records.
        late.ignore()
        outcome = _read_back(trials, paths)
        because = None
    try:
        outcome.interrupted = outcome.interrupted or bool(late.came)
        result = _finish(plan, request, paths, manifest, kept, outcome, started, before_ms, because)
        if late.came and not outcome.interrupted:
            # It came while the aggregate was written: written again, as interrupted, so that
            # the run's files and its exit code (130) agree.
            outcome.interrupted = True
            result = _finish(
                plan, request, paths, manifest, kept, outcome, started, before_ms, because
            )
    except BaseException:
        late.release()
        raise
    update_ledger(request, paths, result, late, held=held)
    return result


def _read_back(trials: list[TrialSpec], paths: RunPaths) -> RunOutcome:
    """The run stopped as the executor returned: each trial's record as written (a trial
    without one runs again on --resume), the run interrupted, and further stops ignored while
    it is written (as after any stop; the command restores them)."""
    from proctor.models.io import read_trial

    ignore_stops()
    outcome = RunOutcome(interrupted=True)
    for spec in trials:
        try:
            record, _ = read_trial(paths.trial(*spec.key).trial_json)
        except (OSError, ValueError, ProctorError):  # none (never started), or unreadable
            continue
        outcome.add(record)
    return outcome


def _whole(
    paths: RunPaths, kept: list[TrialRecord], annotate: Callable[[TrialRecord], TrialRecord]
) -> list[TrialRecord]:
    """The kept records as models: those held as compact stand-ins read again from their
    ``trial.json`` (only when a caller asks for every record)."""
    return [
        annotate(read_record(paths.trial(*_key(r)).trial_json, TrialRecord)) if is_compact(r) else r
        for r in kept
    ]


def _finish(
    plan: RunPlan,
    request: RunRequest,
    paths: RunPaths,
    manifest: RunManifest,
    kept: list[TrialRecord],
    outcome: RunOutcome,
    started: float,
    before_ms: float = 0.0,
    because: str | None = None,
) -> RunResult:
    from proctor.report.aggregate import aggregate  # loaded by now (LoadReportingEarly)
    from proctor.report.annotations import annotator, read_annotations

    order = {spec.key: spec.index for spec in plan.trials}

    def ordered(records: list[TrialRecord]) -> list[TrialRecord]:
        return sorted(records, key=lambda r: order.get(_key(r), len(order)))

    # People's marks (proctor annotate) count as `proctor report` counts them (a record kept as
    # a compact stand-in was annotated when read: see resume); a file edited by hand meanwhile
    # that no longer reads is said, not passed over: the run is read without it.
    notes: list[str] = []
    annotate = annotator(read_annotations(paths.root, notes))
    for note in notes:
        warn(f"{note}: mend it, then `proctor report {paths.root} --write`")
    kept = [record if is_compact(record) else annotate(record) for record in kept]
    # The aggregate and the reports read compact stand-ins, a fifth of the records' memory.
    records = ordered(
        [*(r if is_compact(r) else compact(r) for r in kept), *outcome.compact_records(annotate)]
    )
    suite = aggregate(
        records,
        plan.gate,
        run_id=paths.root.name,
        skipped_cases=[SkippedCaseRecord(case=s.name, reason=s.reason) for s in plan.skipped],
        interrupted=outcome.interrupted,
        planned=len(plan.trials),
        wall_ms=round(before_ms + ms_since(started), 3),
        wall_lower_bound=journal.earlier_cut(paths.journal),
        cells=[spec.key for spec in plan.trials],
        stopped_because=because if outcome.interrupted else None,
    )
    now = tuple(name for name in request.reporters if name != "html")  # html: after the ledger
    outputs = write_reports(paths, suite, records, now, step_summary=False)
    manifest.finished_at = now_iso()
    manifest.trials_finished = len(records)
    manifest.interrupted = outcome.interrupted
    manifest.stopped_because = because if outcome.interrupted else None
    write_record(paths.run_json, manifest)
    journal.note(paths.journal, "run-finished")
    ended = sum(not was_interrupted(r.reason) for r in records)
    return RunResult(
        paths,
        suite,
        lambda: ordered([*_whole(paths, kept, annotate), *map(annotate, outcome.records)]),
        outputs,
        ended_now=ended - len(kept),
        left=len(plan.trials) - ended,
        report_records=records,
        reporters=tuple(request.reporters),
        stopped_because=manifest.stopped_because,
    )


def _key(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.case, record.agent, record.condition, record.repeat)
