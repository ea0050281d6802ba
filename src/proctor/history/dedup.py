"""A response counted once across a history's session files, as ccusage counts it.

A Claude Code session that forks or resumes another copies the earlier one's lines, with the
same ``message.id`` and ``requestId``, into a file of its own; its parse counts those responses
again. Over the sessions of one replay, each response is kept by one session: the one whose
line is not a sidechain's, else the one with the larger token total (ccusage's rules), else
the one that started first. The other sessions' tokens and cost lose it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain

import orjson

from proctor.history.record import Response, SessionRecord, responses_of, usage_records
from proctor.history.replay import session_cost
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import usage_by_model
from proctor.transcripts.builder import UsageRow
from proctor.util.clock import utc_day


def _better(row: Response, kept: tuple[bool, int]) -> bool:
    """Whether ``row`` wins over the kept line (its sidechain flag and total)."""
    side, total = row[1], sum(row[3:7])  # (the hour's writes are a part of the writes)
    kept_side, kept_total = kept
    if kept_side != side:
        return kept_side  # a main-session line wins over a sidechain's
    return total > kept_total


def any_response_shared(sessions: Sequence[SessionRecord]) -> bool:
    """Whether two of ``sessions`` hold the same response (told at C speed): a fork or a copy
    among them (see :mod:`proctor.history.forks`), or a response to count once."""
    every = list(chain.from_iterable(ids for s in sessions if (ids := responses_of(s)[0])))
    return len(set(every)) != len(every)


def count_each_response_once(sessions: Sequence[SessionRecord], pricing: PriceTable) -> None:
    """Take from each session's usage (and cost) the responses another session of
    ``sessions`` holds too and keeps (see the module's rules). Sessions without responses
    (Codex, Gemini CLI) are left as they are; so is every session when nothing is shared,
    or when a cache row edited by hand holds values of other types."""
    try:
        _count_once(sessions, pricing)
    except (TypeError, ValueError, KeyError, IndexError):
        return


def _count_once(sessions: Sequence[SessionRecord], pricing: PriceTable) -> None:
    held = [responses_of(s) for s in sessions]
    every = list(chain.from_iterable(ids for ids, _ in held if ids))
    if len(set(every)) == len(every):
        return  # no response in two sessions (the common case, told at C speed)
    holding = [(s, ids, rows) for s, (ids, rows) in zip(sessions, held, strict=True) if ids]
    shared = {digest for digest, n in Counter(every).items() if n > 1}
    involved = [
        (session, _responses(ids, rows))
        for session, ids, rows in holding
        if not shared.isdisjoint(ids)
    ]
    involved.sort(key=lambda pair: (pair[0].started_at or "", pair[0].path))
    winner: dict[int, tuple[int, bool, int]] = {}  # digest: (session index, side, total)
    for index, (_, responses) in enumerate(involved):
        for row in responses:
            digest = row[0]
            kept = winner.get(digest)
            if kept is None or (kept[0] != index and _better(row, (kept[1], kept[2]))):
                winner[digest] = (index, row[1], sum(row[3:7]))
    for index, (session, responses) in enumerate(involved):
        kept_rows: list[UsageRow] = [
            (row[2], row[3], row[4], row[5], row[6], row[7])
            for row in responses
            if winner[row[0]][0] == index
        ]
        if len(kept_rows) != len(responses):
            _reprice(session, kept_rows, pricing)


def _responses(ids: list[int], rows: bytes | None) -> list[Response]:
    """A session's responses, its digests beside their rows (read now)."""
    return [(digest, *row) for digest, row in zip(ids, orjson.loads(rows or b"[]"), strict=True)]


def _reprice(session: SessionRecord, rows: list[UsageRow], pricing: PriceTable) -> None:
    usage = usage_by_model(rows)
    session.usage = usage_records(usage)
    cost = session_cost(usage, pricing, rows, utc_day(session.started_at))
    session.cost_by_model, session.cost_usd, session.unpriced_models = cost
