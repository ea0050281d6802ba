"""Executors run the matrix: every trial goes through :func:`proctor.execute.trial.run_trial`,
which takes plain data (a :class:`~proctor.models.plan.TrialSpec`, the run's paths, a scratch
folder, options) and writes the trial's ``trial.json``. An :class:`Executor` decides where that
function runs; :class:`LocalExecutor`, the default, forks one worker process per trial here, at
most ``concurrency`` at a time.

The worker writes its own ``trial.json``; the executor reads it back when the worker exits.
A worker that dies without one gets an ``infra-error`` record written for it (unless a record
is there that it cannot read or that a newer proctor wrote, which is left alone), so every
planned trial that started ends with a ``trial.json``. Ctrl-C (or SIGTERM) stops the run:
running workers record an interrupted trial, nothing new starts, and the caller exits 130.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from proctor.errors import ProctorError
from proctor.execute.context import (
    Interrupted,
    WorkerOptions,
    ended_at_stop,
    killed_at_stop,
    trial_marker,
)
from proctor.execute.events import (
    RunFinished,
    RunStarted,
    Subscriber,
    Tick,
    TrialFinished,
    TrialStarted,
    emit,
)
from proctor.execute.limits import Throttle
from proctor.execute.live import drop_live
from proctor.execute.prepare import SETUP_TIMEOUT_SEC
from proctor.execute.retry import Attempts
from proctor.execute.trial import run_trial
from proctor.models.compact import compact
from proctor.models.config import DEFAULT_CONCURRENCY
from proctor.models.io import read_record, write_record
from proctor.models.plan import TrialSpec
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.util.files import remove_temporary
from proctor.util.processes import become_subreaper, kill_marked, load_prctl, stop_with_parent
from proctor.util.signals import first_stop_only, ignore_stops

STOP_GRACE_SEC = 10.0
SCRATCH_MARK = ".proctor-run"
"""In a run's scratch folder: the name of the run folder it serves, written as the folder is
made, so that ``--resume`` removes the folder a dead run left (wherever ``TMPDIR`` put it) only
once the folder itself shows it is that run's."""


@dataclass
class RunOutcome:
    """The records of the trials that finished, and whether the run was stopped early.

    Each record is kept as its JSON, compressed (about 1 KB, where the model takes twenty
    times that), and read back when the run is over: the orchestrator stays small however many
    trials it runs, so forking a worker stays cheap."""

    interrupted: bool = False
    requested: bool = False
    """It left trials not started as ``held_back`` asked, and no signal stopped it (a Ctrl-C or
    SIGTERM after a refusal makes the run one stopped by hand, which the refusal is not said
    to have stopped)."""
    kept: list[bytes] = field(default_factory=list)
    keys: set[tuple[str, str, str, int]] = field(default_factory=set)

    def add(self, record: TrialRecord) -> None:
        data = record.__pydantic_serializer__.to_json(record, by_alias=True)
        self.kept.append(zlib.compress(data, 1))
        self.keys.add((record.case, record.agent, record.condition, record.repeat))

    @property
    def count(self) -> int:
        return len(self.kept)

    @property
    def records(self) -> list[TrialRecord]:
        return [TrialRecord.model_validate_json(zlib.decompress(data)) for data in self.kept]

    def compact_records(
        self, adjust: Callable[[TrialRecord], TrialRecord] | None = None
    ) -> list[TrialRecord]:
        """The records as :func:`~proctor.models.compact.compact` stand-ins, each read back,
        passed through ``adjust`` (the run's annotations) and reduced in turn (for the
        aggregate and the reports of a large run)."""
        out = []
        for data in self.kept:
            record = TrialRecord.model_validate_json(zlib.decompress(data))
            out.append(compact(adjust(record) if adjust is not None else record))
        return out


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held back (blocked, not ignored) while a worker is forked: the child
    starts with them blocked until its own handlers are set, and one that arrives meanwhile
    is delivered afterwards, to the orchestrator and to the child, never lost."""
    saved = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, saved)


HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


def _swallow(signum: int, frame: FrameType | None) -> None:
    """Ignore a stop signal in a worker from Python rather than with ``SIG_IGN``: one that
    arrived just before the switch has already been noted by the interpreter, and finding
    ``SIG_IGN`` then makes it print a traceback ("Signal 15 ignored due to race condition").
    (Workers end with ``os._exit``, so no interpreter shutdown puts ``SIG_DFL`` back.)"""


def _swallow_stop_signals() -> None:
    signal.signal(signal.SIGINT, _swallow)
    signal.signal(signal.SIGTERM, _swallow)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:  # nohup's stays ignored
        signal.signal(signal.SIGHUP, _swallow)


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    """Interrupt the trial once; later signals (Ctrl-C then the scheduler's SIGTERM) must not
    break the clean-up that writes ``trial.json``."""
    if _FORK["forking"]:
        # Inside a fork's callbacks an exception is printed and dropped, and the trial would
        # never hear of it: held, and sent again once the fork is over.
        _FORK["held"] = True
        return
    _swallow_stop_signals()
    _FORK["interrupted"] = True
    raise Interrupted()


_FORK: dict[str, Any] = {"forking": False, "held": False, "worker": None, "interrupted": False}


def _fork_starts() -> None:
    _FORK["forking"] = True


def _fork_ends_in_parent() -> None:
    _FORK["forking"] = False
    if _FORK["held"]:
        _FORK["held"] = False
        _interrupt_again()


def _interrupt_again() -> None:
    """Send the worker a stop signal again, from another thread a moment later (by then its
    main thread is out of the place where the first one could not be raised)."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _raise_interrupted)
    signal.signal(signal.SIGTERM, _raise_interrupted)
    threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGTERM)).start()


def _lost_interrupt(unraisable: Any) -> None:
    """An interrupt raised where Python can only print it and go on (a ``__del__``, a
    thread's internals): it is sent again rather than lost, and nothing is printed. Once the
    trial is interrupted, what an object cut short in its making says as it is collected
    (a ``__del__`` missing an attribute) is not printed either."""
    if os.getpid() == _FORK["worker"]:
        if isinstance(unraisable.exc_value, Interrupted):
            while True:
                try:
                    _interrupt_again()
                except Interrupted:
                    # Another stop signal landed while the timer's thread started (its start
                    # waits, and the handler raised there): arm again; it is never printed.
                    continue
                return
        if _FORK["interrupted"]:
            return
    sys.__unraisablehook__(unraisable)


def _fork_ends_in_child() -> None:
    _FORK["forking"] = _FORK["held"] = False  # the agent's process, about to exec


def _worker(
    spec: TrialSpec, run: RunPaths, scratch: Path, options: WorkerOptions, parent: int
) -> None:
    # Ctrl-C stops the trial only when it stops the orchestrator: one started with SIGINT
    # ignored (a background job of a script) runs on, and so do its trials.
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _raise_interrupted)
    signal.signal(signal.SIGTERM, _raise_interrupted)
    # SIGHUP (the terminal closed: its whole process group is hung up) stops the trial as
    # SIGTERM does, unless proctor was started under nohup.
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _raise_interrupted)
    # Registered last, so its "before" runs first and its "after" last of all the callbacks.
    os.register_at_fork(
        before=_fork_starts,
        after_in_parent=_fork_ends_in_parent,
        after_in_child=_fork_ends_in_child,
    )
    _FORK["worker"] = os.getpid()
    sys.unraisablehook = _lost_interrupt
    # Forked with them held (see _signals_held): run_trial lets them in once inside its try,
    # so that one that came meanwhile interrupts the trial and is recorded as such.
    become_subreaper()  # what the trial starts stays below this process, however it detaches
    # Should the orchestrator die (even by SIGKILL), the trial stops as if interrupted: its
    # processes are killed and it records itself as interrupted, for `proctor run --resume`.
    stop_with_parent(signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(0)  # the orchestrator died before the line above: the trial is left to --resume
    try:
        run_trial(spec, run, scratch, options)
    except Interrupted:
        pass  # arrived after trial.json was written
    except OSError as exc:  # its record could not be written: one line, not a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        key = "/".join(map(str, spec.key))
        sys.stderr.write(f"proctor: trial {key} was not recorded: {where}{exc.strerror or exc}\n")
        os._exit(1)
    os._exit(0)


def scratch_name(spec: TrialSpec, tries: int) -> str:
    """The name of a trial's folder in its run's scratch folder, for its attempt after
    ``tries`` earlier ones: a fresh one per attempt (a dead worker left its own behind). A Ray
    node names it the same, so that a trial's paths have the same shape there as here (a
    scripted agent counts the tokens of the paths it names)."""
    return f"{spec.index}.{tries}" if tries else str(spec.index)


def _lost_record(spec: TrialSpec, reason: str) -> TrialRecord:
    return TrialRecord(
        case=spec.case.name,
        agent=spec.agent,
        condition=spec.condition,
        repeat=spec.repeat,
        status="infra-error",
        reason=reason,
        combiner=spec.case.combiner,
        pass_threshold=spec.case.pass_threshold,
        tags=spec.case.case.tags,
    )


OVERRUN_GRACE_SEC = 1800.0
"""How long past twice its timeout and its setup and teardown lines' limits a trial's worker
may run (its evaluators' time) before it is stopped. A worker stuck where nothing interrupts
it (a regular expression of the user's that backtracks without end holds the interpreter, and
with it the worker's own timers) would otherwise hold the run for ever."""


def overrun_deadline(spec: TrialSpec, started: float) -> float:
    lines = len(spec.case.setup) + len(spec.case.teardown)
    return started + 2 * spec.case.timeout_sec + SETUP_TIMEOUT_SEC * lines + OVERRUN_GRACE_SEC


def _stop_overrun(proc: BaseProcess, spec: TrialSpec, run: RunPaths, elapsed: float) -> None:
    """Record the trial as timed out (unless its worker wrote a record meanwhile) and kill its
    worker and the processes it started; the run collects it as any finished worker."""
    path = run.trial(*spec.key).trial_json
    if not path.exists():
        record = _lost_record(
            spec,
            f"the trial ran {elapsed:.0f} s, far past its {spec.case.timeout_sec:g} s timeout, "
            "and its worker was stopped (something in it could not be interrupted, such as a "
            "regular expression that backtracks without end)",
        )
        record.status = "timeout"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_record(path, record)
    kill_marked(trial_marker(run, spec))
    if proc.pid is not None:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    # (Once the worker is killed: its follower could otherwise write the live file again.)
    drop_live(run.trial(*spec.key))


def _collect(
    spec: TrialSpec, run: RunPaths, exitcode: int | None, lost: str | None = None
) -> TrialRecord:
    """The record the worker wrote. When it wrote none, a record saying why is written in its
    place (``lost``, else "worker died"); a record that is there but cannot be read (or that a
    newer proctor wrote) is never overwritten: the run counts it as an infra-error saying
    why."""
    kill_marked(trial_marker(run, spec))
    path = run.trial(*spec.key).trial_json
    try:
        return read_record(path, TrialRecord)
    except ProctorError as exc:
        if path.exists():
            return _lost_record(spec, f"trial.json is there but cannot be used: {exc}")
        reason = lost or f"worker process died (exit code {exitcode}) without a result"
        record = _lost_record(spec, reason)
        drop_live(run.trial(*spec.key))  # (first: a record is kept for good)
        write_record(path, record)
        return record


class Executor(Protocol):
    """Runs every trial of a matrix once, each through :func:`run_trial`, and returns their
    records; emits run events to the subscribers; stops early (``interrupted``) on Ctrl-C, and
    starts no trial ``held_back`` says to leave (the run then ends ``interrupted`` and
    ``requested``, the trials left not started)."""

    @property
    def name(self) -> str: ...

    def run(
        self,
        trials: Sequence[TrialSpec],
        run: RunPaths,
        *,
        concurrency: int | None,
        options: WorkerOptions,
        subscribers: list[Subscriber],
        held_back: Callable[[TrialSpec], bool] = ...,
    ) -> RunOutcome:
        """Run ``trials`` into ``run``, at most ``concurrency`` at a time (None: as many as
        the executor's machines offer, see each executor)."""
        ...


class LocalExecutor:
    """One forked worker process per trial on this machine (the default)."""

    @property
    def name(self) -> str:
        return "local"

    def run(
        self,
        trials: Sequence[TrialSpec],
        run: RunPaths,
        *,
        concurrency: int | None,
        options: WorkerOptions,
        subscribers: list[Subscriber],
        held_back: Callable[[TrialSpec], bool] = lambda spec: False,
    ) -> RunOutcome:
        concurrency = concurrency or DEFAULT_CONCURRENCY
        # Objects that exist before the workers fork are left out of the workers' collections,
        # which would otherwise touch (and so copy) every page of the parent's heap in every
        # worker; the caller's heap is collectable again once the run is over.
        gc.freeze()
        try:
            return _run_workers(list(trials), run, concurrency, options, subscribers, held_back)
        finally:
            gc.unfreeze()


def _ray_executor(address: str | None = None) -> Executor:
    # Loaded when chosen: it builds on this module, and Ray is an optional extra.
    from proctor.execute.ray_executor import RayExecutor

    return RayExecutor(address)


EXECUTORS: dict[str, Callable[..., Executor]] = {"local": LocalExecutor, "ray": _ray_executor}
"""Executor name → factory; another executor runs the same trial function elsewhere. A
factory takes the address of the cluster to run on when the user gave one (``--ray-address``)."""


def _run_workers(
    trials: list[TrialSpec],
    run: RunPaths,
    concurrency: int,
    options: WorkerOptions,
    subscribers: list[Subscriber],
    held_back: Callable[[TrialSpec], bool],
) -> RunOutcome:
    ctx = multiprocessing.get_context("fork")
    load_prctl()  # once here, not once per worker
    pending = deque(trials)
    running: dict[int, tuple[BaseProcess, TrialSpec]] = {}
    began: dict[int, float] = {}
    """When each running worker started; past :func:`overrun_deadline` it is stopped."""
    attempts = Attempts(options.retry_errors)
    throttle = Throttle(options.limits)
    outcome = RunOutcome()
    scratch_folder = tempfile.TemporaryDirectory(prefix="proctor-")
    try:
        tmp = scratch_folder.name
        scratch_root = Path(tmp)
        (scratch_root / SCRATCH_MARK).write_text(run.root.name + "\n", encoding="utf-8")
        # A second Ctrl-C or SIGTERM, a moment after the first, is swallowed: the stop the
        # first began (below) is never cut short.
        with first_stop_only():
            try:
                # Within the stop's reach: a subscriber that stops the run at its start (a
                # SystemExit) leaves a run stopped as by Ctrl-C, its end told to the others.
                emit(subscribers, RunStarted(len(trials), scratch=tmp))
                while pending or running:
                    if leave_held(pending, held_back):
                        outcome.interrupted = outcome.requested = True
                    while pending and len(running) < concurrency:
                        taken = throttle.take(pending, time.monotonic())
                        if taken is None:
                            break  # every waiting trial's provider is at its limit for now
                        spec = taken
                        tries = attempts.count(spec.index)
                        scratch = scratch_root / scratch_name(spec, tries)
                        proc = ctx.Process(
                            target=_worker, args=(spec, run, scratch, options, os.getpid())
                        )
                        with _signals_held():  # an interrupt comes after the worker is known
                            proc.start()
                            running[proc.sentinel] = (proc, spec)
                            began[proc.sentinel] = time.monotonic()
                            throttle.started(spec, time.monotonic())
                            emit(subscribers, TrialStarted(*spec.key, pid=proc.pid))
                    if not pending and not running:
                        break
                    timeout = throttle.wait(pending, time.monotonic(), 0.5) if pending else 0.5
                    if running:
                        ready = multiprocessing.connection.wait(list(running), timeout=timeout)
                    else:
                        time.sleep(timeout)  # nothing runs: wait for a provider to allow a start
                        ready = []
                    if not ready:
                        emit(subscribers, Tick())
                    now = time.monotonic()
                    for key, (worker, overrun) in running.items():
                        start = began.get(key)
                        if start is not None and now > overrun_deadline(overrun, start):
                            del began[key]  # stopped once; collected when its worker is gone
                            _stop_overrun(worker, overrun, run, now - start)
                    for sentinel in ready:
                        assert isinstance(sentinel, int)
                        done, spec = running[sentinel]
                        done.join()
                        began.pop(sentinel, None)
                        record = _collect(spec, run, done.exitcode)
                        throttle.finished(spec, record, time.monotonic())
                        retried = attempts.settle(spec.index, record, run.trial(*spec.key))
                        if retried is not None:
                            del running[sentinel]
                            pending.append(spec)  # again, after the trials still waiting
                            emit(subscribers, retried)
                            continue
                        outcome.add(record)
                        # Only now: an interrupt before this line leaves it to _stop_workers.
                        del running[sentinel]
                        emit(subscribers, TrialFinished(record, spec.profile.agent or spec.agent))
            except KeyboardInterrupt:
                # A signal stopped it: the trials left are left by the stop, not the key.
                outcome.interrupted, outcome.requested = True, False
                # Further Ctrl-C or SIGTERM must not break the clean stop; the caller restores them.
                ignore_stops()
                _stop_workers(running, run, outcome, subscribers)
    except BaseException:
        remove_temporary(scratch_folder)
        raise
    _wind_up(scratch_folder, outcome, subscribers)
    return outcome


def leave_held(pending: deque[TrialSpec], held_back: Callable[[TrialSpec], bool]) -> int:
    """Remove from ``pending`` the trials ``held_back`` says not to start; how many."""
    kept = [spec for spec in pending if not held_back(spec)]
    left = len(pending) - len(kept)
    if left:
        pending.clear()
        pending.extend(kept)
    return left


def _wind_up(
    scratch: tempfile.TemporaryDirectory[str], outcome: RunOutcome, subscribers: list[Subscriber]
) -> None:
    """Every trial ended: the scratch folder removed (what the agents left there may take a
    while) and the run's end told. A Ctrl-C or SIGTERM that lands meanwhile stops nothing
    (every record is whole): the run ends as interrupted, its aggregate written, exit 130;
    further ones are ignored, as in a stop (the caller restores them). Raised from here, it
    left the run without its aggregate, looking killed, and the scratch folder behind."""
    came: list[int] = []
    swapped = threading.current_thread() is threading.main_thread()
    previous = {number: signal.getsignal(number) for number in HELD_SIGNALS} if swapped else {}
    # A handler set outside Python (None) cannot be put back: left as it is.
    previous = {n: h for n, h in previous.items() if h is not None and h is not signal.SIG_IGN}
    for number in previous:
        signal.signal(number, lambda signum, _frame: came.append(signum))
    try:
        remove_temporary(scratch)
        if came:
            outcome.interrupted, outcome.requested = True, False
        asked = outcome.requested
        emit(subscribers, RunFinished(outcome.count, outcome.interrupted, asked), stopping=True)
    finally:
        if came:
            outcome.interrupted = True
            for number in previous:
                signal.signal(number, signal.SIG_IGN)
        else:
            for number, handler in previous.items():
                signal.signal(number, handler)


def _stop_workers(
    running: dict[int, tuple[BaseProcess, TrialSpec]],
    run: RunPaths,
    outcome: RunOutcome,
    subscribers: list[Subscriber],
) -> None:
    for proc, _spec in running.values():
        if proc.pid is not None:
            try:
                os.kill(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + STOP_GRACE_SEC
    collected = outcome.keys
    for proc, spec in running.values():
        if spec.key in collected:
            continue
        proc.join(max(deadline - time.monotonic(), 0.1))
        # Without a record of its own, the trial was cut short by the stop, not lost: it is
        # recorded as interrupted, and so runs again on --resume.
        lost = ended_at_stop(f"died (exit code {proc.exitcode})")
        if proc.is_alive():
            proc.kill()
            proc.join()
            lost = killed_at_stop(STOP_GRACE_SEC)
        record = _collect(spec, run, proc.exitcode, lost)
        outcome.add(record)
        emit(subscribers, TrialFinished(record, spec.profile.agent or spec.agent), stopping=True)
    running.clear()
