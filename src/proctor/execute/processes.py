"""Running helper processes (setup lines, evaluators) with a deadline and no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TAIL_CHARS = 2000


@dataclass(frozen=True)
class Outcome:
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str

    @property
    def tail(self) -> str:
        text = (self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr).strip()
        return text[-TAIL_CHARS:]


def kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    """Signal the whole process group led by ``pid``; quiet when it is already gone."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_captured(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    timeout: float,
    log: Path | None = None,
    stdin: str | None = None,
) -> Outcome:
    """Run ``argv`` in its own process group; on timeout kill the whole group.

    The combined output is written to ``log`` when given. Raises OSError when the program
    cannot be started.
    """
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = proc.communicate(stdin.encode() if stdin is not None else None, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc.pid)
        out, err = proc.communicate()
    finally:
        kill_group(proc.pid)
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        header = (
            f"$ {' '.join(argv)}\n# exit {proc.returncode}{' (timed out)' if timed_out else ''}\n"
        )
        log.write_text(header + "## stdout\n" + stdout + "\n## stderr\n" + stderr, "utf-8")
    return Outcome(proc.returncode, timed_out, stdout, stderr)


MARKER_VARIABLE = "PROCTOR_TRIAL_MARKER"


def processes_marked(marker: str) -> list[int]:
    """Processes whose environment carries ``PROCTOR_TRIAL_MARKER=<marker>``.

    Agents may start tools in sessions of their own (Claude Code's Bash tool does), out of reach
    of the trial's process group; the marker they inherit finds them anyway.
    """
    needle = f"\0{MARKER_VARIABLE}={marker}\0".encode()
    found: list[int] = []
    own = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == own:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in b"\0" + fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def kill_marked(marker: str, rounds: int = 3) -> int:
    """SIGKILL every process carrying the trial's marker; the number killed."""
    killed = 0
    for _ in range(rounds):
        pids = processes_marked(marker)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
    return killed
