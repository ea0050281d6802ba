"""What the Ray executor runs on a cluster node, and how a trial's folder travels back.

Two functions run on a node, both plain Python that takes and returns data (Ray pickles them by
reference, so the node needs the same proctor installed):

- :func:`check_node` answers whether the node can run the plan's trials: the same proctor and
  Python as the driver, each agent CLI installed at its pinned version (and a login or key
  where the trials talk to a real provider), and every case folder readable at the driver's
  path.
- :func:`run_on_node` runs one trial with :func:`~proctor.execute.trial.run_trial` into a
  node-local temporary run folder and returns the trial's folder as a tar archive; the driver
  unpacks it into the real results directory with :func:`unpack_trial`. No disk is assumed to
  be shared between the nodes and the driver.
"""

from __future__ import annotations

import io
import os
import platform
import signal
import socket
import tarfile
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from proctor._version import __version__
from proctor.agents.base import adapter_for
from proctor.agents.credentials import problem as credentials_problem
from proctor.execute.context import Interrupted, WorkerOptions
from proctor.execute.trial import run_trial
from proctor.models.config import AgentProfile
from proctor.models.plan import TrialSpec
from proctor.paths import RunPaths, TrialPaths
from proctor.util.files import remove_temporary, remove_tree
from proctor.util.logs import Said, said_here
from proctor.util.processes import process_start, still_running

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def python_version() -> str:
    return ".".join(platform.python_version_tuple()[:2])


@dataclass(frozen=True)
class AgentNeed:
    agent: str
    profile: str
    """The agent's profile as JSON."""
    credentials: bool
    """Whether its trials talk to a real provider (and so need a login or a key)."""


@dataclass(frozen=True)
class NodeNeeds:
    """What every node must offer to run a plan's trials."""

    proctor_version: str
    python: str
    agents: tuple[AgentNeed, ...]
    folders: tuple[str, ...]
    """The case folders (and fixtures) the trials read, at the driver's paths."""


@dataclass(frozen=True)
class NodeReport:
    node_id: str
    host: str
    problems: tuple[str, ...]


def needs_of(trials: Sequence[TrialSpec]) -> NodeNeeds:
    agents: dict[tuple[str, str, bool], AgentNeed] = {}
    folders: set[str] = set()
    for spec in trials:
        need = AgentNeed(spec.agent, spec.profile.model_dump_json(), spec.backend != "scripted")
        agents.setdefault((need.agent, need.profile, need.credentials), need)
        folders.add(str(spec.case.case.path))
        if spec.case.case.fixture is not None:
            folders.add(str(spec.case.case.fixture))
    return NodeNeeds(__version__, python_version(), tuple(agents.values()), tuple(sorted(folders)))


FOLDER_PREFIX = "proctor-"
"""A trial's temporary folder on a node is named as a local run's scratch folder is, so that the
trial's paths are as long as in a local run (see :func:`run_on_node`); a node of an older
proctor named it ``proctor-ray-*``, which the sweep below takes up too."""
OWNER_FILE = ".owner"
"""In a trial's temporary folder on a node: the pid and start time of the process running it
(a local run's scratch folder never has one)."""


def sweep_stale_folders(root: Path) -> list[Path]:
    """Remove the trial folders under ``root`` whose process is gone (a node killed mid-trial
    leaves its trials' workspaces behind, and they may be large); returns what was removed. A
    folder without an owner, or whose owner still runs, is left alone."""
    removed = []
    for folder in root.glob(f"{FOLDER_PREFIX}*"):
        try:
            pid_text, _, start = (folder / OWNER_FILE).read_text().strip().partition(":")
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if still_running(pid, start):
            continue  # still running its trial
        remove_tree(folder)
        removed.append(folder)
    return removed


def check_node(needs: NodeNeeds, node_id: str) -> NodeReport:
    """Run on a node: one sentence per thing it lacks to run the trials (none: it can). Trial
    folders left behind by a node killed earlier are removed first."""
    sweep_stale_folders(Path(tempfile.gettempdir()))
    problems: list[str] = []
    if needs.proctor_version != __version__:
        problems.append(
            f"proctor {__version__} is installed, the driver runs {needs.proctor_version}"
        )
    if needs.python != python_version():
        problems.append(f"Python {python_version()} runs proctor, the driver runs {needs.python}")
    failed: set[str] = set()
    for need in needs.agents:
        if need.agent in failed:
            continue
        profile = AgentProfile.model_validate_json(need.profile)
        adapter = adapter_for(need.agent, {need.agent: profile})
        problem = adapter.preflight(profile)
        if problem is None and need.credentials:
            problem = credentials_problem(adapter.name, profile, os.environ)
        if problem:
            failed.add(need.agent)
            problems.append(problem)
    missing = [f for f in needs.folders if not os.access(f, os.R_OK)]
    if missing:
        shown = ", ".join(missing[:3]) + (
            f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        )
        problems.append(f"the case source is not readable at the driver's path ({shown})")
    return NodeReport(node_id, platform.node(), tuple(problems))


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    """Interrupt the trial once (Ray's cancel arrives as SIGINT); later signals must not cut
    the clean-up that writes ``trial.json`` short."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted()


@contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C on the driver (a cancel of the task) stops the trial as an interrupt, as in a
    local worker; the worker's own handlers are back afterwards (a Ray worker runs many
    tasks)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_interrupted)
    try:
        with _cancel_wakes_the_trial():
            yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


@contextmanager
def _cancel_wakes_the_trial() -> Iterator[None]:
    """Ray's cancel is no real signal (``_thread.interrupt_main``): its handler runs only once
    the main thread runs Python again, so a trial waiting on a setup line or a ``command``
    evaluator (``sleep 30``, a long test suite) went on until that program ended, and was
    killed 10 s after the stop, its program left running. The cancel does write to the wakeup
    fd: a thread watching it sends the main thread the signal itself, which ends the wait as a
    local worker's SIGTERM does."""
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # not the main thread after all, or no wakeup fd possible
        reader.close()
        writer.close()
        yield
        return
    main = threading.main_thread().ident
    assert main is not None

    def watch() -> None:
        try:
            while came := reader.recv(64):
                stops = [number for number in came if number in STOP_SIGNALS]
                if stops:
                    signal.pthread_kill(main, stops[0])  # its handler ignores any after it
                    return
        except OSError:
            return  # closed: the trial ended

    watcher = threading.Thread(target=watch, name="proctor-cancel", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        writer.close()  # the watcher's recv ends
        watcher.join(5)
        reader.close()


def run_on_node(
    spec_json: str, run_name: str, keep_workspace: bool, scratch: str = "scratch"
) -> tuple[bytes, list[Said]]:
    """Run on a node: one trial, start to finish; its folder as an uncompressed tar archive,
    and what the trial said on the ``proctor`` logger (a warning of its transcript), which the
    driver prints as a local run's worker prints it (the worker's stderr reaches no one).
    Its workspace and home are in ``<TMPDIR>/proctor-XXXXXXXX/<scratch>``, the shape of a local
    run's (``scratch``: the name the driver gives it, a local run's name for the trial and
    attempt), so that a node whose temporary folder is as long as the driver's gives the trial
    the same paths' lengths, and a scripted agent the same token counts, as a local run."""
    spec = TrialSpec.model_validate_json(spec_json)
    folder = tempfile.TemporaryDirectory(prefix=FOLDER_PREFIX)
    try:
        tmp = folder.name
        pid = os.getpid()
        (Path(tmp) / OWNER_FILE).write_text(f"{pid}:{process_start(pid)}\n")
        run = RunPaths(Path(tmp) / run_name)  # the run's name: the trial's marker is the same
        options = WorkerOptions(keep_workspace=keep_workspace)
        with said_here() as said:
            try:
                with _interruptible():
                    run_trial(spec, run, Path(tmp) / scratch, options)
            except Interrupted:
                pass  # arrived after trial.json was written
        return pack(run.trial(*spec.key).root), said
    finally:
        remove_temporary(folder)  # a kept workspace's links are never followed


def pack(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        if folder.is_dir():
            for entry in sorted(folder.iterdir()):
                tar.add(entry, arcname=entry.name)
    return buffer.getvalue()


def unpack_trial(data: bytes, trial: TrialPaths) -> bool:
    """Write a trial folder that came back from a node into the results directory: the files
    first, ``trial.json`` last (renamed into place), so a trial counts as finished only once
    it is whole. Earlier attempts already in the folder (``attempts/``) stay. False when the
    archive holds no ``trial.json``."""
    trial.root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{trial.root.name}.incoming-", dir=trial.root.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
            _extract(tar, staging)
        record = staging / trial.trial_json.name
        for entry in staging.iterdir():
            if entry != record:
                _replace(entry, trial.root / entry.name)
        if not record.is_file():
            return False
        os.replace(record, trial.trial_json)
        return True
    finally:
        remove_tree(staging)


def _extract(tar: tarfile.TarFile, into: Path) -> None:
    """The archive is the trial folder as the node wrote it: its symlinks are kept (a kept
    workspace may hold some); absolute or escaping member names are refused."""
    if hasattr(tarfile, "tar_filter"):
        tar.extractall(into, filter="tar")
        return
    for member in tar.getmembers():  # Python before 3.11.4 has no extraction filters
        if member.name.startswith("/") or ".." in Path(member.name).parts:
            raise tarfile.TarError(f"refusing the archive member {member.name!r}")
    tar.extractall(into)


def _replace(source: Path, target: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        remove_tree(target, strict=True)
    elif target.exists() or target.is_symlink():
        target.unlink()
    os.replace(source, target)
