"""The trajectory of a trial's agent session while it runs: what the agent has done so far, in
the trial's ``trajectory.jsonl``, so that its page in ``proctor view`` (which reads the results
folder only) shows each step as the agent takes it.

A thread of the worker looks at the agent's native transcript (in the trial's scratch home, never
in its workspace) every half second; when it changed, the adapter's own parser reads it again
and the events not yet written are appended to ``trajectory.jsonl`` (the file is written anew,
through a rename, when an event already written changed). Each parse costs what the transcript's
size costs, so the next one waits at least :data:`PARSE_SHARE` times as long as the last took: a
long session's transcript is read less often, and the follower never takes more than a fifth of
a core from the agent. Once the session ends, the trajectory collected from the whole transcript
replaces the file as before; a live file nothing replaced (the trial failed before its
transcript was read) is removed, so a finished trial's folder holds what it held before.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from proctor.agents.base import AgentAdapter
from proctor.agents.protocol import Launch
from proctor.models.io import escape_surrogates, masked_text, write_text_atomic
from proctor.models.trajectory import event_json
from proctor.paths import LIVE_MARKER

LOOK_EVERY_SEC = 0.5
"""How often the native transcript's size and time are looked at."""
PARSE_SHARE = 4.0
"""The next parse waits at least this many times as long as the last one took."""

_Stamp = tuple[int, int, int, int]


class LiveTrajectory:
    """Writes the events of the agent's session so far to ``path`` while the session runs (see
    the module's docstring); :meth:`follow` starts it, :meth:`stop` ends it."""

    def __init__(self, adapter: AgentAdapter[Any], path: Path) -> None:
        self.adapter = adapter
        self.path = path
        self.launch: Launch[Any] | None = None
        self.written: list[str] = []
        """The lines written to :attr:`path` so far."""
        self.written_stat: tuple[int, int] | None = None
        """(inode, size) of :attr:`path` as last written here."""
        self.seen: _Stamp | None = None
        self.next_parse = 0.0
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None

    def follow(self, launch: Launch[Any]) -> None:
        """Start following the session ``launch`` started."""
        self.launch = launch
        thread = threading.Thread(target=self._run, name="live-trajectory", daemon=True)
        thread.start()
        # Kept once started: a stop that lands (Ctrl-C, SIGTERM) while it starts finds none
        # to join; a thread it did start ends at its next look, the stop having been set.
        self.thread = thread

    def stop(self) -> None:
        """Stop following (the file stays until the collected trajectory replaces it)."""
        self.stopping.set()
        if self.thread is not None and self.thread.ident is not None:  # (started)
            self.thread.join()
        self.thread = None

    @property
    def marker(self) -> Path:
        return live_marker(self.path)

    def remove_if_left(self) -> None:
        """Remove :attr:`path` when it is still the live file written here: nothing wrote the
        trajectory collected from the whole transcript in its place."""
        self.stop()
        if self.written_stat is not None:
            try:
                st = os.stat(self.path, follow_symlinks=False)
            except OSError:
                st = None
            if st is not None and (st.st_ino, st.st_size) == self.written_stat:
                self.path.unlink(missing_ok=True)
            self.written_stat = None  # (called again, it compares with nothing)
        self.marker.unlink(missing_ok=True)  # last: a kill in between leaves the mark

    def _run(self) -> None:
        while not self.stopping.wait(LOOK_EVERY_SEC):
            try:
                self.look()
            except Exception:  # following is a view of the session: it never stops a trial
                continue

    def look(self) -> None:
        """Parse the native transcript when it changed (and the last parse's share of time
        allows), and write the events so far."""
        assert self.launch is not None
        files = self.adapter.transcript_files(self.launch)
        if not files:
            return
        stamp = _stamp(files)
        if stamp is None or stamp == self.seen or time.monotonic() < self.next_parse:
            return
        started = time.monotonic()
        try:
            trajectory = self.adapter.parse(files[0])
        finally:
            # A transcript that does not parse (yet) waits as one that did: not again until
            # it changes, nor sooner than its parse's share of time allows.
            ended = time.monotonic()
            self.next_parse = ended + PARSE_SHARE * (ended - started)
            self.seen = stamp
        lines = [_line(event_json(event)) for event in trajectory.events]
        if self.stopping.is_set():
            return  # the session ended meanwhile: the collected trajectory is written next
        self.write(lines)

    def write(self, lines: list[str]) -> None:
        """Append the lines not yet written; write the whole file anew when one written
        before changed (or the file is not the one written here any more)."""
        kept = len(self.written)
        appended = lines[:kept] == self.written and self._still_ours()
        if appended and len(lines) == kept:
            return
        if appended:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write("".join(line + "\n" for line in lines[kept:]))
        else:
            write_text_atomic(self.path, "".join(line + "\n" for line in lines))
        self.written = lines
        st = os.stat(self.path, follow_symlinks=False)
        self.written_stat = (st.st_ino, st.st_size)
        # The mark names the live file as written (see drop_left): the collected trajectory,
        # written in its place through a rename, is another file, never taken for it.
        self.marker.write_text(f"{st.st_ino} {st.st_size}\n", encoding="ascii")

    def _still_ours(self) -> bool:
        if self.written_stat is None:
            return not self.written
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return False
        return (st.st_ino, st.st_size) == self.written_stat


def live_marker(trajectory: Path) -> Path:
    """The file that says ``trajectory`` is still the live one (written while the agent ran):
    there from the first line written live until the worker has its collected trajectory."""
    return trajectory.with_name(LIVE_MARKER)


def drop_left(trajectory: Path) -> None:
    """Remove a live ``trajectory.jsonl`` a worker that died left (its record, written for it,
    says it has no result): a trial's folder holds no partial trajectory beside it. Only the
    file the mark names (its inode and size) is removed: a trajectory the worker collected
    from the whole transcript before it died is kept."""
    marker = live_marker(trajectory)
    try:
        named = marker.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return
    try:
        st = os.stat(trajectory, follow_symlinks=False)
    except OSError:
        st = None
    if st is not None and named == [str(st.st_ino), str(st.st_size)]:
        trajectory.unlink(missing_ok=True)
    marker.unlink(missing_ok=True)


def _line(event: dict[str, Any]) -> str:
    """One line of ``trajectory.jsonl`` as :func:`~proctor.models.io.write_jsonl` writes it,
    every registered secret masked as the trial's records mask it (a key never stays on disk,
    even until the trial ends; a figure holding one is ``"***"``, so the line stays JSON)."""
    line = escape_surrogates(json.dumps(event, ensure_ascii=False), json_string=True)
    return masked_text(line, ".json")


def _stamp(files: list[Path]) -> _Stamp | None:
    """What tells one state of the session's files from another: the main file's inode, size
    and time, and how many files there are."""
    try:
        st = files[0].stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, len(files))
