"""Subagents that work on after the result of the call that ran them, as Claude Code 2.1.197
wrote them: one launched in the background (``run_in_background``: "Async agent launched"),
and one resumed later by a ``SendMessage``. Their events are merged by time, so a session's
events are in the order of their times, and the figures read them so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import sessions_under
from proctor.models.pricing import PriceTable
from proctor.transcripts.builder import time_of
from proctor.transcripts.claude.measure import parse_claude_for_measure
from proctor.transcripts.claude.parser import parse_claude_session, parse_claude_session_plain
from proctor.util.native_paths import claude_subagent_files

FOLDER = Path(__file__).parents[2] / "fixtures/transcripts/claude/background/-tmp-rv17c-data-ws-app"
LAUNCHED = FOLDER / "cccccccc-0000-4000-8000-00000000000c.jsonl"
"""An Agent call with run_in_background; the subagent edits k.py after the session's own last
edit, and the session then runs the tests, which pass."""
READS_LATER = FOLDER / "66666666-0000-4000-8000-00000000000e.jsonl"
"""The session writes newmod.py at 20:59:34.282 while its background subagent is still to
read its three files (20:59:36.388–36.446)."""
RESUMED = FOLDER / "55555555-0000-4000-8000-00000000000f.jsonl"
"""A subagent that ran to its result, then was resumed twice by SendMessage (and started one
of its own)."""
SESSIONS = [LAUNCHED, READS_LATER, RESUMED]


def in_order(events: list[Any]) -> bool:
    times = [t for t in map(time_of, events) if t is not None]
    return times == sorted(times)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda p: p.name[:8])
def test_every_reader_gives_the_events_in_time_order(session: Path) -> None:
    parts = claude_subagent_files(session)
    assert parts
    full = parse_claude_session(session, parts)
    assert in_order([{"ts": e.ts} for e in full.events])
    assert sum(bool(e.sidechain) for e in full.events) > 5
    plain = parse_claude_session_plain(session, parts)
    assert in_order(plain.events)
    measured = parse_claude_for_measure(session, parts)
    assert in_order([e for e in measured.events if type(e) is not dict])
    streamed: list[Any] = []  # with a sink: the same events, in the same order
    parse_claude_session(session, parts, sink=streamed.append)
    assert [(e["type"], e.get("ts")) for e in streamed] == [(e.type, e.ts) for e in full.events]


def measured(session: Path) -> SessionRecord:
    sessions, _ = sessions_under([session], ("claude-code",))
    (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(record, SessionRecord)
    return record


def test_a_check_after_a_background_subagent_s_edit_verifies_it() -> None:
    record = measured(LAUNCHED)
    assert (record.is_task, record.verified, record.rules_fired) == (True, True, [])


def test_a_background_subagent_s_later_reads_are_after_the_first_edit() -> None:
    orientation = measured(READS_LATER).orientation
    assert (orientation.reads_before_first_edit, orientation.steps_before_first_edit) == (3, 6)


def test_a_resumed_subagent_s_events_follow_the_message_that_resumed_it() -> None:
    events = parse_claude_session(RESUMED, claude_subagent_files(RESUMED)).events
    sends = [i for i, e in enumerate(events) if e.type == "tool_call" and e.name == "SendMessage"]
    later = [
        i for i, e in enumerate(events) if e.sidechain and (e.ts or "") > "2026-12-04T21:00:12.7"
    ]
    assert sends and later and min(later) > sends[-1]
