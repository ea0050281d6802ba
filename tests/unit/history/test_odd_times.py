"""Times as a user's history may hold them: in another offset than UTC, or from a damaged
clock. A replay shows every time in UTC, so that two sessions' times compare as text."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import sessions_under
from proctor.history.summary import day_of, month_of, week_of
from proctor.models.pricing import PriceTable

ROOT = Path(__file__).resolve().parents[3]
CODEX = ROOT / "tests/fixtures/transcripts/codex"
ROLLOUT = "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"


def measured(rollout: Path) -> SessionRecord:
    sessions, _ = sessions_under([rollout], ("codex",))
    (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(record, SessionRecord)
    return record


@pytest.mark.parametrize("offset", ["+01:00", "-05:30"])
def test_a_session_written_in_another_offset_is_shown_in_utc(tmp_path: Path, offset: str) -> None:
    zone = datetime.fromisoformat(f"2026-01-01T00:00:00{offset}").tzinfo

    def local(found: re.Match[str]) -> str:  # the same instant, written in that offset
        moment = datetime.fromisoformat(found[1]).astimezone(zone)
        return '"' + moment.isoformat(timespec="milliseconds") + '"'

    text = (CODEX / ROLLOUT).read_text()
    shifted, count = re.subn(r'"(2026-11-29T[\d:.]+Z)"', local, text)
    assert count > 2 and offset in shifted
    (tmp_path / ROLLOUT).write_text(shifted)
    record = measured(tmp_path / ROLLOUT)
    original = measured(CODEX / ROLLOUT)  # the control: as the CLI wrote it, in UTC
    # (Its first prompt's time: the developer and environment messages before it are context.)
    assert record.started_at == original.started_at == "2026-11-29T10:00:07.259000+00:00"
    assert record.ended_at == original.ended_at
    assert record.duration_seconds == original.duration_seconds


def test_a_week_of_a_damaged_clock_s_year_one_has_four_digits() -> None:
    record = SessionRecord(agent="codex", path="x", started_at="0001-01-03T12:00:00+00:00")
    assert week_of(record) == "0001-W01"
    dated = SessionRecord(agent="codex", path="x", started_at="2026-11-29T12:00:00+00:00")
    assert week_of(dated) == "2026-W48"
    assert (day_of(record), month_of(record)) == ("0001-01-03", "0001-01")


@pytest.mark.parametrize(
    ("zone", "day", "month"),
    [("XXX-14", "2026-12-01", "2026-12"), ("UTC", "2026-11-30", "2026-11")],  # UTC+14, UTC
)
def test_a_day_and_month_are_those_of_the_local_clock_and_undated_without_a_start(
    monkeypatch: pytest.MonkeyPatch, zone: str, day: str, month: str
) -> None:
    import time

    late = SessionRecord(agent="codex", path="x", started_at="2026-11-30T12:00:00+00:00")
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        assert (day_of(late), month_of(late)) == (day, month)
    finally:
        monkeypatch.undo()
        time.tzset()
    undated = SessionRecord(agent="codex", path="x")
    assert (day_of(undated), month_of(undated), week_of(undated)) == ("undated",) * 3


OPENED_EARLY = ROOT / (
    "tests/fixtures/transcripts/gemini/opened-early/session-2026-12-04T20-20-37772f96.jsonl"
)
"""An interactive Gemini CLI 0.61 session: opened at 20:20:47.869, when it wrote its header
and its ``<session_context>`` message, and given its prompt at 20:21:05.606."""


def test_a_session_starts_at_its_first_prompt_not_when_the_cli_wrote_its_context() -> None:
    from proctor.metrics.trace import trial_start
    from proctor.transcripts.gemini import parse_gemini_chat

    sessions, _ = sessions_under([OPENED_EARLY], ("gemini-cli",))
    (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(record, SessionRecord)
    assert record.started_at == "2026-12-04T20:21:05.606000+00:00"
    assert record.ended_at == "2026-12-04T20:21:06.257000+00:00"
    assert record.duration_seconds == pytest.approx(0.651)
    assert record.orientation.seconds_to_first_edit == pytest.approx(0.152)
    # A trial's start is read so too; the control: the context's time is in the chat.
    events = parse_gemini_chat(OPENED_EARLY).events
    assert trial_start(events) == datetime.fromisoformat("2026-12-04T20:21:05.606+00:00")
    assert min(e.ts or "~" for e in events) == "2026-12-04T20:20:47.869Z"


def test_a_command_the_cli_ran_itself_hours_later_ends_no_session(tmp_path: Path) -> None:
    """An ``/exit`` typed the morning after (as a user line of either shape, or as the system
    line of newer releases) is housekeeping: the session ends at its last message."""
    from proctor.transcripts.claude.parser import parse_claude_session_plain
    from tests.unit.history.planted import ClaudeSession

    session = ClaudeSession("55555555-5555-4555-8555-555555555555", "/work/p", "2026-11-02")
    session.user("10:00:00", "Fix a.")
    session.tool("10:01:00", "Edit", {"file_path": "/work/p/a.py", "old_string": "x"})
    session.say("10:05:00", "Done.")
    quiet = tmp_path / "quiet" / "s.jsonl"
    session.write(quiet)
    session.user("22:00:00", "<command-name>/exit</command-name>\n<command-args></command-args>")
    exit_text = {"type": "text", "text": "<local-command-stdout>Bye!</local-command-stdout>"}
    session._record("user", "22:00:01", {"role": "user", "content": [exit_text]})
    system = {"type": "system", "subtype": "local_command", "content": "<command-name>/exit"}
    session.raw(json.dumps({**system, "timestamp": "2026-11-02T22:00:02.000Z", "uuid": "u-9"}))
    exited = tmp_path / "exited" / "s.jsonl"
    session.write(exited)
    records = []
    for path in (quiet, exited):
        sessions, _ = sessions_under([path], ("claude-code",))
        (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
        assert isinstance(record, SessionRecord)
        records.append(record)
    assert records[1].ended_at == records[0].ended_at == "2026-11-02T10:05:00+00:00"
    assert records[1].duration_seconds == 300
    # A session of nothing but commands is dated by them (for --since and --by week).
    only = ClaudeSession("77777777-7777-4777-8777-777777777777", "/work/p", "2026-11-03")
    only.user("08:00:00", "<command-name>/model</command-name>")
    only.user("08:10:00", "<command-name>/exit</command-name>")
    only.write(tmp_path / "only" / "s.jsonl")
    sessions, _ = sessions_under([tmp_path / "only" / "s.jsonl"], ("claude-code",))
    (alone,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(alone, SessionRecord) and not alone.is_task
    assert (alone.started_at, alone.duration_seconds) == ("2026-11-03T08:00:00+00:00", 600)
    # The commands are still events of the session: only their times are not its span.
    events = parse_claude_session_plain(exited).events
    commands = [e for e in events if e.get("recordType") == "local_command"]
    assert [e["ts"][11:19] for e in commands] == ["22:00:00", "22:00:01", "22:00:02"]


def test_a_time_written_as_a_number_loses_its_time_not_its_line(tmp_path: Path) -> None:
    """A Claude Code line whose ``timestamp`` is a number (an export's epoch) keeps its call:
    the session is still a verified task, and the time is counted as malformed."""
    from proctor.transcripts.claude.parser import parse_claude_session_plain
    from tests.unit.history.planted import ClaudeSession

    session = ClaudeSession("66666666-6666-4666-8666-666666666666", "/work/p", "2026-11-02")
    session.user("10:00:00", "Fix a.")
    session.tool("10:01:00", "Edit", {"file_path": "/work/p/a.py", "old_string": "x"})
    session.tool("10:02:00", "Bash", {"command": "pytest"})
    session.say("10:03:00", "Done.")
    lines = [json.loads(line) for line in session.lines]
    lines[1]["timestamp"] = 1762077660000  # the edit's call
    session.lines = [json.dumps(line) for line in lines]
    path = tmp_path / "p" / "s.jsonl"
    session.write(path)
    sessions, _ = sessions_under([path], ("claude-code",))
    (record,) = replay(sessions, Filters(), PriceTable(), workers=1)
    assert isinstance(record, SessionRecord)
    assert (record.is_task, record.verified, record.steps.edits) == (True, True, 1)
    assert record.unknown_records == 1
    assert record.orientation.seconds_to_first_edit is None  # the edit has no time
    coverage = parse_claude_session_plain(path).coverage
    assert coverage.unknown_record_types == {"malformed/timestamp": 1}


def test_a_session_whose_lines_carry_one_time_has_no_duration(tmp_path: Path) -> None:
    """A time at both ends is no span: the task's duration is not known, so it is left out of
    the median time rather than counted as a task done in no time."""
    from proctor.history.summary import summarise
    from tests.unit.history.planted import ClaudeSession

    def record(times: list[str]) -> SessionRecord:
        session = ClaudeSession(
            "88888888-8888-4888-8888-88888888888" + str(len(times)), "/w", "2026-11-02"
        )
        session.user(times[0], "Fix a.")
        session.tool(times[1], "Edit", {"file_path": "/w/a.py", "old_string": "x"})
        session.say(times[2], "Done.")
        path = tmp_path / str(len(set(times))) / "s.jsonl"
        session.write(path)
        sessions, _ = sessions_under([path], ("claude-code",))
        (found,) = replay(sessions, Filters(), PriceTable(), workers=1)
        assert isinstance(found, SessionRecord) and found.is_task
        return found

    one = record(["10:00:00"] * 3)
    assert (one.started_at, one.ended_at) == ("2026-11-02T10:00:00+00:00",) * 2
    assert one.duration_seconds is None
    timed = record(["10:00:00", "10:00:00", "10:02:00"])  # the control: two times, a span
    assert timed.duration_seconds == 120
    spread = summarise("all", [one, timed], PriceTable()).duration_seconds
    assert spread is not None and (spread.n, spread.median) == (1, 120)
