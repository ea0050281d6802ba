"""Subagents that subagents started, as Claude Code 2.1.197 wrote them: a chain of five, main →
a76b → af78 → ac1e → adcc → a22f. Only the first is named by its caller's ``toolUseResult``;
a subagent's own file names the one it started in its result's text alone (``agentId: …``).
Each subagent's events go just before the result of the call that ran it, so the session's
events are in the order of their times."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import sessions_under
from proctor.metrics.trace import event_stamps
from proctor.models.pricing import PriceTable
from proctor.transcripts.claude.measure import parse_claude_for_measure
from proctor.transcripts.claude.parser import parse_claude_session, parse_claude_session_plain
from proctor.util.native_paths import claude_subagent_files

SESSION = (
    Path(__file__).parents[2]
    / "fixtures/transcripts/claude/nested/-tmp-proctor-vhux1ro4-0-workspace"
    / "2e315b70-a4cd-4086-8c5c-33ece1bf7bd1.jsonl"
)


def in_order(stamps: list[str | None]) -> bool:
    times = [s for s in stamps if s is not None]
    return times == sorted(times)


def test_a_subagent_a_subagent_started_goes_before_the_result_of_its_call() -> None:
    parts = claude_subagent_files(SESSION)
    assert len(parts) == 5
    full = parse_claude_session(SESSION, parts)
    assert in_order([e.ts for e in full.events])
    plain = parse_claude_session_plain(SESSION, parts)
    assert in_order(event_stamps(plain.events))
    measured = parse_claude_for_measure(SESSION, parts)  # its calls as objects, with times
    assert in_order([getattr(e, "ts", None) for e in measured.events if type(e) is not dict])
    calls = [e for e in full.events if e.type == "tool_call"]
    assert [c.kind for c in calls].count("subagent") == 6 and len(calls) == 24


def test_history_measures_the_first_edit_of_the_deepest_subagent() -> None:
    """The first code edit is a22f's, at 20:19:01.727, after six reads and twelve steps; read
    with the four nested files last, it was a76b's failed edit at 20:19:02.514."""
    sessions, _ = sessions_under([SESSION.parent], ("claude-code",))
    (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(record, SessionRecord)
    orientation = record.orientation
    assert (orientation.reads_before_first_edit, orientation.steps_before_first_edit) == (6, 12)
    assert orientation.seconds_to_first_edit == pytest.approx(0.296)
    assert record.steps.tool_calls == 24 and record.verified is True
