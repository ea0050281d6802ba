"""Stopping a Ray run: every trial the stop cuts short is recorded as interrupted with the local
executor's reasons (shared in :mod:`proctor.execute.context`), so ``--resume`` runs it again,
whatever its task did: cancelled, failed, lost its worker, or had to be killed after the grace.
A fake Ray module stands in for the cluster, so this runs without the ``proctor[ray]`` extra."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.execute import ray_executor
from proctor.execute.context import WorkerOptions, ended_at_stop, killed_at_stop, was_interrupted
from proctor.execute.ray_cluster import Node
from proctor.execute.ray_executor import _Loop, _Task
from proctor.paths import RunPaths
from proctor.session.resume import finished_record
from tests.unit.execute.test_executor import spec


class _RayError(Exception):
    pass


class _TaskCancelledError(_RayError):
    pass


class _WorkerCrashedError(_RayError):
    pass


class _Exceptions:
    RayError = _RayError
    TaskCancelledError = _TaskCancelledError
    WorkerCrashedError = _WorkerCrashedError


class _FakeRay:
    """Tasks named by strings; ``answers`` maps those that end within the grace to the error
    their ``get`` raises."""

    exceptions = _Exceptions

    def __init__(self, answers: dict[str, Exception]) -> None:
        self.answers = answers
        self.forced: list[str] = []

    def remote(self, **_options: Any) -> Any:
        return lambda function: function

    def cancel(self, ref: str, force: bool = False) -> None:
        if force:
            self.forced.append(ref)

    def wait(self, refs: list[str], num_returns: int, timeout: float) -> tuple[list, list]:
        return [r for r in refs if r in self.answers], [r for r in refs if r not in self.answers]

    def get(self, ref: str) -> bytes:
        raise self.answers[ref]


class _Cluster:
    def refresh(self) -> None:
        pass


def test_every_trial_a_ray_stop_cuts_short_is_interrupted_as_in_a_local_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ray_executor, "STOP_GRACE_SEC", 0.5)
    fake = _FakeRay(
        {
            "cancelled": _TaskCancelledError("cancelled"),
            "failed": _RayError("the task raised"),
            "crashed": _WorkerCrashedError("the worker died"),
        }
    )
    run = RunPaths(tmp_path / "run")
    loop = _Loop(fake, _Cluster(), run, WorkerOptions(), [])  # type: ignore[arg-type]
    node = Node("n" * 16, "10.0.0.2", 2.0)
    names = ("cancelled", "failed", "crashed", "late")
    specs = {}
    for index, name in enumerate(names):
        specs[name] = spec(tmp_path).model_copy(update={"repeat": index + 1, "index": index})
        loop.running[name] = _Task(specs[name], node)
    loop._stop_tasks()
    assert fake.forced == ["late"] and not loop.running and not loop.pending
    reasons = {r.repeat: r.reason for r in loop.outcome.records}
    assert reasons == {
        1: ended_at_stop("was cancelled"),
        2: ended_at_stop("failed (_RayError)"),
        3: ended_at_stop("failed (_WorkerCrashedError)"),
        4: killed_at_stop(0.5),
    }
    for record in loop.outcome.records:
        assert record.status == "infra-error" and was_interrupted(record.reason)
    for one in specs.values():
        assert finished_record(run, one) is None  # what --resume runs again


def test_the_stop_reasons_are_interruptions_that_say_what_happened() -> None:
    assert killed_at_stop(10.0) == (
        "interrupted: the run was stopped and the trial's worker did not stop within 10 s, "
        "so it was killed"
    )
    assert ended_at_stop("died (exit code -15)") == (
        "interrupted: the run was stopped and the trial's worker died (exit code -15) before "
        "it recorded the trial"
    )


@pytest.mark.parametrize(
    ("error", "alive"),
    [("NodeDiedError", False), ("TaskUnschedulableError", False), ("WorkerCrashedError", True)],
)
def test_a_trial_that_lost_its_node_is_not_sent_back_to_it(
    tmp_path: Path, error: str, alive: bool
) -> None:
    """Ray's list of live nodes lags a node's death: the node a trial lost is taken out at
    once, or the trial would be pinned to it again (a worker that crashed leaves it in)."""
    loop = _Loop(_FakeRay({}), _Cluster(), RunPaths(tmp_path / "run"), WorkerOptions(), [])  # type: ignore[arg-type]
    node = Node("n" * 16, "10.0.0.2", 2.0)
    assert loop._lost(_Task(spec(tmp_path), node), error) is None  # it runs again
    assert node.alive is alive and len(loop.pending) == 1


@pytest.mark.parametrize(
    ("error", "said"),
    [
        ("NodeDiedError", "lost its Ray node 10.0.0.2 (nnnnnnnn) (NodeDiedError); it runs again "
         "on another node"),
        ("WorkerCrashedError", "lost its Ray worker on node 10.0.0.2 (nnnnnnnn) "
         "(WorkerCrashedError); it runs again"),
    ],
)  # fmt: skip
def test_a_trial_that_lost_its_worker_is_not_said_to_run_on_another_node(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, error: str, said: str
) -> None:
    """A worker that crashed leaves its node in, and the trial may run there again (on a
    one-node cluster it always does): it was said to run again on another node."""
    loop = _Loop(_FakeRay({}), _Cluster(), RunPaths(tmp_path / "run"), WorkerOptions(), [])  # type: ignore[arg-type]
    node = Node("n" * 16, "10.0.0.2", 2.0)
    with caplog.at_level("WARNING", logger="proctor"):
        assert loop._lost(_Task(spec(tmp_path), node), error) is None
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.endswith(said), line


def test_a_stop_as_a_trial_is_set_to_run_again_does_not_record_its_first_attempt_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C landing just after a transient error was kept as `attempts/1` (the trial waiting
    to run again) made the stop collect the same task once more: its folder was written back
    as the trial's final record, the attempt both kept and recorded."""
    import os
    import signal

    from proctor.execute import retry
    from proctor.execute.ray_executor import driver_record
    from proctor.execute.ray_node import pack
    from proctor.models.io import write_record

    one = spec(tmp_path).model_copy(update={"index": 0})
    sent = tmp_path / "node" / "trial"
    sent.mkdir(parents=True)
    crashed = driver_record(one, "agent-error", "agent exited with code 3 before its turn ended")
    write_record(sent / "trial.json", crashed)

    class _Back(_FakeRay):
        def wait(self, refs: list[str], num_returns: int, timeout: float) -> tuple[list, list]:
            return list(refs), []

        def get(self, ref: str) -> Any:
            return pack(sent), []

    settle = retry.Attempts.settle

    def then_stopped(self: retry.Attempts, *args: Any) -> bool:
        again = settle(self, *args)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, right after the attempt was kept
        return again

    monkeypatch.setattr(retry.Attempts, "settle", then_stopped)
    run = RunPaths(tmp_path / "run")
    loop = _Loop(_Back({}), _Cluster(), run, WorkerOptions(retry_errors=1), [])  # type: ignore[arg-type]
    loop.running["task"] = _Task(one, Node("n" * 16, "10.0.0.2", 2.0))
    with pytest.raises(KeyboardInterrupt):
        loop._wait_and_collect()
    loop._stop_tasks()
    trial = run.trial(*one.key)
    assert (trial.root / "attempts" / "1" / "trial.json").is_file()
    assert finished_record(run, one) is None  # --resume runs it again, after its attempt
    assert list(loop.pending) == [one] and not loop.outcome.records


def test_a_trial_a_ray_run_sends_out_again_is_told_to_the_subscribers(tmp_path: Path) -> None:
    """As a local run tells it, a Ray run tells its subscribers (the journal, the progress)
    that a trial runs again after a transient error, once it waits to be sent out again."""
    from proctor.execute.events import RunEvent, TrialRetried
    from proctor.execute.ray_executor import driver_record
    from proctor.execute.ray_node import pack
    from proctor.models.io import write_record

    one = spec(tmp_path).model_copy(update={"index": 0})
    sent = tmp_path / "node" / "trial"
    sent.mkdir(parents=True)
    crashed = driver_record(one, "agent-error", "agent exited with code 3 before its turn ended")
    write_record(sent / "trial.json", crashed)

    class _Back(_FakeRay):
        def wait(self, refs: list[str], num_returns: int, timeout: float) -> tuple[list, list]:
            return list(refs), []

        def get(self, ref: str) -> Any:
            return pack(sent), []

    told: list[RunEvent] = []
    run = RunPaths(tmp_path / "run")
    loop = _Loop(_Back({}), _Cluster(), run, WorkerOptions(retry_errors=2), [told.append])  # type: ignore[arg-type]
    loop.running["task"] = _Task(one, Node("n" * 16, "10.0.0.2", 2.0))
    loop._wait_and_collect()
    assert list(loop.pending) == [one] and not loop.running
    (retried,) = told
    assert isinstance(retried, TrialRetried)
    assert (retried.attempt, retried.attempts, retried.folder) == (1, 3, "attempts/1")
    assert retried.record.reason == crashed.reason
