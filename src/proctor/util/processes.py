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
# Each stream's output kept in memory: its first and last halves, the middle dropped.
OUTPUT_LIMIT_BYTES = 8 * 1024 * 1024
# A program printing more than this on one stream is stopped (``yes``, a loop printing): what
# it printed is read as it comes and never written to disk, so nothing else bounds it.
FLOOD_LIMIT_BYTES = 64 * 1024 * 1024
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
    """Whether the program printed more than its limit on stdout and was stopped there
    (``output_limit`` of :func:`run_captured`, else :data:`FLOOD_LIMIT_BYTES`)."""
    stderr_cut: bool = False
    """The same for stderr (only without ``output_limit``)."""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    """How much the program printed on each stream (read before it ended or was stopped),
    kept or not."""
    cut_at: int = 0
    """The limit past which the program was stopped, when it was (bytes on one stream)."""

    def stopped_for_output(self) -> str | None:
        """Why the program was stopped for its output, as the end of a sentence about it
        (``printed more than 64 MiB on stdout and was stopped there``); None when it was not."""
        cut = [
            name for name, on in (("stdout", self.stdout_cut), ("stderr", self.stderr_cut)) if on
        ]
        if not cut:
            return None
        limit = byte_size(self.cut_at)
        return f"printed more than {limit} on {' and '.join(cut)} and was stopped there"


def byte_size(count: int) -> str:
    """``count`` bytes as a sentence says it: ``64 MiB`` for whole mebibytes, else bytes."""
    mib = 1024 * 1024
    return f"{count // mib} MiB" if count and count % mib == 0 else f"{count} bytes"


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

    Its output is read through pipes as it comes, nothing of it on disk. The program's exit is
    awaited, not the pipes' end, so a background child that keeps them open
    (``sleep 30 & echo started``) neither delays the result nor turns a success into a timeout.
    When the program ends or times out, everything it left behind is killed: its process group
    and any process that escaped with ``setsid`` (found by a marker only this call hands out).
    Raises OSError when the program cannot be started.

    Without ``output_limit``, each stream's first and last :data:`OUTPUT_LIMIT_BYTES` / 2 are
    kept around a note of how much was left out, and a program printing more than
    :data:`FLOOD_LIMIT_BYTES` on either is stopped there (:meth:`Outcome.stopped_for_output`).
    With ``output_limit``, stdout's first ``output_limit`` bytes are kept, and a program
    printing more is stopped there (:attr:`Outcome.stdout_cut`); stderr's last
    ``output_limit`` bytes are kept.
    """
    marker = uuid.uuid4().hex
    child_env = {**(os.environ if env is None else env), CALL_MARKER_VARIABLE: marker}
    if output_limit is None:
        half = OUTPUT_LIMIT_BYTES // 2
        out = _Stream(head=half, tail=half, stop=FLOOD_LIMIT_BYTES)
        err = _Stream(head=half, tail=half, stop=FLOOD_LIMIT_BYTES)
    else:
        out = _Stream(head=output_limit, tail=0, stop=output_limit)
        err = _Stream(head=0, tail=output_limit, stop=None)
    return _run_piped(argv, cwd, child_env, timeout, stdin, marker, out, err)


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


def _kill_leftovers(proc: subprocess.Popen[bytes], marker: str) -> None:
    """Kill what the call left running: its process group and children that left it."""
    kill_group(proc.pid)
    kill_marked(marker, variable=CALL_MARKER_VARIABLE)


class _Stream:
    """One stream's output as it is read: its first ``head`` and last ``tail`` bytes kept,
    the middle counted and dropped; past ``stop`` bytes (None: never) the program is stopped."""

    def __init__(self, head: int, tail: int, stop: int | None) -> None:
        self.head_room, self.tail_room, self.stop = head, tail, stop
        self.head, self.tail = bytearray(), bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_room - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_room:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_room:
                del self.tail[: -self.tail_room]

    @property
    def full(self) -> bool:
        """Whether the program printed past ``stop`` on this stream."""
        return self.stop is not None and self.total > self.stop

    def text(self) -> str:
        tail = self.tail[-self.tail_room :] if self.tail_room else b""
        omitted = self.total - len(self.head) - len(tail)
        note = b""
        if omitted > 0 and self.head_room and self.tail_room:
            note = f"\n[... {omitted} bytes of output omitted ...]\n".encode()
        return bytes(self.head + note + tail).decode("utf-8", "replace")


def _run_piped(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    stdin: str | None,
    marker: str,
    out: _Stream,
    err: _Stream,
) -> Outcome:
    """:func:`run_captured` with its output read into ``out`` and ``err``."""
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
    reader = _BoundedReader({proc.stdout.fileno(): out, proc.stderr.fileno(): err})
    try:
        timed_out = reader.wait(proc, timeout)
    finally:
        _kill_leftovers(proc, marker)
        reader.drain()  # what was written before the end (a background child cannot hold it)
        proc.stdout.close()
        proc.stderr.close()
    returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
    return Outcome(
        returncode,
        timed_out,
        out.text(),
        err.text(),
        stdout_cut=out.full,
        stderr_cut=err.full,
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        cut_at=(out.stop if out.full else err.stop if err.full else None) or 0,
    )


class _BoundedReader:
    """Reads a program's streams into their :class:`_Stream` as they come."""

    def __init__(self, streams: dict[int, _Stream]) -> None:
        self.streams = streams
        self.open = set(streams)
        for fd in self.open:
            os.set_blocking(fd, False)

    @property
    def cut(self) -> bool:
        return any(stream.full for stream in self.streams.values())

    def wait(self, proc: subprocess.Popen[bytes], timeout: float) -> bool:
        """Read until ``proc`` exits, prints past a stream's limit (then it is killed) or
        ``timeout`` passes (killed too); True if it timed out."""
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
        """Read what is left in the pipes without waiting for more (nothing more of a stream
        already past its limit)."""
        for fd in list(self.open):
            while fd in self.open and not self.streams[fd].full:
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
        self.streams[fd].add(chunk)
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
