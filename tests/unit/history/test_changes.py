"""Before and after a marked change: the nearest tasks on each side, and the journal."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from proctor.cli.main import main
from proctor.errors import ConfigError
from proctor.history.changes import (
    MIN_SIDE,
    UNCONTROLLED,
    change_delta,
    compare_change,
    compare_changes,
    render_changes,
)
from proctor.history.journal import add_mark, journal_path, mark_for, parse_time, read_marks
from proctor.history.projects import same_project
from proctor.history.record import SessionRecord, StepsRecord
from proctor.models.history import ChangeMark
from proctor.models.io import model_to_json
from proctor.util.text import duration_text

PROJECT = "/work/proj"
SESSION = (
    Path(__file__).resolve().parents[2]
    / "fixtures/transcripts/claude/7f3c2a10-0000-4000-8000-000000000001.jsonl"
)
CHANGE = ChangeMark(
    text="enabled the guard plugin", project=PROJECT, at="2026-11-15T00:00:00+00:00"
)


def task(
    day: int, seconds: float, steps: int, verified: bool, project: str = PROJECT
) -> SessionRecord:
    return SessionRecord(
        agent="claude-code",
        path=f"/h/{day}.jsonl",
        project=project,
        started_at=f"2026-11-{day:02d}T10:00:00+00:00",
        duration_seconds=seconds,
        is_task=True,
        verified=verified,
        steps=StepsRecord(tool_calls=steps),
    )


def test_three_tasks_a_side_are_compared() -> None:
    before = [task(1, 100, 3, True), task(2, 200, 4, False), task(3, 300, 5, True)]
    after = [task(20, 50, 1, True), task(21, 60, 2, True), task(22, 70, 3, True)]
    other = [task(16, 9999, 99, False, project="/work/other")]  # another project: left out
    result = compare_change(CHANGE, [*after, *other, *before])
    assert result.comparable and result.note == UNCONTROLLED
    assert (result.before.tasks, result.before.median_seconds, result.before.median_steps) == (
        3, 200, 4,
    )  # fmt: skip
    assert result.before.share_verified == pytest.approx(2 / 3)
    assert (result.after.median_seconds, result.after.share_verified) == (60, 1.0)
    low, high = result.before.median_seconds_ci or (None, None)
    assert low is not None and high is not None and low <= 200 <= high
    # Every task verified: Wilson's interval, not the point a bootstrap of 1, 1, 1 gives.
    assert result.after.share_verified_ci == pytest.approx((0.4385, 1.0), abs=1e-4)
    table = render_changes([result])
    low_text, high_text = duration_text(low), duration_text(high)
    assert f"| before | 3 | 3m 20s [{low_text}–{high_text}] | 4 [" in table
    assert "| after | 3 | 1m 00s [" in table and "| 100% [44–100%] |" in table
    # After minus before: 60 - 200 seconds, 2 - 4 steps, 100% - 67% verified.
    delta = result.delta
    assert delta is not None
    assert (delta.median_seconds, delta.median_steps) == (-140, -2)
    assert delta.share_verified == 1 / 3  # the float each side's share is, never rounded
    assert delta.median_seconds_ci is not None and delta.share_verified_ci is not None
    assert delta.share_verified_ci[0] < 0 < delta.share_verified_ci[1]  # 3 a side: no claim
    assert "| after − before | | -2m 20s [" in table and "| +33 pp [" in table
    assert (result.after.sessions, result.after.first_start) == (
        ["/h/20.jsonl", "/h/21.jsonl", "/h/22.jsonl"],
        "2026-11-20T10:00:00+00:00",
    )
    assert result.after.last_start == "2026-11-22T10:00:00+00:00" and not result.warnings


def test_the_share_verified_delta_is_the_exact_difference_rounded_once() -> None:
    """6 of 10 after, 13 of 20 before: -0.05, where subtracting the two shares gives
    -0.050000000000000044."""
    before = [task(1 + i % 9, 60, 3, i < 13) for i in range(20)]
    after = [task(20 + i % 9, 60, 3, i < 6) for i in range(10)]
    delta = change_delta(before, after)
    assert delta.share_verified == -0.05
    assert 6 / 10 - 13 / 20 != -0.05  # the control: the naive difference is off


def test_the_median_differences_and_their_intervals_show_no_float_noise() -> None:
    """12.345 s after, 10.2 s before: +2.145 s, where the floats' subtraction gives
    2.1450000000000014; steps whose interval bound is interpolated between two medians'
    differences read -11.5375 (in an interval not yet expanded), not -11.537499999999934."""
    before = [task(1 + i, 10.2, n, True) for i, n in enumerate([39, 1, 31, 17])]
    after = [task(20 + i, 12.345, n, True) for i, n in enumerate([38, 35, 9, 24, 39, 31])]
    delta = change_delta(before, after)
    assert 12.345 - 10.2 != 2.145  # the control: the plain difference is off
    assert delta.median_seconds == 2.145
    assert delta.median_steps_ci == (-29.0482302097, 37.5)


def test_two_medians_shown_alike_differ_by_nothing() -> None:
    """268.3 s on each side (the floats' medians 268.29999999999995 and 268.3): the
    difference is 0, not 5.7e-14, which the table showed as +0.0 s (or −0.0 s)."""
    before = [task(1 + i, s, 3, True) for i, s in enumerate([100, 209.7, 326.9, 500])]
    after = [task(20 + i, s, 3, True) for i, s in enumerate([50, 193.4, 343.2, 600])]
    delta = change_delta(before, after)
    assert (209.7 + 326.9) / 2 != (193.4 + 343.2) / 2  # the control: the floats differ
    assert delta.median_seconds == 0.0


def test_two_tasks_on_a_side_are_shown_but_not_compared() -> None:
    result = compare_change(
        CHANGE, [task(1, 100, 3, True), task(2, 200, 4, True), task(20, 5, 1, True)]
    )
    assert not result.comparable
    assert (
        result.note
        == f"too few tasks to compare: 2 before and 1 after (at least {MIN_SIDE} on each side); "
        + UNCONTROLLED
    )
    assert result.before.tasks == 2 and result.after.median_seconds == 5
    # Fewer than three tasks: the figures alone, no interval and no difference (as an A/B).
    assert result.delta is None
    for side in (result.before, result.after):
        assert (side.median_seconds_ci, side.median_steps_ci, side.share_verified_ci) == (
            None, None, None,
        )  # fmt: skip


def test_ten_nearest_tasks_a_side() -> None:
    before = [task(day, day, day, True) for day in range(1, 13)]  # 12 before: days 1..12
    after = [task(day, day, day, False) for day in range(16, 30)]  # 14 after: days 16..29
    result = compare_change(CHANGE, [*before, *after])
    assert (result.before.tasks, result.after.tasks) == (10, 10)
    assert result.before.median_seconds == 7.5  # days 3..12, the nearest ten
    assert result.after.median_seconds == 20.5  # days 16..25
    assert result.after.share_verified == 0.0


def test_non_tasks_and_undated_sessions_are_left_out() -> None:
    idle = msgspec.structs.replace(task(2, 1, 1, False), is_task=False)
    undated = msgspec.structs.replace(task(3, 1, 1, False), started_at=None)
    assert compare_change(CHANGE, [idle, undated]).before.tasks == 0


def test_the_tasks_left_out_for_want_of_a_start_are_counted() -> None:
    """Two tasks of the project without a start (`undated` by day) are said to be left out,
    in the table and the JSON; one of another project, or a session that is no task, is
    not counted; a project whose tasks are all undated is not said to have none."""
    dated = [task(1, 100, 3, True), task(2, 200, 4, False), task(20, 50, 1, True)]
    undated = [msgspec.structs.replace(task(day, 1, 1, False), started_at=None) for day in (3, 4)]
    elsewhere = msgspec.structs.replace(undated[0], project="/work/other", path="/h/o.jsonl")
    idle = msgspec.structs.replace(undated[1], is_task=False, path="/h/idle.jsonl")
    said = (
        "2 tasks of this project have no start time (`undated` in `--by day`) and were left "
        "out: a task's side of the change is told by its start"
    )
    result = compare_change(CHANGE, [*dated, *undated, elsewhere, idle])
    assert (result.before.tasks, result.after.tasks) == (2, 1)
    assert result.warnings == [said]
    assert f"| note: {said} |" in render_changes([result])
    assert said in model_to_json(result)
    alone = compare_change(CHANGE, undated[:1])
    assert alone.warnings == [
        "1 task of this project has no start time (`undated` in `--by day`) and was left "
        "out: a task's side of the change is told by its start"
    ]  # and not "no task of this history ran in /work/proj"
    everywhere = CHANGE.model_copy(update={"project": None})
    assert compare_change(everywhere, [*dated, *undated, elsewhere]).warnings == [
        "3 tasks have no start time (`undated` in `--by day`) and were left out: a task's "
        "side of the change is told by its start"
    ]


def test_the_journal_keeps_marks_in_time_order_and_skips_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "data" / "changes.jsonl"
    add_mark(path, mark_for("second", Path(PROJECT), "2026-11-20T09:00", tmp_path))
    add_mark(path, mark_for("first", None, "2026-11-10", Path(PROJECT)))
    with open(path, "a") as fh:
        fh.write("{not json\n")
    marks, notes = read_marks(path)
    assert [(m.text, m.at, m.project) for m in marks] == [
        ("first", "2026-11-10T00:00:00+00:00", PROJECT),
        ("second", "2026-11-20T09:00:00+00:00", PROJECT),
    ]
    assert len(notes) == 1 and ":3: skipped" in notes[0]
    assert read_marks(tmp_path / "none.jsonl") == ([], [])


def test_journal_location_follows_the_environment(tmp_path: Path) -> None:
    assert journal_path({"PROCTOR_DATA_DIR": "/d"}) == Path("/d/changes.jsonl")
    assert journal_path({"XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path("/x/proctor/changes.jsonl")
    assert journal_path({"HOME": "/h"}) == Path("/h/.local/share/proctor/changes.jsonl")


def test_bad_marks_are_clear_sentences(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected a date like 2026-11-30"):
        mark_for("x", None, "yesterday", tmp_path)
    with pytest.raises(ConfigError, match="needs a description"):
        mark_for("  ", None, None, tmp_path)


def test_the_table_names_the_comparison_uncontrolled() -> None:
    text = render_changes([compare_change(CHANGE, [task(1, 100, 3, True)])])
    assert "Uncontrolled comparison" in text and "A/B" in text
    assert "too few tasks" in text
    assert render_changes([]).startswith("No change marked")


def test_the_nearest_tasks_are_taken_in_time_order_whatever_their_offsets() -> None:
    # Ten verified tasks on the 10th, and one unverified whose start, written in UTC+14, is the
    # earliest of all (the 9th, 22:00 UTC) though its text sorts last.
    tasks = [task(10, 60, 3, True) for _ in range(10)]
    for hour, item in enumerate(tasks):
        item.started_at = f"2026-11-10T{hour:02d}:00:00+00:00"
    early = task(10, 60, 3, False)
    early.started_at = "2026-11-10T12:00:00+14:00"
    mark = ChangeMark(text="x", project=PROJECT, at="2026-11-11T00:00:00+00:00")
    result = compare_change(mark, [early, *tasks])
    assert result.before.tasks == 10 and result.before.share_verified == 1.0


def test_control_sorting_the_start_texts_takes_the_wrong_ten() -> None:
    starts = [f"2026-11-10T{hour:02d}:00:00+00:00" for hour in range(10)]
    early = "2026-11-10T12:00:00+14:00"
    assert sorted([early, *starts])[-10:] != starts  # why the starts are compared as times


def test_marks_written_with_offsets_are_kept_in_time_order(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":"later","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":"earlier","project":"/w","at":"2026-11-10T09:00:00+05:00"}\n'
    )
    marks, _ = read_marks(path)
    assert [m.text for m in marks] == ["earlier", "later"]


def test_one_undecodable_or_out_of_range_line_skips_that_line_only(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    add_mark(path, mark_for("one", Path(PROJECT), "2026-11-13", tmp_path))
    with open(path, "ab") as fh:
        fh.write(b"caf\xe9\n")
        fh.write(
            b'{"schemaVersion":2,"text":"o","project":"/w","at":"0001-01-01T00:00:00+01:00"}\n'
        )
    add_mark(path, mark_for("two", Path(PROJECT), "2026-11-14", tmp_path))
    marks, notes = read_marks(path)
    assert [m.text for m in marks] == ["one", "two"]
    assert [n.split(": skipped")[0][-2:] for n in notes] == [":2", ":3"]
    assert "out of the range of dates" in notes[1]


@pytest.mark.parametrize("text", ["0001-01-01T00:00+01:00", "9999-12-31T23:00-05:00"])
def test_a_time_out_of_range_in_utc_is_a_sentence(text: str) -> None:
    with pytest.raises(ConfigError, match="out of the range of dates"):
        parse_time(text, "--since")


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Set the machine's time zone for the test (and put it back)."""
    import time

    def set_zone(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("zone", "text", "utc"),
    [
        ("UTC", "0001-01-01", "0001-01-01T00:00:00+00:00"),
        ("UTC", "9999-12-31T23:30", "9999-12-31T23:30:00+00:00"),
        ("America/New_York", "0001-01-01", "0001-01-01T04:56:02+00:00"),  # its earliest rule
        ("Europe/Paris", "9999-12-31T23:30", "9999-12-31T22:30:00+00:00"),
    ],
)
def test_a_local_time_at_the_edge_of_the_dates_is_read_when_utc_holds_it(
    clock: Callable[[str], None], zone: str, text: str, utc: str
) -> None:
    """Python reads a naive time's offset a day either side of it: within a day of year 1 or
    9999 that failed, and ``mark --at 0001-01-01`` was refused even on a UTC clock."""
    clock(zone)
    assert parse_time(text, "--at", local=True).isoformat() == utc


@pytest.mark.parametrize(
    ("zone", "text"),
    [("Europe/Paris", "0001-01-01"), ("America/New_York", "9999-12-31T23:30")],
)
def test_a_local_time_utc_cannot_hold_is_still_a_sentence(
    clock: Callable[[str], None], zone: str, text: str
) -> None:
    clock(zone)
    with pytest.raises(ConfigError, match="out of the range of dates"):
        parse_time(text, "--at", local=True)


def test_a_pipe_or_a_line_break_in_a_change_stays_in_its_cell() -> None:
    mark = ChangeMark(text="a | b\nc", project=PROJECT, at="2026-11-15T00:00:00+00:00")
    table = render_changes([compare_change(mark, [task(10, 60, 3, True)])])
    rows = [line for line in table.splitlines() if line.startswith("| a")]
    assert len(rows) == 3  # before, after, and the note: the line break made no row of its own
    assert all(len(re.findall(r"(?<!\\)\|", line)) == 9 for line in rows)  # 8 cells each


def test_a_mark_of_another_schema_version_is_skipped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":99,"text":"new","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"text":"none","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":"ok","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":"2","text":"text","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":true,"text":"bool","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":null,"text":"null","project":"/w","at":"2026-11-10T05:00:00+00:00"}\n'
    )
    marks, notes = read_marks(path)
    assert [m.text for m in marks] == ["ok"]
    # Each version as the file spells it (JSON), a missing one said so.
    assert [note.split("not a change mark (", 1)[1] for note in notes] == [
        f"{version}, where this proctor writes 2)"
        for version in (
            "schemaVersion 99",
            "no schemaVersion",
            'schemaVersion "2"',
            "schemaVersion true",
            "schemaVersion null",
        )
    ]


def test_since_and_until_name_days_on_the_machine_s_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import time
    from datetime import date

    from proctor.history.journal import parse_day

    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    try:
        # 20:00 in Los Angeles is 04:00 the next day in UTC: the day meant is the 29th.
        assert parse_day("2026-11-29T20:00-08:00", "--until") == date(2026, 11, 29)
        assert parse_day("2026-11-30T02:00z", "--since") == date(2026, 11, 29)  # UTC, any case
        assert parse_day("2026-11-29T23:30", "--until") == date(2026, 11, 29)  # no zone: as is
        assert parse_day("2026-11-29", "--until") == date(2026, 11, 29)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_since_and_until_take_days_back_from_today() -> None:
    from datetime import date

    from proctor.history.journal import parse_day

    today = date(2026, 12, 5)
    assert parse_day("today", "--since", today) == today
    assert parse_day("Yesterday", "--since", today) == date(2026, 12, 4)
    assert parse_day("7d", "--since", today) == date(2026, 11, 28)
    assert parse_day("0d", "--until", today) == today
    assert parse_day("2w", "--since", today) == date(2026, 11, 21)
    assert parse_day("7d", "--since") == date.today() - (date(2026, 12, 5) - date(2026, 11, 28))
    with pytest.raises(ConfigError, match='--since "9999999d": out of the range of dates'):
        parse_day("9999999d", "--since", today)
    for wrong in ("7", "d", "-7d", "7 days", "7h", "tomorrow"):
        with pytest.raises(ConfigError, match="expected a date like 2026-11-30.* like 7d or 2w"):
            parse_day(wrong, "--since", today)


def test_a_value_that_is_no_date_names_every_form_taken_iso_week_dates_too(
    tmp_path: Path,
) -> None:
    """The sentence for a --since, --until or --at that is no date named dates, times and
    (for a day) days back, but not the ISO week dates they take (2026-W48-1)."""
    from proctor.history.journal import parse_day

    forms = "a date like 2026-11-30, an ISO week date like 2026-W48-1, "
    for what in ("--since", "--until"):
        with pytest.raises(ConfigError) as refused:
            parse_day("tomorrow", what)
        assert str(refused.value) == (
            f'{what} "tomorrow": expected {forms}a time like 2026-11-30T14:00, today, '
            "yesterday, or days or weeks back like 7d or 2w"
        )
    with pytest.raises(ConfigError) as refused:
        mark_for("x", None, "yesterday", tmp_path)
    assert (
        str(refused.value) == f'--at "yesterday": expected {forms}or a time like 2026-11-30T14:00'
    )
    assert str(parse_day("2026-W48-1", "--since")) == "2026-11-23"  # the form named is taken


def test_a_count_of_days_back_of_any_length_past_the_range_is_out_of_range() -> None:
    """Eight digits or more were "expected a date like …", seven "out of the range": a count
    too large is one of days back whatever its length (never made into a number of thousands
    of digits), and leading zeros do not count."""
    from datetime import date

    from proctor.history.journal import parse_day

    today = date(2026, 12, 5)
    for huge in ("99999999d", "10000000w", "9" * 5000 + "d"):
        shown = f'{huge}"' if len(huge) < 100 else huge[:296] + r"\.\.\."  # a long one cut
        with pytest.raises(ConfigError, match=f'--until "{shown}: out of the range of dates'):
            parse_day(huge, "--until", today)
    assert parse_day("00000007d", "--since", today) == date(2026, 11, 28)


def test_an_iso_week_without_its_day_is_refused_and_one_with_its_day_is_that_day(
    tmp_path: Path,
) -> None:
    """`2026-W48` was taken as its Monday (Python's fromisoformat), where `--until 2026-W48`
    means the whole week: --since, --until and --at refuse it alike, naming its first and last
    day; a week date with its day names that day."""
    from datetime import date

    from proctor.history.journal import parse_day

    said = (
        "a week, seven days, where a day is expected; give its first day, 2026-11-23 "
        "(2026-W48-1), or its last, 2026-11-29 (2026-W48-7)"
    )
    for week in ("2026-W48", "2026W48", "2026-W48T14:00"):
        for what in ("--since", "--until"):
            with pytest.raises(ConfigError) as refused:
                parse_day(week, what)
            assert str(refused.value) == f'{what} "{week}": {said}'
        with pytest.raises(ConfigError, match=re.escape(f'--at "{week}": {said}')):
            mark_for("x", None, week, tmp_path)
    assert parse_day("2026-W48-3", "--since") == date(2026, 11, 25)  # a Wednesday
    assert parse_day("2026W487", "--until") == date(2026, 11, 29)
    assert mark_for("x", None, "2026-W48-1T14:00Z", tmp_path).at.startswith("2026-11-23T14:00")
    with pytest.raises(ConfigError, match="2025 has ISO weeks 2025-W01 to 2025-W52"):
        parse_day("2025-W53", "--since")
    journal = tmp_path / "changes.jsonl"  # edited by hand: the line is skipped, said why
    journal.write_text('{"schemaVersion":2,"text":"x","project":"/w","at":"2026-W48"}\n')
    assert read_marks(journal) == (
        [],
        [f'{journal}:1: skipped, not a change mark (at "2026-W48": {said})'],
    )


def test_an_empty_mark_time_is_refused_not_read_as_now(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match='--at "": expected .*, not a blank one'):
        mark_for("x", None, "", tmp_path)


def test_a_line_of_other_types_is_skipped_with_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":5,"at":"2026-11-25T00:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":"no time"}\n'
    )
    marks, notes = read_marks(path)
    assert marks == []
    assert notes == [
        f"{path}:1: skipped, not a change mark (field 'text': expected a string, got 5)",
        f"{path}:2: skipped, not a change mark (field 'at' is required but missing)",
    ]


def test_a_mark_in_a_folder_or_with_text_that_is_not_utf8_is_written_escaped(
    tmp_path: Path,
) -> None:
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")
    os.mkdir(odd)
    path = tmp_path / "changes.jsonl"
    add_mark(path, mark_for(os.fsdecode(b"plugin caf\xe9"), None, "2026-11-13", Path(odd)))
    (mark,) = read_marks(path)[0]
    assert mark.text == "plugin caf\\xe9"
    assert mark.project == f"{tmp_path}/caf\\xe9"
    assert same_project(mark.project, Path(odd))  # as a summary keeps the folder: it matches


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """proctor's exit code and output, run as the console runs it."""
    with pytest.raises(SystemExit) as ended:
        main(argv)
    out, err = capsys.readouterr()
    return int(ended.value.code or 0), out + err


def test_a_folder_whose_name_is_not_utf8_is_a_folder_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")
    os.mkdir(odd)
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(odd)
    for args in (["mark", "x"], ["mark", "y", "--project", odd]):
        code, text = _run(args, capsys)
        assert code == 0 and "not a folder here" not in text, text
    code, text = _run(["mark", "z", "--project", str(tmp_path / "gone")], capsys)
    assert code == 0 and "is not a folder here" in text  # the control


def test_a_mark_from_a_folder_deleted_meanwhile_needs_its_project_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    code, text = _run(["mark", "x"], capsys)
    assert code == 2
    assert "the current folder no longer exists; name the project with --project" in text
    code, text = _run(["mark", "x", "--project", "rel"], capsys)
    assert code == 2 and "give the full path" in text
    code, text = _run(["mark", "x", "--project", PROJECT], capsys)
    assert code == 0, text
    assert read_marks(tmp_path / "data" / "changes.jsonl")[0][0].project == PROJECT
    history = tmp_path / "history"
    history.mkdir()
    (history / "s.jsonl").write_bytes(SESSION.read_bytes())
    code, text = _run(["history", str(history)], capsys)  # no ./proctor.json to read there
    assert code == 0 and "Sessions: 1" in text, text


def test_changes_of_another_project_only_are_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    assert _run(["mark", "x", "--project", PROJECT], capsys)[0] == 0
    history = tmp_path / "history"
    history.mkdir()
    (history / "s.jsonl").write_bytes(SESSION.read_bytes())
    code, text = _run(["history", "--changes", str(history), "--project", "/else"], capsys)
    assert code == 0, text
    assert "No change marked for /else (1 marked for other projects" in text


@pytest.mark.parametrize("ending", ["", "\n"], ids=["no-final-newline", "control"])
def test_a_mark_after_a_last_line_without_its_newline_keeps_both(
    tmp_path: Path, ending: str
) -> None:
    """An editor that saves the journal without a final newline: the next mark starts a line
    of its own instead of being glued onto the last one (which would skip both)."""
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":"by hand","project":null,"at":"2026-11-05T00:00:00+00:00"}'
        + ending
    )
    add_mark(path, mark_for("new", Path(PROJECT), "2026-11-06", tmp_path))
    marks, notes = read_marks(path)
    assert [m.text for m in marks] == ["by hand", "new"] and notes == []
    assert path.read_text().count("\n\n") == 0


def test_a_journal_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    line = '{"schemaVersion":2,"text":"t","project":null,"at":"2026-11-05T00:00:00+00:00"}\n'
    path.write_text("\ufeff" + line + line.replace('"t"', '"u"'), encoding="utf-8")
    marks, notes = read_marks(path)
    assert [m.text for m in marks] == ["t", "u"] and notes == []
    # Only at the start of the file: a mark further down is not a line of its own.
    path.write_text(line + "\ufeff" + line, encoding="utf-8")
    assert len(read_marks(path)[1]) == 1


def test_a_mark_with_an_empty_text_or_project_is_skipped_with_a_note(tmp_path: Path) -> None:
    """An empty project would match the folder the history is read from, while the table
    labelled it 'every project'; ``proctor mark`` refuses an empty text."""
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":"x","project":"","at":"2026-11-05T00:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":" ","project":null,"at":"2026-11-05T00:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":"ok","project":null,"at":"2026-11-05T00:00:00+00:00"}\n'
    )
    marks, notes = read_marks(path)
    assert [m.text for m in marks] == ["ok"]
    assert notes == [
        f"{path}:1: skipped, not a change mark (its project is empty; null means every project)",
        f"{path}:2: skipped, not a change mark (its text is empty)",
    ]


def test_a_share_interval_never_shrinks_to_a_point() -> None:
    from proctor.stats.bootstrap import bootstrap_pass_rate_ci
    from proctor.stats.rates import wilson_delta_interval, wilson_interval

    # The control: a percentile bootstrap of 3 successes of 3 claims certainty.
    point = bootstrap_pass_rate_ci([True, True, True])
    assert point is not None and (point.low, point.high) == (1.0, 1.0)
    assert wilson_interval(3, 3) == pytest.approx((0.4385, 1.0), abs=1e-4)
    assert wilson_interval(0, 3) == pytest.approx((0.0, 0.5615), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(0, 0) is None
    # Newcombe (1998), method 10, his worked example: 56/70 against 48/80.
    assert wilson_delta_interval((56, 70), (48, 80)) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    same = wilson_delta_interval((3, 3), (3, 3))
    assert same is not None and same[0] < 0 < same[1]


def test_every_task_verified_on_both_sides_makes_no_claim() -> None:
    before = [task(day, 60, 2, True) for day in (1, 2, 3)]
    after = [task(day, 60, 2, True) for day in (20, 21, 22)]
    result = compare_change(CHANGE, [*before, *after])
    assert result.delta is not None and result.delta.share_verified == 0
    low, high = result.delta.share_verified_ci or (0, 0)
    assert low < -0.5 and high > 0.5


def test_another_change_among_the_tasks_is_named() -> None:
    before = [task(day, 60, 2, True) for day in (1, 2, 3)]
    after = [task(day, 60, 2, True) for day in (20, 21, 22)]
    inside = ChangeMark(text="prompt edited", project=PROJECT, at="2026-11-21T00:00:00+00:00")
    same_time = ChangeMark(text="model bumped", project=None, at=CHANGE.at)
    elsewhere = ChangeMark(text="other repo", project="/work/other", at=CHANGE.at)
    later = ChangeMark(text="much later", project=PROJECT, at="2026-11-29T00:00:00+00:00")
    marks = [CHANGE, inside, same_time, elsewhere, later]
    result = compare_change(CHANGE, [*before, *after], marks)
    assert result.warnings == [  # one warning for both, in time order
        "2 other changes fall among these tasks (1 at the same time as this one, 1 after it): "
        "'model bumped' (2026-11-15T00:00:00.000+00:00), 'prompt edited' "
        "(2026-11-21T00:00:00.000+00:00); their effects count in this comparison too",
    ]
    assert "| note: 2 other changes fall among these tasks" in render_changes([result])
    assert compare_change(CHANGE, [*before, *after]).warnings == []  # the control: none given
    one = compare_change(CHANGE, [*before, *after], [CHANGE, inside, elsewhere, later])
    assert one.warnings == [
        "another change, 'prompt edited' (2026-11-21T00:00:00.000+00:00), falls among these tasks "
        "(after this one): its effect counts in this comparison too",
    ]


def test_a_change_after_every_task_of_a_comparison_falls_among_none_of_them() -> None:
    """Marked today and again tomorrow, with no task since: the first change is after every
    task the second's comparison holds, so its effect counts in none of them."""
    tasks = [task(day, 60, 2, True) for day in (1, 2, 3)]
    first = ChangeMark(text="first", project=PROJECT, at="2026-11-06T10:00:00+00:00")
    second = ChangeMark(text="second", project=PROJECT, at="2026-11-07T10:00:00+00:00")
    early = ChangeMark(text="early", project=PROJECT, at="2026-11-02T10:00:00+00:00")
    assert compare_change(second, tasks, [first, second]).warnings == []
    assert compare_change(first, tasks, [first, second]).warnings == []
    # The control: a change between two of its tasks is named.
    assert compare_change(second, tasks, [early, second]).warnings == [
        "another change, 'early' (2026-11-02T10:00:00.000+00:00), falls among these tasks "
        "(before this one): its effect counts in this comparison too"
    ]
    # One at the same time as it is named, whatever its tasks.
    twin = ChangeMark(text="twin", project=PROJECT, at=second.at)
    assert compare_change(second, tasks, [second, twin]).warnings == [
        "another change, 'twin' (2026-11-07T10:00:00.000+00:00), falls among these tasks "
        "(at the same time as this one): its effect counts in this comparison too"
    ]
    assert compare_change(second, [], [second, twin]).warnings[0].startswith("another change")


def test_changes_with_the_same_tasks_on_each_side_share_their_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fifty changes marked between the same two tasks: the sides' figures and intervals are
    worked out once, and each comparison still holds its own copy."""
    from proctor.history import changes

    tasks = [task(day, 60 * day, day, day % 2 == 0) for day in range(1, 29)]
    marks = [
        ChangeMark(
            text=f"change {i}", project=PROJECT, at=f"2026-11-14T{i // 60:02d}:{i % 60:02d}Z"
        )
        for i in range(50)
    ]
    alone = [compare_change(m, tasks, marks) for m in marks[:2]]  # the control, one at a time
    worked: list[int] = []
    real = changes.side_figures
    monkeypatch.setattr(changes, "side_figures", lambda t: worked.append(len(t)) or real(t))
    compared = compare_changes(marks, tasks)
    assert worked == [10, 10]  # one window of ten a side, for all fifty
    assert compared[:2] == alone
    compared[0].before.tasks = 99  # a caller's edit of one leaves the others as they were
    assert compared[1].before.tasks == 10


def test_the_changes_output_grows_with_the_number_of_marks_not_its_square() -> None:
    tasks = [task(day, 60, 2, True) for day in range(1, 29)]

    def changes(count: int) -> tuple[str, list[str]]:
        # Every mark between the first task and the last, each among the others' tasks.
        marks = [
            ChangeMark(
                text=f"change {i}",
                project=PROJECT,
                at=f"2026-11-14T{i // 60:02d}:{i % 60:02d}:00+00:00",
            )
            for i in range(count)
        ]
        compared = compare_changes(marks, tasks)
        return render_changes(compared), [w for c in compared for w in c.warnings]

    text, warnings = changes(50)
    assert len(warnings) == 50  # one per comparison, naming two and counting the rest
    assert warnings[0] == (
        "49 other changes fall among these tasks (49 after this one): 'change 1' "
        "(2026-11-14T00:01:00.000+00:00), 'change 2' (2026-11-14T00:02:00.000+00:00) and 47 more; "
        "their effects count in this comparison too"
    )
    assert sum("other changes fall among" in line for line in text.splitlines()) == 50
    small, _ = changes(10)
    assert len(text) < 6 * len(small)  # linear: five times the marks, about five times the text


def test_each_mark_s_time_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import proctor.history.changes as changes_module

    read: list[str] = []
    real = changes_module.parse_time

    def parse_time(text: str, what: str, *, local: bool = False) -> object:
        read.append(text) if what == "change time" else None
        return real(text, what, local=local)

    monkeypatch.setattr(changes_module, "parse_time", parse_time)
    marks = [
        ChangeMark(text=f"change {day}", project=PROJECT, at=f"2026-11-{day:02d}T12:00:00+00:00")
        for day in range(1, 29)
    ]
    compare_changes(marks, [task(day, 60, 2, True) for day in range(1, 29)])
    assert sorted(read) == sorted(m.at for m in marks)


def test_a_task_still_running_at_the_change_is_noted() -> None:
    straddling = msgspec.structs.replace(
        task(14, 86400 * 2, 2, True), ended_at="2026-11-16T10:00:00+00:00"
    )
    finished = msgspec.structs.replace(task(13, 60, 2, True), ended_at="2026-11-13T10:01:00+00:00")
    result = compare_change(CHANGE, [finished, straddling])
    assert result.warnings == [
        "1 task before the change was still running when it was made (a task's side is told "
        "by its start)"
    ]


def test_a_date_or_time_without_a_zone_in_mark_is_on_the_machine_s_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    try:
        # The day begins at 08:00 UTC in Los Angeles in November, as --since counts it.
        assert mark_for("x", None, "2026-11-21", tmp_path).at == "2026-11-21T08:00:00+00:00"
        assert mark_for("x", None, "2026-11-21T14:00", tmp_path).at == "2026-11-21T22:00:00+00:00"
        assert mark_for("x", None, "2026-11-21T14:00Z", tmp_path).at == "2026-11-21T14:00:00+00:00"
        # A time written by hand into the journal reads the same on every machine: UTC.
        assert parse_time("2026-11-21T14:00", "at").isoformat() == "2026-11-21T14:00:00+00:00"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_journal_that_cannot_be_read_is_an_error_not_an_empty_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data" / "changes.jsonl").mkdir(parents=True)
    with pytest.raises(ConfigError, match="the change journal cannot be read"):
        read_marks(tmp_path / "data" / "changes.jsonl")
    assert read_marks(tmp_path / "none.jsonl") == ([], [])  # none yet: no change marked
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    history = tmp_path / "history"
    history.mkdir()
    (history / "s.jsonl").write_bytes(SESSION.read_bytes())
    code, text = _run(["history", "--changes", str(history)], capsys)
    assert code == 2 and "No change marked" not in text
    assert "changes.jsonl: the change journal cannot be read (a folder)" in text


def test_a_relative_project_in_the_journal_is_skipped_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":"rel","project":"ws/a","at":"2026-11-10T05:00:00+00:00"}\n'
    )
    marks, notes = read_marks(path)
    assert marks == [] and "its project 'ws/a' is not a full path" in notes[0]


def test_mark_notes_a_project_that_is_not_a_folder_and_history_a_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    code, text = _run(["mark", "x", "--project", str(tmp_path / "typo")], capsys)
    assert code == 0 and f"{tmp_path / 'typo'} is not a folder here; the mark is kept" in text
    code, text = _run(["mark", "x", "--project", str(tmp_path)], capsys)
    assert code == 0 and "is not a folder here" not in text  # the control: a folder
    history = tmp_path / "history"
    history.mkdir()
    (history / "s.jsonl").write_bytes(SESSION.read_bytes())
    code, text = _run(["history", "--changes", str(history), "--since", "2020-01-01"], capsys)
    assert code == 0 and "--since/--until also limit the tasks --changes compares" in text


def test_a_session_dated_out_of_the_range_of_dates_is_left_out_not_fatal() -> None:
    year_one = msgspec.structs.replace(
        task(1, 60, 2, True),
        started_at="0001-01-01T00:30:00+01:00",
        ended_at="9999-12-31T23:00:00-05:00",
    )
    result = compare_change(CHANGE, [year_one, task(2, 60, 2, True)])
    assert result.before.tasks == 1


def test_a_journal_line_whose_project_names_no_folder_is_skipped_with_a_note(
    tmp_path: Path,
) -> None:
    path = tmp_path / "changes.jsonl"
    line = '{"schemaVersion":2,"text":"t","project":%s,"at":"2026-11-10T05:00:00+00:00"}\n'
    path.write_text(
        line % '"/work/a\\u0000x"' + line % '"/work/\\ud800"' + line % '"/work/caf\\udce9"'
    )
    marks, notes = read_marks(path)
    assert [m.project for m in marks] == ["/work/caf\udce9"]  # the control: a name's bytes
    assert len(notes) == 2 and all("names no folder" in note for note in notes)


def test_a_recorded_folder_that_names_no_folder_matches_its_own_name_only() -> None:
    assert not same_project("/work/a\x00x", Path("/work/a"))
    assert same_project("/work/a\x00x", Path("/work/a\x00x"))
    assert not same_project("/work/\ud800", Path("/work"))
    assert same_project(PROJECT, Path(PROJECT))  # the control


def test_a_journal_line_without_a_project_is_every_project_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.write_text(
        '{"schemaVersion":2,"text":"a","at":"2026-11-10T05:00:00+00:00"}\n'
        '{"schemaVersion":2,"text":"b","project":null,"at":"2026-11-11T05:00:00+00:00"}\n'
    )
    marks, notes = read_marks(path)
    assert [(m.text, m.project) for m in marks] == [("a", None), ("b", None)]
    assert len(notes) == 1 and notes[0].startswith(f"{path}:1: no project")


def test_a_journal_linked_to_a_place_that_is_gone_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "changes.jsonl"
    path.symlink_to(tmp_path / "moved" / "changes.jsonl")
    with pytest.raises(ConfigError, match="is a link to .*, which cannot be reached"):
        read_marks(path)


def test_a_data_folder_linked_to_a_place_that_is_gone_is_an_error_never_no_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data folder on a disk that is not mounted: no mark is read as "no change", and a
    mark says why it cannot be written (not "File exists")."""
    data = tmp_path / "data"
    data.symlink_to(tmp_path / "unmounted" / "proctor")
    path = data / "changes.jsonl"
    gone = f"lies in {data}, which is a link to {tmp_path / 'unmounted' / 'proctor'}, which"
    with pytest.raises(ConfigError, match=f"the change journal {re.escape(gone)} cannot be"):
        read_marks(path)
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(data))
    with pytest.raises(SystemExit) as stopped:
        main(["mark", "plugin enabled", "--project", str(tmp_path)])
    assert stopped.value.code == 2
    assert f"cannot write the change journal (it {gone} cannot be reached)" in (
        capsys.readouterr().err
    )
    assert read_marks(tmp_path / "elsewhere" / "changes.jsonl") == ([], [])  # the control


def test_mark_never_writes_its_journal_into_a_history_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / ".claude"
    (claude / "projects").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(claude / "projects" / "proctor"))
    code, text = _run(["mark", "x", "--project", str(tmp_path)], capsys)
    assert code == 2 and f"would be inside {claude}, a history folder" in text
    assert not (claude / "projects" / "proctor").exists()
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))  # the control
    code, text = _run(["mark", "x", "--project", str(tmp_path)], capsys)
    assert code == 0 and (tmp_path / "data" / "changes.jsonl").is_file()


def test_a_relative_data_folder_names_no_journal(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="PROCTOR_DATA_DIR 'rel' is not a full path"):
        journal_path({"PROCTOR_DATA_DIR": "rel"})
    # A relative XDG_DATA_HOME is ignored, as the XDG specification says.
    assert journal_path({"XDG_DATA_HOME": "x", "HOME": "/h"}) == Path(
        "/h/.local/share/proctor/changes.jsonl"
    )


def test_a_mark_keeps_the_fraction_of_a_second_it_was_given(tmp_path: Path) -> None:
    mark = mark_for("x", tmp_path, "2026-11-04T10:00:00.700Z", tmp_path)
    assert mark.at == "2026-11-04T10:00:00.700000+00:00"
    early = msgspec.structs.replace(task(4, 60, 3, True), started_at="2026-11-04T10:00:00.300Z")
    comparison = compare_change(mark.model_copy(update={"project": PROJECT}), [early])
    assert comparison.before.tasks == 1 and comparison.after.tasks == 0
    assert mark_for("x", tmp_path, "2026-11-04T10:00:00Z", tmp_path).at.endswith("00+00:00")


def test_an_empty_project_is_refused_not_taken_for_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    code, text = _run(["mark", "x", "--project", ""], capsys)
    assert code == 2 and "--project is empty" in text
    assert not (tmp_path / "data" / "changes.jsonl").exists()
    code, _ = _run(["mark", "x", "--project", str(tmp_path)], capsys)
    assert code == 0 and (tmp_path / "data" / "changes.jsonl").exists()  # the control


def test_a_project_given_with_a_tilde_the_shell_left_is_in_the_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "app").mkdir()
    code, text = _run(["mark", "x", "--project=~/app"], capsys)  # no shell expands this `~`
    assert code == 0, text
    (mark,), _ = read_marks(tmp_path / "data" / "changes.jsonl")
    assert mark.project == str(tmp_path / "app") and "not a folder" not in text


def test_a_local_time_the_clock_skips_or_passes_twice_is_noted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import time

    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        skipped = ["mark", "x", "--project", str(tmp_path), "--at", "2026-03-29T02:30"]
        code, text = _run(skipped, capsys)
        assert code == 0 and "proctor: note: 2026-03-29T02:30 does not exist on this" in text
        code, text = _run([*skipped[:-1], "2026-10-25T02:30"], capsys)
        assert code == 0 and "2026-10-25T02:30 happens twice on this machine's clock" in text
        assert "taken as the first, 2026-10-25T00:30:00+00:00" in text
        for plain in ("2026-10-25T04:30", "2026-10-25T02:30+02:00", "2026-03-29"):  # controls
            code, text = _run([*skipped[:-1], plain], capsys)
            assert code == 0 and "note:" not in text, text
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_change_of_a_folder_no_task_ran_in_names_the_folders_nearby() -> None:
    tasks = [task(day, 60, 3, True, project=f"{PROJECT}/sub") for day in (10, 11, 20, 21)]
    tasks.append(task(12, 60, 3, True, project="/elsewhere"))
    (comparison,) = compare_changes([CHANGE], tasks)
    assert comparison.warnings == [
        f"no task of this history ran in {PROJECT}; tasks ran in {PROJECT}/sub (a change "
        "counts the tasks of its own folder only)"
    ]
    sub = CHANGE.model_copy(update={"project": f"{PROJECT}/sub"})
    (control,) = compare_changes([sub], tasks)
    assert control.warnings == [] and control.before.tasks == 2
    alone = CHANGE.model_copy(update={"project": "/nowhere"})
    (nothing,) = compare_changes([alone], tasks)
    assert nothing.warnings == ["no task of this history ran in /nowhere"]


def test_a_folder_nearby_is_named_once_however_its_sessions_named_it(tmp_path: Path) -> None:
    app = tmp_path / "ws" / "app"
    app.mkdir(parents=True)
    (tmp_path / "ws" / "applink").symlink_to(app)
    spellings = [str(app), f"{app}/", str(tmp_path / "ws" / "applink"), f"{tmp_path}/ws/lib"]
    tasks = [task(10 + n, 60, 3, True, project=p) for n, p in enumerate(spellings)]
    parent = CHANGE.model_copy(update={"project": str(tmp_path / "ws")})
    (comparison,) = compare_changes([parent], tasks)
    assert comparison.warnings == [
        f"no task of this history ran in {tmp_path}/ws; tasks ran in {app}, {tmp_path}/ws/lib "
        "(a change counts the tasks of its own folder only)"
    ]


def test_a_change_marked_twice_alike_says_so() -> None:
    tasks = [task(day, 60, 3, True) for day in (10, 11, 12, 20, 21, 22)]
    twin = CHANGE.model_copy()
    first, second = compare_changes([CHANGE, twin], tasks)
    assert first == second
    assert first.warnings == [
        "the journal holds this change 2 times (the same text, project and time): each shows "
        "the same comparison"
    ]
    (control,) = compare_changes([CHANGE], tasks)
    assert control.warnings == []


@pytest.mark.parametrize("written", ["2026-11-15T00:00:00Z", "2026-11-15T01:00+01:00"])
def test_a_change_marked_twice_at_one_time_written_two_ways_is_alike(written: str) -> None:
    tasks = [task(day, 60, 3, True) for day in (10, 11, 12, 20, 21, 22)]
    twin = CHANGE.model_copy(update={"at": written})
    first, second = compare_changes([CHANGE, twin], tasks)
    assert first == second  # the change's time shown in UTC, however it was written
    assert first.change.at == second.change.at == "2026-11-15T00:00:00.000+00:00"
    assert first.warnings == [
        "the journal holds this change 2 times (the same text, project and time): each shows "
        "the same comparison"
    ]
    later = CHANGE.model_copy(update={"at": "2026-11-15T00:00:01Z"})  # the control
    (one, _) = compare_changes([CHANGE, later], tasks)
    assert "holds this change" not in " ".join(one.warnings)
    assert (
        "another change, 'enabled the guard plugin' (2026-11-15T00:00:01.000+00:00)"
        in (one.warnings[0])
    )


def test_a_named_pipe_where_the_journal_belongs_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "changes.jsonl")
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(data))
    code, text = _run(["mark", "x", "--project", str(tmp_path)], capsys)
    assert code == 2 and "not a regular file (a named pipe, a socket, a device)" in text
    assert "seekable" not in text


def test_a_side_says_over_how_many_of_its_tasks_the_median_time_is() -> None:
    """Sessions without a time at both ends have no duration: the median is theirs only."""
    before = [task(1, 100, 3, True), task(2, 200, 4, True), task(3, 300, 5, True)]
    after = [task(20, 5, 1, True), task(21, 7, 1, True), task(22, 9, 1, True)]
    after[1].duration_seconds = after[2].duration_seconds = None
    result = compare_change(CHANGE, [*before, *after])
    assert (result.before.tasks, result.before.timed_tasks) == (3, 3)
    assert (result.after.tasks, result.after.timed_tasks, result.after.median_seconds) == (3, 1, 5)
    table = render_changes([result])
    assert table.count(" timed)") == 1 and "| after | 3 | 5.0 s (1 of 3 timed) |" in table
    # Compared (three tasks a side), but not their times: the difference says why it is blank.
    assert result.comparable and result.delta is not None and result.delta.median_seconds is None
    assert "| after − before | | – (not compared: 1 timed on a side, at least 3 needed) |" in (
        table
    )


def test_the_summary_says_over_how_many_tasks_the_median_time_is() -> None:
    from proctor.history.summary import history_report, render_history
    from proctor.models.pricing import PriceTable

    timed = [task(1, 100, 3, True), task(2, 300, 5, True)]
    undated = task(3, 0, 4, False)
    undated.duration_seconds = None
    text = render_history(history_report([*timed, undated], [], PriceTable(), "project"))
    assert "- Median time: 3m 20s (1m 40s–5m 00s; 2 of 3 tasks timed); median steps" in text
    assert "| 3m 20s (1m 40s–5m 00s; 2 of 3 tasks timed) |" in text
    control = render_history(history_report(timed, [], PriceTable()))
    assert "timed" not in control


def test_a_group_or_summary_with_no_task_timed_says_so_in_words() -> None:
    """A day whose one task has no duration read "– (0 of 1 tasks timed)"; the summary said
    "– (0 of 2 tasks timed)" for two."""
    from proctor.history.summary import history_report, render_history
    from proctor.models.pricing import PriceTable

    timed = [task(1, 100, 3, True), task(2, 300, 5, True)]
    undated = [task(3, 0, 4, False), task(4, 0, 4, False)]
    for record in undated:
        record.duration_seconds = None
    text = render_history(history_report([*timed, undated[0]], [], PriceTable(), "day"))
    assert "| 2026-11-03 | 1 | 1 | 0/1 (0%) | – (none of its 1 task timed) |" in text
    alone = render_history(history_report(undated, [], PriceTable()))
    assert "- Median time: – (none of its 2 tasks timed); median steps" in alone
    assert "of 1 tasks" not in text and " 0 of " not in text + alone


def test_the_difference_of_shares_has_no_float_noise() -> None:
    before = [task(d, 100, 3, d <= 6) for d in range(1, 11)]  # 6 of 10 verified
    after = [task(20 + d, 100, 3, d <= 7) for d in range(1, 11)]  # 7 of 10
    result = compare_change(CHANGE, [*before, *after])
    assert result.delta is not None
    assert (result.before.share_verified, result.after.share_verified) == (0.6, 0.7)
    assert result.delta.share_verified == 0.1  # 0.7 - 0.6 is 0.09999999999999998 in floats


def test_halves_are_rounded_up_as_people_round_them() -> None:
    """3 of 8 and 1 of 8 verified show as 38% and 13% (a format rounds 12.5 to the even 12);
    a step median of 2.25 steps' difference shows as 2.3."""
    before = [task(d, 100, 3, d <= 1) for d in range(1, 9)]  # 1 of 8
    after = [task(20 + d, 100, 3, d <= 3) for d in range(1, 9)]  # 3 of 8
    table = render_changes([compare_change(CHANGE, [*before, *after])])
    assert "| before | 8 | 1m 40s [1m 40s–1m 40s] | 3 [3–3] | 13% [" in table
    assert "| after | 8 | 1m 40s [1m 40s–1m 40s] | 3 [3–3] | 38% [" in table
    assert "| +25 pp [" in table
    assert f"{12.5:.0f}" == "12"  # the control: what a format gives


def test_tasks_tied_at_the_cut_are_taken_by_path_and_the_output_says_so() -> None:
    """Twelve tasks started at one instant before the change compete for ten places: the
    first ten by their file's path are taken, whatever order the replay gave them in, and a
    warning says that two were left out; a cut between two times says nothing."""

    def at(path: str, day: int, hour: int = 10) -> SessionRecord:
        record = task(day, 60, 3, True)
        record.path, record.started_at = path, f"2026-11-{day:02d}T{hour:02d}:00:00+00:00"
        return record

    tied = [at(f"/h/tied-{n:02d}.jsonl", 5) for n in range(12)]
    after = [at(f"/h/after-{n:02d}.jsonl", 20, hour) for n, hour in enumerate(range(1, 13))]
    older = at("/h/older.jsonl", 1)
    forward = compare_change(CHANGE, [older, *tied, *after])
    backward = compare_change(CHANGE, [*after[::-1], *tied[::-1], older])
    assert forward == backward  # the same picks in any order
    # The ten nearest are the last ten of the tied ones in start-then-path order.
    assert forward.before.sessions == [t.path for t in tied[2:]]
    assert forward.warnings == [
        "2 more tasks started at the same time as the farthest one taken before the change "
        "(2026-11-05T10:00:00+00:00) and were left out: the 10 places went by their session "
        "files' paths"
    ]
    # After the change the twelve differ in time: the ten nearest, no warning.
    assert forward.after.sessions == [t.path for t in after[:10]]
    control = compare_change(CHANGE, [older, *tied[:10], *after])
    assert control.warnings == []
    one_more = compare_change(CHANGE, [*tied[:11], *after])
    assert one_more.warnings[0].startswith("1 more task started at the same time")
    assert "was left out" in one_more.warnings[0]
    same_after = [at(f"/h/late-{n:02d}.jsonl", 21) for n in range(13)]
    late = compare_change(CHANGE, [*tied[:3], *same_after])
    assert late.after.sessions == [t.path for t in same_after[:10]]
    assert late.warnings == [
        "3 more tasks started at the same time as the farthest one taken after the change "
        "(2026-11-21T10:00:00+00:00) and were left out: the 10 places went by their session "
        "files' paths"
    ]


def test_another_change_held_twice_is_named_and_counted_once() -> None:
    """A change marked twice alike (the command run again) is one change among the others of a
    comparison: named once, not as two, nor counted twice."""
    before = [task(day, 60, 2, True) for day in (1, 2, 3)]
    after = [task(day, 60, 2, True) for day in (20, 21, 22)]
    inside = ChangeMark(text="prompt edited", project=PROJECT, at="2026-11-21T00:00:00+00:00")
    again = ChangeMark(text="prompt edited", project=PROJECT, at="2026-11-21T01:00:00+01:00")
    result = compare_change(CHANGE, [*before, *after], [CHANGE, inside, again])
    assert result.warnings == [
        "another change, 'prompt edited' (2026-11-21T00:00:00.000+00:00), falls among these tasks "
        "(after this one): its effect counts in this comparison too",
    ]
    other = ChangeMark(text="model bumped", project=PROJECT, at="2026-11-22T00:00:00+00:00")
    result = compare_change(CHANGE, [*before, *after], [CHANGE, inside, again, other])
    assert result.warnings == [
        "2 other changes fall among these tasks (2 after this one): 'prompt edited' "
        "(2026-11-21T00:00:00.000+00:00), 'model bumped' (2026-11-22T00:00:00.000+00:00); "
        "their effects count in this comparison too",
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("2027-W53-1", "2027 has ISO weeks 2027-W01 to 2027-W52, not week 53"),
        ("2026-W00-1", "2026 has ISO weeks 2026-W01 to 2026-W53, not week 00"),
        ("2025W53", "2025 has ISO weeks 2025-W01 to 2025-W52, not week 53"),
        ("2026-W48-8", "the day of an ISO week is 1 (its Monday) to 7 (its Sunday), not 8"),
        ("2026-W48-0T14:00", "the day of an ISO week is 1 (its Monday) to 7 (its Sunday), not 0"),
        ("9999-W52-7", "out of the range of dates (years 1 to 9999)"),
    ],
)
def test_an_iso_week_date_of_no_such_week_or_day_says_which(
    text: str, said: str, tmp_path: Path
) -> None:
    """A week its year does not have, or a day past 7, was "expected a date like 2026-11-30,
    …", which does not name the ISO week dates proctor takes nor what is wrong with this one;
    --since, --until and --at say what is, alike."""
    from proctor.history.journal import parse_day

    for what in ("--since", "--until"):
        with pytest.raises(ConfigError) as refused:
            parse_day(text, what)
        assert str(refused.value) == f'{what} "{text}": {said}'
    with pytest.raises(ConfigError) as refused:
        mark_for("x", None, text, tmp_path)
    assert str(refused.value) == f'--at "{text}": {said}'
    assert str(parse_day("2026-W53-4", "--since")) == "2026-12-31"  # 2026 has 53 weeks


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("2026-02-30", "2026-02 has days 01 to 28, not 30"),
        ("2026-04-31T10:00", "2026-04 has days 01 to 30, not 31"),
        ("2026-11-00", "2026-11 has days 01 to 30, not 00"),
        ("2026-13-01", "a year has months 01 to 12, not 13"),
        ("2026-02-30Z", "2026-02 has days 01 to 28, not 30"),
        ("2026-02-30+01:00", "2026-02 has days 01 to 28, not 30"),
        ("2026-04-31-05:00", "2026-04 has days 01 to 30, not 31"),
        ("2026-13-01z", "a year has months 01 to 12, not 13"),
    ],
)
def test_a_date_of_no_such_day_or_month_says_which(text: str, said: str, tmp_path: Path) -> None:
    """2026-02-30 was "expected a date like 2026-11-30, …", as though it were no date at all;
    --since, --until and --at say what is wrong with it, as for an ISO week date."""
    from proctor.history.journal import parse_day

    for what in ("--since", "--until"):
        with pytest.raises(ConfigError) as refused:
            parse_day(text, what)
        assert str(refused.value) == f'{what} "{text}": {said}'
    with pytest.raises(ConfigError) as refused:
        mark_for("x", None, text, tmp_path)
    assert str(refused.value) == f'--at "{text}": {said}'
    assert str(parse_day("2024-02-29", "--since")) == "2024-02-29"  # a leap year's


def test_a_difference_shown_as_0_has_no_sign() -> None:
    """0 steps shows as 0, not +0, and 0 s as 0.0 s, not +0.0 s: a sign before a figure shown
    as 0 says a difference the table does not show. Steps show as the summary shows a count:
    whole, with a thousands separator, a half kept (a median of two), a bound that is not 0
    with its first significant digit (-0.01, never -0.0)."""
    from proctor.history.changes import _signed_points, _signed_steps, _signed_time

    assert [_signed_steps(x) for x in (-0.01, 0.0, 0.5, -1.26, 1204, -2)] == [
        "-0.01", "0", "+0.5", "-1.3", "+1,204", "-2",
    ]  # fmt: skip
    from proctor.history.changes import _with_ci

    assert _with_ci(1527.5, (1204.0, 2000.0)) == "1,527.5 [1,204–2,000]"  # as the summary's
    assert [_signed_time(x) for x in (0.0, -0.02, 140)] == ["0.0 s", "0.0 s", "+2m 20s"]
    assert [_signed_points(x) for x in (-0.001, 0.0, 0.33)] == ["0 pp", "0 pp", "+33 pp"]


def test_a_change_of_every_project_warns_when_its_tasks_ran_in_several() -> None:
    everywhere = ChangeMark(text="new model", project=None, at=CHANGE.at)
    before = [task(1, 100, 3, True), task(2, 200, 4, False)]
    after = [task(20, 50, 1, True, project="/work/other"), task(21, 60, 2, True)]
    pooled = compare_change(everywhere, [*before, *after])
    assert [w for w in pooled.warnings if "every project" in w] == [
        "marked for every project, it compares tasks of 2 projects pooled "
        "(`proctor history --changes --project PATH` compares one project's tasks)"
    ]
    one = compare_change(everywhere, [*before, task(21, 60, 2, True)])
    assert not [w for w in one.warnings if "every project" in w]
    assert not [w for w in compare_change(CHANGE, [*before, *after]).warnings if "pooled" in w]
