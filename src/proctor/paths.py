"""Every file name of the results layout, defined once.

::

    <out>/run-<UTC timestamp>-<short id>/
      run.json            manifest (proctor version, argv, host, started/finished)
      config.json         the configuration as given
      resolved.json       the configuration after defaults and layering, and the matrix
      journal.jsonl       append-only: each trial started (and its worker), retried and finished
      annotations.json    people's marks on trials (proctor annotate), applied when read back
      suite.json          aggregate: per-group statistics, gate result, exit code
      suite.md            the same for people
      trials/<case>/<agent>/<condition>/<repeat>/
        trial.json          status, verdict, evaluator results, timings, usage, errors
        trajectory.jsonl    normalised events
        raw-transcript.jsonl the agent's native transcript, byte for byte
        screen.log          the rendered final terminal screen
        terminal.raw        the raw byte stream the agent wrote to its terminal
        workspace.diff      what the agent changed relative to the fixture
        questions.jsonl     questions the agent asked and the answers given (when any)
        agent-stdout.jsonl / agent-stderr.log   a headless CLI's own output streams
        model-requests.jsonl  requests the scripted model server answered (when it was used)
        transcript/         every native transcript file of the session, byte for byte
        stdout.log / stderr.log   setup/teardown output
        evaluators/<index>-<use>.json  what a command/external evaluator ran and printed
        workspace/          the final workspace (kept for failed trials, or --keep-workspace)
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RunPaths:
    root: Path

    @property
    def run_json(self) -> Path:
        return self.root / "run.json"

    @property
    def config_json(self) -> Path:
        return self.root / "config.json"

    @property
    def resolved_json(self) -> Path:
        return self.root / "resolved.json"

    @property
    def journal(self) -> Path:
        return self.root / "journal.jsonl"

    @property
    def annotations(self) -> Path:
        return self.root / "annotations.json"

    @property
    def suite_json(self) -> Path:
        return self.root / "suite.json"

    @property
    def suite_md(self) -> Path:
        return self.root / "suite.md"

    @property
    def trials_dir(self) -> Path:
        return self.root / "trials"

    def trial(self, case: str, agent: str, condition: str, repeat: int) -> TrialPaths:
        return TrialPaths(self.trials_dir / case / agent / condition / str(repeat))

    def trial_jsons(self) -> list[Path]:
        """Every stored trial.json of the run, in a stable order. Only what lies in the run's
        own folders: a link (a folder or the file) is not followed, so no record from
        elsewhere is read as one of the run's."""
        found = [folder / "trial.json" for folder in self._trial_folders()]
        return sorted(path for path in found if path.is_file() and not path.is_symlink())

    def unusable_trial_jsons(self) -> list[Path]:
        """Each trial.json of the run that is there but is no file of the run's own to read: a
        folder, a link, a device. A reader counts each as a damaged trial, never as none."""
        found = [folder / "trial.json" for folder in self._trial_folders()]
        return sorted(
            path
            for path in found
            if os.path.lexists(path) and (path.is_symlink() or not path.is_file())
        )

    def _trial_folders(self) -> list[Path]:
        level = [self.trials_dir]
        for _ in range(4):  # case / agent / condition / repeat
            level = [entry for folder in level for entry in _subfolders(folder)]
        return level


def _subfolders(folder: Path) -> list[Path]:
    """The folders in ``folder`` that are not links."""
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


LIVE_MARKER = ".trajectory.live"
"""The file beside a trial's ``trajectory.jsonl`` while it is the one written as the agent ran
(see :mod:`proctor.execute.live`), removed once the worker has its collected trajectory."""
LIVE_DIFF_MARKER = ".workspace.diff.live"
"""The file beside a trial's ``workspace.diff`` while it is the diff so far, written as the
agent ran (see :mod:`proctor.execute.live`), removed once the worker has its collected diff."""


def names_live(marker: Path, path: Path) -> bool:
    """Whether the mark ``marker`` (a line ``INODE SIZE`` for each file it names) names the
    file ``path`` is now: ``path`` is then still the file written while the agent ran, not the
    one collected at the end (another file, written in its place through a rename)."""
    try:
        named = marker.read_text(encoding="ascii").splitlines()
        st = os.stat(path, follow_symlinks=False)
    except (OSError, UnicodeDecodeError):
        return False
    return f"{st.st_ino} {st.st_size}" in (line.strip() for line in named)


@dataclass(frozen=True)
class TrialPaths:
    root: Path

    @property
    def trial_json(self) -> Path:
        return self.root / "trial.json"

    @property
    def trajectory(self) -> Path:
        return self.root / "trajectory.jsonl"

    @property
    def raw_transcript(self) -> Path:
        return self.root / "raw-transcript.jsonl"

    @property
    def screen_log(self) -> Path:
        return self.root / "screen.log"

    @property
    def terminal_raw(self) -> Path:
        return self.root / "terminal.raw"

    @property
    def workspace_diff(self) -> Path:
        return self.root / "workspace.diff"

    @property
    def agent_stdout(self) -> Path:
        return self.root / "agent-stdout.jsonl"

    @property
    def agent_stderr(self) -> Path:
        return self.root / "agent-stderr.log"

    @property
    def model_requests(self) -> Path:
        return self.root / "model-requests.jsonl"

    @property
    def harness_requests(self) -> Path:
        return self.root / "harness-requests.jsonl"

    @property
    def transcript_dir(self) -> Path:
        return self.root / "transcript"

    @property
    def questions(self) -> Path:
        return self.root / "questions.jsonl"

    @property
    def stdout_log(self) -> Path:
        return self.root / "stdout.log"

    @property
    def stderr_log(self) -> Path:
        return self.root / "stderr.log"

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def eval_result(self) -> Path:
        """``eval.json``: an eval's assertions, logs, metrics and messages sent."""
        return self.root / "eval.json"

    @property
    def evaluators_dir(self) -> Path:
        return self.root / "evaluators"

    def evaluator_log(self, index: int, use: str) -> Path:
        return self.evaluators_dir / f"{index}-{use}.json"


def newest_run_in(folder: Path) -> Path | None:
    """The newest run folder (by the start its name holds) of a results directory ``folder``;
    None when ``folder`` is a run folder itself, or holds none: what a command given a
    results directory where it wants a run names in its sentence."""
    if (folder / "run.json").is_file():
        return None
    runs = sorted(folder.glob("run-*/run.json"))
    return runs[-1].parent if runs else None


def runs_below(folder: Path) -> str | None:
    """What a command that reads a run's records says of ``folder`` when it holds runs a level
    or two below it and no run of its own: a results directory (``proctor-results``), or a
    folder of them (``proctor run --manifest``'s ``--out``, one per pair); else None."""
    newest = newest_run_in(folder)
    if newest is not None:
        return f"a results directory, not a run folder; name a run folder (the newest: {newest})"
    if (folder / "run.json").is_file():
        return None
    held = sorted({p.parent.parent.name for p in folder.glob("*/run-*/run.json")})
    if not held:
        return None
    listed = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
    return (
        f"a folder of results directories ({listed}), not a run folder; name their run "
        f"folders ({folder / '*' / 'run-*'})"
    )


TRIAL_RECORDS = "trials/*/*/*/*/trial.json"
"""Where a run folder's trial records lie."""

RUN_NAME = re.compile(r"run-\d{8}T\d{6}Z-[0-9a-f]{6}")
"""The name a run folder is given (``run-<UTC timestamp>-<short id>``)."""


def no_run_in(folder: Path) -> str | None:
    """What a command that reads a run's records says of ``folder``, which holds no trial
    record, when it is named as a run folder is (``run-…``) and has no ``run.json``, or is a
    results directory whose every run folder is such a one: what a run stopped before it
    started any trial leaves (one killed as its folder was made). None otherwise."""
    start = "start a new run"

    def empty(run: Path) -> bool:  # (a trial record without a run.json is said otherwise)
        return not (run / "run.json").exists() and not any(run.glob(TRIAL_RECORDS))

    if RUN_NAME.fullmatch(folder.name) and empty(folder):
        return (
            "not a run folder (no run.json and no trial record), or a run stopped before it "
            f"started any trial; {start}"
        )
    held = sorted(p.name for p in folder.glob("run-*") if p.is_dir() and RUN_NAME.fullmatch(p.name))
    if not held or not all(empty(folder / name) for name in held):
        return None
    listed = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
    return (
        f"a results directory whose run folders ({listed}) hold no run (no run.json and no "
        f"trial record: runs stopped before they started any trial); {start}"
    )


def proctor_run_folder(folder: Path) -> bool:
    """Whether ``folder`` is a run folder proctor wrote: its ``run.json`` is a run's manifest
    (``runId``, ``proctorVersion``), or a ``run.json`` lies beside its ``trials/`` (one cut
    short or damaged is still its run's). A project's own ``run.json`` (a script's settings)
    makes no run folder of the project."""
    if (folder / "trials").is_dir() and (folder / "run.json").is_file():
        return True
    try:
        with open(folder / "run.json", "rb") as file:
            manifest = json.loads(file.read(1 << 20))  # a run's is a few kilobytes
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "runId" in manifest and "proctorVersion" in manifest


def run_holding(folder: Path) -> Path | None:
    """The run folder (a folder holding a ``run.json`` and ``trials/``) that ``folder`` lies
    inside (its ``trials`` folder, a trial's folder), as named (else as an absolute path; the
    current folder by its path, not ``.``); None when none does: what a command given a part
    of a run where it wants the run names in its sentence."""
    for parents in (folder.parents, folder.absolute().parents):
        for parent in parents:
            # A run's run.json beside its trials (a project's own run.json is none).
            if (parent / "run.json").is_file() and (parent / "trials").is_dir():
                return parent.absolute() if parent == Path(".") else parent
    return None


class NotAFullPath(ValueError):
    """A folder named by the environment (``PROCTOR_CACHE_DIR``) that is not a full path: one
    sentence for the user, which every command refuses with (exit 2) when it would use it."""


def cache_folder(env: Mapping[str, str], instead: str = "") -> Path:
    """proctor's own cache folder (the history cache, the credentials lock):
    ``$PROCTOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/proctor``, else ``~/.cache/proctor``. A
    relative ``XDG_CACHE_HOME`` is ignored, as the XDG specification says; a relative
    ``PROCTOR_CACHE_DIR`` is :class:`NotAFullPath`, as a relative ``PROCTOR_DATA_DIR`` is
    refused: each folder proctor runs in would have a cache folder of its own (``instead``:
    what the command can do otherwise, said after the fix)."""
    given = env.get("PROCTOR_CACHE_DIR")
    if given and not os.path.isabs(given):
        raise NotAFullPath(
            f"PROCTOR_CACHE_DIR {given!r} is not a full path: each folder proctor runs in "
            f"would have a cache folder of its own (give it as /…{instead})"
        )
    if given:
        return Path(given)
    xdg = env.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "proctor"
    return Path(env.get("HOME") or Path.home()) / ".cache" / "proctor"


def current_folder() -> Path | None:
    """The current folder; None when it no longer exists (a shell left in a deleted folder,
    where ``getcwd`` fails)."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        return None


STDIN_NAMES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
"""The names a path option may give standard input by: ``-``, and the paths that name the
process's file descriptor 0."""


def names_stdin(given: str | os.PathLike[str]) -> bool:
    """Whether a path given on the command line names standard input (see
    :data:`STDIN_NAMES`)."""
    return os.fspath(given) in STDIN_NAMES


def stdin_file() -> Path | None:
    """The file standard input is, by the path that names it now, when it is a regular file
    still linked there (``proctor … < ci.json``); None for a pipe, a socket, a terminal, a
    device, a file unlinked since it was opened (a long here-document, a temporary file), or
    one whose path cannot be told or read."""
    try:
        held = os.fstat(0)
    except OSError:
        return None
    if not stat.S_ISREG(held.st_mode) or held.st_nlink == 0:
        return None
    try:
        found = os.readlink("/proc/self/fd/0")
    except OSError:
        return None
    try:
        now = os.stat(found)
    except (OSError, ValueError):
        return None
    if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or not os.access(found, os.R_OK):
        return None
    return Path(found)


CURRENT_FOLDER_GONE = (
    "the current folder no longer exists (removed while this shell was in it); cd to a "
    "folder and run again"
)
"""What a command that needs the current folder says when it is gone (``getcwd`` fails)."""


def read_against(folder: Path | None, path: Path) -> Path:
    """``path`` read against ``folder``, the folder a command was started in (None: the
    current one): itself when absolute, else joined to it. A relative path where the current
    folder is gone raises ``getcwd``'s FileNotFoundError (:func:`current_folder_gone`: the
    command line says :data:`CURRENT_FOLDER_GONE`)."""
    if path.is_absolute():
        return path
    return (folder if folder is not None else Path.cwd()) / path


def current_folder_gone(exc: BaseException) -> bool:
    """Whether ``exc`` is ``getcwd`` failing in a current folder that was removed (raised by
    ``Path.cwd()``, or by ``resolve()``/``abspath`` of a relative path, naming no file)."""
    return isinstance(exc, FileNotFoundError) and exc.filename is None and current_folder() is None


LEDGER_FILE = "findings.json"
"""The findings ledger of a results directory, beside its run folders (docs/findings.md)."""


def ledger_holds(results_dir: Path, run_id: str) -> bool:
    """Whether the findings ledger of ``results_dir`` took the run in (as it stood when it
    first finished) without keeping it as interrupted: what a ``--resume`` or a mark of
    ``proctor annotate`` changes afterwards is not applied to it, while a run it keeps as
    interrupted takes a resume's checks (see docs/findings.md). Read plainly, without the
    ledger's own module."""
    try:
        ledger = json.loads((results_dir / LEDGER_FILE).read_bytes())
        runs, kept = ledger.get("runs"), ledger.get("interruptedRuns") or {}
    except (OSError, ValueError, AttributeError):
        return False
    return (
        isinstance(runs, list)
        and run_id in runs
        and not (isinstance(kept, dict) and run_id in kept)
    )


GENERATED_SOURCES = ("evals-src", "inline")
"""Folders of a results directory where proctor writes each run's generated cases
(``proctor eval``: ``evals-src/<timestamp>``; ``proctor run --prompt``: ``inline/<timestamp>``):
the runs of each are one suite, named by the folder."""


def suite_of(source: str | Path, results_dir: Path) -> str:
    """The name of the suite at ``source`` (an absolute path) whose runs go to
    ``results_dir``: links resolved, relative to the folder holding ``results_dir`` when under
    it (``suites/api``: a checkout moved whole, results and suites together, keeps it), else
    absolute; the cases proctor generates for each run (:data:`GENERATED_SOURCES`) are one
    suite, named by their folder (``evals-src``)."""
    source = os.path.realpath(source)  # one suite, however its path was spelt
    results = os.path.realpath(results_dir)
    generated = os.path.dirname(source)
    kind = os.path.basename(generated)
    if kind in GENERATED_SOURCES and os.path.dirname(generated) == results:
        return kind
    home = os.path.dirname(results)
    inside = os.path.relpath(source, home)
    if inside != os.pardir and not inside.startswith(os.pardir + os.sep):
        return Path(inside).as_posix()
    return Path(source).as_posix()


def started_path(cwd: Path | None, given: str | Path) -> str:
    """A path given to a run (``--source``, ``--config``) as its records keep it: whole, its
    ``..`` and links resolved as the run read it, so that a ``--resume`` finds the same
    folder once the one the run was started in is renamed or gone (``sub/../suite`` names
    nothing then) or a link it went through points elsewhere. ``cwd``: the folder the run
    was started in (None: the current one; see :func:`read_against`)."""
    return os.path.realpath(read_against(cwd, Path(given)))
