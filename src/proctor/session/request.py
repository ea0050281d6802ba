"""What a run is asked to do (:class:`RunRequest`: a source of cases, the configuration, the
command-line overrides) and what it hands back (:class:`RunResult`: its folder, aggregate,
records and reporters' output): the two values the CLI, the Python API and every kind of
session pass to and take from :func:`~proctor.session.run.run_plan`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from proctor.models.config import CliOverrides
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths, current_folder

if TYPE_CHECKING:
    from proctor.models.suite import SuiteRecord


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
    folder_gone: bool = False
    """The run was started in a folder that was gone already (``run.json``'s ``cwd`` null):
    its resume reads no folder's ``./proctor.json`` either, whatever folder it runs in (its
    paths were recorded whole)."""

    def started_in(self) -> Path | None:
        """The folder the run was started in: :attr:`cwd`, else the current one; None when
        that is gone (a shell left in a folder removed meanwhile). Such a run reads no
        ``./proctor.json`` nor ``./.env``, refuses a relative path (in the sentence
        :data:`~proctor.paths.CURRENT_FOLDER_GONE`, exit 2) and records no folder it was
        started in (``run.json``'s ``cwd`` null: a resume reads the ``.env`` of the folder it
        runs in)."""
        if self.folder_gone:
            return None
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
    errors_rerun: int = 0  # trials it retried after an error (kept ones, or as they ran now)
    refused_rerun: int = 0  # trials a resume ran again as they had met a refused key
    stopped_because: str | None = None
    """Why proctor stopped the run itself (a key a provider refused: see ``run.json``'s
    ``stoppedBecause``); None for a run that ran out, or that a signal stopped."""

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
