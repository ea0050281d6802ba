"""Running an agent CLI headless: the message on the command line, JSON events on stdout, one
process per turn (later turns resume the session).

Each run is in its own session (so its whole group can be killed), with stdin closed and
stdout/stderr appended to files in the trial directory; the adapter reads what each turn wrote.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch
from proctor.drive.budget import BudgetWatch
from proctor.drive.driver import SessionLog, TurnOutcome
from proctor.llm.failures import describe_agent_failure
from proctor.util.jsonl import decode_object
from proctor.util.processes import kill_group

STOP_GRACE_SEC = 5.0
"""How long a program asked to end (SIGTERM) has to write what it holds (Claude Code's
transcript, which it writes some time after the events it prints) before its group is killed."""
KEY_REFUSED = "key refused"
"""What the headless driver's ``stop_when`` returns for a key the provider refused."""


@dataclass(frozen=True)
class HeadlessOutcome:
    kind: Literal["exited", "timeout", "stopped"]
    exit_code: int | None
    elapsed_ms: float


def run_headless(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    deadline: float,
    stdout: Path,
    stderr: Path,
    append: bool = False,
    stop_when: Callable[[], str | None] | None = None,
    graceful: Collection[str] = (),
) -> HeadlessOutcome:
    """Run to completion or until ``deadline`` (a ``time.monotonic`` value); ``append`` adds
    to the output files of an earlier run of the same session. ``stop_when`` is polled while
    the program runs; when it returns a reason, the program's group is killed (``stopped``),
    after asking it to end and waiting up to :data:`STOP_GRACE_SEC` for it when the reason
    is one of ``graceful``."""
    started = time.monotonic()
    mode = "ab" if append else "wb"
    with open(stdout, mode) as out, open(stderr, mode) as err:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
        try:
            code, kind = _wait(proc, deadline, stop_when, graceful)
        finally:
            kill_group(proc.pid)
    return HeadlessOutcome(kind, code, (time.monotonic() - started) * 1000)


def _wait(
    proc: subprocess.Popen[bytes],
    deadline: float,
    stop_when: Callable[[], str | None] | None,
    graceful: Collection[str],
) -> tuple[int | None, Literal["exited", "timeout", "stopped"]]:
    step = 0.05 if stop_when is not None else None
    while True:
        left = max(deadline - time.monotonic(), 0.01)
        try:
            return proc.wait(timeout=left if step is None else min(step, left)), "exited"
        except subprocess.TimeoutExpired:
            pass
        reason = stop_when() if stop_when is not None else None
        if reason is not None:
            kind: Literal["timeout", "stopped"] = "stopped"
            if reason in graceful:
                kill_group(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=max(min(STOP_GRACE_SEC, deadline - time.monotonic()), 0))
                except subprocess.TimeoutExpired:
                    pass
        elif time.monotonic() >= deadline:
            kind = "timeout"
        else:
            continue
        kill_group(proc.pid)
        proc.wait()
        return None, kind


def _read_from(path: Path, offset: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            return fh.read()
    except OSError:
        return b""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class RefusalWatch:
    """Reads a running turn's stdout as it grows, one whole line at a time, and asks the
    adapter of each JSON event whether it says the provider refused the agent's key
    (:meth:`~proctor.agents.base.AgentAdapter.refused_key`); ``found`` keeps the first such
    failure."""

    def __init__(self, adapter: AgentAdapter[Any], launch: Launch[Any], stdout: Path, at: int):
        self.adapter = adapter
        self.launch = launch
        self.stdout = stdout
        self.at = at
        self.partial = b""
        """The start of a line not yet ended."""
        self.found: str | None = None

    def check(self) -> str | None:
        if self.found is not None or _size(self.stdout) <= self.at:
            return self.found
        chunk = _read_from(self.stdout, self.at)
        self.at += len(chunk)
        *lines, self.partial = (self.partial + chunk).split(b"\n")
        for line in lines:
            record = decode_object(line)
            said = self.adapter.refused_key(self.launch, record) if record is not None else None
            if said is not None:
                self.found = said
                break
        return self.found


class HeadlessDriver:
    def __init__(
        self,
        adapter: AgentAdapter[Any],
        launch: Launch[Any],
        deadline: float,
        stdout: Path,
        stderr: Path,
        watch: BudgetWatch | None = None,
    ) -> None:
        self.adapter = adapter
        self.watch = watch
        self.launch = launch
        self.deadline = deadline
        self.stdout = stdout
        self.stderr = stderr
        self.log = SessionLog()
        self.session_turns = 0
        """The turns of the agent's session (the first starts it, later ones resume it); a
        first turn stopped before the session was saved is none (see :meth:`_interrupted`)."""
        self.begun = False
        """Whether a turn ran: its output opens the stdout and stderr files, the next appends."""
        self.stop_turn: threading.Event | None = None

    def screen_excerpt(self) -> str:
        return ""

    def start(self) -> TurnOutcome:
        return TurnOutcome("turn-end")

    def send(self, message: str) -> TurnOutcome:
        """Run one turn: the first message starts the session, later ones resume it."""
        stop = self.stop_turn
        if stop is not None and stop.is_set():  # stopped before it began: nothing is run
            return TurnOutcome("interrupted")
        self.log.turns += 1
        self.session_turns += 1
        append = self.begun  # the first turn run starts both files afresh
        out_at, err_at = (_size(self.stdout), _size(self.stderr)) if append else (0, 0)
        refusal = RefusalWatch(self.adapter, self.launch, self.stdout, out_at)
        run = run_headless(
            self.adapter.headless_argv(self.launch, message, self.session_turns),
            cwd=self.launch.cwd,
            env=self.launch.env,
            deadline=self.deadline,
            stdout=self.stdout,
            stderr=self.stderr,
            append=append,
            stop_when=self._stop_when(stop, refusal),
            # Asked to end, a CLI writes what it holds (Claude Code its transcript): the
            # session is collected as at any turn's end.
            graceful=(KEY_REFUSED,),
        )
        self.begun = True
        self.log.exit_code = run.exit_code
        if run.kind == "stopped" and stop is not None and stop.is_set():
            self._interrupted(out_at, err_at)
            return TurnOutcome("interrupted", elapsed_ms=run.elapsed_ms)
        if run.kind == "stopped" and refusal.found is not None:
            # The provider refused the key: the CLI would retry it until the time ran out.
            # The turn ends there, as an agent that exited on the refusal (agent-error).
            self.log.failure = describe_agent_failure(refusal.found)
            return TurnOutcome("exited", elapsed_ms=run.elapsed_ms)
        if run.kind == "timeout":
            # A provider that kept failing until the time ran out is the trial's failure
            # (agent-error, named), not a slow agent's timeout.
            failing = self.adapter.provider_failing(self._events(out_at)[-1:])
            if failing is not None:
                self.log.failure = describe_agent_failure(failing)
            return TurnOutcome("timeout")
        if run.kind == "stopped" and self.watch is not None:
            self.log.stopped = self.watch.stopped
            return TurnOutcome("over-budget", elapsed_ms=run.elapsed_ms)
        events = self._events(out_at)
        stderr = _read_from(self.stderr, err_at).decode("utf-8", "replace")
        report = self.adapter.headless_report(self.launch, events, stderr)
        if report.usage_is_cumulative and report.reported_usage:
            self.log.reported_usage = {}
        self._add_usage(report.reported_usage or {}, report.reported_cost_usd)
        self.log.failure = report.error
        if run.exit_code == 0 and report.error is None:
            return TurnOutcome("turn-end", elapsed_ms=run.elapsed_ms)
        return TurnOutcome("exited", elapsed_ms=run.elapsed_ms)

    def _stop_when(
        self, stop: threading.Event | None, refusal: RefusalWatch
    ) -> Callable[[], str | None]:
        """What ``run_headless`` polls: the turn's ``stop_turn``, a key the provider refused,
        and the step budget."""
        watch = self.watch

        def stopped() -> str | None:
            if stop is not None and stop.is_set():
                return "interrupted"
            if refusal.check() is not None:
                return KEY_REFUSED
            return watch.check() if watch is not None else None

        return stopped

    def _interrupted(self, out_at: int, err_at: int) -> None:
        """What a turn stopped mid-way left: the ids it reported (Codex's thread, which its
        session is resumed by) and its usage, read as a finished turn's are (its failure is
        none: it was stopped). A first turn stopped before the CLI saved its session (no
        transcript yet) leaves none to resume: the next send starts it afresh, as a first."""
        stderr = _read_from(self.stderr, err_at).decode("utf-8", "replace")
        report = self.adapter.headless_report(self.launch, self._events(out_at), stderr)
        if report.usage_is_cumulative and report.reported_usage:
            self.log.reported_usage = {}
        self._add_usage(report.reported_usage or {}, report.reported_cost_usd)
        if self.session_turns == 1 and not self.adapter.transcript_files(self.launch):
            self.session_turns = 0  # (the message still counts among those sent)

    def _events(self, out_at: int) -> list[dict[str, Any]]:
        """This turn's JSON events on stdout."""
        return [
            record
            for line in _read_from(self.stdout, out_at).splitlines()
            if (record := decode_object(line)) is not None
        ]

    def _add_usage(self, usage: dict[str, dict[str, int]], cost: float | None) -> None:
        for model, counts in usage.items():
            row = self.log.reported_usage.setdefault(model, {})
            for key, value in counts.items():
                row[key] = row.get(key, 0) + value
        if cost is not None:
            self.log.reported_cost_usd = round((self.log.reported_cost_usd or 0.0) + cost, 6)

    def finish(self, last: TurnOutcome) -> None:
        """Each turn's process has exited already."""

    def close(self) -> None:
        """Nothing outlives a turn: each run's process group is killed when it ends."""
