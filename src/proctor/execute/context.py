"""What every phase of a trial may read: its spec, where it writes, its scratch folders, and the
stack of clean-ups that run when the trial ends, however it ends."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from proctor.models.config import ProviderLimit
from proctor.models.plan import TrialSpec
from proctor.models.trial import INTERRUPTED_PREFIX
from proctor.paths import RunPaths, TrialPaths


class Interrupted(BaseException):
    """Raised in a worker when the run is stopped (Ctrl-C or SIGTERM)."""


def was_interrupted(reason: str) -> bool:
    """Whether a trial's reason says a stopped run cut it short."""
    return reason.startswith(INTERRUPTED_PREFIX)


def killed_at_stop(grace_sec: float) -> str:
    """The reason an executor records for a trial whose worker (a local process or a Ray
    task) had not stopped ``grace_sec`` after the run was stopped and was killed: interrupted,
    so ``--resume`` runs it again."""
    return (
        f"{INTERRUPTED_PREFIX} the run was stopped and the trial's worker did not stop within "
        f"{grace_sec:g} s, so it was killed"
    )


def ended_at_stop(how: str) -> str:
    """The reason an executor records for a trial whose worker ended without recording it
    after the run was stopped (``how``: ``died (exit code -15)``, ``was cancelled``): the
    stop cut it short, so it is interrupted and ``--resume`` runs it again."""
    return (
        f"{INTERRUPTED_PREFIX} the run was stopped and the trial's worker {how} before it "
        "recorded the trial"
    )


@dataclass(frozen=True)
class WorkerOptions:
    keep_workspace: bool = False
    mirror: bool = False
    retry_errors: int = 0
    """Attempts after the first for a trial that ends in a transient error (see
    :mod:`proctor.execute.retry`)."""
    limits: Mapping[str, ProviderLimit] = field(default_factory=dict)
    """Per provider: concurrency, start spacing, backoff (see :mod:`proctor.execute.limits`)."""
    dotenv_dir: Path | None = None
    """The folder whose ``.env`` holds the keys of proctor's roles, as the planner found them
    (a resume's: the folder the run was started in); None: the current folder."""


def trial_marker(run: RunPaths, spec: TrialSpec) -> str:
    """A value every process of the trial inherits, to find stragglers (see kill_marked)."""
    return f"{run.root.name}:{spec.index}"


@dataclass(frozen=True)
class TrialContext:
    spec: TrialSpec
    paths: TrialPaths
    scratch: Path
    options: WorkerOptions
    marker: str
    cleanups: ExitStack = field(default_factory=ExitStack)
    """Stops servers and kills sessions when the trial ends (see :func:`run_trial`)."""

    @property
    def workspace(self) -> Path:
        return self.scratch / "workspace"

    @property
    def home(self) -> Path:
        return self.scratch / "home"

    @property
    def templates(self) -> Path:
        """Shared by the run's trials on this machine: zip fixtures extracted once."""
        return self.scratch.parent / "templates"

    @classmethod
    def of(
        cls, spec: TrialSpec, run: RunPaths, scratch: Path, options: WorkerOptions
    ) -> TrialContext:
        return cls(
            spec=spec,
            paths=run.trial(spec.case.name, spec.agent, spec.condition, spec.repeat),
            scratch=scratch,
            options=options,
            marker=trial_marker(run, spec),
        )
