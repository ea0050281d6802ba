"""Processes: commands with a deadline and no orphans, process groups, marked processes and
process trees (through psutil), and the subreaper that keeps a trial's daemons below its worker.
"""

from __future__ import annotations

import functools
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

TAIL_CHARS = 2000
# Each stream's output kept in memory; beyond it the middle is dropped.
OUTPUT_LIMIT_BYTES = 8 * 1024 * 1024
# How long to wait for a killed program to be reaped before answering anyway.
KILL_GRACE_SEC = 5.0
MARKER_VARIABLE = "PROCTOR_TRIAL_MARKER"
# Set afresh by every run_captured call, so its escaped children can be told from the trial's.
CALL_MARKER_VARIABLE = "PROCTOR_CALL_MARKER"


@dataclass(frozen=True)
class Outcome:
    returncode: int
    timed_out: bool
    stdout: str
    stderr: str
    """What the program wrote, in the clear: shown or kept, its end is
    :func:`proctor.util.cutting.output_tail` (every registered secret masked before the cut)."""
    stdout_cut: bool = False
    """Whether the program printed more than ``output_limit`` (:func:`run_captured`) on stdout
    and was stopped there: ``stdout`` is its first ``output_limit`` bytes."""


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
    stdin: str | None = None,
    output_limit: int | None = None,
) -> Outcome:
    """Run ``argv`` in its own process group; the program's own exit decides, within ``timeout``.

    Output goes to temporary files rather than pipes, so a background child that keeps them open
    (``sleep 30 & echo started``) neither delays the result nor turns a success into a timeout.
    When the program ends or times out, everything it left behind is killed: its process group
    and any process that escaped with ``setsid`` (found by a marker only this call hands out).
    Raises OSError when the program cannot be started.

    With ``output_limit``, its output is read through pipes as it comes, nothing of it on disk:
    stdout's first ``output_limit`` bytes are kept, and a program printing more is stopped
    there (:attr:`Outcome.stdout_cut`); stderr's last ``output_limit`` bytes are kept.
    """
    marker = uuid.uuid4().hex
    child_env = {**(os.environ if env is None else env), CALL_MARKER_VARIABLE: marker}
    if output_limit is not None:
        return _run_piped(argv, cwd, child_env, timeout, stdin, output_limit, marker)
    with (
        tempfile.TemporaryFile() as out_file,
        tempfile.TemporaryFile() as err_file,
        _stdin_file(stdin) as in_file,
    ):
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=child_env,
            stdin=in_file if in_file is not None else subprocess.DEVNULL,
            stdout=out_file,
            stderr=err_file,
            start_new_session=True,
        )
        try:
            timed_out = _wait(proc, timeout)
        finally:
            _kill_leftovers(proc, marker)
        returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
        stdout = _read_bounded(out_file).decode("utf-8", "replace")
        stderr = _read_bounded(err_file).decode("utf-8", "replace")
    return Outcome(returncode, timed_out, stdout, stderr)


@contextmanager
def _stdin_file(text: str | None) -> Iterator[IO[bytes] | None]:
    """``text`` in a rewound temporary file, so feeding a child that never reads cannot block."""
    if text is None:
        yield None
        return
    with tempfile.TemporaryFile() as fh:
        fh.write(text.encode())
        fh.seek(0)
        yield fh


def _exited_within(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether ``proc`` exits within ``timeout``, noticed the moment it does.

    ``Popen.wait(timeout)`` polls with growing sleeps (up to 50 ms a round); a pidfd (Linux)
    becomes readable when the process exits, so a quick command costs no extra wait.
    """
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if ready:
        proc.wait()
    return bool(ready)


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout``; on expiry kill the group and reap ``proc``. True if it timed out."""
    if _exited_within(proc, timeout):
        return False
    kill_group(proc.pid)
    proc.kill()
    try:
        proc.wait(timeout=KILL_GRACE_SEC)
    except subprocess.TimeoutExpired:
        pass  # stuck in the kernel; the caller still gets its answer on time
    return True


def _kill_leftovers(proc: subprocess.Popen[bytes], marker: str) -> None:
    """Kill what the call left running: its process group and children that left it."""
    kill_group(proc.pid)
    kill_marked(marker, variable=CALL_MARKER_VARIABLE)


def _read_bounded(fh: IO[bytes], limit: int = OUTPUT_LIMIT_BYTES) -> bytes:
    """The file's content, or its head and tail around a note when it is larger than ``limit``."""
    size = fh.seek(0, os.SEEK_END)
    fh.seek(0)
    if size <= limit:
        return fh.read()
    half = limit // 2
    head = fh.read(half)
    fh.seek(size - half)
    tail = fh.read()
    return head + f"\n[... {size - 2 * half} bytes of output omitted ...]\n".encode() + tail


def _run_piped(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdin: str | None,
    limit: int,
    marker: str,
) -> Outcome:
    """:func:`run_captured` with its output read through pipes and bounded by ``limit``."""
    with _stdin_file(stdin) as in_file:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=in_file if in_file is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    assert proc.stdout is not None and proc.stderr is not None
    reader = _BoundedReader(proc.stdout.fileno(), proc.stderr.fileno(), limit)
    try:
        timed_out = reader.wait(proc, timeout)
    finally:
        _kill_leftovers(proc, marker)
        reader.drain()  # what was written before the end (a background child cannot hold it)
        proc.stdout.close()
        proc.stderr.close()
    returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    out, err = (bytes(b).decode("utf-8", "replace") for b in (reader.out, reader.err[-limit:]))
    return Outcome(returncode, timed_out, out, err, stdout_cut=reader.cut)


class _BoundedReader:
    """Reads a program's stdout (its head, up to ``limit``) and stderr (its last ``limit``
    bytes) as they come."""

    def __init__(self, out_fd: int, err_fd: int, limit: int) -> None:
        self.out_fd, self.err_fd, self.limit = out_fd, err_fd, limit
        self.out, self.err = bytearray(), bytearray()
        self.open = {out_fd, err_fd}
        self.cut = False
        for fd in self.open:
            os.set_blocking(fd, False)

    def wait(self, proc: subprocess.Popen[bytes], timeout: float) -> bool:
        """Read until ``proc`` exits, prints past the limit (then it is killed) or ``timeout``
        passes (killed too); True if it timed out."""
        deadline = time.monotonic() + timeout
        try:
            pidfd: int | None = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            pidfd = None
        try:
            while proc.poll() is None and not self.cut:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    _stop(proc)
                    return True
                watched = [*self.open, *([pidfd] if pidfd is not None else [])]
                wait = remaining if pidfd is not None else min(remaining, 0.05)
                ready = select.select(watched, [], [], wait)[0] if watched else []
                if not watched:
                    time.sleep(wait)
                for fd in ready:
                    if fd != pidfd:
                        self._read(fd)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        if self.cut:
            _stop(proc)
        return False

    def drain(self) -> None:
        """Read what is left in the pipes without waiting for more."""
        for fd in list(self.open):
            while fd in self.open and not (fd == self.out_fd and self.cut):
                if not self._read(fd):
                    break

    def _read(self, fd: int) -> bool:
        """Read one chunk of ``fd``; False when there was nothing to read now."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            self.open.discard(fd)
            return False
        if fd == self.out_fd:
            room = self.limit - len(self.out)
            self.out += chunk[:room]
            self.cut = self.cut or len(chunk) > room
        else:
            self.err += chunk
            if len(self.err) > 2 * self.limit:
                del self.err[: -self.limit]
        return True


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc``'s group and reap it (not waiting past :data:`KILL_GRACE_SEC`)."""
    kill_group(proc.pid)
    proc.kill()
    try:
        proc.wait(timeout=KILL_GRACE_SEC)
    except subprocess.TimeoutExpired:
        pass


def processes_marked(marker: str, variable: str = MARKER_VARIABLE) -> list[int]:
    """Processes whose environment carries ``<variable>=<marker>`` (the trial marker by default).

    Agents may start tools in sessions of their own (Claude Code's Bash tool does), out of reach
    of the trial's process group; the marker they inherit finds them anyway.
    """
    needle = f"\0{variable}={marker}\0".encode()
    found: list[int] = []
    own = str(os.getpid())
    try:
        entries = os.listdir("/proc")  # environments are read from /proc: Linux only
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or entry == own:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle in b"\0" + fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def kill_marked(marker: str, rounds: int = 3, variable: str = MARKER_VARIABLE) -> int:
    """SIGKILL every process carrying the marker (the trial's by default); the number killed."""
    return _kill_rounds(lambda: processes_marked(marker, variable), rounds)


def _kill_rounds(
    find: Callable[[], list[int]], rounds: int, after: Callable[[], None] | None = None
) -> int:
    """SIGKILL what ``find`` returns, again until it finds nothing (a process may start
    another while dying), at most ``rounds`` times; the number killed."""
    killed = 0
    for _ in range(rounds):
        pids = find()
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        if after is not None:
            after()
    return killed


PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux), so that a daemon
    that double-forks, leaves its session and clears its environment still ends up our
    descendant, and :func:`kill_descendants` finds it. False where that is not possible."""
    prctl = load_prctl()
    return prctl is not None and bool(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def stop_with_parent(signum: int) -> bool:
    """Ask the kernel to send ``signum`` to this process when its parent dies (Linux); False
    where that is not possible."""
    prctl = load_prctl()
    return prctl is not None and bool(prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0)


@functools.cache
def load_prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, loaded once. A parent that forks workers calls this first, so that
    no worker imports ``ctypes`` (~1.5 ms) for its own :func:`become_subreaper`."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` in the process tree (empty when ``pid`` is gone)."""
    if has_children(pid) is False:
        return []  # nothing below: skip psutil's import and its scan of every process
    import psutil  # here, not at the top: most trials leave nothing behind to find

    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return []


def has_children(pid: int) -> bool | None:
    """Whether ``pid`` has child processes, from the kernel's per-thread ``children`` lists
    (Linux); None where they cannot be read (another system, or a thread that just ended)."""
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", "rb") as fh:
                if fh.read().strip():
                    return True
    except OSError:
        return None
    return False


def kill_descendants(pid: int, rounds: int = 3) -> int:
    """SIGKILL every descendant of ``pid`` and reap the ones that are ours; the number killed."""
    return _kill_rounds(lambda: descendants(pid), rounds, after=_reap_children)


def _reap_children() -> None:
    """Collect exited children (orphans adopted as subreaper among them) without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def process_tag(pid: int | None = None) -> str:
    """``host:pid:start``, naming one process (this one by default) for other processes to
    check later with :func:`tag_running`."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{process_start(pid)}"


def tag_running(tag: str) -> bool:
    """Whether the process ``tag`` names still runs. A tag from another host cannot be checked
    from here and counts as running."""
    parts = tag.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return False
    host, pid, start = parts
    return host != socket.gethostname() or still_running(int(pid), start)


def still_running(pid: int, start: str) -> bool:
    """Whether process ``pid`` still runs and is the one that started at ``start`` (what
    :func:`process_start` said then, as text), not another that reuses its pid."""
    return str(process_start(pid)) == start


def process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot, Linux); None when it is gone. With
    the pid, it names one process: a pid reused later has another start. A zombie (a process
    that ended and that its parent has not waited for yet, as a killed ``proctor run`` under a
    supervisor that never reaps it) is gone: it runs nothing, only its exit status is kept."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        if fields[0] in (b"Z", b"X"):  # the state, field 3: zombie, dead
            return None
        return int(fields[19])  # field 22 of stat; the two before ")" are pid and comm
    except (OSError, IndexError, ValueError):
        return None
