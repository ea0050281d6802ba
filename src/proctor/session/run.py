"""One run: a results folder with its manifest, configuration, every trial, the aggregate and
the reporters' files (see :mod:`proctor.paths` for the layout)."""

from __future__ import annotations

import importlib
import os
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proctor._version import __version__
from proctor.discover.folders import is_case_folder
from proctor.errors import ConfigError, ProctorError
from proctor.execute.context import WorkerOptions, was_interrupted
from proctor.execute.events import RunEvent, Subscriber, TrialStarted
from proctor.execute.executor import EXECUTORS, RunOutcome
from proctor.models.compact import compact, is_compact
from proctor.models.config import CliOverrides
from proctor.models.io import read_record, write_json, write_record
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.run import ConfigRecord, HostInfo, RunManifest, SkippedCaseRecord
from proctor.models.trial import TrialRecord
from proctor.paths import (
    RunPaths,
    current_folder,
    names_stdin,
    read_against,
    started_path,
    stdin_file,
    suite_of,
)
from proctor.plan.checks import check_keys, check_out_outside_cases, check_writable, preflight
from proctor.plan.records import recorded_configuration, resolved_record
from proctor.plan.resolve import load_run_plan, nothing_runnable
from proctor.session import journal
from proctor.util.clock import ms_since, now_iso
from proctor.util.files import missing_folders, remove_empty_folders, remove_tree
from proctor.util.logs import say
from proctor.util.masking import mask
from proctor.util.signals import HeldStops, ignore_stops
from proctor.util.text import fitted_summary

if TYPE_CHECKING:
    from proctor.models.suite import FindingChange, SuiteRecord

REPORTING = ("proctor.report.aggregate", "proctor.report.reporters")
"""The stage after the trials: the parent imports it once the first trial is running (see
:class:`LoadReportingEarly`)."""

STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


@dataclass(frozen=True)
class RunRequest:
    """What to run: a source of cases, the configuration file, the command-line overrides."""

    source: Path = Path(".")
    config: Path | None = None
    overrides: CliOverrides = field(default_factory=CliOverrides)
    reporters: tuple[str, ...] = ("markdown",)
    executor: str = "local"
    executor_address: str | None = None
    """The cluster the executor runs on (``--ray-address``); None: the executor's default."""
    argv: tuple[str, ...] = ()
    cwd: Path | None = None
    """The folder the run was started in, which its relative paths are read against (a
    resume's: the run's); None: the current folder (see :meth:`started_in`)."""
    session_label: str | None = None
    """The run's label in a repeat manifest, recorded in ``run.json``."""
    repetition: int | None = None
    """Which repetition of ``--repeat-check`` this run is (1 to N), recorded in ``run.json``."""
    suite: str | None = None
    """The suite the run's findings belong to, when proctor generated its cases (an inline
    case, an eval project's); None: named by ``source`` (see :func:`run_suite_name`)."""
    eval_files: tuple[str, ...] = ()
    """The eval files whose cases a run of ``proctor eval`` runs, recorded in ``run.json``."""
    dotenv_dir: Path | None = None
    """The folder whose ``.env`` holds the provider keys of proctor's roles (with the
    environment); None: ``cwd`` (a resume's is the folder the run was started in)."""
    keys_checked: bool = False
    """The roles' keys were checked already (a manifest checks every pair's at once): the
    run does not ask the providers again."""
    agents_checked: bool = False
    """The agent CLIs were checked already (:func:`~proctor.plan.checks.preflight`: a
    manifest checks every pair's at once): the run does not check them again."""
    unread: tuple[str, ...] = ()  # keys of the config file the run leaves unset (eval's)
    config_folder: Path | None = None  # where proctor.json is looked for (eval: its project)
    chosen_by: str | None = None  # what a warning on a case left out names for --case: a manifest
    ends_command: bool = field(default=False, compare=False)
    """Whether the command ends with this run: once its reports are written, stops are ignored."""

    def started_in(self) -> Path | None:
        """The folder the run was started in: :attr:`cwd`, else the current one; None when
        that is gone (a shell left in a folder removed meanwhile). Such a run reads no
        ``./proctor.json`` nor ``./.env``, refuses a relative path (in the sentence
        :data:`~proctor.paths.CURRENT_FOLDER_GONE`, exit 2) and records no folder it was
        started in (``run.json``'s ``cwd`` null: a resume reads the ``.env`` of the folder it
        runs in)."""
        return self.cwd if self.cwd is not None else current_folder()

    def key_folder(self) -> Path | None:
        """The folder whose ``.env`` the run reads for the roles' keys (None: the current
        folder is gone, and holds none)."""
        return self.dotenv_dir or self.started_in()


@dataclass
class RunResult:
    """A finished run: where it is, its aggregate, every trial, each reporter's output."""

    paths: RunPaths
    suite: SuiteRecord
    read_records: Callable[[], list[TrialRecord]] = field(repr=False)  # (for :attr:`records`)
    outputs: dict[str, str] = field(default_factory=dict)
    """Reporter name → what it rendered (also written to its file in the run folder)."""
    ended_now: int = 0
    """Trials this call ran to their end (an interrupt cut none of them short)."""
    left: int = 0
    """Planned trials without an ended record: never started, or cut short by an interrupt
    (what a ``--resume`` runs)."""
    report_records: list[TrialRecord] = field(default_factory=list, repr=False)
    """The compact records the reports were rendered from."""
    reporters: tuple[str, ...] = ()
    """The reporters the run printed, in order (a resume given none: the run's own)."""
    kept_rerunnable: int = 0  # of the trials a resume kept, those --retry-errors would rerun
    errors_rerun: int = 0  # (and of those it found, those its own --retry-errors ran again)

    @cached_property
    def records(self) -> list[TrialRecord]:
        """Every trial's record, in the plan's order (read once, when first asked for: a run
        of many trials aggregates from compact stand-ins and never holds them all)."""
        return self.read_records()

    @property
    def exit_code(self) -> int:
        return self.suite.exit_code

    @property
    def markdown(self) -> str:
        return self.outputs["markdown"]


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


def _start(paths: RunPaths, plan: RunPlan, request: RunRequest) -> RunManifest:
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


SHOW_FINDINGS = ("json", "markdown", "junit", "html")
"""The reporters that show what a run did to the findings ledger."""


def write_reports(
    paths: RunPaths,
    suite: SuiteRecord,
    records: list[TrialRecord],
    names: tuple[str, ...],
    *,
    step_summary: bool = True,
) -> dict[str, str]:
    """Render every reporter asked for (and the two every run folder holds) into its file;
    the Markdown report is appended to the CI's job summary unless ``step_summary`` is off (a
    repetition of ``--repeat-check``, whose own summary is appended instead)."""
    from proctor.report.reporters import ALWAYS_WRITTEN, render_into

    outputs = render_into(paths.root, suite, records, [*ALWAYS_WRITTEN, *names])
    if step_summary:
        append_step_summary(outputs["markdown"], suite_md(paths.root))
    return outputs


STEP_SUMMARY_MAX_BYTES = 1024 * 1024
"""GitHub's limit on one step's job summary: a larger one is not shown at all."""

_summary_held = False
"""Within :func:`step_summary_held`: runs append nothing to the job summary."""


@contextmanager
def step_summary_held() -> Iterator[None]:
    """The runs within append no report to the CI's job summary: the pairs of ``--manifest``,
    whose verdict is theirs read as one sample set, summarised once afterwards."""
    global _summary_held
    before, _summary_held = _summary_held, True
    try:
        yield
    finally:
        _summary_held = before


def append_step_summary(markdown: str, whole: str = "`suite.md` in the run folder") -> None:
    """``markdown`` appended to the CI's job summary (``$GITHUB_STEP_SUMMARY``), when there is
    one; cut at a line to fit the summary's 1 MiB with what the step wrote there before, with
    a last line saying where the report is ``whole``."""
    summary = os.environ.get(STEP_SUMMARY)
    if summary and not _summary_held:
        try:
            room = STEP_SUMMARY_MAX_BYTES - (
                os.path.getsize(summary) if os.path.exists(summary) else 0
            )
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(fitted_summary(markdown + "\n", room, whole))
        except OSError as exc:  # a courtesy: the results are in the run folder; said
            why = exc.strerror or str(exc)
            said = f"${STEP_SUMMARY} {summary} cannot be written ({why})"
            say("note", f"{said}; the report is in the run folder")


def append_refusal_summary(sentence: str, command: str = "run") -> None:
    """A run (of ``proctor run``, ``eval`` or ``record``: ``command``) stopped for a reason the
    user can fix (exit 2: a bad ``config.json``, an option, an unwritable folder), said in the
    CI's job summary as stderr says it (``sentence``, masked): the summary of a run refused
    before its first trial would stay empty."""
    from proctor.util.text import markdown_literal

    append_step_summary(f"## proctor {command}: exit 2\n\n{markdown_literal(sentence)}")


def warn(message: str) -> None:
    """A warning before the run starts, masked, that stderr shows as ``proctor: warning: …``."""
    say("warning", mask(message))


def suite_md(folder: Path) -> str:
    """Where a run's Markdown report is whole, as a job summary cut short names it."""
    return f"`{folder / 'suite.md'}`"


def run_plan(
    plan: RunPlan,
    request: RunRequest,
    subscribers: list[Subscriber],
) -> RunResult:
    """Run a plan: check the agent CLIs, write the run's records, execute every trial,
    aggregate, render the reporters, and update the results directory's findings ledger."""
    check_out_outside_cases(plan.out, plan.cases)
    check_writable(plan.out)
    if not request.agents_checked:
        preflight(plan.trials, request.key_folder(), warn)
    if not request.keys_checked:
        check_keys(plan.trials, request.key_folder(), warn)
    # A run folder with its records, or none; and from the folder on, a stop is noted until
    # execute_and_finish acts on it: the run then ends before its first trial, its aggregate
    # written as interrupted (raised here, it left a folder with neither aggregate nor end).
    stops = HeldStops().hold()
    made = missing_folders(plan.out)  # (--out and above: they go too, when left empty)
    try:
        paths = new_run_paths(plan.out)
        # The journal's first line before run.json: a run folder that has its manifest names
        # the proctor running it, so no reader takes a run starting for one killed.
        try:
            journal.note(paths.journal, "run-started")
            manifest = _start(paths, plan, request)
        except OSError as exc:  # a full disk: no trial ran, and its folder goes if it may
            journal.not_started(paths.root, exc, made)
            raise
    except BaseException:
        stops.release()
        raise
    try:
        return execute_and_finish(
            plan, request, paths, manifest, plan.trials, [], subscribers, stops=stops
        )
    except ConfigError:
        # Refused before any trial (a Ray cluster that cannot be joined, no node able to run
        # the trials): the run folder holds only what this call wrote, and goes with it.
        if not any(paths.root.glob("trials/*")) and remove_tree(paths.root):
            remove_empty_folders(made)
        raise
    finally:
        stops.release()  # (released at the start of execute_and_finish, unless it failed first)


def cluster_sized(plan: RunPlan, request: RunRequest) -> bool:
    """Whether the executor sizes the run's concurrency: Ray, without a concurrency of the
    user's, runs a trial per CPU of its cluster."""
    given = plan.overrides.concurrency is not None or plan.top.concurrency is not None
    return request.executor == "ray" and not given


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
            subscribers=[LoadReportingEarly(), journal.Journal(paths.journal), *subscribers],
        )
        late.hold()  # the trials are done: a stop is noted until the aggregate is written
    except KeyboardInterrupt:
        # A Ctrl-C or SIGTERM the executor's own stop did not take (before it began, or the
        # instant after its end): the trials that ended are read back from their records.
        late.ignore()
        outcome = _read_back(trials, paths)
    try:
        outcome.interrupted = outcome.interrupted or bool(late.came)
        result = _finish(plan, request, paths, manifest, kept, outcome, started, before_ms)
        if late.came and not outcome.interrupted:
            # It came while the aggregate was written: written again, as interrupted, so that
            # the run's files and its exit code (130) agree.
            outcome.interrupted = True
            result = _finish(plan, request, paths, manifest, kept, outcome, started, before_ms)
    except BaseException:
        late.release()
        raise
    _update_ledger(request, paths, result, late, held=held)
    return result


def _update_ledger(
    request: RunRequest, paths: RunPaths, result: RunResult, late: HeldStops, *, held: bool
) -> None:
    """The findings ledger updated with the run (its aggregate written, ``late`` still noting
    stops), and the reports that show findings written again with what it did."""
    from proctor.report.findings import update_after_run  # never raises: see docs/findings.md

    changes = None
    try:
        if result.suite.interrupted:
            late.ignore()  # as after any stop (the command restores them)
        else:
            late.release()  # a stop noted since the aggregate was written is raised here
        # Not held: it may wait for another's lock; an update cut short is the next run's.
        again = result.ended_now == 0
        changes = update_after_run(paths.root.parent, paths.root.name, held=held, resumed=again)
    except KeyboardInterrupt:
        ignore_stops()  # the run is written whole: it ends as its files say, and is told so
        say(
            "note",
            "stopped once every trial had ended: the run's results stand; the findings ledger's "
            f"update was cut short (the next run in {paths.root.parent} applies it)",
        )
    final = HeldStops().hold()  # the run's reports are written all the same, whole
    try:
        if changes is None:  # a Ctrl-C after the ledger took the run in: what it holds
            changes = held_changes(paths)
        _report_findings(request, paths, result, changes)
    finally:
        try:
            final.ignore() if request.ends_command else final.release()
        except KeyboardInterrupt:  # changes nothing now: the run ends as its files say
            ignore_stops()


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


def held_changes(paths: RunPaths) -> list[FindingChange] | None:
    """What the findings ledger holds of the run, read as it stands (None when it holds
    nothing of it, or cannot be read)."""
    from proctor.report.findings import load_ledger, run_changes

    try:
        return run_changes(load_ledger(paths.root.parent), paths.root.name)
    except Exception:  # the ledger's own update said why, if it failed
        return None


def _report_findings(
    request: RunRequest, paths: RunPaths, result: RunResult, changes: list[FindingChange] | None
) -> None:
    """The reports that show findings written again with what the run did to the ledger
    (``changes``; None when the ledger does not hold the run), the HTML report written, and
    the Markdown report appended to the CI's job summary."""
    from proctor.report.reporters import render_into

    again = []
    if changes is not None:
        # The ledger takes a run in once its records are closed, after its reports were written.
        result.suite = result.suite.model_copy(update={"findings": changes})
        again = [name for name in result.outputs if name in SHOW_FINDINGS]
    if "html" in request.reporters:  # rendered once, now: the costliest, and it shows them too
        again.append("html")
    if again:
        result.outputs.update(render_into(paths.root, result.suite, result.report_records, again))
    if request.repetition is None:  # a repetition of --repeat-check: its own summary instead
        append_step_summary(result.outputs["markdown"], suite_md(paths.root))


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
    )
    now = tuple(name for name in request.reporters if name != "html")  # html: after the ledger
    outputs = write_reports(paths, suite, records, now, step_summary=False)
    manifest.finished_at = now_iso()
    manifest.trials_finished = len(records)
    manifest.interrupted = outcome.interrupted
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
    )


def _key(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.case, record.agent, record.condition, record.repeat)


def run_session(request: RunRequest, subscribers: list[Subscriber] | None = None) -> RunResult:
    """Discover, plan and run (see :func:`run_plan`). Raises ConfigError when nothing is
    runnable."""
    plan = plan_run(request)
    if not plan.trials:
        raise nothing_runnable(request.source, plan)
    return run_plan(plan, request, list(subscribers or []))
