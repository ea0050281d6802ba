"""Claude Code forks: a session's history copied into another session's file, measured once.

``claude --resume <id> --fork-session`` starts a session whose file begins with a copy of the
earlier session's lines: the same uuids, times, message ids and tool calls, with only the
session id rewritten, and nothing that names the session it came from. Read on its own, a fork
would count the earlier session's steps again, start when that one started, and last from
then to its own end.

A replay finds forks by what they share: sessions that hold the same response (its message and
request ids, which a replay keeps to count each response once) are one family, and so are
sessions whose lines carry the same session id (copies of one session file, which may hold
no response yet: a copy taken, or cut, before the first answer). In a family the
sessions are taken in the order of the first time their file records (a fork's file starts
with the moment it was made, before the copy), then of their size in lines (a fork holds the
copy and lines of its own), then of their start and of their path. Each session after the
first is measured again without the lines of those before it (told by their uuids). A session
whose every line is theirs (a session file copied under another name) is no session of its
own: it is listed unavailable, and its lines count in the session they came from.

The families of a replay are read, and their forks measured again, on the replay's worker
processes: every member's lines first, then every fork that needs a measure of its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from itertools import chain
from pathlib import Path
from typing import Any

import msgspec

from proctor.errors import ConfigError
from proctor.history.cache import SummaryCache
from proctor.history.layout import Session
from proctor.history.parts import claude_parts
from proctor.history.readback import read_summary
from proctor.history.record import SessionRecord, responses_of
from proctor.history.replay import SERIAL_BELOW, measure_session
from proctor.models.history import Unavailable
from proctor.models.pricing import PriceTable
from proctor.models.process import MetricsConfig
from proctor.transcripts.lines import file_blocks
from proctor.util.collection import collection_paused
from proctor.util.cpus import usable_cpus
from proctor.util.pool import forked_pool, start_worker


class _Line(msgspec.Struct, gc=False):
    """What a family's order and a fork's copy are told from (any other field is skipped)."""

    uuid: Any = None
    timestamp: Any = None


_decode = msgspec.json.Decoder(_Line).decode


def _lines(path: str) -> Iterator[_Line]:
    """The records of a session file that read as objects (any other line is passed over)."""
    try:
        for block in file_blocks(path):
            for line in block.split(b"\n"):
                if line and not line.isspace():
                    try:
                        yield _decode(line)
                    except (msgspec.DecodeError, RecursionError):
                        continue
    except ConfigError:  # no longer readable: its measure says so
        return


Member = tuple[set[str], "float | None"]
"""What a family's member is told by: the uuids of its lines, and the first time its file
records (None when it records none that reads as a time)."""


def _member(path: str) -> Member:
    """A session file's uuids and first time (a fork's first time is the moment it was made:
    Claude Code records the prompt it was started with before the copy), in one read."""
    uuids: set[str] = set()
    first: str | None = None
    for line in _lines(path):
        if type(line.uuid) is str:
            uuids.add(line.uuid)
        if first is None and type(line.timestamp) is str:
            first = line.timestamp
    when = None
    if first is not None:
        try:
            when = datetime.fromisoformat(first).timestamp()
        except ValueError:
            when = None
    return uuids, when


def _order(record: SessionRecord, member: Member) -> tuple[bool, float, int, str, str]:
    """A family's order: the first time the file records (a fork's is when it was made), then
    the fewest lines (a fork holds all the lines it copied, and its own), then the start and
    the path."""
    uuids, when = member
    return when is None, when or 0.0, len(uuids), record.started_at or "", record.path


def _in_order(
    records: list[SessionRecord], family: list[int], read: dict[int, Member]
) -> list[int]:
    """A family's members in the order they are measured (see :func:`_order`). Copies of one
    session (the same session id in their lines: a fork's lines carry one of their own) go
    together, at the place of the first of them, and the one with the most lines first: a
    copy taken before the session went on holds fewer lines than the session, all of them
    its; of two that hold as many, the one named after the session's id, as Claude Code names
    its file (``<id>.jsonl``), over a copy under another name."""
    place = {i: _order(records[i], read[i]) for i in family}
    copies: dict[str, list[int]] = {}
    for i in family:
        copies.setdefault(records[i].session_id or f"\0{i}", []).append(i)
    groups = sorted(copies.values(), key=lambda group: min(place[i] for i in group))

    def kept_first(i: int) -> tuple[int, bool, tuple[bool, float, int, str, str]]:
        named = os.path.basename(records[i].path) == f"{records[i].session_id}.jsonl"
        return -len(read[i][0]), not named, place[i]

    return [i for group in groups for i in sorted(group, key=kept_first)]


def _families(records: list[SessionRecord]) -> list[list[int]]:
    """The Claude Code sessions that share a response, or whose lines carry the same session
    id (a copy of a session file under another name, cut before its first response holds
    none to share), as lists of their places in ``records`` (families of one left out)."""
    held = [(i, responses_of(r)[0]) for i, r in enumerate(records) if r.agent == "claude-code"]
    every = list(chain.from_iterable(ids for _, ids in held if ids))
    named = [(i, records[i].session_id) for i, _ in held if records[i].session_id]
    same_id = len({name for _, name in named}) != len(named)
    if len(set(every)) == len(every) and not same_id:
        return []  # nothing shared (the common case, told at C speed)
    parent = list(range(len(records)))  # a forest of the sessions: a family is a tree

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    holder: dict[int, int] = {}  # each response: the first session that holds it
    for i, ids in held:
        for digest in ids or ():
            j = holder.setdefault(digest, i)
            if j != i:
                parent[root(i)] = root(j)
    if same_id:
        first: dict[str | None, int] = {}  # each session id: the first session that has it
        for i, name in named:
            j = first.setdefault(name, i)
            if j != i:
                parent[root(i)] = root(j)
    families: dict[int, list[int]] = {}
    for i, _ in held:
        families.setdefault(root(i), []).append(i)
    return [family for family in families.values() if len(family) > 1]


def any_family(records: list[SessionRecord]) -> bool:
    """Whether two Claude Code sessions of ``records`` carry the same session id (told at C
    speed): copies of one session file, a family of their own even when they share no
    response (see :func:`_families`)."""
    named = [r.session_id for r in records if r.agent == "claude-code" and r.session_id]
    return len(set(named)) != len(named)


_COPY = b"\x01"
"""A cached outcome: the session is a copy of the lines of the path that follows."""
_OWN = b"\x02"
"""A cached outcome: the session copied no line of its family's earlier sessions."""


def forks_measured_apart(
    records: list[SessionRecord],
    pricing: PriceTable,
    project: Path | None = None,
    cache: SummaryCache | None = None,
    *,
    workers: int | None = None,
    metrics: MetricsConfig | None = None,
) -> list[Unavailable]:
    """Each fork in ``records`` measured again without what it copied (see the module
    docstring), in place; the sessions that are whole copies are taken out of ``records`` and
    returned as unavailable. ``project`` is the replay's project filter. With a ``cache``, a
    family whose files are unchanged since an earlier replay is read from it. The families'
    files are read on ``workers`` processes (default: one per CPU it may use), in this one
    when there are few. ``metrics``: the project's rule settings, as the replay's."""
    gone: list[Unavailable] = []
    dropped: set[int] = set()
    todo: list[tuple[list[int], dict[int, Session], str | None]] = []
    for family in _families(records):
        sessions = {i: Session(records[i].agent, records[i].path) for i in family}
        stamp = None
        if cache is not None:
            stamp = cache.family_stamp((s, claude_parts(s.file)) for s in sessions.values())
            stored = {i: cache.get_fork(sessions[i], stamp) for i in family}
            if all(outcome is not None for outcome in stored.values()):
                found = {i: outcome for i, outcome in stored.items() if outcome is not None}
                _apply(records, sessions, found, gone, dropped)
                continue
        todo.append((family, sessions, stamp))
    if todo:
        families = [family for family, _, _ in todo]
        every = _outcomes(records, families, pricing, project, workers, metrics)
        for (_, sessions, stamp), outcomes in zip(todo, every, strict=True):
            _apply(records, sessions, outcomes, gone, dropped)
            if cache is not None and stamp is not None:
                kept = {i: o for i, o in outcomes.items() if isinstance(o, bytes)}
                if len(kept) == len(outcomes):  # an unavailable member is looked at again
                    for i, outcome in kept.items():
                        cache.put_fork(sessions[i], stamp, outcome)
    if dropped:
        records[:] = [r for i, r in enumerate(records) if i not in dropped]
    return gone


Measure = tuple[int, Session, frozenset[str]]
"""A fork to measure again: its place in the records, its session, the uuids it copied."""


def _outcomes(
    records: list[SessionRecord],
    families: list[list[int]],
    pricing: PriceTable,
    project: Path | None,
    workers: int | None,
    metrics: MetricsConfig | None = None,
) -> list[dict[int, bytes | Unavailable]]:
    """What each member of each family is: a copy of the first (:data:`_COPY` and its path),
    a session that copied nothing (:data:`_OWN`), the summary of its own lines, or the reason
    it could not be measured again. Read on ``workers`` processes (see
    :func:`forks_measured_apart`)."""
    global _PROJECT, _PRICING, _METRICS
    _PROJECT, _PRICING, _METRICS = project, pricing, metrics
    members = sum(len(family) for family in families)
    count = min(workers or usable_cpus(), members)  # never more workers than files
    if count <= 1 or members < SERIAL_BELOW:
        return _told(records, families, map)
    with collection_paused(), forked_pool(count, start_worker) as pool:
        # One file a task: a family's files are whole sessions, each worth a hand-over.
        return _told(records, families, lambda f, xs: pool.imap(f, xs, 1))


def _copied_from(own: set[str], before: list[int], read: dict[int, Member]) -> int:
    """The member of ``before`` (in the order measured) a whole copy's lines ``own`` are named
    a copy of: the first that holds them all (a backup of a fork is a copy of the fork, not of
    the session the fork came from), else the one that holds the most of them."""
    for j in before:
        if own <= read[j][0]:
            return j
    return max(before, key=lambda j: len(own & read[j][0]))


Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]
"""How the members are read and the forks measured: in this process (``map``) or on a pool."""


def _told(
    records: list[SessionRecord],
    families: list[list[int]],
    mapped: Mapper,
) -> list[dict[int, bytes | Unavailable]]:
    members = list(chain.from_iterable(families))
    read = dict(zip(members, mapped(_member, [records[i].path for i in members]), strict=True))
    every: list[dict[int, bytes | Unavailable]] = []
    again: list[Measure] = []
    for family in families:
        family = _in_order(records, family, read)
        earlier: set[str] = set()
        before: list[int] = []  # the members measured before this one
        outcomes: dict[int, bytes | Unavailable] = {}
        for i in family:
            own = read[i][0]
            copied = own & earlier
            earlier |= own
            if not copied:
                outcomes[i] = _OWN
            elif copied == own:
                source = _copied_from(own, before, read)
                outcomes[i] = _COPY + os.fsencode(records[source].path)
            else:
                session = Session(records[i].agent, records[i].path)
                again.append((i, session, frozenset(copied)))
            before.append(i)
        every.append(outcomes)
    measured = dict(zip((i for i, _, _ in again), mapped(_measure, again), strict=True))
    for outcomes, family in zip(every, families, strict=True):
        for i in family:
            found = measured.get(i)
            if found is not None:  # None: of another project, which it was not
                outcomes[i] = found
    return every


# Set before the pool's workers are forked, so that only a fork's session crosses the pipe.
_PROJECT: Path | None = None
_PRICING = PriceTable()
_METRICS: MetricsConfig | None = None


def _measure(job: Measure) -> bytes | Unavailable | None:
    _, session, copied = job
    found = measure_session(session, _PROJECT, _PRICING, copied, _METRICS)
    return None if isinstance(found, tuple) else found  # (no kin asked for: never a tuple)


def _apply(
    records: list[SessionRecord],
    sessions: dict[int, Session],
    outcomes: Mapping[int, bytes | Unavailable],
    gone: list[Unavailable],
    dropped: set[int],
) -> None:
    for i, outcome in outcomes.items():
        session = sessions[i]
        if isinstance(outcome, Unavailable):
            gone.append(outcome)
            dropped.add(i)
            continue
        if outcome == _OWN:
            continue
        if outcome.startswith(_COPY):
            first = os.fsdecode(outcome[len(_COPY) :])
            reason = f"a copy of the lines of {first}: counted there"
            gone.append(Unavailable(agent=session.agent, path=session.file, reason=reason))
            dropped.add(i)
            continue
        again = read_summary(session, outcome)
        if isinstance(again, Unavailable):
            gone.append(again)
            dropped.add(i)
        else:
            if again.path != session.file:  # a row of another replay's relative path
                again.path = session.file
            records[i] = again
