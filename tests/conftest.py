"""Shared helpers: writing case folders and running the CLI in-process."""

from __future__ import annotations

import json
import logging
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and so
# would every CLI the tests start and then interrupt (an ignored signal stays ignored across
# exec). With Python's own handler here, those CLIs start with the default action instead.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Likewise a suite started under nohup: every proctor it starts would keep SIGHUP ignored, as
# proctor rightly does under nohup, and a test of a hang-up would hang instead.
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def write_case(
    root: Path,
    name: str,
    *,
    prompt: str = "Do the task.",
    config: dict[str, Any] | str | None = None,
    plan: dict[str, Any] | None = None,
    src: dict[str, str] | None = None,
    qna: str | None = None,
) -> Path:
    """Create a case folder under ``root`` and return it."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prompt.md").write_text(prompt)
    if config is None:
        config = {"agents": ["scripted"], "timeoutSec": 30}
    (folder / "config.json").write_text(config if isinstance(config, str) else json.dumps(config))
    if plan is not None:
        (folder / "plan.json").write_text(json.dumps(plan))
    for rel, text in (src or {}).items():
        path = folder / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if qna is not None:
        (folder / "qna.md").write_text(qna)
    return folder


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on, for as long as the block runs: bound, never
    listening, so a connection to it is refused. A port bound and let go at once could be
    taken by another test's server meanwhile, or given to the very connection made to it as
    its own (which then connects to itself)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


def processes_with(marker: str) -> list[int]:
    """The processes (other than this one) whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and str(os.getpid()) != entry.name:
            found.append(int(entry.name))
    return found


@pytest.fixture(autouse=True)
def _own_cache_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """proctor's cache folder (``proctor history``'s summaries) is the test's own, never the
    home folder of whoever runs the tests."""
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path_factory.mktemp("proctor-cache")))


IN_CI = bool(os.environ.get("CI"))
"""Read when the tests are collected, before any test takes the CI variables out of its
environment: ``.ci/run`` installs every tool the tests need, so there a missing one is a
failure, not a skip that would let a whole layer of tests pass untried."""


def refuse_unlink(
    monkeypatch: pytest.MonkeyPatch, name: str, *, every: bool = False
) -> list[object]:
    """``os.unlink`` refuses the file named ``name`` (its last part) as it refuses a user who
    may not remove it (the tests may run as root, who may): its first try, or ``every`` try.
    Returns the paths refused."""
    real_unlink, refused = os.unlink, []

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if os.path.basename(os.fspath(path)) == name and (every or not refused):
            refused.append(path)
            raise PermissionError(13, "Permission denied", path)
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    return refused


def require_tool(reason: str) -> None:
    """Skip the test for a tool this machine lacks (``reason`` says which and how to get it);
    fail it in CI, where ``.ci/run`` installs that tool."""
    if IN_CI:
        pytest.fail(f"{reason}; CI installs it, so this is a failure there", pytrace=False)
    pytest.skip(reason)


CI_VARIABLES = (
    "CI",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "GITHUB_ENV",
    "GITHUB_OUTPUT",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "PROCTOR_HEARTBEAT_SEC",
    "NO_COLOR",
    "FORCE_COLOR",
    "COLUMNS",
    "LINES",
)
"""What a CI job sets and proctor reads (plain progress, the job summary, heartbeats), and
what sizes or colours a terminal's output."""


@pytest.fixture(autouse=True)
def _garbage_collected_in_the_test_that_left_it() -> Iterator[None]:
    """Each test answers for the resources it leaves, and only for its own. Before it, what
    earlier tests left is collected (an unclosed socket or file shown in the warnings summary,
    as pyproject.toml says) and what lives on is frozen out of later collections; after it, the
    reference cycles it left are collected, and an unclosed socket or file among them fails it.
    Without this such a socket warned in whichever later test the collector happened to run in:
    in CI, once a test that made no connection failed on one. An in-process run unfreezes the
    heap when it ends (see the executor): a test that ran one is not held to what it finds."""
    import gc
    import warnings

    gc.collect()
    gc.freeze()  # (so the collection after the test walks only what it made: milliseconds)
    yield
    with warnings.catch_warnings():
        if gc.get_freeze_count() > 0:  # (0: the test unfroze the heap, earlier tests' too)
            warnings.simplefilter("error", ResourceWarning)
        gc.collect()


@pytest.fixture
def abandoned_calls_collected() -> Iterator[None]:
    """After a test whose provider calls were cut off by their deadline (a server trickling
    its reply): their threads are waited for once the server is gone, and the connections
    they leave are collected here, not in whichever later test the collector runs in (where
    an unclosed socket's warning would fail it)."""
    import gc
    import threading
    import warnings

    yield
    for thread in threading.enumerate():
        if thread.name == "provider-call":
            thread.join(timeout=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture(autouse=True)
def _secrets_of_this_test_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrets a test registers (an in-process run's keys, a value named with ``--env``)
    are forgotten after it: masked in the next test's records, a short one such as ``123456``
    turned a figure of its ``suite.json`` (``0.1234567``) into ``0.***7``, no longer JSON."""
    from proctor.util import masking

    monkeypatch.setattr(masking, "_SECRETS", set(masking._SECRETS))


@pytest.fixture(autouse=True)
def _not_inside_a_ci_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as if run by a person at a shell, whether or not the suite runs in a CI
    job: a test of CI behaviour sets the variables it means. Without this, a test of the
    terminal's progress bar passed at a desk and failed in a job that sets ``CI``."""
    for name in CI_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class _OnStderr(logging.Handler):
    """The ``proctor`` logger's messages on the current stderr, as a command prints them:
    in a process of its own, Python's last-resort handler prints them there, but under
    pytest, whose handlers catch every record, it never does."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(self.format(record) + "\n")


@pytest.fixture
def proctor(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """Run ``proctor ARGS`` in-process and return exit code, stdout and stderr."""
    from proctor.cli.main import main

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        # Each command as a process of its own: `proctor run` leaves the stop signals ignored
        # once its run is written (it ends as its files say), until the process exits.
        saved = {number: signal.getsignal(number) for number in _STOPS}
        logger, printed = logging.getLogger("proctor"), _OnStderr(logging.WARNING)
        logger.addHandler(printed)
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        finally:
            logger.removeHandler(printed)
            for number, handler in saved.items():
                signal.signal(number, handler)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def make_case(tmp_path: Path) -> Callable[..., Path]:
    cases = tmp_path / "cases"
    cases.mkdir(exist_ok=True)

    def make(name: str = "case", **kwargs: Any) -> Path:
        return write_case(cases, name, **kwargs)

    return make


Run = Callable[..., CliResult]
"""The ``proctor`` fixture's type."""
MakeCase = Callable[..., Path]
"""The ``make_case`` fixture's type."""


def run_cases(
    proctor: Callable[..., CliResult], tmp_path: Path, *args: str
) -> tuple[CliResult, Path]:
    """``proctor run`` on the ``cases`` folder of ``make_case`` into ``tmp_path/out``."""
    out = tmp_path / "out"
    return proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out), *args), out


def single_run_dir(out: Path) -> Path:
    runs = sorted(out.glob("run-*"))
    assert len(runs) == 1, runs
    return runs[0]


def load_trial(run_dir: Path, case: str, repeat: int = 1, agent: str = "scripted") -> Any:
    path = run_dir / "trials" / case / agent / "default" / str(repeat) / "trial.json"
    return json.loads(path.read_text())


@contextmanager
def viewer(results: Path, *args: str) -> Iterator[str]:
    """``proctor view`` in a subprocess; yields the base URL it printed."""
    with viewer_process(results, *args) as (base, _):
        yield base


@contextmanager
def viewer_process(results: Path, *args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``proctor view`` in a subprocess; yields the base URL it printed and the process, which
    is stopped (SIGTERM) at the end unless it has ended already."""
    env = {**os.environ, "HOME": str(results.parent / "home")}
    process = subprocess.Popen(
        [sys.executable, "-m", "proctor", "view", str(results), "--port", "0", "--no-open", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, "proctor view printed nothing"
        line = process.stdout.readline()  # type: ignore[union-attr]
        match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        assert match, line
        yield match.group(1), process
    finally:
        if process.poll() is None:
            process.terminate()
        process.communicate(timeout=60)


SLOW_FIRST, SLOW_SECOND = "Step one: looking around.", "Step two: all done."
SLOW_KEY = "slow/scripted/default/1"


@contextmanager
def slow_run(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """``proctor run`` (a subprocess) of one scripted case ``slow`` whose agent says
    :data:`SLOW_FIRST`, runs a shell command, sleeps 8 seconds, then says :data:`SLOW_SECOND`;
    yields the results folder and the process, waited for at the end."""
    plan = {
        "turns": [
            {"say": SLOW_FIRST},
            {"shell": "echo one > b.txt"},
            {"sleep": 8},
            {"say": SLOW_SECOND},
        ]
    }
    config = {"agents": ["scripted"], "timeoutSec": 60}
    write_case(tmp_path / "cases", "slow", plan=plan, src={"a.txt": "hello\n"}, config=config)
    results = tmp_path / "results"
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "proctor", "run", "--source", str(tmp_path / "cases")]
    process = subprocess.Popen(
        [*argv, "--out", str(results)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield results, process
    finally:
        if process.poll() is None:
            process.wait(timeout=120)


def slow_trial_folder(results: Path, process: subprocess.Popen[bytes]) -> Path:
    """The folder of :func:`slow_run`'s trial, once the run made it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = sorted(results.glob(f"run-*/trials/{SLOW_KEY}"))
        if found:
            return found[0]
        assert process.poll() is None, "the run ended before its trial started"
        time.sleep(0.1)
    raise AssertionError("the trial never started")


_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@pytest.fixture(autouse=True)
def stop_handlers() -> Iterator[None]:
    """The stop signals' handlers given back after every test (a stop, and the end of a
    `proctor run` called in-process, leave them ignored, as the process exits then)."""
    saved = {number: signal.getsignal(number) for number in _STOPS}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)
