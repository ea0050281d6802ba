"""Session summaries kept between replays, so that a history is parsed once, not every time.

A recorded session file only grows or stays as it is, so a session whose files have the same
sizes and modification times as at its last replay has the same summary. The cache keeps each
session's summary (its JSON) under the session file's path, with a *stamp*: the sizes and
times of every file the summary was read from (the main file, Claude Code's subagent files,
Gemini CLI's ``.project_root``) and a digest of what else decides the figures (proctor's
version and code, the price table, and a project's ``metrics`` settings). Any difference is a
miss and the session is replayed.

It lives in proctor's cache folder, never in a history folder: ``$PROCTOR_CACHE_DIR``, else
``$XDG_CACHE_HOME/proctor``, else ``~/.cache/proctor``; the file is ``history.sqlite3``,
readable by its owner only. SQLite keeps it whole through a crash or two replays at once. A
cache that cannot be opened or written is a note, never a failed replay: the sessions are
replayed from their files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from proctor._version import __version__
from proctor.errors import ConfigError
from proctor.history.layout import Session
from proctor.models.pricing import PriceTable
from proctor.models.process import DEFAULT_METRICS_CONFIG, MetricsConfig
from proctor.paths import NotAFullPath, cache_folder

FILE_NAME = "history.sqlite3"
_FORMAT = 1
"""Changes when the layout of the stored rows does."""


def cache_file(env: Mapping[str, str]) -> Path:
    """The cache's file in proctor's cache folder (see :func:`~proctor.paths.cache_folder`).
    A relative ``PROCTOR_CACHE_DIR`` is a ConfigError: each folder proctor runs in would have
    a cache of its own, as a relative ``PROCTOR_DATA_DIR`` would have a journal."""
    try:
        return cache_folder(env, instead=", or use --no-cache") / FILE_NAME
    except NotAFullPath as exc:
        raise ConfigError(str(exc)) from None


def code_digest() -> str:
    """proctor's version and the size and time of each of its modules: a replay by other code
    (an upgrade, a local change to a parser or a metric) never reads this code's summaries."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(f"{_FORMAT}:{__version__}".encode())
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _typed(rows: list[tuple[object, object, object]]) -> dict[str, tuple[str, bytes]]:
    """Rows by path; a row of other types (edited by hand) is as good as missing: that
    session is replayed and its row written again."""
    return {
        path: (stamp, blob)
        for path, stamp, blob in rows
        if isinstance(path, str) and isinstance(stamp, str) and isinstance(blob, bytes)
    }


def _file_stamp(path: str) -> str:
    try:
        stat = os.stat(path)
    except OSError:
        return "-"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


_BYTES_KEY = "bytes:"
"""The prefix of a row whose path is not UTF-8: its bytes in hex (SQLite keeps UTF-8 text)."""


def _key(path: str | Path) -> str:
    """A session's row: its file's absolute path (the same file read through a relative path
    from another folder is the same row); a path that is not UTF-8 (its bytes kept as
    surrogates) as :data:`_BYTES_KEY` and its bytes in hex."""
    text = str(path)
    text = text if text.startswith("/") else os.path.abspath(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _BYTES_KEY + os.fsencode(text).hex()
    return text


def _path_of(key: str) -> str:
    """The file a row names (see :func:`_key`)."""
    if key.startswith(_BYTES_KEY):
        try:
            return os.fsdecode(bytes.fromhex(key[len(_BYTES_KEY) :]))
        except ValueError:
            return key
    return key


@dataclass(frozen=True)
class Stamper:
    """Stamps sessions for one namespace (proctor's code and the price table); small enough to
    hand to the processes that measure sessions."""

    namespace: str

    def stamp(self, session: Session, parts: Iterable[Path]) -> str:
        """What the summary of ``session`` depends on, read from its files' metadata only:
        the namespace, the agent it is read as (a file read as one CLI's session, given as a
        PATH, is never served to a listing of another CLI's folder that holds it), then the
        size and time of the main file and of each part by name."""
        stamps = [self.namespace, session.agent, _file_stamp(session.file)]
        stamps += [f"{part.name}={_file_stamp(str(part))}" for part in parts]
        if session.agent == "gemini-cli":
            marker = session.path.parent.parent / ".project_root"
            stamps.append(f"{marker.name}={_file_stamp(str(marker))}")
        return "|".join(stamps)


WAIT = 2.0
"""Seconds a replay waits for a cache another process holds, to read it (then it replays
without it, and keeps nothing) or to write it (then its summaries are not kept): a replay's
own write lasts a fraction of that."""


class SummaryCache:
    """The summaries of earlier replays, read once when opened; new ones are written by
    :meth:`save` in one transaction."""

    def __init__(
        self, path: Path, pricing: PriceTable, metrics: MetricsConfig | None = None
    ) -> None:
        self.path = path
        self.notes: list[str] = []
        prices = hashlib.sha256(pricing.model_dump_json(by_alias=True).encode()).hexdigest()
        key = f"{code_digest()}:{prices[:16]}"
        if metrics is not None and metrics != DEFAULT_METRICS_CONFIG:
            # A project's rule settings decide the rules fired: its summaries are its own.
            settings = metrics.model_dump_json(by_alias=True).encode()
            key += f":{hashlib.sha256(settings).hexdigest()[:16]}"
        self.stamper = Stamper(key)
        self._stored: dict[str, tuple[str, bytes]] = {}
        self._fresh: list[tuple[str, str, str, bytes]] = []
        self._forks: dict[str, tuple[str, bytes]] = {}
        self._fresh_forks: list[tuple[str, str, bytes]] = []
        self.hits = 0
        self.fork_hits = 0
        self._locked = False
        try:
            self._stored, self._forks = self._read()
        except (sqlite3.Error, OSError) as exc:
            # One held by another process (a replay writing, a browser of the file) was
            # waited for a moment, and is left alone: the replay never waits on it twice.
            self._locked = isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)
            self.notes.append(
                f"the history cache {path} could not be read ({_why(path, exc)}); replaying"
                + (", and this replay's summaries are not kept" if self._locked else "")
            )

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        elif stat.S_IMODE(os.stat(self.path).st_mode) & 0o077:
            # Summaries name the user's projects and files: the owner's alone, as a new one is.
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        connection = sqlite3.connect(self.path, timeout=WAIT)
        try:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS summaries (path TEXT PRIMARY KEY, agent TEXT NOT NULL,"
                " stamp TEXT NOT NULL, summary BLOB NOT NULL)"
            )
            connection.execute(
                "CREATE TABLE IF NOT EXISTS forks (path TEXT PRIMARY KEY, stamp TEXT NOT NULL,"
                " outcome BLOB NOT NULL)"
            )
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def _read(self) -> tuple[dict[str, tuple[str, bytes]], dict[str, tuple[str, bytes]]]:
        """The stored summaries, and the stored measures of forks (see :meth:`get_fork`)."""
        if not self.path.exists():
            return {}, {}
        try:
            connection = self._connect()
        except sqlite3.OperationalError:
            raise  # locked, or not allowed: left as it is
        except sqlite3.DatabaseError:
            # Not a database (a torn copy, another program's file): it is only a cache.
            self.notes.append(f"the history cache {self.path} was unreadable and is rebuilt")
            self.path.unlink()
            return {}, {}
        try:
            rows = connection.execute("SELECT path, stamp, summary FROM summaries").fetchall()
            forks = connection.execute("SELECT path, stamp, outcome FROM forks").fetchall()
        except sqlite3.OperationalError as exc:
            if "no such column" not in str(exc):
                raise
            # A table of another layout (another program's, or damaged): rebuilt.
            self.notes.append(f"the history cache {self.path} had another layout and is rebuilt")
            connection.close()
            self.path.unlink()
            return {}, {}
        finally:
            connection.close()
        return _typed(rows), _typed(forks)

    def stamp(self, session: Session, parts: Iterable[Path]) -> str:
        return self.stamper.stamp(session, parts)

    def has(self, session: Session) -> bool:
        """Whether an earlier replay stored a summary of ``session`` (current or not)."""
        return _key(session.file) in self._stored

    def get(self, session: Session, stamp: str, parts: Iterable[Path] = ()) -> bytes | None:
        """The stored summary of ``session`` when its stamp is ``stamp`` and its file and
        ``parts`` (the files the stamp names) can all still be read; else None."""
        found = self._stored.get(_key(session.file))
        if found is None or found[0] != stamp:
            return None
        files: list[str | Path] = [session.file, *parts]
        if not all(os.access(path, os.R_OK) for path in files):
            return None  # no longer readable: replayed, and reported as the user now sees it
        self.hits += 1
        return found[1]

    def put(self, session: Session, stamp: str, summary: bytes) -> None:
        self._fresh.append((_key(session.file), session.agent, stamp, summary))

    def family_stamp(self, members: Iterable[tuple[Session, Iterable[Path]]]) -> str:
        """What the measures of a family of Claude Code sessions that share responses (a
        session and its forks, see :mod:`proctor.history.forks`) depend on: each member's
        stamp, with its parts, in the order of their paths."""
        stamps = sorted((s.file, self.stamper.stamp(s, parts)) for s, parts in members)
        return "||".join(f"{file}>{stamp}" for file, stamp in stamps)

    def get_fork(self, session: Session, stamp: str) -> bytes | None:
        """What an earlier replay found of ``session`` in its family of forks, when the
        family's stamp is still ``stamp``: its summary measured without the lines it copied,
        or a marker (see :mod:`proctor.history.forks`)."""
        found = self._forks.get(_key(session.file))
        if found is None or found[0] != stamp:
            return None
        self.fork_hits += 1
        return found[1]

    def put_fork(self, session: Session, stamp: str, outcome: bytes) -> None:
        self._fresh_forks.append((_key(session.file), stamp, outcome))

    def save(self, seen: Iterable[str | Path], parts: Iterable[str | Path] = ()) -> None:
        """Write the new summaries, and forget the stored sessions that are gone: of those this
        replay did not see (``seen``: every session it listed), the ones whose file is not there
        in a folder it listed, and the ones whose folder is not there. A stored session of a
        folder this replay did not list (another CLI's history, another PATH) is left until a
        replay lists its folder: a cache that also held another history of 20,000 sessions cost
        20,000 file look-ups a run. A row of a file that this replay read as a part of another
        session (``parts``: a Codex subagent's thread, which earlier code replayed as a
        session of its own) is forgotten too: no replay reads it again."""
        seen_paths = {_key(p) for p in seen}
        part_paths = {_key(p) for p in parts}
        listed = {os.path.dirname(_path_of(key)) for key in seen_paths}
        there: dict[str, bool] = {}  # each folder not listed: whether it is still there
        gone: list[tuple[str]] = []
        for key in self._stored.keys() | self._forks.keys():
            if key in seen_paths:
                continue
            if key in part_paths:
                gone.append((key,))
                continue
            path = _path_of(key)
            folder = os.path.dirname(path)
            if folder in listed:
                if not os.path.exists(path):
                    gone.append((key,))
                continue
            if folder not in there:
                there[folder] = os.path.isdir(folder)
            if not there[folder]:
                gone.append((key,))
        if self._locked or (not self._fresh and not self._fresh_forks and not gone):
            return
        try:
            connection = self._connect()
            try:
                with connection:
                    connection.executemany(
                        "INSERT OR REPLACE INTO summaries (path, agent, stamp, summary)"
                        " VALUES (?, ?, ?, ?)",
                        self._fresh,
                    )
                    connection.executemany(
                        "INSERT OR REPLACE INTO forks (path, stamp, outcome) VALUES (?, ?, ?)",
                        self._fresh_forks,
                    )
                    connection.executemany("DELETE FROM summaries WHERE path = ?", gone)
                    connection.executemany("DELETE FROM forks WHERE path = ?", gone)
            finally:
                connection.close()
        except (sqlite3.Error, OSError) as exc:
            self.notes.append(
                f"the history cache {self.path} could not be written ({_why(self.path, exc)})"
            )
        self._fresh, self._fresh_forks = [], []


def _why(path: Path, exc: sqlite3.Error | OSError) -> str:
    """Why the cache ``path`` could not be read or written: a file (or a device) on the way
    where its folder belongs is named, not told as the system's ``[Errno 17] File exists``."""
    if isinstance(exc, OSError):
        blocker = next(
            (p for p in reversed(path.parents) if os.path.exists(p) and not os.path.isdir(p)),
            None,
        )
        if blocker is not None:
            return f"{blocker} is not a folder"
        return exc.strerror or str(exc)
    return str(exc)
