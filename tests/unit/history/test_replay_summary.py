"""History replay and its summary on the hand-worked planted history (see planted.py), with
controls that must break the figures."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

import msgspec
import orjson
import pytest

from proctor.history import replay as replay_module
from proctor.history import summary as summary_module
from proctor.history.layout import Session
from proctor.history.readback import RESPONSES
from proctor.history.record import SessionRecord
from proctor.history.replay import (
    Filters,
    largest_first,
    measure_session,
    replay,
    session_cost,
)
from proctor.history.sources import find_sessions, sessions_under
from proctor.history.summary import history_report, render_history, summarise
from proctor.models.config import ModelPrice
from proctor.models.history import GroupSummary, HistoryReport, SessionSummary, Unavailable
from proctor.models.list_prices import LIST_PRICES_AS_OF
from proctor.models.pricing import PriceTable
from proctor.models.trajectory import ModelUsage
from proctor.util.pool import forked_pool, start_worker
from tests.unit.history.planted import PROJECT_A, PROJECT_B, ClaudeSession, plant, project_folder

PRICES = PriceTable(prices={"claude-test-1": ModelPrice(input_per1_m=1.0, output_per1_m=10.0)})


def replayed(home: Path, filters: Filters | None = None, workers: int = 1) -> list[SessionRecord]:
    filters = filters or Filters()
    sessions, unavailable = find_sessions(["claude-code"], home, {})
    assert unavailable == []
    found = list(replay(sessions, filters, PRICES, workers=workers))
    assert all(isinstance(s, SessionRecord) for s in found)
    return sorted(found, key=lambda s: s.started_at or "")  # type: ignore[arg-type, return-value]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    plant(tmp_path / ".claude")
    return tmp_path


def check_total(total: GroupSummary) -> None:
    """Every figure of planted.py's summary."""
    assert (total.sessions, total.tasks, total.non_tasks) == (4, 2, 2)
    assert (total.verified, total.share_verified) == (1, 0.5)
    assert (total.duration_seconds.median, total.duration_seconds.min) == (330.0, 300.0)
    assert total.duration_seconds.max == 360.0
    assert (total.steps.median, total.steps.min, total.steps.max) == (4.5, 4.0, 5.0)
    orientation = total.orientation_reads
    assert (orientation.median, orientation.min, orientation.max) == (1.0, 0.0, 2.0)
    assert (total.loops, total.tasks_with_loops) == (1, 1)
    assert total.rule_counts == {"unverified": 1, "long-orientation": 0, "rework": 1, "loops": 1}
    auc = total.auc_cov_proxy
    assert (auc.n, auc.median, auc.min, auc.max) == (2, 0.875, 0.75, 1.0)
    assert (total.redundancy_proxy.n, total.redundancy_proxy.median) == (1, 0.0)
    usage = {m: (u.input_tokens, u.output_tokens) for m, u in total.usage.items()}
    assert usage == {"claude-test-1": (1500, 150), "claude-helper-1": (1000, 100)}
    assert total.cost_usd == 0.003
    assert total.unpriced_models == ["claude-helper-1"]


def test_every_figure_of_the_planted_history(home: Path) -> None:
    sessions = replayed(home)
    s1, s2, s3, s4 = sessions
    assert (s1.is_task, s1.verified, s1.steps.tool_calls, s1.checks, s1.failed_checks) == (
        True, True, 4, 1, 0,
    )  # fmt: skip
    assert (s1.orientation.reads_before_first_edit, s1.rules_fired, s1.project) == (
        2, [], PROJECT_A,
    )  # fmt: skip
    assert s1.steps.by_kind == {"search": 1, "read": 1, "edit": 1, "shell": 1}
    assert (s2.verified, s2.checks, s2.failed_checks, s2.loops) == (False, 4, 4, 1)
    assert s2.rules_fired == ["unverified", "rework", "loops"]
    assert s2.usage["claude-helper-1"].input_tokens == 1000  # the subagent file is read
    assert (s3.is_task, s3.verified, s3.project) == (False, None, PROJECT_B)
    assert (s4.is_task, s4.unknown_records) == (False, 2)  # a broken line, an unknown record
    assert [s.edited_files for s in (s1, s2)] == [["a.py"], ["b.py"]]
    check_total(history_report(sessions, [], PRICES).total)


def test_control_a_replay_that_counts_non_task_sessions_breaks_the_figures(home: Path) -> None:
    sessions = replayed(home)
    every_session_a_task = [msgspec.structs.replace(s, is_task=True) for s in sessions]
    with pytest.raises(AssertionError):
        check_total(history_report(every_session_a_task, [], PRICES).total)


def test_groups_per_project_week_and_agent(home: Path) -> None:
    sessions = replayed(home)
    by_project = history_report(sessions, [], PRICES, "project").groups
    assert [(g.key, g.sessions, g.tasks, g.verified) for g in by_project] == [
        (PROJECT_A, 2, 2, 1),
        (PROJECT_B, 2, 0, 0),
    ]
    by_week = history_report(sessions, [], PRICES, "week").groups
    assert [(g.key, g.sessions, g.tasks) for g in by_week] == [
        ("2026-W45", 2, 2),
        ("2026-W46", 2, 0),
    ]
    by_agent = history_report(sessions, [], PRICES, "agent").groups
    assert [(g.key, g.sessions) for g in by_agent] == [("claude-code", 4)]


def test_each_group_carries_the_summary_s_figures_rules_and_tokens_shown(home: Path) -> None:
    """A group's row has every figure the summary has, in the JSON (the same fields) and in
    the Markdown: how often each rule was broken, and tokens and dollars per model."""
    report = history_report(replayed(home), [], PRICES, "project")
    data = json.loads(report.model_dump_json(by_alias=True))
    assert all(set(group) == set(data["total"]) for group in data["groups"])
    a, b = report.groups
    assert a.rule_counts == {"unverified": 1, "long-orientation": 0, "rework": 1, "loops": 1}
    assert {m: u.input_tokens for m, u in a.usage.items()} == {
        "claude-test-1": 1100, "claude-helper-1": 1000,
    }  # fmt: skip
    assert {m: u.input_tokens for m, u in b.usage.items()} == {"claude-test-1": 400}
    text = render_history(report)
    assert (
        "| project | unverified | long-orientation | rework | loops |\n|---|---|---|---|---|\n"
        f"| {PROJECT_A} | 1/2 | 0/2 | 1/2 | 1/2 |\n| {PROJECT_B} | – | – | – | – |\n"
    ) in text
    assert (
        "| project | model | input | output | cache read | cache write | $ |\n"
        + "|---" * 7
        + f"|\n| {PROJECT_A} | claude-helper-1 | 1,000 | 100 | 0 | 0 | unpriced |\n"
        f"| {PROJECT_A} | claude-test-1 | 1,100 | 110 | 0 | 0 | $0.0022 |\n"
        f"| {PROJECT_B} | claude-test-1 | 400 | 40 | 0 | 0 | $0.0008 |\n"
    ) in text
    by_week = render_history(history_report(replayed(home), [], PRICES, "week"))
    assert "| 2026-W45 | 1/2 | 0/2 | 1/2 | 1/2 |\n| 2026-W46 | – | – | – | – |" in by_week
    nothing = render_history(history_report([], [], PRICES, "agent"))
    assert "Rules broken by" not in nothing and "Tokens by" not in nothing


def test_one_project_named_with_a_trailing_slash_or_through_a_link_is_one_group(
    home: Path, tmp_path: Path
) -> None:
    trail = tmp_path / "w" / "trail"
    trail.mkdir(parents=True)
    (tmp_path / "link").symlink_to(trail)
    s1, s2, s3, s4 = replayed(home)
    named = [f"{trail}/", str(trail), str(tmp_path / "link"), f"{tmp_path}/w/../w/trail"]
    sessions = [
        msgspec.structs.replace(s, project=p) for s, p in zip((s1, s2, s3, s4), named, strict=True)
    ]
    by_project = history_report(sessions, [], PRICES, "project").groups
    assert [(g.key, g.sessions, g.tasks) for g in by_project] == [(str(trail), 4, 2)]
    linked = [msgspec.structs.replace(s, project=str(tmp_path / "link")) for s in (s1, s2)]
    keys = [g.key for g in history_report(linked, [], PRICES, "project").groups]
    assert keys == [str(tmp_path / "link")], "named as recorded, not as the link points today"
    gemini = [msgspec.structs.replace(s, project="gemini:ab12") for s in (s1, s2)]
    unknown = [msgspec.structs.replace(s, project=None) for s in (s3, s4)]
    keys = [g.key for g in history_report([*gemini, *unknown], [], PRICES, "project").groups]
    assert keys == ["gemini:ab12", "unknown project"]


def test_a_session_whose_only_code_edit_was_rejected_or_failed_is_no_task(tmp_path: Path) -> None:
    rejected = ClaudeSession("dddddddd-0000-4000-8000-000000000001", PROJECT_A, "2026-11-05")
    rejected.user("10:00:00", "Change x.")
    rejected.tool("10:01:00", "Edit", {"file_path": f"{PROJECT_A}/x.py", "old_string": "a"})
    refusal = json.loads(rejected.lines.pop())  # its result, as Claude Code writes a rejection
    refusal["message"]["content"][0]["content"] = (
        "The user doesn't want to proceed with this tool use."
    )
    refusal["toolUseResult"] = "User rejected tool use"
    rejected.raw(json.dumps(refusal))
    failed = ClaudeSession("dddddddd-0000-4000-8000-000000000002", PROJECT_A, "2026-11-05")
    failed.user("11:00:00", "Change y.")
    failed.tool("11:01:00", "Edit", {"file_path": f"{PROJECT_A}/y.py", "old_string": "z"}, True)
    failed.tool("11:02:00", "Bash", {"command": "pytest"})
    for session in (rejected, failed):
        session.write(
            project_folder(tmp_path / ".claude", PROJECT_A) / f"{session.session_id}.jsonl"
        )
    sessions = replayed(tmp_path)
    assert [(s.is_task, s.verified, s.rules_fired) for s in sessions] == [(False, None, [])] * 2
    total = history_report(sessions, [], PRICES).total
    assert (total.sessions, total.tasks, total.non_tasks) == (2, 0, 2)


def test_filters_by_project_and_dates(home: Path) -> None:
    only_b = replayed(home, Filters(project=Path(PROJECT_B)))
    assert [s.project for s in only_b] == [PROJECT_B, PROJECT_B]
    window = replayed(home, Filters(since=date(2026, 11, 3), until=date(2026, 11, 10)))
    assert [s.session_id[:2] for s in window if s.session_id] == ["22", "33"]


def test_parallel_replay_gives_the_serial_results(home: Path) -> None:
    sessions, _ = find_sessions(["claude-code"], home, {})
    many = sessions * 3  # enough for the pool
    serial = sorted(replay(many, Filters(), PRICES, workers=1), key=_key)
    parallel = sorted(replay(many, Filters(), PRICES, workers=2), key=_key)
    assert len(parallel) == 12
    assert parallel == serial


def _key(session: object) -> str:
    assert isinstance(session, SessionRecord)
    return f"{session.started_at}{session.path}"


def test_a_plain_folder_of_sessions_is_read_whole(home: Path) -> None:
    folder = home / ".claude" / "projects"
    sessions, unavailable = sessions_under([folder], ["claude-code", "codex", "gemini-cli"])
    assert unavailable == []
    assert len(sessions) == 4  # the subagent file belongs to S2, not a session of its own
    only_codex, missing = sessions_under([folder], ["codex"])
    assert only_codex == [] and missing[0].reason.startswith("holds sessions of other agents only")


def test_a_missing_history_is_unavailable_with_its_reason(tmp_path: Path) -> None:
    sessions, unavailable = find_sessions(["codex", "gemini-cli"], tmp_path, {})
    assert sessions == []
    assert [(u.agent, u.reason.split(":")[0]) for u in unavailable] == [
        ("codex", "no such folder"),
        ("gemini-cli", "no such folder"),
    ]


def test_the_environment_moves_each_history(tmp_path: Path) -> None:
    plant(tmp_path / "elsewhere")
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "elsewhere"), "HOME": str(tmp_path / "nobody")}
    sessions, unavailable = find_sessions(["claude-code"], None, env)
    assert len(sessions) == 4 and unavailable == []


def test_the_table_by_group_names_the_unpriced_models_once_below_it(home: Path) -> None:
    """The ``$`` cell of each group listed every unpriced model ("$0.0030 (unpriced:
    claude-helper-1)"), repeating the tokens table below it: marked, named once."""
    text = render_history(history_report(replayed(home), [], PRICES, "project"))
    table = text[text.index("| project | sessions |") :]
    table = table[: table.index("\n\n")]
    assert "| 1 | $0.0022 (*) |" in table and "| 0 | $0.0008 |" in table  # projB: all priced
    assert "unpriced:" not in table
    assert (
        "\n\n(*) Leaves out the models without a price (claude-helper-1): their tokens are in "
        "the table of tokens by project and model below.\n"
    ) in text
    assert "$0.0030 (unpriced: claude-helper-1)\n" in text  # the total still names them
    priced = PriceTable(prices={**PRICES.prices, "claude-helper-1": PRICES.prices["claude-test-1"]})
    every = render_history(history_report(replayed(home), [], priced, "project"))
    assert "(*)" not in every  # the control: every model priced, nothing marked


def test_the_markdown_summary_states_the_proxy_and_the_figures(home: Path) -> None:
    text = render_history(history_report(replayed(home), [], PRICES, "project"))
    assert "4 (2 tasks, 2 without a code change)" in text
    assert "1/2 (50%)" in text
    assert "Median time: 5m 30s (5m 00s–6m 00s)" in text and "4.5 (4–5)" in text
    # The ranges are said as they are shown: in parentheses, the lowest and the highest
    # (--changes shows its intervals in square brackets).
    assert "4.5 (4–5) tool calls (lowest–highest in parentheses, over tasks)" in text
    assert "| claude-test-1 | 1,500 | 150 |" in text and "| claude-helper-1 | 1,000 | 100 |" in text
    assert "proxy gold" in text
    assert "$0.0030 (unpriced: claude-helper-1)\n(A model's price, dollars per million" in text
    every = render_history(history_report(replayed(home), [], PriceTable(), "project"))
    priced = PriceTable(prices={**PRICES.prices, "claude-helper-1": PRICES.prices["claude-test-1"]})
    assert "(A model's price" in every  # no model priced
    # Every model priced: where the prices come from is still said (list prices or yours).
    text = render_history(history_report(replayed(home), [], priced, "project"))
    assert f"else from its maker's list price as of {LIST_PRICES_AS_OF}" in text


def test_the_markdown_summary_keeps_each_row_on_its_line_and_counts_in_words(
    home: Path,
) -> None:
    """A project folder named with a ``|`` and a line break stays in its cell; one task is
    "1 task", no task is no share and no empty figure with its unit; every dollar figure has
    its sign."""
    records = replayed(home)
    odd = next(r for r in records if r.is_task and r.loops == 0)
    odd.project = "/work/a|b\nc"
    text = render_history(history_report([odd], [], PRICES, "project"))
    rows = [line for line in text.splitlines() if line.startswith("| /work/a")]
    row = rows[0]  # the table by project; the rules and tokens by project follow
    assert row.startswith("| /work/a\\|b c | 1 | 1 |") and row.count(" | ") == 8
    assert [r.split(" | ")[0] for r in rows] == ["| /work/a\\|b c"] * 3
    assert "- Sessions: 1 (1 task, 0 without a code change)" in text
    assert "- Loops: 0 loops in 0 tasks" in text
    assert "| claude-test-1 | 500 | 50 | 0 | 0 | $0.0010 |" in text
    nothing = render_history(history_report([], [], PRICES))
    assert "- Verified: – (no task)" in nothing and "- Sessions: 0 (0 tasks," in nothing
    assert "- Rules broken: – (no task)\n" in nothing and "0/0" not in nothing
    # An empty figure reads alone, never "– tool calls" or "0 loops in 0 tasks".
    assert "- Median time and steps: – (no task)\n" in nothing
    assert "- Median orientation: – (no task)\n- Loops: – (no task)\n" in nothing
    assert "- Context: – (no session)\n" in nothing
    assert "– tool calls" not in nothing and "– reads" not in nothing
    gone = Unavailable(agent="codex", path="/h/a\nb.jsonl", reason="cannot be read")
    assert "- codex: /h/a\\nb.jsonl: cannot be read\n" in render_history(
        history_report([], [gone], PRICES)
    )


def test_summarise_of_nothing_is_empty() -> None:
    empty = summarise("all", [], PriceTable())
    assert (empty.sessions, empty.tasks, empty.share_verified, empty.cost_usd) == (0, 0, None, None)
    assert isinstance(history_report([], [], PriceTable()), HistoryReport)
    assert summary_module.spread([None, None]).n == 0


def test_an_older_release_s_subagent_file_beside_the_session_is_its_part(home: Path) -> None:
    files = plant(home / "older" / ".claude")
    nested = files["S2-helper"]
    legacy = files["S2"].parent / "agent-a1.jsonl"  # Claude Code 2.0.28 – 2.1.1 kept it here
    nested.rename(legacy)
    sessions = replayed(home / "older")
    assert len(sessions) == 4  # the subagent file is not a session of its own
    s2 = next(s for s in sessions if s.session_id and s.session_id.startswith("2222"))
    assert s2.usage["claude-helper-1"].input_tokens == 1000


@pytest.fixture
def utc_plus_14(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's clock in UTC+14 (a POSIX zone: no time-zone database needed)."""
    import time

    monkeypatch.setenv("TZ", "XXX-14")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_dates_and_weeks_are_those_of_the_local_clock(home: Path, utc_plus_14: None) -> None:
    # S1 started 2026-11-02 10:00 UTC: midnight of 2026-11-03 at UTC+14.
    window = replayed(home, Filters(since=date(2026, 11, 3), until=date(2026, 11, 3)))
    assert sorted(s.session_id[:2] for s in window if s.session_id) == ["11", "22"]
    by_week = history_report(replayed(home), [], PRICES, "week").groups
    assert [(g.key, g.sessions) for g in by_week] == [("2026-W45", 2), ("2026-W46", 2)]
    # S1 and S2 on one day there; S3 and S4, at noon UTC, on the next days.
    by_day = history_report(replayed(home), [], PRICES, "day").groups
    assert [(g.key, g.sessions, g.tasks) for g in by_day] == [
        ("2026-11-03", 2, 2),
        ("2026-11-11", 1, 0),
        ("2026-11-12", 1, 0),
    ]


def test_control_in_utc_the_same_window_holds_one_session(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        window = replayed(home, Filters(since=date(2026, 11, 3), until=date(2026, 11, 3)))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert [s.session_id[:2] for s in window if s.session_id] == ["22"]


def test_groups_per_day_and_month_in_utc(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        sessions = replayed(home)
        by_day = history_report(sessions, [], PRICES, "day").groups
        by_month = history_report(sessions, [], PRICES, "month").groups
    finally:
        monkeypatch.undo()
        time.tzset()
    assert [(g.key, g.sessions, g.tasks, g.verified) for g in by_day] == [
        ("2026-11-02", 1, 1, 1),
        ("2026-11-03", 1, 1, 0),
        ("2026-11-10", 1, 0, 0),
        ("2026-11-11", 1, 0, 0),
    ]
    assert [(g.key, g.sessions, g.tasks) for g in by_month] == [("2026-11", 4, 2)]
    # Each group's tokens are its sessions' own: the days add up to the whole.
    total = history_report(sessions, [], PRICES).total
    assert sum(g.usage["claude-test-1"].input_tokens for g in by_day) == (
        total.usage["claude-test-1"].input_tokens
    )


def test_a_worker_writes_every_field_of_the_summary_as_pydantic_would(home: Path) -> None:
    # The worker writes a summary's JSON from its figures without building the model: every
    # field the model writes must be there, under its JSON name, of the type the model gives.
    written = {
        field.alias or name
        for name, field in SessionSummary.model_fields.items()
        if not field.exclude
    }
    sessions, _ = find_sessions(["claude-code"], home, {})
    for session in sessions:
        blob = measure_session(session, None, PRICES)
        assert isinstance(blob, bytes)
        head = blob.split(RESPONSES, 1)[0]
        assert set(orjson.loads(head)) == written
        # Byte for byte: the same keys in the same order, and each value of the same type.
        assert SessionSummary.model_validate_json(head).model_dump_json(by_alias=True) == (
            head.decode()
        )


def test_a_session_s_cost_is_over_its_priced_models() -> None:
    usage = {
        "claude-test-1": ModelUsage(input_tokens=2_000_000, output_tokens=300_000),
        "claude-helper-1": ModelUsage(input_tokens=5),
    }
    # 2 M input tokens at 1 $ per million, 0.3 M output tokens at 10 $: 2 + 3 dollars.
    by_model = {"claude-test-1": 5.0, "claude-helper-1": None}
    assert session_cost(usage, PRICES) == (by_model, 5.0, ["claude-helper-1"])
    assert session_cost({"claude-helper-1": usage["claude-helper-1"]}, PRICES) == (
        {"claude-helper-1": None},
        None,
        ["claude-helper-1"],
    )
    assert session_cost({}, PRICES) == ({}, None, [])
    # Each model's dollars kept to six places, as a trial's cost keeps them: 3e-7 $ is 0, and
    # two of them are 0 (not 6e-7 $, which is 1e-6 to six places).
    price = ModelPrice(input_per1_m=0.3)
    cheap = PriceTable(prices={"claude-test-1": price, "claude-helper-1": price})
    one = ModelUsage(input_tokens=1)
    assert session_cost({"claude-test-1": one, "claude-helper-1": one}, cheap)[1:] == (0.0, [])


def test_the_largest_sessions_start_first_their_sizes_taken_on_the_pool_when_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes = [5, 0, 300, 5, 42, 7000, 42, 1, 300, 9]
    jobs = []
    for index, size in enumerate(sizes):
        path = tmp_path / f"{index:02d}.jsonl"
        path.write_bytes(b"x" * size)
        jobs.append((index, Session("claude-code", str(path)), None))
    jobs.append((len(jobs), Session("claude-code", str(tmp_path / "gone.jsonl")), None))
    # The largest first; those of one size (and the missing file, size 0) in the given order.
    expected = [5, 2, 8, 4, 6, 9, 0, 3, 7, 1, 10]
    with forked_pool(2, start_worker) as pool:
        assert [job[0] for job in largest_first(jobs, pool, 2)] == expected  # in this process
        monkeypatch.setattr(replay_module, "PARALLEL_SIZES_FROM", 1)
        assert [job[0] for job in largest_first(jobs, pool, 2)] == expected  # on the pool


def test_control_sizes_put_back_in_another_order_are_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = []
    for index, size in enumerate([1, 2, 3, 4]):
        path = tmp_path / f"{index}.jsonl"
        path.write_bytes(b"x" * size)
        jobs.append((index, Session("claude-code", str(path)), None))

    class Reordered:  # the pool's parts joined last first
        @staticmethod
        def from_iterable(parts: Iterable[list[int]]) -> Iterator[int]:
            return itertools.chain.from_iterable(reversed(list(parts)))

    monkeypatch.setattr(replay_module, "PARALLEL_SIZES_FROM", 1)
    monkeypatch.setattr(replay_module, "chain", Reordered)
    with forked_pool(2, start_worker) as pool:
        assert [job[0] for job in largest_first(jobs, pool, 2)] != [3, 2, 1, 0]


def test_figures_are_shown_as_people_round_them() -> None:
    """A median of 100.1 s and 200.2 s is 150.15 (not 150.14999999999998); 3 of 8 verified is
    38% and a cost of 0.01755 $ is $0.0176 (halves rounded up, where a format rounds a float's
    binary value half to even: 12% for 1 of 8, $0.0175); a cost under a hundredth of a cent
    says so instead of $0.0000."""
    from proctor.history.record import StepsRecord, UsageRecord

    def session(day: int, seconds: float, verified: bool, model: str) -> SessionRecord:
        return SessionRecord(
            agent="claude-code",
            path=f"/h/{day}.jsonl",
            project="/work/p",
            started_at=f"2026-11-{day:02d}T10:00:00+00:00",
            duration_seconds=seconds,
            is_task=True,
            verified=verified,
            steps=StepsRecord(tool_calls=3),
            usage={model: UsageRecord(input_tokens=1000, responses=1)},
        )

    prices = PriceTable(
        prices={
            "claude-dear-1": ModelPrice(input_per1_m=17.55),  # 1,000 tokens: 0.01755 $
            "claude-cheap-1": ModelPrice(input_per1_m=0.03),  # 1,000 tokens: 0.00003 $
        }
    )
    two = [session(1, 100.1, True, "claude-dear-1"), session(2, 200.2, False, "claude-dear-1")]
    assert 100.1 + (200.2 - 100.1) / 2 != 150.15  # the control: the float's own median
    report = history_report(two, [], prices)
    assert report.total.duration_seconds.median == 150.15
    text = render_history(report)
    assert "| claude-dear-1 | 2,000 | 0 | 0 | 0 | $0.0351 |" in text
    one = render_history(history_report(two[:1], [], prices))
    assert "| claude-dear-1 | 1,000 | 0 | 0 | 0 | $0.0176 |" in one and f"{0.01755:.4f}" == "0.0175"
    eight = [session(d, 60, d <= 3, "claude-cheap-1") for d in range(1, 9)]
    text = render_history(history_report(eight, [], prices))
    assert "3/8 (38%)" in text and "| claude-cheap-1 | 8,000 | 0 | 0 | 0 | $0.0002 |" in text
    tiny = render_history(history_report(eight[:1], [], prices))
    assert "| claude-cheap-1 | 1,000 | 0 | 0 | 0 | <$0.0001 |" in tiny and "$0.0000" not in tiny
    assert "1/8 (13%)" in render_history(
        history_report([session(d, 60, d == 1, "claude-cheap-1") for d in range(1, 9)], [], prices)
    )


def test_counts_past_a_thousand_are_grouped_as_the_reports_group_them() -> None:
    """Sessions, tasks, steps and the shares of a history of thousands read as every report
    writes a count (``1,204``), the median of two counts with one decimal (``1,527.5``)."""
    from proctor.history.record import StepsRecord

    def session(n: int, calls: int) -> SessionRecord:
        return SessionRecord(
            agent="claude-code",
            path=f"/h/{n}.jsonl",
            project="/work/p",
            started_at="2026-11-02T10:00:00+00:00",
            duration_seconds=60,
            is_task=n % 2 == 0,
            verified=n % 4 == 0,
            steps=StepsRecord(tool_calls=calls),
        )

    many = [session(n, 1_000 + 1_055 * (n % 2 == 0) * (n % 4 == 0)) for n in range(2_410)]
    text = render_history(history_report(many, [], PRICES, "project"))
    assert "- Sessions: 2,410 (1,205 tasks, 1,205 without a code change)" in text
    assert "- Verified: 603/1,205 (50%)" in text
    assert "median steps: 2,055 (1,000–2,055) tool calls" in text
    assert "| /work/p | 2,410 | 1,205 | 603/1,205 (50%) |" in text
    two = render_history(history_report([session(0, 1_000), session(4, 2_055)], [], PRICES))
    assert "median steps: 1,527.5 (1,000–2,055) tool calls" in two


def test_a_cost_of_any_size_is_shown() -> None:
    """Prices have no upper bound: a cost past 28 digits is shown, not a decimal error."""
    from proctor.util.text import dollars_text, fixed

    assert dollars_text(1e24) == "$1,000,000,000,000,000,000,000,000.0000"
    assert fixed(1e28) == "10000000000000000000000000000"
    assert fixed(1.7976931348623157e308, 4).endswith("0.0000")
    assert (fixed(-12.5), fixed(0.01755, 4), fixed(2.675, 2)) == ("-13", "0.0176", "2.68")
