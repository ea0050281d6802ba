"""The Claude Code sessions of other projects that a project's sessions share a family with.

A fork or a copy of a session is told by what it shares with it (see
:mod:`proctor.history.forks`), whatever folder each ran in: a copy kept under another project
(its lines' folder rewritten, or a fork started there) is still a copy. ``--project`` keeps the
sessions of one folder before the families are told; so that each of its sessions is counted
as a replay of every project counts it, the families are told over its sessions and their kin
in other projects, which are then left out of the report.

Measuring every other project's session to find them would cost a ``--project`` replay the
whole history's measure. A session of another project is read, as it is left out, only to its
first response (:func:`~proctor.history.projects.claude_head`): it is kin when it carries the
session id of one of the project's sessions (a copy) or its first response is one of theirs
(a fork or a copy of one of them, or the session one of them was forked from or copied: a
fork copies its session's lines from the first). A session whose summary is in the cache is
told alike, by its session id and its first response (not by all of its responses, which
would find more kin when the cache is warm than when it is not). Only those are measured;
the sessions that share a family with them are looked for again, until none is found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain

from proctor.history.layout import Session
from proctor.history.record import SessionRecord, responses_of
from proctor.history.replay import Other


def kin_of(
    records: list[SessionRecord],
    others: list[Other],
    measured: Callable[[list[Session]], Iterable[SessionRecord]],
) -> list[SessionRecord]:
    """The summaries of the sessions among ``others`` (those of other projects, see
    :func:`~proctor.history.replay.replay`) that may share a family with ``records``, or
    with one another's kin, each measured once by ``measured`` (its sessions of another
    project measured in full) or taken from the cache."""
    found: list[SessionRecord] = []
    ids: set[str] = set()
    digests: set[int] = set()
    left = list(others)
    news = [r for r in records if r.agent == "claude-code"]
    while news:
        for record in news:
            if record.session_id:
                ids.add(record.session_id)
            digests.update(responses_of(record)[0] or ())
        kept: list[Other] = []
        summaries: list[SessionRecord] = []
        sessions: list[Session] = []
        for other in left:
            session, known = other
            if isinstance(known, SessionRecord):
                # Told as a session read to its first response is (its first digest is its
                # first response's): a --project replay finds the same, the cache warm or not.
                held = responses_of(known)[0]
                if known.session_id in ids or (held and held[0] in digests):
                    summaries.append(known)
                    continue
            elif known[0] in ids or known[1] in digests:
                sessions.append(session)
                continue
            kept.append(other)
        left = kept
        news = list(chain(summaries, measured(sessions) if sessions else ()))
        found += news
    return found
