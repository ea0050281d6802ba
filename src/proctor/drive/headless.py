"""Running an agent CLI headless: prompt on the command line, JSON events on stdout.

The process runs in its own session (so its whole group can be killed), with stdin closed and
stdout/stderr streamed to files in the trial directory.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from proctor.execute.processes import kill_group


@dataclass(frozen=True)
class HeadlessOutcome:
    kind: Literal["exited", "timeout"]
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
) -> HeadlessOutcome:
    """Run to completion or until ``deadline`` (a ``time.monotonic`` value); ``append`` adds
    to the output files of an earlier run of the same session."""
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
            code: int | None = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
            kind: Literal["exited", "timeout"] = "exited"
        except subprocess.TimeoutExpired:
            kill_group(proc.pid)
            proc.wait()
            code, kind = None, "timeout"
        finally:
            kill_group(proc.pid)
    return HeadlessOutcome(kind, code, (time.monotonic() - started) * 1000)
