"""The history cache: an unchanged session is read from it, any change to what its summary
depends on replays it, and a cache that cannot be used is a note, never a failed replay."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from datetime import date
from pathlib import Path

import pytest

from proctor.history import cache as cache_module
from proctor.history.cache import FILE_NAME, SummaryCache
from proctor.history.record import SessionRecord, responses_of
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions
from proctor.models.config import ModelPrice
from proctor.models.history import Unavailable
from proctor.models.pricing import PriceTable
from proctor.paths import cache_folder
from tests.unit.history.planted import PROJECT_B, plant
from tests.unit.history.test_replay_summary import PRICES, check_total

S1 = "11111111-1111-4111-8111-111111111111"


def summary_of(blob: bytes) -> bytes:
    """A row's summary JSON (the responses of a Claude Code session follow a NUL)."""
    return blob.partition(b"\x00")[0]


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    files = plant(tmp_path / "home" / ".claude")
    return tmp_path / "home", files


@pytest.fixture
def primed(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> tuple[Path, dict[str, Path], Path]:
    """The planted history replayed once into a cache: home, session files, cache file."""
    home, files = planted
    db = tmp_path / FILE_NAME
    replayed(home, db)
    return home, files, db


def replayed(
    home: Path, db: Path, *, pricing: PriceTable = PRICES, filters: Filters | None = None
) -> tuple[dict[str, SessionRecord], SummaryCache]:
    sessions, _ = find_sessions(["claude-code"], home, {})
    cache = SummaryCache(db, pricing)
    found = list(replay(sessions, filters or Filters(), pricing, workers=1, cache=cache))
    cache.save(s.file for s in sessions)
    summaries = {s.session_id or "": s for s in found if isinstance(s, SessionRecord)}
    return summaries, cache


def tamper(db: Path, session_id: str, tool_calls: int) -> None:
    """Rewrite one stored summary, so that a replay that reads it shows it."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT path, summary FROM summaries").fetchall()
        for path, blob in rows:
            summary = json.loads(summary_of(blob))
            if summary["sessionId"] == session_id:
                summary["steps"]["toolCalls"] = tool_calls
                connection.execute(
                    "UPDATE summaries SET summary = ? WHERE path = ?",
                    (json.dumps(summary).encode(), path),
                )
    connection.close()


def test_a_second_replay_reads_every_unchanged_session_from_the_cache(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    home, _ = planted
    db = tmp_path / "cache" / FILE_NAME
    first, cold = replayed(home, db)
    assert cold.hits == 0 and db.is_file()
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    db.chmod(0o644)  # an older cache (or a copy) others could read: the owner's alone again
    second, warm = replayed(home, db)
    assert warm.hits == 4
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert list(second.values()) == list(first.values())
    from proctor.history.summary import history_report

    check_total(history_report(list(second.values()), [], PRICES).total)


def test_control_a_tampered_row_shows_until_its_session_changes(
    primed: tuple[Path, dict[str, Path], Path],
) -> None:
    home, files, db = primed
    tamper(db, S1, 99)
    read, _ = replayed(home, db)
    assert read[S1].steps.tool_calls == 99  # the cache is what was read
    with open(files["S1"], "a") as fh:  # the session grows: it is replayed
        fh.write("\n")
    fresh, cache = replayed(home, db)
    assert fresh[S1].steps.tool_calls == 4
    assert cache.hits == 3


def test_a_changed_subagent_file_replays_its_session(
    primed: tuple[Path, dict[str, Path], Path],
) -> None:
    home, files, db = primed
    helper = files["S2-helper"]
    stat = helper.stat()
    os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    _, cache = replayed(home, db)
    assert cache.hits == 3


@pytest.mark.parametrize("closed", [True, False], ids=["closed", "control"])
def test_a_subagent_file_that_can_no_longer_be_read_replays_its_session(
    primed: tuple[Path, dict[str, Path], Path], monkeypatch: pytest.MonkeyPatch, closed: bool
) -> None:
    """Its size and time are unchanged, so its stamp is too; the session is still replayed, and
    reported unavailable as it would be without the cache (not counted from its old row)."""
    home, files, db = primed
    helper = str(files["S2-helper"])
    real_access, real_open = os.access, os.open

    def access(path: object, mode: int, **kwargs: object) -> bool:
        return not (closed and str(path) == helper) and real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    def opened(path: object, *args: object, **kwargs: object) -> int:
        if closed and str(path) == helper:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(os, "open", opened)
    sessions, _ = find_sessions(["claude-code"], home, {})
    cache = SummaryCache(db, PRICES)
    found = list(replay(sessions, Filters(), PRICES, workers=1, cache=cache))
    unavailable = [f for f in found if isinstance(f, Unavailable)]
    assert cache.hits == (3 if closed else 4)
    assert [u.reason for u in unavailable] == (
        [f"{helper}: cannot be read (Permission denied)"] if closed else []
    )


def test_other_prices_or_other_code_replay_everything(
    primed: tuple[Path, dict[str, Path], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, _, db = primed
    dearer = PriceTable(prices={"claude-test-1": ModelPrice(input_per1_m=2.0, output_per1_m=10.0)})
    summaries, cache = replayed(home, db, pricing=dearer)
    assert cache.hits == 0
    assert summaries[S1].cost_usd != replayed(home, tmp_path / "other.db")[0][S1].cost_usd
    monkeypatch.setattr(cache_module, "code_digest", lambda: "another proctor")
    assert replayed(home, db, pricing=dearer)[1].hits == 0


def test_filters_hold_for_summaries_read_from_the_cache(
    primed: tuple[Path, dict[str, Path], Path],
) -> None:
    home, _, db = primed
    only_b, cache = replayed(home, db, filters=Filters(project=Path(PROJECT_B)))
    assert cache.hits == 4
    assert {s.project for s in only_b.values()} == {PROJECT_B}
    window, _ = replayed(
        home, db, filters=Filters(since=date(2026, 11, 3), until=date(2026, 11, 10))
    )
    assert sorted(k[:2] for k in window) == ["22", "33"]


def test_a_deleted_session_is_forgotten(primed: tuple[Path, dict[str, Path], Path]) -> None:
    home, files, db = primed
    files["S3"].unlink()
    replayed(home, db)
    with sqlite3.connect(db) as connection:
        paths = [row[0] for row in connection.execute("SELECT path FROM summaries")]
    connection.close()
    assert len(paths) == 3 and str(files["S3"]) not in paths


def test_a_cache_file_that_is_not_a_database_is_rebuilt(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    home, _ = planted
    db = tmp_path / FILE_NAME
    db.write_bytes(b"this is not SQLite" * 100)
    summaries, cache = replayed(home, db)
    assert len(summaries) == 4
    assert any("unreadable and is rebuilt" in note for note in cache.notes)
    assert replayed(home, db)[1].hits == 4


def test_a_cache_that_cannot_be_written_is_a_note(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    home, _ = planted
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go\n")
    summaries, cache = replayed(home, blocker / FILE_NAME)
    assert len(summaries) == 4
    # The file on the way is named: never the system's "[Errno 17] File exists".
    assert cache.notes == [
        f"the history cache {blocker / FILE_NAME} could not be written ({blocker} is not a folder)"
    ]
    assert blocker.read_text() == "a file where the cache folder would go\n"


def test_a_cache_another_process_holds_is_waited_for_once_and_left_alone(
    primed: tuple[Path, dict[str, Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, files, db = primed
    before = db.read_bytes()
    monkeypatch.setattr(cache_module, "WAIT", 0.2)
    with open(files["S1"], "a") as fh:  # a session to measure again: a row to write
        fh.write("\n")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        summaries, cache = replayed(home, db)
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(summaries) == 4 and cache.hits == 0
    assert waited < 5  # never the 10 s of a second wait, at the save
    assert cache.notes == [
        f"the history cache {db} could not be read (database is locked); replaying, "
        "and this replay's summaries are not kept"
    ]
    assert db.read_bytes() == before
    assert replayed(home, db)[1].hits == 3  # free again: read, and the grown session replayed


def test_a_cache_another_process_takes_during_the_replay_is_waited_for_briefly(
    primed: tuple[Path, dict[str, Path], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Free when read, held when the summaries are to be written (a database browser with an
    edit pending): the save waits as briefly as the read, then keeps nothing."""
    home, files, db = primed
    monkeypatch.setattr(cache_module, "WAIT", 0.2)
    with open(files["S1"], "a") as fh:
        fh.write("\n")
    sessions, _ = find_sessions(["claude-code"], home, {})
    cache = SummaryCache(db, PRICES)
    assert len(list(replay(sessions, Filters(), PRICES, workers=1, cache=cache))) == 4
    before = db.read_bytes()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a write pending: others may read, none may write
    try:
        started = time.monotonic()
        cache.save(s.file for s in sessions)
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert waited < 5  # not the 10 s of SQLite's usual wait
    assert cache.notes == [f"the history cache {db} could not be written (database is locked)"]
    assert db.read_bytes() == before


def test_a_cache_path_that_is_a_folder_is_a_note(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    home, _ = planted
    db = tmp_path / FILE_NAME
    db.mkdir()  # whoever runs the tests: no one can open a folder as a database
    summaries, cache = replayed(home, db)
    assert len(summaries) == 4
    assert cache.notes and all(str(db) in note for note in cache.notes)


def test_the_cache_folder_follows_the_environment(tmp_path: Path) -> None:
    assert cache_folder({"PROCTOR_CACHE_DIR": "/c", "XDG_CACHE_HOME": "/x"}) == Path("/c")
    assert cache_folder({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x/proctor")
    assert cache_folder({"HOME": "/h"}) == Path("/h/.cache/proctor")


def test_a_gemini_session_is_stamped_with_its_project_root_marker(tmp_path: Path) -> None:
    from proctor.history.layout import Session

    chats = tmp_path / "tmp" / "abc123" / "chats"
    chats.mkdir(parents=True)
    session = Session("gemini-cli", chats / "session-1.jsonl")
    session.path.write_text("{}\n")
    cache = SummaryCache(tmp_path / FILE_NAME, PRICES)
    before = cache.stamp(session, [])
    (tmp_path / "tmp" / "abc123" / ".project_root").write_text("/work/projA\n")
    assert cache.stamp(session, []) != before  # the session's project changed with it


@pytest.mark.parametrize(
    "damage",
    [
        b"{not json",
        b'{"agent": "claude-code"',
        b'{"agent":"x","path":"a"},{"agent":"y","path":"b"}',
    ],
)
def test_a_damaged_row_is_replayed_and_mended(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path, damage: bytes
) -> None:
    home, _ = planted
    db = tmp_path / FILE_NAME
    first, _ = replayed(home, db)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT path, summary FROM summaries").fetchall()
        path = next(p for p, blob in rows if json.loads(summary_of(blob))["sessionId"] == S1)
        connection.execute("UPDATE summaries SET summary = ? WHERE path = ?", (damage, path))
    connection.close()
    again, cache = replayed(home, db)
    assert cache.hits == 4  # all four were found; the damaged one did not read back
    assert again[S1] == first[S1]
    assert len(again) == 4
    with sqlite3.connect(db) as connection:
        (mended,) = connection.execute("SELECT summary FROM summaries WHERE path = ?", (path,))
    connection.close()
    assert json.loads(summary_of(mended[0]))["sessionId"] == S1


def test_sessions_measured_in_worker_processes_are_stamped_there(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from proctor.history import replay as replay_module

    monkeypatch.setattr(replay_module, "SERIAL_BELOW", 1)
    home, _ = planted
    db = tmp_path / FILE_NAME
    sessions, _ = find_sessions(["claude-code"], home, {})
    cache = SummaryCache(db, PRICES)
    first = list(replay(sessions, Filters(), PRICES, workers=2, cache=cache))
    cache.save(s.file for s in sessions)
    assert len(first) == 4
    again, warm = replayed(home, db)
    assert warm.hits == 4 and len(again) == 4


def test_a_row_whose_responses_are_damaged_is_replayed(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    home, _ = planted
    db = tmp_path / FILE_NAME
    first, _ = replayed(home, db)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT path, summary FROM summaries").fetchall()
        path, blob = next((p, b) for p, b in rows if json.loads(summary_of(b))["sessionId"] == S1)
        assert b"\x00" in blob  # a Claude Code session's responses follow its summary
        damaged = summary_of(blob) + b"\x00[[1, 2]]"
        connection.execute("UPDATE summaries SET summary = ? WHERE path = ?", (damaged, path))
    connection.close()
    again, _ = replayed(home, db)
    assert again[S1] == first[S1]
    assert responses_of(again[S1]) == responses_of(first[S1])  # replayed, not read from the row


def test_another_historys_rows_are_kept_without_a_look_and_a_gone_folders_are_forgotten(
    primed: tuple[Path, dict[str, Path], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, _, db = primed
    other = tmp_path / "other" / "project"
    other.mkdir(parents=True)
    elsewhere = tmp_path / "removed" / "project"
    with sqlite3.connect(db) as connection:
        rows = [(str(other / "kept.jsonl"), "claude-code", "s", b"{}")]  # its file is gone
        rows.append((str(elsewhere / "gone.jsonl"), "claude-code", "s", b"{}"))  # and its folder
        connection.executemany("INSERT INTO summaries VALUES (?, ?, ?, ?)", rows)
    connection.close()
    looked: list[str] = []
    real_exists = os.path.exists

    def exists(path: object) -> bool:
        looked.append(str(path))
        return real_exists(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os.path, "exists", exists)
    replayed(home, db)
    with sqlite3.connect(db) as connection:
        paths = {row[0] for row in connection.execute("SELECT path FROM summaries")}
    connection.close()
    assert str(other / "kept.jsonl") in paths  # left until a replay lists its folder
    assert str(elsewhere / "gone.jsonl") not in paths
    assert not [p for p in looked if p.endswith(("kept.jsonl", "gone.jsonl"))]


def test_the_cache_folder_follows_the_environment_and_a_relative_xdg_home_is_ignored() -> None:
    from proctor.paths import cache_folder

    home = {"HOME": "/home/u"}
    assert cache_folder(home) == Path("/home/u/.cache/proctor")
    assert cache_folder({**home, "XDG_CACHE_HOME": "/var/c"}) == Path("/var/c/proctor")
    # Relative: ignored, as the XDG specification says (it would move with the folder run in).
    assert cache_folder({**home, "XDG_CACHE_HOME": "c"}) == Path("/home/u/.cache/proctor")
    assert cache_folder({**home, "PROCTOR_CACHE_DIR": "/p"}) == Path("/p")


def test_a_file_read_as_another_cli_s_session_is_not_served_to_a_listing_of_this_one(
    planted: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    # A Codex rollout among Claude Code's sessions, replayed once as a PATH (read as Codex's).
    from proctor.history.sources import sessions_under

    home, files = planted
    rollout = next((Path(__file__).parents[3] / "tests" / "corpus").glob("codex-*.jsonl"))
    odd = files["S1"].parent / "c0000000-0000-4000-8000-000000000009.jsonl"
    odd.write_bytes(rollout.read_bytes())
    db = tmp_path / FILE_NAME
    given, _ = sessions_under([odd], ["claude-code", "codex", "gemini-cli"])
    assert [s.agent for s in given] == ["codex"]
    cache = SummaryCache(db, PRICES)
    as_given = list(replay(given, Filters(), PRICES, workers=1, cache=cache))
    cache.save(s.file for s in given)
    assert [getattr(s, "agent", None) for s in as_given] == ["codex"]
    # Claude Code's history read with the cache is what it is without: the file is not a
    # Claude Code session there.
    sessions, _ = find_sessions(["claude-code"], home, {})
    cache = SummaryCache(db, PRICES)
    with_cache = list(replay(sessions, Filters(), PRICES, workers=1, cache=cache))
    without = list(replay(sessions, Filters(), PRICES, workers=1))
    assert sorted(map(repr, with_cache)) == sorted(map(repr, without))
    assert not any(getattr(s, "agent", None) == "codex" for s in with_cache)
    assert any(isinstance(s, Unavailable) and s.path == str(odd) for s in with_cache)
    # Read as Codex's again, it is served from the cache.
    cache = SummaryCache(db, PRICES)
    again = list(replay(given, Filters(), PRICES, workers=1, cache=cache))
    assert cache.hits == 1 and [getattr(s, "agent", None) for s in again] == ["codex"]
