"""A Codex subagent's thread is part of the session that spawned it, as a Claude Code
subagent's file is: its steps and tokens are that session's, and it is no session of its own.
The threads are the ones Codex 0.171 wrote (``tests/fixtures/transcripts/codex/threads``)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.history.cache import SummaryCache
from proctor.history.layout import Session
from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions, sessions_under
from proctor.models.pricing import PriceTable
from proctor.transcripts.codex import parse_codex_rollout
from proctor.transcripts.codex.threads import subagent_threads

THREADS = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "codex" / "threads"
FORK_PARENT = "rollout-2026-12-02T18-46-40-01a23814-8c5a-7df2-b169-268a1aa10d94.jsonl"
FORK_CHILD = "rollout-2026-12-02T18-46-40-01a23814-8de3-75b3-bcfe-1a18891792a7.jsonl"
SPAWN_PARENT = "rollout-2026-12-02T18-46-40-01a23814-8c07-7ed2-a026-1df397406950.jsonl"
SPAWN_CHILD = "rollout-2026-12-02T18-46-40-01a23814-8d8e-7be2-860f-be0579516593.jsonl"
GRANDCHILD_ID = "01a23814-9999-7000-8000-000000000001"


def codex_home(tmp_path: Path, *names: str) -> Path:
    """A home whose Codex history holds the recorded rollouts ``names``."""
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "12" / "02"
    day.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(next(THREADS.rglob(name)), day / name)
    return tmp_path / "home"


def summaries(sessions: list[Session], cache: SummaryCache | None = None) -> list[SessionRecord]:
    found = list(replay(sessions, Filters(), PriceTable(), workers=1, cache=cache))
    assert all(isinstance(s, SessionRecord) for s in found), found
    return sorted(found, key=lambda s: s.path)  # type: ignore[arg-type, return-value]


def own_tokens(*names: str) -> tuple[int, int, int]:
    """(input, output, responses) of the rollouts, each read on its own."""
    totals = [0, 0, 0]
    for name in names:
        (u,) = parse_codex_rollout(next(THREADS.rglob(name))).usage.values()
        for i, value in enumerate((u.input_tokens, u.output_tokens, u.responses)):
            totals[i] += value
    return totals[0], totals[1], totals[2]


def test_a_subagents_thread_is_part_of_the_session_that_spawned_it(tmp_path: Path) -> None:
    home = codex_home(tmp_path, FORK_PARENT, FORK_CHILD, SPAWN_PARENT, SPAWN_CHILD)
    sessions, unavailable = find_sessions(["codex"], home, {})
    assert unavailable == []
    assert [(Path(s.file).name, [Path(p).name for p in s.parts]) for s in sessions] == [
        (SPAWN_PARENT, [SPAWN_CHILD]),  # in the order of their names
        (FORK_PARENT, [FORK_CHILD]),
    ]
    spawn, fork = summaries(sessions)
    assert fork.session_id == "01a23814-8c5a-7df2-b169-268a1aa10d94"
    for summary, parent, child in (
        (fork, FORK_PARENT, FORK_CHILD),
        (spawn, SPAWN_PARENT, SPAWN_CHILD),
    ):
        (u,) = summary.usage.values()
        assert (u.input_tokens, u.output_tokens, u.responses) == own_tokens(parent, child)
        # The parent wrote a file with its shell (`echo parent > parent.txt`), searched for
        # the tool (a search of its own tool list: no step) and spawned; the subagent wrote
        # its file so and tried to spawn one of its own.
        assert summary.steps.tool_calls == 4
        assert summary.steps.by_kind == {"write": 2, "subagent": 2}
    assert own_tokens(FORK_PARENT, FORK_CHILD) == (63395, 61, 6)  # the copy not counted again


def test_control_a_thread_counted_as_a_session_of_its_own_would_count_four(tmp_path: Path) -> None:
    home = codex_home(tmp_path, FORK_PARENT, FORK_CHILD, SPAWN_PARENT, SPAWN_CHILD)
    sessions, _ = find_sessions(["codex"], home, {})
    unfolded = [Session("codex", s.file) for s in sessions] + [
        Session("codex", p) for s in sessions for p in s.parts
    ]
    assert len(summaries(unfolded)) == 4
    assert sum(s.steps.tool_calls for s in summaries(sessions)) == sum(
        s.steps.tool_calls for s in summaries(unfolded)
    )


def test_a_thread_whose_session_is_not_in_the_history_is_a_session_of_its_own(
    tmp_path: Path,
) -> None:
    home = codex_home(tmp_path, FORK_CHILD)
    sessions, _ = find_sessions(["codex"], home, {})
    assert [(Path(s.file).name, s.parts) for s in sessions] == [(FORK_CHILD, ())]
    (summary,) = summaries(sessions)
    (u,) = summary.usage.values()
    assert (u.input_tokens, u.output_tokens, u.responses) == own_tokens(FORK_CHILD)


def grandchild(home: Path) -> Path:
    """A subagent spawned by the spawned subagent: the child's rollout under a new id."""
    day = home / ".codex" / "sessions" / "2026" / "12" / "02"
    lines = (day / SPAWN_CHILD).read_text().splitlines()
    header = json.loads(lines[0])
    parent = header["payload"]["id"]
    header["payload"]["id"] = GRANDCHILD_ID
    header["payload"]["source"]["subagent"]["thread_spawn"]["parent_thread_id"] = parent
    path = day / f"rollout-2026-12-02T18-46-41-{GRANDCHILD_ID}.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    return path


def test_a_subagent_of_a_subagent_belongs_to_the_first_session(tmp_path: Path) -> None:
    home = codex_home(tmp_path, SPAWN_PARENT, SPAWN_CHILD)
    third = grandchild(home)
    sessions, _ = find_sessions(["codex"], home, {})
    assert [(Path(s.file).name, sorted(Path(p).name for p in s.parts)) for s in sessions] == [
        (SPAWN_PARENT, sorted([SPAWN_CHILD, third.name]))
    ]
    (summary,) = summaries(sessions)
    assert summary.steps.tool_calls == 6  # (the parent's tool search is no step)


def test_a_plain_folder_of_rollouts_folds_threads_too(tmp_path: Path) -> None:
    home = codex_home(tmp_path, SPAWN_PARENT, SPAWN_CHILD)
    day = home / ".codex" / "sessions" / "2026" / "12" / "02"
    sessions, unavailable = sessions_under([day], ["codex"])
    assert unavailable == [] and [len(s.parts) for s in sessions] == [1]


def test_a_grown_subagent_thread_replays_its_session_from_the_cache(tmp_path: Path) -> None:
    home = codex_home(tmp_path, SPAWN_PARENT, SPAWN_CHILD)
    sessions, _ = find_sessions(["codex"], home, {})
    db = tmp_path / "cache.sqlite"
    first = SummaryCache(db, PriceTable())
    (cold,) = summaries(sessions, first)
    first.save(s.file for s in sessions)
    warm_cache = SummaryCache(db, PriceTable())
    assert summaries(sessions, warm_cache)[0] == cold
    assert warm_cache.hits == 1
    child = Path(sessions[0].parts[0])
    stat = child.stat()
    os.utime(child, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = SummaryCache(db, PriceTable())
    summaries(sessions, again)
    assert again.hits == 0


def test_history_counts_the_sessions_a_person_started(tmp_path: Path) -> None:
    home = codex_home(tmp_path, FORK_PARENT, FORK_CHILD, SPAWN_PARENT, SPAWN_CHILD)
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    result = CliRunner().invoke(
        cli, ["history", "--agent", "codex", "--home", str(home), "--json"], env=env
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["total"]["sessions"] == 2
    (u,) = report["total"]["usage"].values()
    both = [own_tokens(a, b) for a, b in ((FORK_PARENT, FORK_CHILD), (SPAWN_PARENT, SPAWN_CHILD))]
    assert (u["inputTokens"], u["responses"]) == (sum(b[0] for b in both), sum(b[2] for b in both))


def test_the_threads_of_a_rollout_are_its_subagents_and_theirs_each_once(tmp_path: Path) -> None:
    home = codex_home(tmp_path, SPAWN_PARENT, SPAWN_CHILD, FORK_PARENT, FORK_CHILD)
    third = grandchild(home)
    codex = home / ".codex"
    archived = codex / "archived_sessions" / "2026" / "12" / "02"
    archived.mkdir(parents=True)
    day = codex / "sessions" / "2026" / "12" / "02"
    shutil.copy(day / SPAWN_CHILD, archived / SPAWN_CHILD)  # kept in both: read once
    found = subagent_threads(day / SPAWN_PARENT)
    assert [p.name for p in found] == sorted([SPAWN_CHILD, third.name])
    assert "archived" not in str(found[0])
    assert [p.name for p in subagent_threads(day / FORK_PARENT)] == [FORK_CHILD]
    assert subagent_threads(day / FORK_CHILD) == []


def test_a_cached_row_of_a_thread_that_is_now_a_part_is_forgotten(tmp_path: Path) -> None:
    home = codex_home(tmp_path, SPAWN_PARENT, SPAWN_CHILD)
    sessions, _ = find_sessions(["codex"], home, {})
    (session,) = sessions
    db = tmp_path / "history.sqlite3"
    child = str(home / ".codex" / "sessions" / "2026" / "12" / "02" / SPAWN_CHILD)
    cache = SummaryCache(db, PriceTable())
    summaries(sessions, cache)
    # A row an earlier replay kept when it took the subagent's thread for a session.
    cache.put(Session("codex", child), "old-stamp", b"{}")
    cache.save([session.file])
    assert child in SummaryCache(db, PriceTable())._stored

    result = CliRunner().invoke(
        cli,
        ["history", "--agent", "codex", "--home", str(home), "--json"],
        env={"PROCTOR_CACHE_DIR": str(tmp_path)},
    )
    assert result.exit_code == 0, result.output
    assert list(SummaryCache(db, PriceTable())._stored) == [session.file]
