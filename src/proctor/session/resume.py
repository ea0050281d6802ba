"""``proctor run --resume RUN_DIR``: finish a run that was interrupted or whose orchestrator
died, with the same resolved configuration.

The run is planned again from what it recorded (``run.json``'s source and folder,
``config.json``'s configuration file and command-line options) and the plan must resolve to the
``resolved.json`` it wrote: otherwise the cases or the configuration changed, and resuming
would mix two suites. Then every trial with a usable ``trial.json`` is kept as it is (given
``--retry-errors N``, one that ended in an error it retries is moved aside as an attempt and
runs again, with fewer than N attempts kept; one that ended on a key a provider refused is
moved aside so and runs again at every resume, as it never measured the agent); every other
one (never started, cut off, or recorded as interrupted) is cleared, but for the attempts it
already kept (``attempts/``, which still count), and runs again, after the worker a dead
orchestrator left behind (found through the journal) and the trial's own processes are stopped
and the temp file of any record a killed write cut off is removed. The aggregate and the
reporters are written anew over all of them, with the run's annotations applied.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import logging
import os
import re
import signal
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from proctor.errors import ConfigError, ProctorError
from proctor.execute.context import trial_marker, was_interrupted
from proctor.execute.events import RunEvent, Subscriber, TrialRetried
from proctor.execute.executor import SCRATCH_MARK
from proctor.execute.refused import refused_key
from proctor.execute.retry import (
    clear_for_rerun,
    due_again,
    earlier_attempts,
    is_transient,
    keep_attempt,
    retries,
)
from proctor.models.compact import compact
from proctor.models.config import SAFE_NAME, CliOverrides
from proctor.models.io import read_record, remove_partial_writes, write_record
from proctor.models.plan import RunPlan, TrialSpec
from proctor.models.run import ConfigRecord, RunManifest
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths, current_folder, ledger_holds, names_stdin, newest_run_in
from proctor.plan.checks import check_keys, preflight
from proctor.plan.choosing import LEFT_UNREAD
from proctor.report.annotations import annotator, read_annotations
from proctor.session import journal
from proctor.session.finish import execute_and_finish
from proctor.session.inline import resumed_options
from proctor.session.request import RunRequest, RunResult
from proctor.session.resume_plan import same_plan
from proctor.session.start import plan_run, warn
from proctor.util.clock import now_iso
from proctor.util.files import remove_tree
from proctor.util.logs import LOGGER, shown_as, unsaid
from proctor.util.processes import kill_marked
from proctor.util.signals import HeldStops

AGENT_FOLDERS = frozenset({"workspace", "transcript"})
"""Folders of a trial that hold the agent's own files, left as they are."""
WORKER_GRACE_SEC = 30.0
"""How long a worker left behind gets to record its trial as interrupted before it is killed."""


def _read(paths: RunPaths) -> tuple[RunManifest, ConfigRecord]:
    if not paths.root.is_dir():
        raise ConfigError(f"--resume {paths.root}: no such run folder")
    newest = newest_run_in(paths.root)
    if newest is not None:
        raise ConfigError(
            f"--resume {paths.root}: a results directory; name the run folder to resume "
            f"(the newest: {newest})"
        )
    if not paths.run_json.is_file():
        run = next((p for p in paths.root.parents if RunPaths(p).run_json.is_file()), None)
        if run is not None:  # a trial's folder, or the trials/ of a run
            raise ConfigError(
                f"--resume {paths.root}: a folder inside the run {run}; name the run folder "
                "to resume"
            )
        if _holds_trials(paths):
            raise ConfigError(
                f"--resume {paths.root}: the run's run.json is missing, so the run cannot be "
                f"resumed: start a new run instead (its trials still read: `proctor report "
                f"{paths.root}`)"
            )
        raise ConfigError(
            f"--resume {paths.root}: not a run folder (no run.json), or a run stopped before "
            "it started any trial; start a new run instead"
        )
    manifest = read_record(paths.run_json, RunManifest)
    if manifest.by_eval:
        raise ConfigError(
            f"--resume {paths.root}: a run of `proctor eval`, whose tests are code that a "
            "resume cannot run; run `proctor eval` again (the cases this run finished stay "
            "in its folder)"
        )
    return manifest, read_record(paths.config_json, ConfigRecord)


def _holds_trials(paths: RunPaths) -> bool:
    """Whether the folder holds a trial's folder (``trials/CASE/…``), of a run started."""
    try:
        return paths.trials_dir.is_dir() and any(paths.trials_dir.iterdir())
    except OSError:
        return False


def request_of(
    paths: RunPaths, manifest: RunManifest, config: ConfigRecord, reporters: tuple[str, ...]
) -> RunRequest:
    """The request that planned the run, rebuilt from its records."""
    # A run that records no folder was started in one gone already, its paths whole: the
    # resume reads against none either (not the folder it runs in, whose ./proctor.json the
    # run never read).
    cwd = Path(manifest.cwd) if manifest.cwd else None
    recorded = cwd
    config_file = None
    if config.config_file:
        if not _PIPE.search(config.config_file) and not names_stdin(config.config_file):
            config_file = recorded_path(paths, "--config", config.config_file, recorded)
        if config_file is None or _is_fifo(config_file):  # (reading one would wait forever)
            given = (
                f"a named pipe, {config_file},"
                if config_file is not None
                else "a pipe (`--config -`, `--config <(…)`, /dev/stdin),"
            )
            raise ConfigError(
                f"--resume {paths.root}: the run's --config was {given} read once when the "
                "run started, which a resume cannot read again; start a new run, with the "
                "configuration in a file"
            )
    return RunRequest(
        source=recorded_path(paths, "--source", manifest.source or ".", recorded),
        config=config_file,
        overrides=resumed_options(
            CliOverrides.model_validate(config.cli.model_dump()), manifest.argv
        ),
        reporters=reporters,
        argv=tuple(manifest.argv),
        cwd=cwd,
        dotenv_dir=key_folder(manifest)[0],
        folder_gone=cwd is None,
    )


def _is_fifo(path: Path) -> bool:
    """Whether ``path`` is a named pipe (a FIFO), told without opening it."""
    try:
        return stat.S_ISFIFO(path.stat().st_mode)
    except (OSError, ValueError):
        return False


_PIPE = re.compile(r"/fd/pipe:\[\d+\]$")
"""A ``--config`` recorded as a pipe's path (``/dev/fd/63`` resolved, as Linux names it)."""


def recorded_path(paths: RunPaths, option: str, recorded: str, cwd: Path | None) -> Path:
    """A path the run recorded (``option``'s), as the resume reads it: against the folder the
    run was started in (an absolute path stays as it is). A run records its paths whole and
    resolved now (see :func:`~proctor.paths.started_path`); an older one kept them as
    given, so one relative to a folder that is gone since (renamed, removed) named nothing
    through its ``..``. Those that climb out of that folder are read without it (the folder
    was recorded with its links resolved, so its parent is the one ``..`` named then); a
    ``..`` after another folder that is gone cannot be read safely (that folder may have been
    a link), and is refused in a sentence that names it."""
    path = Path(recorded) if os.path.isabs(recorded) else (cwd or Path.cwd()) / recorded
    if cwd is not None and not Path(recorded).is_absolute() and not path.exists():
        parts = Path(recorded).parts
        up = len(parts) - len(tuple(itertools.dropwhile(lambda p: p == "..", parts)))
        path = Path(os.path.normpath(cwd.joinpath(*[".."] * up))).joinpath(*parts[up:])
    gone = _gone_before_dotdot(path)
    if gone is None:
        if not os.path.lexists(path):  # (a resume takes no --source or --config to mend it)
            raise ConfigError(
                f"--resume {paths.root}: the run's {option}, {path}, is gone (moved or "
                "removed since the run started); put it back there and resume again, or "
                "start a new run"
            )
        return path
    relative = cwd is not None and not Path(recorded).is_absolute()
    started = f" (from {cwd}, the folder the run was started in)" if relative else ""
    raise ConfigError(
        f"--resume {paths.root}: the run's {option} is recorded as {recorded}{started}, "
        f"whose '..' climbs out of {gone}, a folder that is gone: proctor cannot tell which "
        f"folder that '..' named. Put {gone} back (or a link by that name to the folder it "
        "was) and resume again, or start a new run"
    )


def _gone_before_dotdot(path: Path) -> Path | None:
    """The first folder of ``path`` that is gone where a ``..`` after it is still to climb
    out of it, or None."""
    parts = path.parts
    for i, part in enumerate(parts):
        above = Path(*parts[:i])
        if part == ".." and not above.exists():
            return next(p for p in (*reversed(above.parents), above) if not p.exists())
    return None


@dataclass(frozen=True)
class ResumePlan:
    """A run to resume, planned from its records before the resume (see :func:`plan_resume`):
    a manifest plans its pairs before the first one runs, and checks them."""

    root: Path
    request: RunRequest
    """The request :func:`request_of` rebuilt from the run's records (no reporters)."""
    plan: RunPlan
    unfinished: list[TrialSpec]
    """The trials without a finished record when it was planned, or whose record met a key
    a provider refused: those the resume runs."""


def plan_resume(run_dir: Path) -> ResumePlan:
    """The plan a resume of ``run_dir`` would make, made now (nothing is run or changed):
    :func:`resume_run` given it plans no further when the run's records still make the same
    request."""
    paths = RunPaths(Path(os.path.abspath(run_dir)))
    with _names_refused_now(paths):
        manifest, config = _read(paths)
        request = request_of(paths, manifest, config, ())
        plan = _replanned(request)
    unfinished = [spec for spec in plan.trials if _to_run(paths, spec, 0)]
    return ResumePlan(paths.root, request, plan, unfinished)


def _replanned(request: RunRequest) -> RunPlan:
    """The run planned again from its records, the warnings on the cases its ``--case`` or
    ``--tag`` left out unsaid: the run said them when it started, and no resume runs them."""
    with unsaid(LEFT_UNREAD):
        return plan_run(request)


def key_folder(manifest: RunManifest) -> tuple[Path | None, str | None]:
    """The folder whose ``.env`` holds the run's provider keys (with the environment): the one
    the run was started in, as ``run.json`` records it, wherever the resume runs from; when it
    records none, or that folder is gone, the current one, and the sentence that says so."""
    recorded = Path(manifest.cwd) if manifest.cwd else None
    if recorded is not None and recorded.is_dir():
        return recorded, None
    here = current_folder()
    if here is None:  # (the resume's own folder is gone too: no .env anywhere)
        return None, "the run's provider keys are read from the environment alone"
    why = (
        f"the folder the run was started in ({recorded}) is gone"
        if recorded is not None
        else "the run does not record the folder it was started in"
    )
    return here, f"{why}: its provider keys are read from the environment and {here / '.env'}"


def finished_record(paths: RunPaths, spec: TrialSpec) -> TrialRecord | None:
    """The trial's record when it finished (a readable ``trial.json`` that is not an
    interruption), else None."""
    path = paths.trial(*spec.key).trial_json
    if not path.is_file():
        return None
    try:
        record = read_record(path, TrialRecord)
    except ProctorError:
        return None
    return None if was_interrupted(record.reason) else record


def stop_left_behind(paths: RunPaths, specs: list[TrialSpec], run_id: str | None = None) -> None:
    """Stop the workers a dead orchestrator left running (they record their trial as
    interrupted), then every process that still carries an unfinished trial's marker, then
    remove the scratch folders the journal names that are the run's (see :func:`run_scratch`;
    ``run_id``: the run's name in ``run.json``, when its folder was renamed since)."""
    workers = journal.live_workers(paths.journal)
    for pid in workers.values():
        try:
            os.kill(pid, signal.SIGTERM)
            # One stopped with its orchestrator (Ctrl-Z, then the orchestrator killed)
            # handles the SIGTERM only once continued: else it waited out the grace, killed.
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + WORKER_GRACE_SEC
    while workers and time.monotonic() < deadline:
        workers = journal.live_workers(paths.journal)
        time.sleep(0.05)
    for pid in workers.values():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for spec in specs:
        kill_marked(trial_marker(paths, spec))
    names = {paths.root.name, run_id or paths.root.name}
    for folder in journal.scratch_folders(paths.journal):
        if run_scratch(folder, names):
            remove_tree(folder)


def run_scratch(folder: Path, run_names: set[str]) -> bool:
    """Whether ``folder``, named by a run's journal, is a scratch folder of that run: a folder
    (not a link) of this user's that proctor named, holding the mark that names the run (see
    :data:`~proctor.execute.executor.SCRATCH_MARK`), wherever the run's ``TMPDIR`` put it. A
    journal is not trusted with other paths. A folder without a mark (a run of a proctor
    before it) counts only where proctor makes them now, in this temp folder."""
    if not folder.is_absolute() or not folder.name.startswith("proctor-"):
        return False
    try:
        found = folder.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
        return False
    mark = folder / SCRATCH_MARK
    try:
        if not os.path.lexists(mark):
            return folder.resolve().parent == Path(tempfile.gettempdir()).resolve()
        if not stat.S_ISREG(mark.lstat().st_mode):
            return False
        return mark.read_text(encoding="utf-8").strip() in run_names
    except (OSError, ValueError, RuntimeError):  # unreadable, not text, a loop of links
        return False


def resume_run(
    run_dir: Path,
    reporters: tuple[str, ...],
    subscribers: list[Subscriber],
    keys_checked: bool = False,
    planned: ResumePlan | None = None,
    agents_checked: bool = False,
    ends_command: bool = False,
    retry_errors: int | None = None,
    concurrency: int | None = None,
    kept_as: tuple[bool, bool] = (False, False),
) -> tuple[RunResult, int]:
    """Finish the run in ``run_dir``; its result and how many trials it kept as they were
    (the result says how many ran now). ``retry_errors``: ``--retry-errors N`` given to the
    resume, applied to the trials it runs instead of the run's own, and a kept trial that
    ended in an error it retries, with fewer than N attempts kept, is run again (its files
    kept as its next attempt). Two resumes of one run never run together: the run
    folder is locked for the whole resume. ``keys_checked``: the roles' keys were checked
    already (a manifest checks all its pairs' at once), and ``agents_checked`` the agent
    CLIs (:func:`~proctor.plan.checks.preflight`) likewise. ``planned``: the run's plan, made
    before (:func:`plan_resume`), used as it is when the run's records, read again under the
    lock, make the same request; otherwise the run is planned again. ``ends_command``: the
    command ends with the resume (see :attr:`RunRequest.ends_command`). ``concurrency``:
    ``--concurrency N`` given to the resume, how many of its trials run at once (None: the
    run's own); it changes no trial's result. ``kept_as``: ``--keep-workspace`` and
    ``--mirror`` given to the resume, for the trials it runs: every workspace kept (the run's
    own ``--keep-workspace`` holds too), the terminals streamed (only when given: a run's own
    ``--mirror`` is how it was watched then, not a setting of its trials)."""
    # Absolute: what the trials are given (an external evaluator's paths) must not depend on
    # the folder proctor was started in.
    paths = RunPaths(Path(os.path.abspath(run_dir)))
    with _resuming(paths.root), _names_refused_now(paths):
        checked = (keys_checked, agents_checked)
        again = (retry_errors, concurrency, *kept_as)
        return _resume(paths, reporters, subscribers, checked, planned, ends_command, again)


@contextmanager
def _names_refused_now(paths: RunPaths) -> Iterator[None]:
    """A run of an older proctor may hold a name this one refuses (a condition ``v1.``, now
    refused as Windows drops a folder name's final dot): planned again, the run's records or
    its cases are refused over that name. Said as such: the run cannot be resumed, its
    trials still read, and a new run needs the name changed."""
    try:
        yield
    except ConfigError as exc:
        said = str(exc)
        for what, name in _run_names(paths):
            if not SAFE_NAME.fullmatch(name) and name in said:
                why = (
                    "ends in '.', which proctor no longer accepts in a name (Windows drops "
                    "the dot from a folder's name)"
                    if name.endswith(".")
                    else "is a name proctor no longer accepts"
                )
                raise ConfigError(
                    f"--resume {paths.root}: the run's {what} '{name}' {why}, so the run "
                    f"cannot be resumed; its trials still read (`proctor report {paths.root}`)"
                    f"; rename the {what} and start a new run ({said})"
                ) from None
        raise


def _run_names(paths: RunPaths) -> list[tuple[str, str]]:
    """The task ids, agent profiles and conditions the run's ``resolved.json`` plans, as
    (what, name); none when it does not read."""
    try:
        matrix = json.loads(paths.resolved_json.read_text(encoding="utf-8"))["matrix"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    fields = (("condition", "condition"), ("agent", "agent profile"), ("case", "task id"))
    names = {
        (what, entry[field])
        for entry in (matrix if isinstance(matrix, list) else [])
        if isinstance(entry, dict)
        for field, what in fields
        if isinstance(entry.get(field), str)
    }
    return sorted(names)


@contextmanager
def _resuming(root: Path) -> Iterator[None]:
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield  # no such folder, or not one: reading its records says so, in its own words
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(
                f"--resume {root}: another proctor is resuming this run; let it finish"
            ) from None
        yield
    finally:
        os.close(fd)  # (the lock goes with it)


def _resume(
    paths: RunPaths,
    reporters: tuple[str, ...],
    subscribers: list[Subscriber],
    checked: tuple[bool, bool],
    planned: ResumePlan | None = None,
    ends_command: bool = False,
    given: tuple[int | None, int | None, bool, bool] = (None, None, False, False),
) -> tuple[RunResult, int]:
    keys_checked, agents_checked = checked
    # The resume's --retry-errors, --concurrency, --keep-workspace and --mirror.
    retry_errors, concurrency, keep_workspace, mirror = given
    manifest, config = _read(paths)
    from proctor.agents.credentials import register_user_keys

    folder, note = key_folder(manifest)
    if note is not None:
        logging.getLogger(LOGGER).warning("%s", note, extra=shown_as("note"))
    register_user_keys(folder)  # masked as the current folder's are
    # Those given, then the run's own (a run of an older proctor recorded none: Markdown):
    # a reporter file the run wrote is written anew, never left as it was.
    reporters = tuple(dict.fromkeys((*reporters, *manifest.reporters))) or ("markdown",)
    # Its marks count in the aggregate written anew: one that cannot be read stops the resume
    # rather than vanish from the result.
    annotate = annotator(read_annotations(paths.root, strict=True))
    request = replace(request_of(paths, manifest, config, reporters), ends_command=ends_command)
    running = journal.live_orchestrator(paths.journal)
    if running is not None:
        raise ConfigError(
            f"--resume {paths.root}: the run is still going (its orchestrator, process "
            f"{running}, is alive); stop it first, or let it finish"
        )
    # The plan made before, when the records read under the lock make the request it was
    # made from (another proctor could have rewritten them meanwhile); else planned now.
    if (
        planned is not None
        and planned.root == paths.root
        and planned.request == replace(request, reporters=())
    ):
        plan = planned.plan
    else:
        plan = _replanned(request)
    plan = same_plan(paths, plan, request.started_in())  # (in the run's order)
    if retry_errors is not None:  # (resolved.json does not hold it)
        overrides = plan.overrides.model_copy(update={"retry_errors": retry_errors})
        plan = plan.model_copy(update={"overrides": overrides})
    if concurrency is not None:  # (how many run at once: no trial's result)
        overrides = plan.overrides.model_copy(update={"concurrency": concurrency})
        plan = plan.model_copy(update={"overrides": overrides, "concurrency": concurrency})
    # What is kept and shown of the trials it runs (no trial's result; resolved.json keeps the
    # run's own keepWorkspace, as it keeps its concurrency).
    shown = {"keep_workspace": keep_workspace or plan.overrides.keep_workspace, "mirror": mirror}
    plan = plan.model_copy(update={"overrides": plan.overrides.model_copy(update=shown)})
    again = retry_errors or 0  # (the run's own applies only to the trials it runs)
    unfinished = [s for s in plan.trials if _to_run(paths, s, again)]
    if unfinished:
        if not agents_checked:
            preflight(unfinished, request.key_folder(), warn)
        if not keys_checked:
            check_keys(unfinished, request.key_folder(), warn)
    stop_left_behind(paths, list(plan.trials), manifest.run_id)
    # A record the dead run was writing when it was killed is written again, whole.
    remove_partial_writes(paths.root, skip=AGENT_FOLDERS)
    # From the first trial cleared on, a stop is noted until execute_and_finish acts on it:
    # the resume then ends before it runs a trial, the aggregate written anew as interrupted
    # (raised here, it left the old aggregate counting trials that were cleared).
    stops = HeldStops().hold()
    try:
        kept, todo, rerunnable, rerun, refused = _sorted_out(paths, plan, annotate, again)
        manifest.resumed_at.append(now_iso())
        manifest.stopped_because = None  # (this stretch's own end says why it stops)
        manifest.reporters = list(reporters)
        write_record(paths.run_json, manifest)  # now: a resume killed before its end is listed
        journal.note(paths.journal, "run-resumed")
        for retried in rerun:  # after the resume's line: of this stretch, not the dead one's
            journal.Journal(paths.journal)(retried)
        held = bool(todo) and ledger_holds(paths.root.parent, paths.root.name)
        # The trials retried after an error: the kept ones run again, and those whose attempt
        # in this resume ended in one and ran again (each trial once).
        retried_keys = {_key_of(event.record) for event in rerun}

        def note_retried(event: RunEvent) -> None:
            if isinstance(event, TrialRetried):
                retried_keys.add(_key_of(event.record))

        result = execute_and_finish(
            plan,
            request,
            paths,
            manifest,
            todo,
            kept,
            [*subscribers, note_retried],
            held=held,
            stops=stops,
        )
    finally:
        stops.release()  # (released at the start of execute_and_finish, unless it failed first)
    result.kept_rerunnable, result.errors_rerun = rerunnable, len(retried_keys)
    result.refused_rerun = len(refused)
    return result, len(kept)


def _key_of(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.case, record.agent, record.condition, record.repeat)


def _to_run(paths: RunPaths, spec: TrialSpec, retry_errors: int) -> bool:
    record = finished_record(paths, spec)
    root = paths.trial(*spec.key).root
    return record is None or _again(root, record, retry_errors) is not None


def _again(root: Path, record: TrialRecord, retry_errors: int) -> int | None:
    """The number of the attempt a finished trial's files become when the resume runs it
    again: it ended on a key a provider refused (it never measured the agent: every resume
    runs it again, the key mended or not), or in an error ``--retry-errors`` (``retry_errors``)
    runs again; else None."""
    if refused_key(record):
        return len(earlier_attempts(root)) + 1
    return due_again(root, record, retry_errors) if retry_errors else None


def _sorted_out(
    paths: RunPaths,
    plan: RunPlan,
    annotate: Callable[[TrialRecord], TrialRecord],
    retry_errors: int = 0,
) -> tuple[list[TrialRecord], list[TrialSpec], int, list[TrialRetried], list[TrialRecord]]:
    """The records of the trials that finished, kept, the trials to run again, cleared (but
    for their earlier attempts), how many of those kept ended in an error ``--retry-errors``
    runs again (a worker that died, a provider's transient failure): they have a result, so
    they are kept too, and such errors that run again instead (each as the event its journal
    line is written from), ``retry_errors`` (a resume's ``--retry-errors N``) given: those
    with fewer than N attempts kept, their files kept as the next one (see
    :func:`~proctor.execute.retry.due_again`); then the records of the trials that ended on a
    key a provider refused, which run again too (their files kept as their next attempt)."""
    kept: list[TrialRecord] = []
    todo: list[TrialSpec] = []
    rerunnable = 0
    rerun: list[TrialRetried] = []
    refused: list[TrialRecord] = []
    for spec in plan.trials:
        record = finished_record(paths, spec)
        root = paths.trial(*spec.key).root
        number = _again(root, record, retry_errors) if record else None
        if record is not None and number is not None:
            # Attempts that met a refused key came on top of the retries it may make.
            refused_before = number - 1 - retries(earlier_attempts(root))
            folder = keep_attempt(root, number)  # (its record lists it once it ends)
            todo.append(spec)
            if refused_key(record):
                refused.append(record)
            else:
                most = retry_errors + 1 + refused_before
                rerun.append(TrialRetried(record, number, most, folder))
            continue
        if record is not None:
            rerunnable += is_transient(record)
            # Annotated, then held as a compact stand-in: a resume of a run of 20,000 trials
            # held every record whole (680 MB).
            kept.append(compact(annotate(record)))
            continue
        todo.append(spec)
        clear_for_rerun(root)  # its earlier attempts stay
    return kept, todo, rerunnable, rerun, refused
