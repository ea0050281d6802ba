"""``--executor ray``: the same trial function as Ray tasks on a cluster (the ``proctor[ray]``
extra; see docs/scale.md).

The driver (the machine running ``proctor run``) keeps everything that decides what runs:
at most ``concurrency`` trials at a time (without one, a trial per CPU of the nodes that run
trials, growing as nodes join), the providers' limits and ``serialRepeats`` (one
:class:`~proctor.execute.limits.Throttle`, so they hold cluster-wide), retries of transient
errors. Before the first trial every node is checked for what the trials need
(:func:`~proctor.execute.ray_node.check_node`); a node that lacks something is reported and
gets no trial. Each trial goes out as its spec's JSON to a task pinned to a chosen node, which
runs it into a node-local folder and sends the folder back; the driver writes it into the run
folder, ``trial.json`` last. A trial whose node dies runs again on another node, one whose
worker is killed runs again (its node may take it again); only a trial that came back is
recorded, so it is recorded once. Ctrl-C cancels
the running tasks, which record their trials as interrupted.
"""

from __future__ import annotations

import logging
import signal
import socket
import tarfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from proctor.errors import ConfigError, ProctorError
from proctor.execute.context import WorkerOptions, ended_at_stop, killed_at_stop
from proctor.execute.events import (
    RunFinished,
    RunStarted,
    Subscriber,
    Tick,
    TrialFinished,
    TrialRetried,
    emit,
)
from proctor.execute.events import TrialStarted as Started
from proctor.execute.executor import STOP_GRACE_SEC, RunOutcome, leave_held, scratch_name
from proctor.execute.limits import Throttle
from proctor.execute.ray_cluster import Cluster, Node, import_ray, scheduled_on
from proctor.execute.ray_node import run_on_node, unpack_trial
from proctor.execute.retry import Attempts
from proctor.models.io import read_record, write_record
from proctor.models.plan import TrialSpec
from proctor.models.trial import TrialRecord, TrialStatus
from proctor.paths import RunPaths
from proctor.util.logs import say_again, shown_as
from proctor.util.signals import HeldStops, first_stop_only

log = logging.getLogger("proctor")

NODE_LOSSES = 3
"""How many times a trial may lose its node (or its worker) before it is an infra-error."""
POLL_SEC = 0.5
LOST = (
    "NodeDiedError",
    "WorkerCrashedError",
    "TaskUnschedulableError",
    "ObjectLostError",
    "OutOfMemoryError",
    "LocalRayletDiedError",
)
"""Ray errors (and their subclasses) that say the trial's node or worker went away, or the
result with it, not that the trial failed."""
NODE_GONE = frozenset({"NodeDiedError", "TaskUnschedulableError", "LocalRayletDiedError"})
"""Of :data:`LOST`, the errors that say the node itself is gone (not one of its workers)."""


class RayExecutor:
    """Trials as Ray tasks on the cluster at ``address`` (None: Ray's own default, the
    ``RAY_ADDRESS`` variable or a cluster started on this machine, else a new local one)."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address

    @property
    def name(self) -> str:
        return "ray"

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
        """``concurrency`` None: one trial per CPU of the checked nodes, the nodes that join
        during the run included."""
        ray = import_ray()
        with connected(ray, self.address):
            cluster = Cluster.checked(ray, trials)
            loop = _Loop(ray, cluster, run, options, subscribers)
            return loop.run(list(trials), concurrency, held_back)


def check_reachable(address: str | None) -> None:
    """A ``host:port`` address must answer before Ray is asked to join it (Ray itself retries
    an address where nothing listens for minutes)."""
    if not address or "://" in address or address in ("auto", "local"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"--ray-address {address}: expected HOST:PORT (the head's GCS port)")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise ConfigError(
            f"--ray-address {address}: nothing answers there ({exc.strerror or exc}); start "
            "the head with `ray start --head` or give its address"
        ) from exc


@contextmanager
def connected(ray: ModuleType, address: str | None) -> Iterator[None]:
    """Joined to the cluster for the run (left after it, unless the caller had joined one)."""
    if ray.is_initialized():
        yield
        return
    check_reachable(address)
    # Ray's driver installs its own handlers (SIGTERM would dump a stack and kill proctor):
    # the run's stop signals stay the caller's, so that they stop the run cleanly.
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    except (ConnectionError, RuntimeError, ValueError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        where = f"--ray-address {address}" if address else "--executor ray"
        hint = ""
        if "AF_UNIX" in str(exc) or "path length" in str(exc):
            # Ray's sockets live under its temporary folder; a socket path has at most 107 bytes.
            hint = "; its socket paths are too long: set RAY_TMPDIR to a short folder, /tmp/ray"
        raise ConfigError(f"{where}: cannot join the Ray cluster ({first}{hint})") from None
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)
    try:
        yield
    finally:
        ray.shutdown()


def driver_record(spec: TrialSpec, status: TrialStatus, reason: str) -> TrialRecord:
    """The record the driver writes for a trial that sent nothing back."""
    return TrialRecord(
        case=spec.case.name,
        agent=spec.agent,
        condition=spec.condition,
        repeat=spec.repeat,
        status=status,
        reason=reason,
        combiner=spec.case.combiner,
        pass_threshold=spec.case.pass_threshold,
        tags=spec.case.case.tags,
    )


@dataclass
class _Task:
    spec: TrialSpec
    node: Node


class _Loop:
    def __init__(
        self,
        ray: ModuleType,
        cluster: Cluster,
        run: RunPaths,
        options: WorkerOptions,
        subscribers: list[Subscriber],
    ) -> None:
        self.ray, self.cluster, self.run_paths = ray, cluster, run
        self.options, self.subscribers = options, subscribers
        self.remote = ray.remote(num_cpus=1, max_retries=0)(run_on_node)
        self.pending: deque[TrialSpec] = deque()
        self.running: dict[Any, _Task] = {}
        self.attempts = Attempts(options.retry_errors)
        self.losses: dict[int, int] = {}
        self.throttle = Throttle(options.limits)
        self.outcome = RunOutcome()

    def run(
        self,
        trials: list[TrialSpec],
        concurrency: int | None,
        held_back: Callable[[TrialSpec], bool],
    ) -> RunOutcome:
        self.pending.extend(trials)
        with first_stop_only():  # a second signal never cuts the stop short
            try:
                emit(self.subscribers, RunStarted(len(trials)))  # within the stop's reach
                while self.pending or self.running:
                    if leave_held(self.pending, held_back):
                        self.outcome.interrupted = self.outcome.requested = True
                    if self.pending:
                        self.cluster.look_for_new(time.monotonic())
                    most = concurrency or self.cluster.capacity()
                    while self.pending and len(self.running) < most:
                        if not self._start_one():
                            break
                    if not self.pending and not self.running:
                        break
                    self._wait_and_collect()
            except KeyboardInterrupt:
                # A signal stopped it: the trials left are left by the stop, not the key.
                self.outcome.interrupted, self.outcome.requested = True, False
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                self._stop_tasks()
        ended = RunFinished(self.outcome.count, self.outcome.interrupted, self.outcome.requested)
        emit(self.subscribers, ended, stopping=True)  # nothing left to stop
        return self.outcome

    def _start_one(self) -> bool:
        node = self.cluster.pick()
        if node is None:
            if not self.cluster.checking:  # else a node that joined may yet take them
                self._no_node_left()
            return False
        spec = self.throttle.take(self.pending, time.monotonic())
        if spec is None:
            return False  # every waiting trial's provider is at its limit for now
        ref = self.remote.options(scheduling_strategy=scheduled_on(node)).remote(
            spec.model_dump_json(),
            self.run_paths.root.name,
            self.options.keep_workspace,
            scratch_name(spec, self.attempts.count(spec.index)),
        )
        node.running += 1
        self.running[ref] = _Task(spec, node)
        self.throttle.started(spec, time.monotonic())
        emit(self.subscribers, Started(*spec.key, node=node.label))
        return True

    def _no_node_left(self) -> None:
        reason = "no Ray node that can run trials is left in the cluster"
        while self.pending:
            spec = self.pending.popleft()
            self._finish(spec, self._written(spec, reason))

    def _wait_and_collect(self) -> None:
        now = time.monotonic()
        timeout = self.throttle.wait(self.pending, now, POLL_SEC) if self.pending else POLL_SEC
        if not self.running:
            time.sleep(timeout)  # nothing runs: wait for a provider to allow a start
            emit(self.subscribers, Tick())
            return
        ready, _ = self.ray.wait(list(self.running), num_returns=1, timeout=timeout)
        if not ready:
            emit(self.subscribers, Tick())
        for ref in ready:
            task = self.running[ref]
            record = self._collect(ref, task)
            # An interrupt before this leaves the task to _stop_tasks; from here it lands once
            # the trial is settled, recorded or waiting to run again (in between, the stop
            # collected its task again and recorded an attempt it had kept).
            held = HeldStops().hold()
            retried = None
            try:
                if record is not None:
                    retried = self._settle(task.spec, record)
                task.node.running -= 1
                del self.running[ref]
            finally:
                held.release()
            if retried is not None:  # told once the trial waits to run again
                emit(self.subscribers, retried)

    def _collect(self, ref: Any, task: _Task, stopping: bool = False) -> TrialRecord | None:
        """The trial's record, written into the run folder; None when its node was lost and
        it waits to run again. Once the run is ``stopping``, a task that sent nothing back was
        cut short by the stop: the trial is interrupted, as a local run records it."""
        spec, exceptions = task.spec, self.ray.exceptions
        trial = self.run_paths.trial(*spec.key)
        try:
            data, said = self.ray.get(ref)
        except exceptions.TaskCancelledError:
            return self._written(spec, ended_at_stop("was cancelled"))
        except exceptions.RayError as exc:
            if stopping:
                return self._written(spec, ended_at_stop(f"failed ({type(exc).__name__})"))
            lost = tuple(getattr(exceptions, name) for name in LOST if hasattr(exceptions, name))
            if not isinstance(exc, lost):
                first = str(exc).strip().splitlines()[-1] if str(exc).strip() else ""
                reason = f"the trial's Ray task failed on node {task.node.label}: {first}"
                return self._written(spec, reason)
            return self._lost(task, type(exc).__name__)
        say_again(said)  # as a local run's worker says it, on stderr
        try:
            whole = unpack_trial(data, trial)
        except (OSError, tarfile.TarError) as exc:
            reason = f"the trial folder from node {task.node.label} cannot be written: {exc}"
            return self._written(spec, reason)
        if not whole:
            reason = f"node {task.node.label} sent the trial folder back without a trial.json"
            return self._written(spec, reason)
        try:
            return read_record(trial.trial_json, TrialRecord)
        except ProctorError as exc:
            return driver_record(spec, "infra-error", f"trial.json cannot be used: {exc}")

    def _lost(self, task: _Task, error: str) -> TrialRecord | None:
        spec = task.spec
        self.cluster.refresh()
        if error in NODE_GONE:
            # Ray's list of live nodes lags a node's death by seconds: a trial sent again
            # meanwhile would be pinned to the dead node, and lose it a second time.
            task.node.alive = False
        self.throttle.finished(spec, driver_record(spec, "infra-error", error), time.monotonic())
        lost = self.losses[spec.index] = self.losses.get(spec.index, 0) + 1
        if lost > NODE_LOSSES:
            reason = f"the trial lost its Ray node {lost} times ({error}); it was not run again"
            return self._written(spec, reason)
        # Only a node that is gone sends the trial elsewhere: a crashed worker leaves its node
        # in, and the trial may run there again (on a one-node cluster it always does).
        lost_what = "Ray node" if not task.node.alive else "Ray worker on node"
        where = " on another node" if not task.node.alive else ""
        log.warning(
            "trial %s lost its %s %s (%s); it runs again%s",
            "/".join(map(str, spec.key)),
            lost_what,
            task.node.label,
            error,
            where,
            extra=shown_as(),
        )
        self.pending.appendleft(spec)
        return None

    def _settle(self, spec: TrialSpec, record: TrialRecord) -> TrialRetried | None:
        """Retry a transient error (as a local run does): the event that says so, to tell;
        else record the trial."""
        self.throttle.finished(spec, record, time.monotonic())
        retried = self.attempts.settle(spec.index, record, self.run_paths.trial(*spec.key))
        if retried is not None:
            self.pending.append(spec)
            return retried
        self._finish(spec, record)
        return None

    def _written(self, spec: TrialSpec, reason: str) -> TrialRecord:
        record = driver_record(spec, "infra-error", reason)
        path = self.run_paths.trial(*spec.key).trial_json
        path.parent.mkdir(parents=True, exist_ok=True)
        write_record(path, record)
        return record

    def _finish(self, spec: TrialSpec, record: TrialRecord, stopping: bool = False) -> None:
        self.outcome.add(record)
        cli = spec.profile.agent or spec.agent
        emit(self.subscribers, TrialFinished(record, cli), stopping=stopping)

    def _stop_tasks(self) -> None:
        """Cancel every running task (the trial records itself as interrupted), wait for them
        a while, then force the rest and record them as interrupted here, with the reasons of
        the local executor's stop."""
        refs = [ref for ref, task in self.running.items() if task.spec.key not in self.outcome.keys]
        if not refs:
            return
        for ref in refs:
            self.ray.cancel(ref)
        ready, late = self.ray.wait(refs, num_returns=len(refs), timeout=STOP_GRACE_SEC)
        for ref in late:
            self.ray.cancel(ref, force=True)
        for ref in [*ready, *late]:
            task = self.running.pop(ref)
            if ref in ready:
                record = self._collect(ref, task, stopping=True)
            else:
                record = self._written(task.spec, killed_at_stop(STOP_GRACE_SEC))
            ended = record or self._written(task.spec, ended_at_stop("ended"))
            self._finish(task.spec, ended, stopping=True)
