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

After each parse (the transcript changed: the agent took a step), the workspace's diff so far
is made and written to ``workspace.diff`` the same way (:class:`LiveDiff`), its time counted
with the parse's in the share. A mark beside each live file names it by inode and size, so that
the live files a worker that died left are removed (:func:`drop_live`) and the files collected
at the end, written in their place through a rename, never are.
"""

from __future__ import annotations

import glob
import hashlib
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
from proctor.paths import LIVE_DIFF_MARKER, LIVE_MARKER, TrialPaths, names_live
from proctor.workspace.diff import Snapshot, workspace_diff

LOOK_EVERY_SEC = 0.5
"""How often the native transcript's size and time are looked at."""
PARSE_SHARE = 4.0
"""The next parse waits at least this many times as long as the last one took."""

_Stamp = tuple[int, int, int, int]


class LiveTrajectory:
    """Writes the events of the agent's session so far to ``path`` while the session runs (see
    the module's docstring); :meth:`follow` starts it, :meth:`stop` ends it."""

    def __init__(
        self, adapter: AgentAdapter[Any], path: Path, diff: LiveDiff | None = None
    ) -> None:
        self.adapter = adapter
        self.path = path
        self.diff = diff
        """The workspace's diff so far, made again after the transcript changed."""
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
        trajectory collected from the whole transcript in its place (and so the diff so far:
        see :meth:`LiveDiff.remove_if_left`)."""
        self.stop()
        if self.diff is not None:
            self.diff.remove_if_left()
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
        try:
            self._parse(files[0], stamp)
        finally:
            # After a step, what it changed (a transcript that does not parse yet changed
            # too); in the same share of time as the parse.
            if self.diff is not None and not self.stopping.is_set():
                started = time.monotonic()
                try:
                    self.diff.look()
                finally:
                    self.next_parse += PARSE_SHARE * (time.monotonic() - started)

    def _parse(self, transcript: Path, stamp: _Stamp) -> None:
        started = time.monotonic()
        try:
            trajectory = self.adapter.parse(transcript)
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


LIVE_DIFF_MAX_FILES = 200_000
"""A workspace of more files (as the agent found it) has no diff so far: one diff of it costs
over a second of a core (a diff costs about 6 µs a file, every file's size and time looked at,
and the files that changed read)."""
LIVE_DIFF_MAX_SEC = 5.0
"""A diff so far that took longer (the agent made many files, or large ones) is the last one
made until the trial ends."""


class LiveDiff:
    """The diff of the workspace so far against the snapshot the trial started from, written to
    ``path`` (the trial's ``workspace.diff``) after the agent's steps, as the diff collected
    at the end is (:func:`~proctor.workspace.diff.workspace_diff`, every registered secret
    masked). Its mark (:data:`~proctor.paths.LIVE_DIFF_MARKER`) names each file written
    here before it is put in place, so that a worker that dies at any moment leaves a mark
    for what it wrote (see :func:`drop_live`); the diff collected at the end, another file
    written in its place through a rename, is never taken for it."""

    def __init__(self, before: Snapshot, workspace: Path, path: Path) -> None:
        self.before = before
        self.workspace = workspace
        self.path = path
        self.written: bytes | None = None
        """The digest of the text last written to :attr:`path` (before masking)."""
        self.written_stat: tuple[int, int] | None = None
        """(inode, size) of :attr:`path` as last written here."""
        self.given_up: str | None = None
        """Why no diff is made any more while the trial runs (a huge workspace)."""

    @staticmethod
    def marker_of(path: Path) -> Path:
        return path.with_name(LIVE_DIFF_MARKER)

    @property
    def marker(self) -> Path:
        return self.marker_of(self.path)

    def look(self) -> None:
        """Make the diff so far and write it when it changed."""
        if self.given_up is not None:
            return
        if self.workspace.is_symlink() or not self.workspace.is_dir():
            return  # removed, or a link put in its place: collect says so (never followed)
        files = len(self.before.stats)
        if files > LIVE_DIFF_MAX_FILES:
            self.given_up = (
                f"Not followed while the trial runs: the workspace held {files:,} files when "
                f"the agent started (a diff so far is made of up to {LIVE_DIFF_MAX_FILES:,}); "
                "its diff is written when the trial ends\n"
            )
            self.write(self.given_up)
            return
        started = time.monotonic()
        diff = workspace_diff(self.before, self.workspace)
        took = time.monotonic() - started
        if took > LIVE_DIFF_MAX_SEC:
            self.given_up = (
                f"Not followed any further while the trial runs: this diff of the workspace "
                f"took {took:.1f} s (more than {LIVE_DIFF_MAX_SEC:g} s); the whole diff is "
                "written when the trial ends\n"
            )
            diff = self.given_up + diff
        self.write(diff)

    def write(self, text: str) -> None:
        """Write ``text`` in place of the diff written before, unless it is the same."""
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        if digest == self.written and self._still_ours():
            return
        was = self._still_ours_line()

        def placing(st: os.stat_result) -> None:
            # Named before it is in place: a kill after the rename leaves it marked.
            _write_mark(self.marker, [*was, f"{st.st_ino} {st.st_size}"])

        try:
            write_text_atomic(self.path, text, placing=placing)
        except BaseException:
            _write_mark(self.marker, was)  # (the file named last is gone: its inode is free)
            raise
        st = os.stat(self.path, follow_symlinks=False)
        self.written, self.written_stat = digest, (st.st_ino, st.st_size)
        # The file replaced is named no more (its inode may be a later file's).
        _write_mark(self.marker, [f"{st.st_ino} {st.st_size}"])

    def _still_ours(self) -> bool:
        return bool(self._still_ours_line())

    def _still_ours_line(self) -> list[str]:
        """The mark's line of :attr:`path` when it is still the file written here, else none."""
        if self.written_stat is None:
            return []
        try:
            st = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return []
        if (st.st_ino, st.st_size) != self.written_stat:
            return []
        return [f"{st.st_ino} {st.st_size}"]

    def remove_if_left(self) -> None:
        """Remove :attr:`path` when it is still the diff so far written here: nothing wrote the
        diff collected at the end in its place (a trial cut short, or whose session failed)."""
        if self._still_ours():
            self.path.unlink(missing_ok=True)
        self.written_stat = None  # (called again, it compares with nothing)
        _mark_tmp(self.marker).unlink(missing_ok=True)  # a write of the mark that failed
        self.marker.unlink(missing_ok=True)  # last: a kill in between leaves the mark


def _mark_tmp(marker: Path) -> Path:
    """The file a mark is written to before it is renamed into place."""
    return marker.with_name(marker.name + ".tmp")


def _write_mark(marker: Path, lines: list[str]) -> None:
    """Write a mark whole, through a rename: a kill leaves the mark before or after; a write
    that fails (a full disk) leaves no temp file."""
    tmp = _mark_tmp(marker)
    try:
        tmp.write_text("".join(line + "\n" for line in lines), encoding="ascii")
        os.replace(tmp, marker)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def live_marker(trajectory: Path) -> Path:
    """The file that says ``trajectory`` is still the live one (written while the agent ran):
    there from the first line written live until the worker has its collected trajectory."""
    return trajectory.with_name(LIVE_MARKER)


def drop_left(trajectory: Path, marker: Path | None = None) -> None:
    """Remove a live ``trajectory.jsonl`` a worker that died left (its record, written for it,
    says it has no result): a trial's folder holds no partial trajectory beside it. Only the
    file the mark names (its inode and size) is removed: a trajectory the worker collected
    from the whole transcript before it died is kept. ``marker``: the mark of another live
    file (the workspace's diff so far: :class:`LiveDiff`)."""
    marker = live_marker(trajectory) if marker is None else marker
    if not marker.exists():
        return
    if names_live(marker, trajectory):
        trajectory.unlink(missing_ok=True)
    marker.unlink(missing_ok=True)


def drop_live(trial: TrialPaths) -> None:
    """Remove the live files a worker that died left in its trial's folder (see
    :func:`drop_left`): its trajectory and its workspace's diff so far."""
    drop_left(trial.trajectory)
    drop_left(trial.workspace_diff, LiveDiff.marker_of(trial.workspace_diff))
    # And what a write the kill cut short left: a temp file is never a result.
    for path in (trial.trajectory, trial.workspace_diff):
        for tmp in trial.root.glob(f".{glob.escape(path.name)}.*.tmp"):
            tmp.unlink(missing_ok=True)


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
