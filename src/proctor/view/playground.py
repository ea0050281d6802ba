"""The playground: lists the case suites and the evals written as code (``evals/``) of the
project given to ``proctor view --source`` and runs one, a selection or all of them as
``proctor run`` (or ``proctor eval``) in a subprocess, one batch at a time. Batches are rows of
the index (the oldest finished ones dropped past ``max_batches``), so they survive a restart.
Each row names the viewer process that runs it: a viewer that stops interrupts its batch (the
run gets Ctrl-C and records what it finished), and a row whose viewer is gone (killed) is marked
``interrupted`` by the next viewer; a batch another viewer on the same results runs is left alone.

Eval files are listed by ``proctor eval --list`` in a subprocess: the viewer never imports the
project's Python.
"""

from __future__ import annotations

import glob
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from proctor.discover.folders import discover_cases, is_case_folder
from proctor.errors import ProctorError
from proctor.models.journal import run_entries
from proctor.util.processes import process_tag, tag_running
from proctor.view.index import ResultsIndex
from proctor.view.settings import ViewSettings

ACTIVE = ("queued", "running")
STOP_WAIT_SEC = 20.0
"""How long a stopping viewer waits for its batch's run to record what it finished."""
EXIT_MESSAGES = {
    0: "every check passed",
    1: "a check failed",
    3: "some trials errored",
    130: "the run was interrupted",
}
LAUNCH = (
    "import os, signal, sys\n"
    "from proctor.util.processes import stop_with_parent\n"
    "stop_with_parent(signal.SIGINT)\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit(130)\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)
"""Starts a batch's run so that it gets Ctrl-C when the viewer dies, even by SIGKILL."""


class BatchRefused(Exception):
    """A start request the playground cannot honour; the message says why."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Suite:
    name: str
    """The suite's folder relative to the project (``.`` for the project itself)."""
    path: Path
    cases: list[str]
    kind: str = "cases"
    """``cases`` (case folders, run with ``proctor run``) or ``evals`` (``proctor eval``)."""


def _signal_group(process: subprocess.Popen[str], signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _shown(path: Path, source: Path) -> str:
    """``path`` relative to the source folder when it is inside it."""
    return path.relative_to(source).as_posix() if path.is_relative_to(source) else str(path)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Playground:
    def __init__(self, settings: ViewSettings, index: ResultsIndex) -> None:
        self.settings = settings
        self.index = index
        self.owner = process_tag()
        self._lock = threading.Lock()
        self._running: dict[str, tuple[subprocess.Popen[str] | None, threading.Thread]] = {}
        self._stopping = False
        for row in self.index.query(
            "SELECT id, owner FROM batches WHERE state IN ('queued', 'running')"
        ):
            if row["owner"] is None or not tag_running(row["owner"]):
                self._set(
                    row["id"], state="interrupted", message="the viewer stopped", finished=_now()
                )

    def suites(self) -> list[Suite]:
        return self.listing()[0]

    def listing(self) -> tuple[list[Suite], list[str]]:
        """The source folder when it holds cases, and each of its folders that does; and why
        what is there but could not be listed was left out (a case whose configuration does not
        read, eval files that `proctor eval --list` refused), each one sentence."""
        source = self.settings.source
        if source is None or not source.is_dir():
            return [], []
        found: list[Suite] = []
        problems: list[str] = []
        candidates = [source, *sorted(p for p in source.iterdir() if p.is_dir())]
        for folder in candidates:
            if folder.name.startswith(".") or is_case_folder(folder):
                continue
            if not any(is_case_folder(p) for p in folder.iterdir() if p.is_dir()):
                continue
            noted: list[str] = []
            try:
                discovered = discover_cases(folder, problems=noted)
            except (ProctorError, OSError) as exc:
                problems.append(str(exc))
                continue
            cases = [c.name for c in discovered.cases]
            problems.extend(noted)
            # A folder `proctor run` skips (no prompt.md, say), with the reason it gives.
            problems.extend(
                f"{_shown(skipped.path, source)}: {skipped.reason}"
                for skipped in discovered.skipped
            )
            if cases:
                name = "." if folder == source else folder.relative_to(source).as_posix()
                found.append(Suite(name, folder, cases))
        evals = self._evals(source, problems)
        if evals is not None:
            found.append(evals)
        return found, problems

    def _evals(self, source: Path, problems: list[str]) -> Suite | None:
        if not any((source / "evals").glob("**/*.eval.py")):
            return None
        argv = [sys.executable, "-m", "proctor", "eval", "--dir", str(source), "--list", "--json"]
        try:
            listed = subprocess.run(
                argv, cwd=source, capture_output=True, text=True, timeout=60, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            problems.append(f"{source / 'evals'}: the evals could not be listed ({exc})")
            return None
        if listed.returncode != 0:
            said = [line.strip() for line in listed.stderr.splitlines() if line.strip()]
            reason = said[-1].removeprefix("proctor: error: ") if said else ""
            problems.append(
                reason or f"{source / 'evals'}: proctor eval --list exited {listed.returncode}"
            )
            return None
        try:
            ids = [str(row["id"]) for row in json.loads(listed.stdout or "[]")]
        except (ValueError, KeyError, TypeError):
            problems.append(f"{source / 'evals'}: proctor eval --list printed no list of evals")
            return None
        return Suite("evals", source, ids, kind="evals") if ids else None

    def batches(self) -> list[dict[str, Any]]:
        rows = self.index.query("SELECT * FROM batches ORDER BY created DESC")
        return [self._public(row) for row in rows]

    def batch(self, batch_id: str) -> dict[str, Any] | None:
        rows = self.index.query("SELECT * FROM batches WHERE id = ?", (batch_id,))
        return self._public(rows[0]) if rows else None

    def _public(self, row: Any) -> dict[str, Any]:
        run = row["run"]
        trials = self.index.run_row(run) if run else None
        finished = (
            self.index.query("SELECT key, status FROM trials WHERE run = ? ORDER BY key", (run,))
            if run
            else []
        )
        return {
            "id": row["id"],
            "created": row["created"],
            "state": row["state"],
            "suite": row["source"],
            "cases": json.loads(row["cases"]),
            "run": run,
            "runUrl": f"/runs/{quote(run)}" if run else None,
            "trials": trials["trials"] if trials is not None else 0,
            "planned": trials["planned"] if trials is not None else None,
            "finishedTrials": [
                {
                    "key": t["key"],
                    "status": t["status"],
                    "url": f"/runs/{quote(run)}/trials/{quote(t['key'])}",
                }
                for t in finished
            ],
            "exitCode": row["exit_code"],
            "message": row["message"] or "",
            "finished": row["finished"],
        }

    def start(self, suite_name: str, cases: list[str]) -> dict[str, Any]:
        """Start a batch (all the suite's cases when ``cases`` is empty); BatchRefused with
        409 while another batch runs, 400 for an unknown suite or case."""
        if self.settings.source is None:
            raise BatchRefused(
                "the viewer was started without --source: it has no case suite to run", 400
            )
        suite = next((s for s in self.suites() if s.name == suite_name), None)
        if suite is None:
            raise BatchRefused(f"no case suite named {suite_name!r} in the project", 400)
        unknown = [c for c in cases if c not in suite.cases]
        if unknown:
            raise BatchRefused(f"suite {suite_name} has no case {unknown[0]!r}", 400)
        with self._lock:
            if self._stopping:
                raise BatchRefused("the viewer is stopping", 503)
            batch_id = secrets.token_hex(6)
            # One statement, so that two viewers on the same results never both start one.
            self.index.query(
                "INSERT INTO batches (id, created, state, source, cases, message, owner) "
                "SELECT ?, ?, 'queued', ?, ?, '', ? WHERE NOT EXISTS "
                "(SELECT 1 FROM batches WHERE state IN ('queued', 'running'))",
                (batch_id, _now(), suite_name, json.dumps(cases), self.owner),
            )
            if self.batch(batch_id) is None:
                busy = self.index.query(
                    "SELECT id FROM batches WHERE state IN ('queued', 'running')"
                )
                running = busy[0]["id"] if busy else "another batch"
                raise BatchRefused(f"batch {running} is still running", 409)
            self._trim()
            thread = threading.Thread(target=self._run, args=(batch_id, suite, cases), daemon=True)
            self._running[batch_id] = (None, thread)
        thread.start()
        return self.batch(batch_id) or {}

    def active(self) -> bool:
        """Whether this viewer runs a batch now."""
        with self._lock:
            return any(p is not None and p.poll() is None for p, _ in self._running.values())

    def close(self) -> None:
        """Stop this viewer's batch: its run gets Ctrl-C and up to ``STOP_WAIT_SEC`` to record
        the trials it finished, then is killed; the batch is marked ``interrupted``."""
        with self._lock:
            self._stopping = True
            running = list(self._running.items())
        for _, (process, _) in running:
            if process is not None and process.poll() is None:
                _signal_group(process, signal.SIGINT)
        deadline = time.monotonic() + STOP_WAIT_SEC
        for _, (process, thread) in running:
            thread.join(max(0.0, deadline - time.monotonic()))
            if process is not None and process.poll() is None:
                _signal_group(process, signal.SIGKILL)
                thread.join(5)

    def _trim(self) -> None:
        self.index.query(
            "DELETE FROM batches WHERE state NOT IN ('queued', 'running') AND id NOT IN "
            "(SELECT id FROM batches ORDER BY created DESC LIMIT ?)",
            (self.settings.max_batches,),
        )

    def _set(self, batch_id: str, **fields: object) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.index.query(f"UPDATE batches SET {sets} WHERE id = ?", (*fields.values(), batch_id))

    def _run(self, batch_id: str, suite: Suite, cases: list[str]) -> None:
        results = self.settings.results
        before = {p.name for p in self.index.run_dirs()}
        if suite.kind == "evals":
            argv = [sys.executable, "-m", "proctor", "eval", "--dir", str(suite.path)]
            # After `--`: an id such as `-x` (from `evals/-x.eval.py`) is an id, not an option.
            argv += ["--out", str(results), "--no-stream", "--", *cases]
        else:
            argv = [sys.executable, "-m", "proctor", "run", "--source", str(suite.path)]
            argv += ["--out", str(results)]
            for case in cases:
                argv += ["--case", glob.escape(case)]
        with self._lock:
            if self._stopping:
                self._set(batch_id, state="interrupted", message="the viewer stopped")
                return
            self._set(batch_id, state="running")
            launch = [sys.executable, "-c", LAUNCH, str(os.getpid()), *argv]
            try:
                # In a session of its own: Ctrl-C in the viewer's terminal reaches the viewer,
                # which then stops the run itself (close).
                process = subprocess.Popen(
                    launch,
                    cwd=self.settings.source,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                    start_new_session=True,
                )
            except OSError as exc:
                self._set(batch_id, state="failed", message=str(exc), finished=_now())
                return
            self._running[batch_id] = (process, threading.current_thread())
        stderr: list[str] = []
        reader = threading.Thread(target=lambda: stderr.extend(process.stderr or []))
        reader.start()
        while process.poll() is None:
            self._note_run(batch_id, results, before, process.pid)
            time.sleep(0.3)
        reader.join()
        if process.stderr is not None:
            process.stderr.close()  # read to its end: a viewer runs many batches
        self._note_run(batch_id, results, before, process.pid)
        code = process.returncode
        last = next((line.strip() for line in reversed(stderr) if line.strip()), "")
        state = "finished" if code in (0, 1, 3) else "failed"
        message = EXIT_MESSAGES.get(code, last)
        if self._stopping:
            state, message = "interrupted", "the viewer stopped"
        elif code in (130, -signal.SIGINT):
            state = "interrupted"
        self._set(batch_id, state=state, exit_code=code, message=message, finished=_now())
        with self._lock:
            self._running.pop(batch_id, None)
        self.index.refresh(force=True)

    def _note_run(self, batch_id: str, results: Path, before: set[str], pid: int) -> None:
        """Record the batch's run once its folder appears: the new run folder whose journal
        says it was started by the batch's process (another run may start meanwhile)."""
        known = self.index.query("SELECT run FROM batches WHERE id = ?", (batch_id,))
        if known and known[0]["run"]:
            return
        new = sorted(p for p in results.glob("run-*") if p.name not in before and p.is_dir())
        ours = [p.name for p in new if _started_by(p, pid)]
        if ours:
            self._set(batch_id, run=ours[-1])
            self.index.refresh(force=True)


def _started_by(run_dir: Path, pid: int) -> bool:
    """Whether the run's journal says process ``pid`` started it, and its records are written
    (a run names its process in the journal just before its ``run.json``)."""
    started = next(
        (e for e in run_entries(run_dir / "journal.jsonl") if e.event == "run-started"), None
    )
    return started is not None and started.pid == pid and (run_dir / "run.json").is_file()
