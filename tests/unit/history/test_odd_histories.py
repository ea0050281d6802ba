"""Histories as users' machines hold them: odd files, odd names, a cache edited by hand.
Replay reads what it can, counts each session once, and never hangs or fails."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import threading
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.history import sources as sources_module
from proctor.history.cache import SummaryCache
from proctor.history.layout import Session
from proctor.history.projects import same_project
from proctor.history.record import SessionRecord
from proctor.history.replay import Filters, replay
from proctor.history.sources import find_sessions, sessions_under
from proctor.models.config import ModelPrice
from proctor.models.history import Unavailable
from proctor.models.pricing import PriceTable
from proctor.transcripts.gemini import parse_gemini_chat
from tests.unit.history.planted import plant

ROOT = Path(__file__).resolve().parents[3]
GEMINI = ROOT / "tests" / "fixtures" / "transcripts" / "gemini" / "tmp" / "proj"
CODEX_ROLLOUT = (
    ROOT
    / "tests/fixtures/transcripts/codex/rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
)


def replayed(sessions: list[Session], cache: SummaryCache | None = None) -> list[object]:
    return list(replay(sessions, Filters(), PriceTable(), workers=1, cache=cache))


def gemini_home(tmp_path: Path) -> tuple[Path, Path]:
    """A home holding one Gemini CLI project without its ``.project_root``, and that file's
    path."""
    home = tmp_path / "home"
    shutil.copytree(GEMINI, home / ".gemini" / "tmp" / "proj")
    marker = home / ".gemini" / "tmp" / "proj" / ".project_root"
    marker.unlink(missing_ok=True)
    return home, marker


def gemini_history(home: Path, tmp_path: Path) -> Any:
    """`proctor history --json` of the Gemini CLI sessions of ``home``, which exits 0."""
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    args = ["history", "--home", str(home), "--agent", "gemini-cli", "--json"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 0, result.output
    return result


def test_a_named_pipe_where_gemini_keeps_the_project_folder_does_not_block(
    tmp_path: Path,
) -> None:
    home, marker = gemini_home(tmp_path)
    os.mkfifo(marker)
    sessions, _ = find_sessions(["gemini-cli"], home, {})
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.extend(replayed(sessions)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "the replay blocked on the named pipe"
    (summary,) = found
    assert isinstance(summary, SessionRecord) and summary.project.startswith("gemini:")


@pytest.mark.parametrize("odd", ["pipe", "folder", None])
def test_a_project_root_that_cannot_be_read_is_a_note(tmp_path: Path, odd: str | None) -> None:
    """Its chats are then known by their project's hash only: the replay says why."""
    home, marker = gemini_home(tmp_path)
    if odd == "pipe":
        os.mkfifo(marker)
    elif odd == "folder":
        marker.mkdir()
    else:  # the control: a readable one
        marker.write_text(str(tmp_path / "project"))
    result = gemini_history(home, tmp_path)
    noted = f"proctor: note: {marker} cannot be read (" in result.stderr
    assert noted is (odd is not None), result.stderr
    assert "the chats of its project are known by the project's hash" in result.stderr or not odd
    (session,) = json.loads(result.stdout)["sessions"]
    assert session["project"].startswith("gemini:") is (odd is not None)


@pytest.mark.parametrize("written", ["", "  \n"])
def test_an_empty_project_root_leaves_the_chats_known_by_their_project_s_hash(
    tmp_path: Path, written: str
) -> None:
    home, marker = gemini_home(tmp_path)
    marker.write_text(written)
    result = gemini_history(home, tmp_path)
    (session,) = json.loads(result.stdout)["sessions"]
    assert session["project"].startswith("gemini:"), session["project"]


def test_a_whole_json_chat_written_on_one_line_is_read_as_one_document(tmp_path: Path) -> None:
    document = {
        "sessionId": "s1",
        "projectHash": "ab",
        "startTime": "2026-11-29T11:00:00Z",
        "messages": [
            {"id": "u1", "timestamp": "2026-11-29T11:00:01Z", "type": "user", "content": "hi"}
        ],
    }
    one_line = tmp_path / "session-2026-11-29T11-00-aaaa.json"
    one_line.write_text(json.dumps(document))
    indented = tmp_path / "session-2026-11-29T11-00-bbbb.json"
    indented.write_text(json.dumps(document, indent=2))
    assert parse_gemini_chat(one_line).events == parse_gemini_chat(indented).events != []


def cached_history(tmp_path: Path) -> tuple[list[Session], Path, list[object]]:
    """The planted sessions, replayed once into a cache: the sessions, the cache's file, and
    what the replay gave."""
    home = tmp_path / "home"
    plant(home / ".claude")
    sessions, _ = find_sessions(["claude-code"], home, {})
    db = tmp_path / "history.sqlite3"
    cache = SummaryCache(db, PriceTable())
    first = replayed(sessions, cache)
    cache.save(s.file for s in sessions)
    return sessions, db, first


def test_a_damaged_cache_row_is_replayed_and_written_again(tmp_path: Path) -> None:
    sessions, db, first = cached_history(tmp_path)
    with sqlite3.connect(db) as connection:  # every summary stored as text, not bytes
        connection.execute("UPDATE summaries SET summary = CAST(summary AS TEXT)")
    cache = SummaryCache(db, PriceTable())
    again = replayed(sessions, cache)
    cache.save(s.file for s in sessions)
    key = lambda s: s.session_id  # noqa: E731
    assert sorted(again, key=key) == sorted(first, key=key)  # type: ignore[arg-type]
    with sqlite3.connect(db) as connection:
        kinds = {row[0] for row in connection.execute("SELECT typeof(summary) FROM summaries")}
    assert kinds == {"blob"}


def test_a_cache_row_whose_time_was_edited_by_hand_is_replayed(tmp_path: Path) -> None:
    sessions, db, first = cached_history(tmp_path)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE summaries SET summary = CAST(REPLACE(CAST(summary AS TEXT), "
            '\'"startedAt":"\', \'"startedAt":"garbage\') AS BLOB)'
        )
        edited = [bytes(r[0]) for r in connection.execute("SELECT summary FROM summaries")]
    assert edited and all(b'"startedAt":"garbage' in row for row in edited)
    cache = SummaryCache(db, PriceTable())
    again = replayed(sessions, cache)
    key = lambda s: s.session_id  # noqa: E731
    assert sorted(again, key=key) == sorted(first, key=key)  # type: ignore[arg-type]
    # A --since (or --by week) over them reads each start as a time.
    since = Filters(since=date(2026, 1, 1))
    assert len(list(replay(sessions, since, PriceTable(), workers=1, cache=cache))) == len(first)


def test_a_cache_of_another_layout_is_rebuilt_with_a_note(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE summaries (path TEXT, agent TEXT, summary BLOB)")
    cache = SummaryCache(db, PriceTable())
    assert any("another layout and is rebuilt" in note for note in cache.notes)
    assert not db.exists()


def test_a_session_named_twice_is_replayed_once_and_a_subagent_file_is_not_a_session(
    tmp_path: Path,
) -> None:
    files = plant(tmp_path / ".claude")
    projects = tmp_path / ".claude" / "projects"
    sessions, unavailable = sessions_under([projects, projects, files["S1"]], ["claude-code"])
    assert len(sessions) == 4
    sessions, unavailable = sessions_under([files["S2"], files["S2-helper"]], ["claude-code"])
    assert [s.file for s in sessions] == [str(files["S2"])]
    assert [u.reason.split(":")[0] for u in unavailable] == ["a subagent or side file"]


def test_an_agent_asked_for_twice_is_counted_once(tmp_path: Path) -> None:
    plant(tmp_path / "home" / ".claude")
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    args = ["history", "--home", str(tmp_path / "home"), "--json", "--no-cache"]
    once = CliRunner().invoke(cli, [*args, "--agent", "claude-code"], env=env)
    twice = CliRunner().invoke(
        cli, [*args, "--agent", "claude-code", "--agent", "claude-code"], env=env
    )
    assert once.exit_code == twice.exit_code == 0
    assert (
        json.loads(twice.output)["total"]["sessions"]
        == json.loads(once.output)["total"]["sessions"]
        == 4
    )


def test_a_project_folder_whose_name_is_not_utf8_is_replayed(tmp_path: Path) -> None:
    files = plant(tmp_path / ".claude")
    odd = os.fsencode(files["S1"].parent.parent) + b"/-work-caf\xe9"
    os.mkdir(odd)
    os.rename(os.fsencode(files["S1"]), odd + b"/" + os.fsencode(files["S1"].name))
    sessions, _ = find_sessions(
        ["claude-code"], None, {"CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    )
    results = replayed(sessions)
    assert not [r for r in results if isinstance(r, Unavailable)]
    (moved,) = [r for r in results if isinstance(r, SessionRecord) and "caf" in r.path]
    # The file itself (read again when it is a fork's); its JSON shows it escaped.
    assert moved.path == os.fsdecode(odd + b"/" + os.fsencode(files["S1"].name))
    from proctor.history.record import records_json

    assert "-work-caf\\\\xe9/" + files["S1"].name in records_json([moved]).decode()


def test_an_empty_file_or_one_of_another_format_in_a_history_folder_is_unavailable(
    tmp_path: Path,
) -> None:
    plant(tmp_path / ".claude")
    project = tmp_path / ".claude" / "projects" / "-junk"
    project.mkdir()
    (project / "junk.jsonl").write_bytes(os.urandom(2000).replace(b"\n", b"x"))
    (project / "empty.jsonl").write_bytes(b"")
    title = '{"type":"summary","summary":"Fix the parser","leafUuid":"u-1"}\n'
    (project / "title.jsonl").write_text(title)  # what older releases leave beside a session
    queued = '{"type":"queue-operation","operation":"enqueue","sessionId":"s","content":"hi"}\n'
    (project / "queued.jsonl").write_text(queued)  # a session's first line copied alone
    sessions, _ = find_sessions(
        ["claude-code"], None, {"CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    )
    results = replayed(sessions)
    assert sum(isinstance(r, SessionRecord) for r in results) == 4  # the planted ones only
    reasons = sorted((Path(r.path).name, r.reason) for r in results if isinstance(r, Unavailable))
    assert reasons == [
        ("empty.jsonl", "empty"),
        ("junk.jsonl", "no claude-code record in it"),
        ("queued.jsonl", "no message in it"),
        ("title.jsonl", "no message in it, a title alone"),
    ]


def test_a_session_whose_first_line_is_still_being_written_says_so(tmp_path: Path) -> None:
    """A Claude Code session or a Codex rollout just started, its first line not yet whole,
    was "no claude-code record in it", as a file of another program is; it says it was cut
    short while it was written, as a Gemini CLI chat does. A file of junk, or one whose line
    is whole, is still no record of the CLI's."""
    files = plant(tmp_path / ".claude")
    project = files["S1"].parent
    first = files["S1"].read_bytes().split(b"\n")[0]
    (project / "11111111-0000-4000-8000-000000000001.jsonl").write_bytes(first[:60])
    (project / "junk.jsonl").write_bytes(b"\x00\x01 not json")
    (project / "whole.jsonl").write_bytes(b"{}\n")
    day = tmp_path / ".codex" / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    rollout = day / CODEX_ROLLOUT.name
    rollout.write_bytes(CODEX_ROLLOUT.read_bytes()[:90])
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / ".claude"), "CODEX_HOME": str(tmp_path / ".codex")}
    sessions, _ = find_sessions(["claude-code", "codex"], None, env)
    reasons = sorted(
        (Path(r.path).name, r.reason) for r in replayed(sessions) if isinstance(r, Unavailable)
    )
    cut = (
        "its first line is not whole JSON and no line after it is (cut short while it was written?)"
    )
    assert reasons == sorted(
        [
            ("11111111-0000-4000-8000-000000000001.jsonl", cut),
            ("junk.jsonl", "no claude-code record in it"),
            (rollout.name, cut),
            ("whole.jsonl", "no claude-code record in it"),
        ]
    )


def test_a_model_whose_name_holds_a_colon_is_priced() -> None:
    table = PriceTable(prices={"gpt-oss:20b": ModelPrice(input_per1_m=1, output_per1_m=2)})
    assert table.price_of("gpt-oss:20b") is not None
    assert table.price_of("judge:gpt-oss:20b") is not None  # a role's prefix still comes off
    assert table.price_of("judge:scripted/x") is not None
    assert table.price_of("oss:20c") is None


def test_a_folder_that_cannot_be_listed_is_unavailable_not_silently_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / "home" / ".claude")
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    locked = {str(tmp_path / "home" / ".claude" / "projects" / "-work-projB"), str(day)}
    real_scandir = os.scandir

    def scandir(path: object) -> object:  # chmod 000 as seen by a user who is not root
        if str(path) in locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(sources_module.os, "scandir", scandir)
    sessions, unavailable = find_sessions(["claude-code", "codex"], tmp_path / "home", {})
    assert len(sessions) == 2  # projA's two; projB's two are behind the lock
    assert sorted(u.path for u in unavailable) == sorted(locked)
    assert all("cannot be listed (Permission denied)" in u.reason for u in unavailable)


def test_control_a_missing_folder_is_no_problem(tmp_path: Path) -> None:
    plant(tmp_path / "home" / ".claude")
    (tmp_path / "home" / ".codex" / "sessions").mkdir(parents=True)
    sessions, unavailable = find_sessions(["claude-code", "codex"], tmp_path / "home", {})
    assert len(sessions) == 4 and unavailable == []


def test_an_unavailable_session_is_named_once(tmp_path: Path) -> None:
    chats = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-2026-11-29T11-00-aaaa.json").mkdir()  # a folder where a chat belongs
    os.mkfifo(chats / "session-2026-11-29T11-00-bbbb.jsonl")
    sessions = [Session("gemini-cli", p) for p in sorted(chats.iterdir())]
    results = replayed(sessions)
    assert all(isinstance(r, Unavailable) for r in results) and len(results) == 2
    for r in results:
        assert isinstance(r, Unavailable) and str(chats) not in r.reason, r.reason


def test_a_link_in_the_codex_sessions_folder_is_not_followed(tmp_path: Path) -> None:
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    codex = ROOT / "tests" / "fixtures" / "transcripts" / "codex"
    (day / "rollout-a.jsonl").write_bytes(next(codex.glob("rollout-*.jsonl")).read_bytes())
    elsewhere = tmp_path / "elsewhere" / "x"
    elsewhere.mkdir(parents=True)
    (elsewhere / "rollout-b.jsonl").write_bytes((day / "rollout-a.jsonl").read_bytes())
    (day.parent / "link").symlink_to(tmp_path / "elsewhere")
    sessions, unavailable = find_sessions(["codex"], tmp_path / "home", {})
    assert [Path(s.file).name for s in sessions] == ["rollout-a.jsonl"]
    # Not silently: the link is named, with what to do.
    (note,) = [u for u in unavailable if u.path == str(day.parent / "link")]
    assert "not followed (give its target as a PATH to read it)" in note.reason


def test_a_year_of_codex_sessions_moved_to_another_disk_and_linked_is_read(
    tmp_path: Path,
) -> None:
    sessions_folder = tmp_path / "home" / ".codex" / "sessions"
    day = sessions_folder / "2026" / "12" / "01"
    day.mkdir(parents=True)
    (day / "rollout-a.jsonl").write_bytes(CODEX_ROLLOUT.read_bytes())
    moved = tmp_path / "disk" / "2025" / "10" / "02"
    moved.mkdir(parents=True)
    (moved / "rollout-b.jsonl").write_bytes(CODEX_ROLLOUT.read_bytes())
    (sessions_folder / "2025").symlink_to(tmp_path / "disk" / "2025")
    (sessions_folder / "2024").symlink_to(sessions_folder)  # a loop: listed once
    sessions, unavailable = find_sessions(["codex"], tmp_path / "home", {})
    assert sorted(Path(s.file).name for s in sessions) == ["rollout-a.jsonl", "rollout-b.jsonl"]
    assert not [u for u in unavailable if "link" in u.reason]


def test_a_project_folder_linked_under_a_second_name_is_counted_once(tmp_path: Path) -> None:
    config = tmp_path / "home" / ".claude"
    plant(config)
    projects = config / "projects"
    first = sorted(p for p in projects.iterdir() if p.is_dir())[0]
    before, _ = find_sessions(["claude-code"], tmp_path / "home", {})
    (projects / f"{first.name}-link").symlink_to(first.name)
    session = next(first.glob("*.jsonl"))
    (first / f"linked-{session.name}").symlink_to(session.name)  # a link to a session beside it
    after, _ = find_sessions(["claude-code"], tmp_path / "home", {})
    assert len(after) == len(before)
    found, _ = sessions_under([first], ["claude-code"])  # a plain folder given as a PATH
    assert len(found) == len(list(first.glob("*.jsonl"))) - 1


def test_a_rollout_kept_in_sessions_and_archived_sessions_is_counted_once(tmp_path: Path) -> None:
    codex = tmp_path / "home" / ".codex"
    rollout = next((ROOT / "tests" / "corpus").glob("codex-*.transcript.jsonl"))
    for folder in ("sessions/2026/11/29", "archived_sessions/2026/11/29", "archived_sessions"):
        (codex / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(rollout, codex / folder / "rollout-2026-11-29T10-00-00-abc.jsonl")
    shutil.copy(rollout, codex / "sessions/2026/11/29/rollout-2026-11-29T11-00-00-def.jsonl")
    found, _ = find_sessions(["codex"], tmp_path / "home", {})
    assert sorted(s.path.name for s in found) == [
        "rollout-2026-11-29T10-00-00-abc.jsonl",
        "rollout-2026-11-29T11-00-00-def.jsonl",
    ]
    assert "archived" not in found[0].file  # the live copy is the one read


def test_a_folder_named_subagents_above_the_path_given_hides_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "subagents" / "exp1"
    folder.mkdir(parents=True)
    rollout = next((ROOT / "tests" / "corpus").glob("codex-*.transcript.jsonl"))
    shutil.copy(rollout, folder / "rollout-x.jsonl")
    found, unavailable = sessions_under([folder], ["codex"])
    assert [s.path.name for s in found] == ["rollout-x.jsonl"] and unavailable == []


def test_a_session_whose_subagent_folder_cannot_be_listed_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured without its subagents, its steps and tokens would be short without a word."""
    files = plant(tmp_path / "home" / ".claude")
    sessions, _ = find_sessions(["claude-code"], tmp_path / "home", {})
    with_parts = [s for s in sessions if (s.path.parent / s.path.stem / "subagents").is_dir()]
    assert with_parts, files
    real_scandir = os.scandir

    def refuse(path: object) -> object:
        if str(path).endswith("subagents"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", refuse)
    results = replayed(with_parts[:1])
    assert len(results) == 1 and isinstance(results[0], Unavailable)
    assert "subagent folder" in results[0].reason and "Permission denied" in results[0].reason


def test_an_unreadable_file_or_folder_in_a_path_is_listed_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "copied"
    (folder / "closed").mkdir(parents=True)
    rollout = next((ROOT / "tests" / "corpus").glob("codex-*.transcript.jsonl"))
    # (Names that are not a rollout's: the files' first bytes tell their format.)
    shutil.copy(rollout, folder / "a.jsonl")
    shutil.copy(rollout, folder / "b.jsonl")
    real_open, real_scandir = os.open, os.scandir

    def no_b(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith("b.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    def no_closed(path: object) -> object:
        if str(path).endswith("closed"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", no_b)
    monkeypatch.setattr(os, "scandir", no_closed)
    found, unavailable = sessions_under([folder], ["codex"])
    assert [s.path.name for s in found] == ["a.jsonl"]
    reasons = {Path(u.path).name: u.reason for u in unavailable}
    assert reasons["b.jsonl"].startswith("cannot be read (Permission denied")
    assert reasons["closed"].startswith("cannot be listed (Permission denied")
    single, alone = sessions_under([folder / "b.jsonl"], ["codex"])
    assert single == [] and [u.reason for u in alone] == ["cannot be read (Permission denied)"]


def test_a_link_in_a_loop_hides_nothing_else_in_its_folder(tmp_path: Path) -> None:
    """``is_file`` of a link that points at itself raises: the link is listed unavailable and
    the rest of its folder still read (a history folder, a project folder, a plain folder)."""
    files = plant(tmp_path / "home" / ".claude")
    loops = [files["S1"].parent.parent / "-loop", files["S1"].parent / "loop.jsonl"]
    for loop in loops:
        loop.symlink_to(loop.name)
    sessions, unavailable = find_sessions(["claude-code"], tmp_path / "home", {})
    assert len(sessions) == 4
    assert sorted(u.path for u in unavailable) == sorted(map(str, loops))
    assert all("(Too many levels of symbolic links)" in u.reason for u in unavailable)
    plain = tmp_path / "plain"
    shutil.copytree(files["S3"].parent, plain / "sub")
    (plain / "x.jsonl").symlink_to("x.jsonl")
    sessions, unavailable = sessions_under((plain,), ("claude-code",))
    assert sorted(Path(s.file).name for s in sessions) == [files["S3"].name, files["S4"].name]
    assert [u.path for u in unavailable] == [str(plain / "x.jsonl")]


def test_a_link_to_a_folder_of_sessions_in_a_folder_given_is_followed(tmp_path: Path) -> None:
    """Sessions collected by links to their folders (``sessions/cc -> ~/.claude/projects``)
    are read, never passed over in silence; a folder two links lead to is read once, and a
    link to a folder that holds the one given (a loop) is named, not followed."""
    files = plant(tmp_path / "home" / ".claude")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "cc").symlink_to(files["S1"].parent.parent)  # projects/
    (plain / "again").symlink_to(files["S1"].parent)  # a project folder in it: read once
    (plain / "up").symlink_to(tmp_path)  # holds the folder given
    (plain / "self").symlink_to(plain)
    sessions, unavailable = sessions_under((plain,), ("claude-code",))
    assert sorted(Path(s.file).name for s in sessions) == sorted(
        files[name].name for name in ("S1", "S2", "S3", "S4")
    )
    reason = f"a link to {tmp_path}, a folder that holds it: not followed (give its target as a PATH to read it)"
    assert [(u.path, u.reason) for u in unavailable] == [(str(plain / "up"), reason)]


class _Listed:
    """``os.scandir`` of a folder, its entries in the order of their names (or the reverse):
    what a file system lists first is no choice of the walk."""

    def __init__(self, real: Any, folder: Any, backwards: bool) -> None:
        with real(folder) as entries:
            self.entries = sorted(entries, key=lambda e: e.name, reverse=backwards)

    def __enter__(self) -> Any:
        return iter(self.entries)

    def __exit__(self, *_: object) -> None:
        return None

    def __iter__(self) -> Any:
        return iter(self.entries)


@pytest.mark.parametrize("backwards", [False, True])
def test_a_folder_two_links_lead_to_one_in_the_other_is_searched_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backwards: bool
) -> None:
    """``sub -> x/a`` beside ``all -> x``: ``x/a`` is searched once, through ``all``, whichever
    of the two links the folder lists first."""
    files = plant(tmp_path / "home" / ".claude")
    inner = tmp_path / "x" / "a"
    inner.mkdir(parents=True)
    shutil.copy(files["S3"], inner)
    (inner / "gone.jsonl").symlink_to("missing.jsonl")
    given = tmp_path / "g"
    given.mkdir()
    (given / "sub").symlink_to(inner)
    (given / "all").symlink_to(tmp_path / "x")
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda f: _Listed(real_scandir, f, backwards))
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert [s.file for s in sessions] == [str(given / "all" / "a" / files["S3"].name)]
    assert [u.path for u in unavailable] == [str(given / "all" / "a" / "gone.jsonl")]


def _each_with_each(links: list[tuple[str, str]], inside: str) -> list[str]:
    """What the folder links searched are, each target compared with every other."""
    from proctor.history.walk import _holds_it, _searched_in

    targets: dict[str, str] = {}
    for link, target in sorted(links):
        if not _holds_it(target, inside, link, []):
            targets.setdefault(target, link)
    return [
        link
        for target, link in targets.items()
        if not any(_searched_in(target, other) for other in targets if other != target)
    ]


def test_the_folder_links_searched_are_told_in_one_comparison_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Of 1,200 links, those whose target lies in another's (``x/a`` beside ``x``; not
    ``x-b``, nor ``x/.git/a``) are told as comparing each target with every other tells them,
    with one comparison a target at most."""
    from proctor.history import walk

    links = [("/given/loop", "/"), ("/given/in", "/given/x")]  # holding it, lying in it
    for n in range(200):
        top = f"/d/t{n % 40}"  # five times each: the first link by name is searched
        for target in (top, f"{top}/a", f"{top}-b", f"{top}/.git/a", f"{top}/a/b/{n}"):
            links.append((f"/given/l{len(links)}", target))
        links.append((f"/given/l{len(links)}", f"/e/{n // 7}" + "/a" * (n % 7)))  # a chain
    expected = _each_with_each(links, "/given")
    compared = 0
    searched_in = walk._searched_in

    def counted(target: str, other: str) -> bool:
        nonlocal compared
        compared += 1
        return searched_in(target, other)

    monkeypatch.setattr(walk, "_searched_in", counted)
    assert walk._linked_trees(links, "/given", []) == expected
    assert compared <= len(links)
    searched = sorted(dict(links)[link] for link in expected)
    tops = [f"/d/t{n}" for n in range(40)]
    others = [f"/e/{k}" for k in range(29)]
    kept = [f"{t}{end}" for t in tops for end in ("", "-b", "/.git/a")]
    assert searched == sorted(kept + others)


def test_a_link_into_a_folder_searched_nowhere_beside_one_to_its_holder_is_followed(
    tmp_path: Path,
) -> None:
    """``sub -> x/.git/a`` beside ``all -> x``: ``x`` is searched without its ``.git``, so
    ``x/.git/a`` is searched through ``sub``, once."""
    files = plant(tmp_path / "home" / ".claude")
    inner = tmp_path / "x" / ".git" / "a"
    inner.mkdir(parents=True)
    shutil.copy(files["S3"], inner)
    given = tmp_path / "g"
    given.mkdir()
    (given / "sub").symlink_to(inner)
    (given / "all").symlink_to(tmp_path / "x")
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert [s.file for s in sessions] == [str(given / "sub" / files["S3"].name)]
    assert unavailable == []


def test_a_link_in_a_folder_a_link_leads_to_is_not_followed(tmp_path: Path) -> None:
    """Links are followed one level deep, from the folder given's own tree: ``l -> outside/x``
    is searched, but not ``outside/x/up -> outside`` (a loop) nor ``outside/x/deeper -> y``
    (a profile's folder made of links to a store)."""
    files = plant(tmp_path / "home" / ".claude")
    outside = tmp_path / "outside"
    (outside / "x").mkdir(parents=True)
    shutil.copy(files["S1"], outside / "x")
    shutil.copy(files["S3"], outside / "sibling.jsonl")
    (outside / "x" / "up").symlink_to(outside)
    (tmp_path / "y").mkdir()
    shutil.copy(files["S4"], tmp_path / "y")
    (outside / "x" / "deeper").symlink_to(tmp_path / "y")
    given = tmp_path / "p3"
    given.mkdir()
    (given / "l").symlink_to(outside / "x")
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert [s.file for s in sessions] == [str(given / "l" / files["S1"].name)]
    assert unavailable == []


def test_a_link_to_a_folder_searched_nowhere_is_not_followed_whatever_its_name(
    tmp_path: Path,
) -> None:
    """``deps -> proj/node_modules`` is no more searched than a ``node_modules`` in the folder
    given; in a CLI's own folder, a link named ``plugins`` to the one it keeps elsewhere
    neither."""
    files = plant(tmp_path / "home" / ".claude")
    packages = tmp_path / "proj" / "node_modules" / "pkg"
    packages.mkdir(parents=True)
    shutil.copy(files["S3"], packages)
    given = tmp_path / "g"
    given.mkdir()
    shutil.copy(files["S4"], given)
    (given / "deps").symlink_to(packages.parent)
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert [s.file for s in sessions] == [str(given / files["S4"].name)]
    assert unavailable == []
    home = tmp_path / "home" / ".claude"
    (home / "settings.json").write_text("{}")
    plugins = tmp_path / "dotfiles" / "plugins" / "fixtures"
    plugins.mkdir(parents=True)
    shutil.copy(files["S3"], plugins / "fixture.jsonl")
    (home / "plugins").symlink_to(plugins.parent)
    sessions, unavailable = sessions_under((home,), ("claude-code",))
    assert sorted(Path(s.file).name for s in sessions) == sorted(
        files[name].name for name in ("S1", "S2", "S3", "S4")
    )


@pytest.mark.parametrize("name", ["backups", "sessions", "cache", "plugins"])
def test_a_link_to_an_archive_named_as_a_folder_a_cli_keeps_is_followed(
    tmp_path: Path, name: str
) -> None:
    """A user's ``~/.claude/archive -> ~/Dropbox/backups``: the name of its target is one Claude
    Code keeps a folder under in its own folder, but the archive is the user's, searched."""
    files = plant(tmp_path / "home" / ".claude")
    home = tmp_path / "home" / ".claude"
    (home / "settings.json").write_text("{}")
    archive = tmp_path / "Dropbox" / name
    archive.mkdir(parents=True)
    kept = archive / "5a5a5a5a-5a5a-4a5a-8a5a-5a5a5a5a5a5a.jsonl"
    kept.write_text(
        files["S3"].read_text().replace(files["S3"].stem, "5a5a5a5a-5a5a-4a5a-8a5a-5a5a5a5a5a5a")
    )
    (home / "archive").symlink_to(archive)
    sessions, _ = sessions_under((home,), ("claude-code",))
    assert str(home / "archive" / kept.name) in [s.file for s in sessions]


def test_a_session_a_file_link_and_a_folder_link_lead_to_is_read_once(tmp_path: Path) -> None:
    """``s1.jsonl -> S1`` beside ``d -> S1's folder`` (and a second link to S1): one session,
    read where the folder link finds it, never a copy of itself."""
    files = plant(tmp_path / "home" / ".claude")
    given = tmp_path / "p1"
    given.mkdir()
    (given / "s1.jsonl").symlink_to(files["S1"])
    (given / "again.jsonl").symlink_to(files["S1"])
    (given / "d").symlink_to(files["S1"].parent)
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert sorted(s.file for s in sessions) == sorted(
        str(given / "d" / files[name].name) for name in ("S1", "S2")
    )
    assert unavailable == []
    (given / "d").unlink()
    sessions, unavailable = sessions_under((given,), ("claude-code",))
    assert [s.file for s in sessions] == [str(given / "again.jsonl")]


def test_a_link_to_a_session_that_is_not_there_is_named(tmp_path: Path) -> None:
    files = plant(tmp_path / "home" / ".claude")
    gone = files["S1"].parent / "gone.jsonl"
    gone.symlink_to(tmp_path / "moved" / "gone.jsonl")
    (files["S1"].parent / "notes.txt").symlink_to(tmp_path / "nowhere.txt")  # no session name
    sessions, unavailable = find_sessions(["claude-code"], tmp_path / "home", {})
    assert len(sessions) == 4
    reason = f"a link to {tmp_path / 'moved' / 'gone.jsonl'}, which is not there: left out"
    assert [(u.path, u.reason) for u in unavailable] == [(str(gone), reason)]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "old.jsonl").symlink_to("missing.jsonl")
    shutil.copy(files["S2"], plain)
    sessions, unavailable = sessions_under((plain,), ("claude-code",))
    assert [Path(s.file).name for s in sessions] == [files["S2"].name]
    assert [u.path for u in unavailable] == [str(plain / "old.jsonl")]


def test_a_gemini_project_whose_name_is_not_utf8_is_kept_by_project(tmp_path: Path) -> None:
    odd = os.fsdecode(b"/ws/caf\xe9")
    home = tmp_path / "home"
    shutil.copytree(GEMINI, home / ".gemini" / "tmp" / "proj")
    root = home / ".gemini" / "tmp" / "proj" / ".project_root"
    root.write_bytes(os.fsencode(odd) + b"\n")
    sessions, _ = find_sessions(["gemini-cli"], home, {})
    (summary,) = list(replay(sessions, Filters(project=Path(odd)), PriceTable(), workers=1))
    assert isinstance(summary, SessionRecord) and summary.project == "/ws/caf\\xe9"
    root.unlink()  # known by its folder's name: compared with the hash of the odd name
    assert list(replay(sessions, Filters(project=Path(odd)), PriceTable(), workers=1)) == []


def test_a_named_pipe_given_as_a_path_is_named_as_such_and_never_opened(tmp_path: Path) -> None:
    pipe = tmp_path / "p.jsonl"
    os.mkfifo(pipe)
    files = plant(tmp_path / ".claude")
    sessions, unavailable = sessions_under((pipe, files["S1"]), ("claude-code",))
    assert [s.file for s in sessions] == [str(files["S1"])]
    assert [(u.path, u.reason) for u in unavailable] == [
        (str(pipe), "not a regular file or a folder (a named pipe, a socket, a device): not read")
    ]


SPECIAL = "not a regular file (a named pipe, a socket, a device): left out, never opened"


def test_a_named_pipe_named_like_a_session_is_named_for_its_own_agent(tmp_path: Path) -> None:
    """A pipe (or a device) where a CLI keeps its sessions is listed as unavailable under
    that CLI, never opened (reading it would block), and the rest of its folder is read."""
    files = plant(tmp_path / "home" / ".claude")
    pipes = {"claude-code": files["S1"].parent / "p.jsonl"}
    folder = files["S1"].parent / "folder.jsonl"
    folder.mkdir()  # a folder so named: not a session, and said so
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "12" / "01"
    chats = tmp_path / "home" / ".gemini" / "tmp" / "h" / "chats"
    pipes["codex"] = day / "rollout-1.jsonl"
    pipes["gemini-cli"] = chats / "session-1.json"
    for pipe in pipes.values():
        pipe.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(pipe)
    sessions, unavailable = find_sessions(list(pipes), tmp_path / "home", {})
    assert len(sessions) == 4
    said = [(agent, str(pipe), SPECIAL) for agent, pipe in pipes.items()]
    said.insert(1, ("claude-code", str(folder), "a folder, not a session file: left out"))
    assert [(u.agent, u.path, u.reason) for u in unavailable] == said
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(files["S2"], plain)
    os.mkfifo(plain / "x.jsonl")
    os.mkfifo(plain / "notes.txt")  # not named like a session: not a word about it
    sessions, unavailable = sessions_under((plain,), ("claude-code",))
    assert [Path(s.file).name for s in sessions] == [files["S2"].name]
    assert [(u.path, u.reason) for u in unavailable] == [(str(plain / "x.jsonl"), SPECIAL)]


def test_a_name_that_is_not_utf8_reads_alike_in_an_error_and_in_a_report(tmp_path: Path) -> None:
    """The terminal shows an undecodable byte as the records keep it (``caf\\xe9``)."""
    import subprocess
    import sys

    odd = os.fsencode(tmp_path) + b"/caf\xe9/nope"
    env = {**os.environ, "PROCTOR_CACHE_DIR": str(tmp_path / "cache"), "PYTHONIOENCODING": ""}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", "history", odd], capture_output=True, env=env
    )
    assert done.returncode == 2
    assert b"caf\\xe9/nope: no such file or folder" in done.stderr, done.stderr


def test_a_link_in_a_loop_in_the_codex_sessions_tree_is_listed_once(tmp_path: Path) -> None:
    day = tmp_path / "home" / ".codex" / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    shutil.copy(CODEX_ROLLOUT, day)
    loop = day.parent / "loop"
    loop.symlink_to("loop")
    sessions, unavailable = find_sessions(["codex"], tmp_path / "home", {})
    assert len(sessions) == 1
    assert [u.path for u in unavailable] == [str(loop)]


def test_a_gemini_project_known_by_its_hash_matches_its_name_as_node_read_it() -> None:
    import hashlib

    odd = Path(os.fsdecode(b"/ws/caf\xe9"))
    node = hashlib.sha256("/ws/caf\ufffd".encode()).hexdigest()  # Node decodes with U+FFFD
    raw = hashlib.sha256(b"/ws/caf\xe9").hexdigest()
    assert same_project(f"gemini:{node}", odd)
    assert same_project(f"gemini:{raw}", odd)
    assert not same_project("gemini:" + "0" * 64, odd)


@pytest.mark.parametrize("linked", [True, False], ids=["hard-link", "control-a-copy"])
def test_a_session_hard_linked_under_another_name_is_counted_once(
    tmp_path: Path, linked: bool
) -> None:
    """In one plain folder, and through two PATHs; a copy under another name is a file of its
    own (nothing tells it is the same session), so the control counts it twice."""
    files = plant(tmp_path / "home" / ".claude")
    plain = tmp_path / "plain"
    (plain / "a").mkdir(parents=True)
    (plain / "b").mkdir()
    shutil.copy(files["S1"], plain / "a" / files["S1"].name)
    (os.link if linked else shutil.copy)(
        plain / "a" / files["S1"].name, plain / "b" / "other.jsonl"
    )
    found, _ = sessions_under([plain], ["claude-code"])
    assert [Path(s.file).relative_to(plain).as_posix() for s in found] == (
        [f"a/{files['S1'].name}"] if linked else [f"a/{files['S1'].name}", "b/other.jsonl"]
    )
    twice, _ = sessions_under([plain / "a", plain / "b"], ["claude-code"])
    assert len(twice) == (1 if linked else 2)


def test_a_copy_of_a_session_file_under_its_own_name_is_read_once_from_the_larger(
    tmp_path: Path,
) -> None:
    """A rollout copied into two folders of a plain folder, and a Claude Code session copied
    into another project folder to go on there: one session each, read from the larger copy
    (a session file only grows). Two files of the same name that holds no session id are two
    sessions (the control)."""
    plain = tmp_path / "plain"
    lines = CODEX_ROLLOUT.read_bytes().splitlines(keepends=True)
    for folder, kept in (("x", lines[:-3]), ("y", lines)):
        (plain / folder).mkdir(parents=True)
        (plain / folder / CODEX_ROLLOUT.name).write_bytes(b"".join(kept))
    found, _ = sessions_under([plain], ["codex"])
    assert [Path(s.file).parent.name for s in found] == ["y"]
    files = plant(tmp_path / "home" / ".claude")
    moved = files["S1"].parent.parent / "-work-projC" / files["S1"].name
    moved.parent.mkdir()
    shutil.copy(files["S1"], moved)
    with moved.open("a") as fh:
        fh.write("\n")  # it went on there
    found, _ = find_sessions(["claude-code"], tmp_path / "home", {})
    assert [s.file for s in found if Path(s.file).name == files["S1"].name] == [str(moved)]
    assert len(found) == 4
    odd = tmp_path / "odd"
    for folder in ("p", "q"):
        (odd / folder).mkdir(parents=True)
        shutil.copy(files["S1"], odd / folder / "session.jsonl")
    assert len(sessions_under([odd], ["claude-code"])[0]) == 2


@pytest.mark.parametrize(
    "option", [[], ["--by", "week"], ["--since", "2026-01-01"], ["--until", "2026-12-31"]]
)
def test_a_session_stamped_in_year_one_is_no_traceback_west_of_utc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: list[str]
) -> None:
    import time

    chat = next(GEMINI.glob("chats/session-*.jsonl"))
    folder = tmp_path / "chats"
    folder.mkdir()
    text = chat.read_text()
    first = json.loads(text.splitlines()[1])["timestamp"]
    (folder / chat.name).write_text(text.replace(first, "0001-01-01T00:00:00Z", 1))
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    time.tzset()
    try:
        result = CliRunner().invoke(cli, ["history", str(folder), "--json", *option])
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert result.exit_code == 0, result.output
    assert result.exception is None


GEMINI_SUBAGENT = (
    ROOT / "tests" / "fixtures" / "transcripts" / "gemini-subagent" / "tmp" / "workspace"
)


def test_a_gemini_subagent_chat_in_a_folder_of_any_name_is_read_with_its_session(
    tmp_path: Path,
) -> None:
    chats = GEMINI_SUBAGENT / "chats"
    backup = tmp_path / "gemini-backup"  # not named chats
    shutil.copytree(chats, backup)
    sessions, unavailable = sessions_under([backup], ("gemini-cli",))
    assert [Path(s.file).parent for s in sessions] == [backup] and not unavailable
    (subagent,) = backup.glob("*/*.jsonl")
    sessions, unavailable = sessions_under([subagent], ("gemini-cli",))
    assert sessions == [] and "a subagent or side file" in unavailable[0].reason
    # The control: its header says it is a subagent's; a main chat's header is listed.
    main = tmp_path / "main" / "session-x.jsonl"
    main.parent.mkdir()
    main.write_text(subagent.read_text().replace('"kind":"subagent"', '"kind":"main"', 1))
    assert len(sessions_under([main.parent], ("gemini-cli",))[0]) == 1


def test_a_folder_of_subagent_chats_given_alone_says_to_give_its_session_s_folder(
    tmp_path: Path,
) -> None:
    chats = tmp_path / "chats"
    shutil.copytree(GEMINI_SUBAGENT / "chats", chats)
    (folder,) = (p for p in chats.iterdir() if p.is_dir())
    sessions, unavailable = sessions_under([folder], ("gemini-cli",))
    assert sessions == []
    assert unavailable[0].reason.startswith("holds subagent or side files only"), unavailable
    # The controls: the folder that holds the session is read, and a folder holding a file of
    # another kind says only that it holds no session.
    assert len(sessions_under([chats], ("gemini-cli",))[0]) == 1
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.jsonl").write_text('{"a": 1}\n')
    (gone,) = sessions_under([other], ("gemini-cli",))[1]
    assert gone.reason == "no session transcript of the agents asked for"


def test_a_json_document_with_messages_is_a_gemini_chat_only_with_its_header(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "request.json").write_text('{"model":"gpt-4o","messages":[{"role":"user"}]}')
    (folder / "empty.json").write_text('{"messages":[]}')
    shutil.copy(CODEX_ROLLOUT, folder / CODEX_ROLLOUT.name)
    sessions, _ = sessions_under([folder], ("claude-code", "codex", "gemini-cli"))
    assert [s.agent for s in sessions] == ["codex"]
    chat = {"sessionId": "s1", "projectHash": "ab", "startTime": "2026-11-29T11:00:00Z"}
    (folder / "session-old.json").write_text(json.dumps({**chat, "messages": []}))
    sessions, _ = sessions_under([folder], ("claude-code", "codex", "gemini-cli"))
    assert sorted(s.agent for s in sessions) == ["codex", "gemini-cli"]  # the control


def test_a_gemini_chat_whose_subagent_folder_cannot_be_listed_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shutil.copytree(GEMINI_SUBAGENT, home / ".gemini" / "tmp" / "workspace")
    sessions, _ = find_sessions(["gemini-cli"], home, {})
    (subfolder,) = [p for p in (home / ".gemini/tmp/workspace/chats").iterdir() if p.is_dir()]
    real_scandir = os.scandir

    def refuse(path: object) -> object:
        if str(path) == str(subfolder):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    assert isinstance(replayed(sessions)[0], SessionRecord)  # the control: listed, it is read
    monkeypatch.setattr(os, "scandir", refuse)
    (result,) = replayed(sessions)
    assert isinstance(result, Unavailable)
    assert f"its subagent folder {subfolder} cannot be listed (Permission denied)" in result.reason


def gemini_chat_records() -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """The fixture's Gemini CLI chat: its file, its header and its messages (each with an
    id), its broken line left out."""
    chat = next(GEMINI.glob("chats/session-*.jsonl"))
    records = []
    for line in chat.read_text().splitlines():
        with contextlib.suppress(ValueError):  # the fixture holds a broken line
            records.append(json.loads(line))
    return chat, records[0], [r for r in records if isinstance(r.get("id"), str)]


def test_an_old_gemini_chat_beside_the_jsonl_its_resume_wrote_is_read_once(tmp_path: Path) -> None:
    """Resuming a chat of the releases that wrote one JSON document, Gemini CLI writes its
    messages again into ``<name>.jsonl`` and goes on there, leaving the ``.json`` in place."""
    chat, header, listed = gemini_chat_records()
    messages = {r["id"]: r for r in listed}
    chats = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    old = chats / chat.name.replace(".jsonl", ".json")
    old.write_text(json.dumps({**header, "messages": list(messages.values())}))
    sessions, _ = find_sessions(["gemini-cli"], tmp_path / "home", {})
    assert [Path(s.file).name for s in sessions] == [old.name]  # the control: alone, it is read
    lines = [header, *messages.values(), {"id": "g9", "type": "gemini", "content": "done"}]
    (chats / (old.name + "l")).write_text("".join(json.dumps(r) + "\n" for r in lines))
    sessions, _ = find_sessions(["gemini-cli"], tmp_path / "home", {})
    assert [Path(s.file).name for s in sessions] == [old.name + "l"]
    sessions, _ = sessions_under([chats], ("gemini-cli",))
    assert [Path(s.file).name for s in sessions] == [old.name + "l"]


def test_an_old_gemini_chat_is_measured_with_a_message_of_an_unknown_type_among_its_own(
    tmp_path: Path,
) -> None:
    _, header, messages = gemini_chat_records()
    chats = tmp_path / "proj" / "chats"
    chats.mkdir(parents=True)
    whole = chats / "session-whole.json"
    whole.write_text(json.dumps({**header, "messages": messages}))
    (control,) = replayed([Session("gemini-cli", whole)])
    assert isinstance(control, SessionRecord) and control.unknown_records == 0
    compressed = {"id": "c1", "timestamp": header["startTime"], "type": "compression"}
    odd = chats / "session-odd.json"
    odd.write_text(json.dumps({**header, "messages": [*messages, compressed]}))
    (record,) = replayed([Session("gemini-cli", odd)])
    assert isinstance(record, SessionRecord), record
    assert record.unknown_records == 1
    assert (record.steps, record.usage) == (control.steps, control.usage)
    # A chat cut short as it was written, and another program's JSON, say what they are.
    cut = chats / "session-cut.json"
    cut.write_text(json.dumps({**header, "messages": messages}, indent=2)[:300])
    request = chats / "session-request.json"
    request.write_text('{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}')
    cut_short, other = replayed([Session("gemini-cli", cut), Session("gemini-cli", request)])
    assert isinstance(cut_short, Unavailable) and "not a whole JSON document" in cut_short.reason
    # A chat of lines whose header line was cut short says that, not a whole document.
    lines = chats / "session-2026-12-01T14-30-75a4b4a3.jsonl"
    lines.write_text(json.dumps(header)[:60])
    (cut_line,) = replayed([Session("gemini-cli", lines)])
    assert isinstance(cut_line, Unavailable)
    assert cut_line.reason.startswith("its first line, the chat's header, is not whole JSON")
    assert isinstance(other, Unavailable) and "not a Gemini CLI chat" in other.reason
    no_message = chats / "session-none.json"
    no_message.write_text(json.dumps({**header, "messages": []}))
    (empty,) = replayed([Session("gemini-cli", no_message)])
    assert isinstance(empty, Unavailable) and empty.reason == "no message in it"


def test_a_gemini_chat_copied_into_another_folder_is_read_once(tmp_path: Path) -> None:
    chat = next(GEMINI.glob("chats/session-*.jsonl"))
    hashed = tmp_path / "home" / ".gemini" / "tmp" / ("ab" * 32) / "chats"
    named = tmp_path / "home" / ".gemini" / "tmp" / "proj" / "chats"
    backup = tmp_path / "backup"
    for folder in (hashed, named, backup):
        folder.mkdir(parents=True)
    shutil.copy(chat, named / chat.name)
    (named.parent / ".project_root").write_text("/ws/proj")
    shutil.copy(chat, hashed / chat.name)  # the same chat kept under its project's hash too
    shutil.copy(chat, backup / chat.name)
    sessions, _ = find_sessions(["gemini-cli"], tmp_path / "home", {})
    # Read from the folder that names its project (the hash folder is listed first).
    assert [s.file for s in sessions] == [str(named / chat.name)]
    (record,) = replayed(sessions)
    assert isinstance(record, SessionRecord) and record.project == "/ws/proj"
    sessions, _ = sessions_under([backup, named], ("gemini-cli",))
    assert len(sessions) == 1
    # An older chat's .json backed up, whose resume wrote the .jsonl in the history: once.
    (backup / chat.name).rename(backup / chat.name.removesuffix("l"))
    sessions, _ = sessions_under([backup, named], ("gemini-cli",))
    assert [s.file for s in sessions] == [str(named / chat.name)]
    # The control: another chat of another name in the backup is a session of its own.
    shutil.copy(chat, backup / chat.name.replace("-", "_"))
    sessions, _ = sessions_under([backup, named], ("gemini-cli",))
    assert len(sessions) == 2


LEGACY_ROLLOUT = (
    '{"id":"bbbbbbbb-0000-4000-8000-000000000001","timestamp":"2025-08-01T10:00:00.000Z",'
    '"instructions":null}\n'
    '{"record_type":"state"}\n'
    '{"type":"message","role":"user","content":[{"type":"input_text","text":"fix app.py"}]}\n'
    '{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"apply_patch\\",'
    '\\"*** Begin Patch\\\\n*** Update File: app.py\\\\n@@\\\\n-x=1\\\\n+x=2\\\\n*** End Patch'
    '\\\\n\\"]}","call_id":"c1"}\n'
    '{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"Success\\",'
    '\\"metadata\\":{\\"exit_code\\":0}}"}\n'
)


def test_a_codex_rollout_of_the_releases_before_the_envelope_is_dated_by_its_header(
    tmp_path: Path,
) -> None:
    """Its items carry no time: the header's is the one time known, when it started and
    ended alike (as for a session whose lines all carry one time); how long it took is not
    known, and is not made up."""
    day = tmp_path / "home" / ".codex" / "sessions" / "2025" / "08" / "01"
    day.mkdir(parents=True)
    (day / "rollout-2025-08-01T10-00-00-bbbbbbbb-0000-4000-8000-000000000001.jsonl").write_text(
        LEGACY_ROLLOUT
    )
    sessions, _ = find_sessions(["codex"], tmp_path / "home", {})
    (summary,) = replayed(sessions)
    assert isinstance(summary, SessionRecord)
    assert (summary.started_at, summary.ended_at, summary.duration_seconds) == (
        "2025-08-01T10:00:00+00:00", "2025-08-01T10:00:00+00:00", None,
    )  # fmt: skip
    assert summary.is_task and summary.steps.tool_calls == 1
    window = Filters(since=date(2025, 8, 1), until=date(2025, 8, 1))
    assert list(replay(sessions, window, PriceTable(), workers=1)) != []
    # Items that carry times of their own give the span, as an enveloped rollout's do (its
    # header's time is when the CLI opened, not the start): 10:00:05 to 10:00:09.
    header, state, *items = LEGACY_ROLLOUT.splitlines()
    timed = [
        json.dumps({**json.loads(item), "timestamp": f"2025-08-01T10:00:0{second}Z"})
        for item, second in zip(items, (5, 7, 9), strict=True)
    ]
    dated = tmp_path / "rollout-2025-08-01T10-00-00-bbbbbbbb-0000-4000-8000-000000000002.jsonl"
    dated.write_text("\n".join([header.replace("0001", "0002"), state, *timed]) + "\n")
    (summary,) = replayed([Session("codex", dated)])
    assert isinstance(summary, SessionRecord)
    assert (summary.started_at, summary.ended_at, summary.duration_seconds) == (
        "2025-08-01T10:00:05+00:00", "2025-08-01T10:00:09+00:00", 4,
    )  # fmt: skip
    # Its header alone is no session: nothing ran, as in an enveloped rollout's header alone.
    alone = tmp_path / "rollout-2025-08-01T10-00-00-bbbbbbbb-0000-4000-8000-000000000003.jsonl"
    alone.write_text(header.replace("0001", "0003") + "\n")
    (unavailable,) = replayed([Session("codex", alone)])
    assert isinstance(unavailable, Unavailable) and unavailable.reason == "no message in it"


def test_a_codex_rollout_before_the_envelope_is_in_the_folder_its_environment_names(
    tmp_path: Path,
) -> None:
    environment = (
        '{"type":"message","role":"user","content":[{"type":"input_text","text":'
        '"<environment_context>\\n<cwd>/work/app</cwd>\\n</environment_context>"}]}\n'
    )
    header, rest = LEGACY_ROLLOUT.split("\n", 1)
    rollout = tmp_path / "rollout-2025-08-01T10-00-00-bbbbbbbb-0000-4000-8000-000000000001.jsonl"
    rollout.write_text(header + "\n" + environment + rest)
    (summary,) = replayed([Session("codex", rollout)])
    assert isinstance(summary, SessionRecord) and summary.project == "/work/app"
    rollout.write_text(LEGACY_ROLLOUT)  # the control: without it, no folder is known
    (summary,) = replayed([Session("codex", rollout)])
    assert isinstance(summary, SessionRecord) and summary.project is None


def test_claude_config_dir_may_list_several_folders_as_ccusage_reads_it(tmp_path: Path) -> None:
    plant(tmp_path / "one")
    one = {"CLAUDE_CONFIG_DIR": str(tmp_path / "one")}
    everything = sorted(Path(s.file).name for s in find_sessions(["claude-code"], None, one)[0])
    second = tmp_path / "two" / "projects" / "-elsewhere"
    second.mkdir(parents=True)
    moved = next((tmp_path / "one" / "projects").glob("*/*.jsonl"))
    shutil.move(str(moved), second / moved.name)  # one session kept under the other account
    env = {"CLAUDE_CONFIG_DIR": f"{tmp_path / 'one'}, {tmp_path / 'two'},,"}
    sessions, unavailable = find_sessions(["claude-code"], None, env)
    assert sorted(Path(s.file).name for s in sessions) == everything and not unavailable
    alone, _ = find_sessions(["claude-code"], None, one)
    assert len(alone) == len(everything) - 1  # the control: one folder
    listed = {"CLAUDE_CONFIG_DIR": f"{tmp_path / 'one'},/nope"}
    missing, gone = find_sessions(["claude-code"], None, listed)
    assert len(missing) == len(everything) - 1 and [u.path for u in gone] == ["/nope"]
    comma = tmp_path / "a,b"  # a folder whose name holds a comma is that folder
    plant(comma)
    named, _ = find_sessions(["claude-code"], None, {"CLAUDE_CONFIG_DIR": str(comma)})
    assert len(named) == len(everything)


CORPUS = Path(__file__).parents[2] / "corpus"


@pytest.mark.parametrize("cached", [False, True])
def test_a_codex_or_gemini_session_copied_under_another_name_is_counted_once(
    tmp_path: Path, cached: bool
) -> None:
    """A sync conflict's ``… (1).jsonl`` holds the same session id: it is listed as a copy,
    its tokens counted once, from the file named as the CLI names it."""
    home = tmp_path / "home"
    rollout = home / ".codex" / "sessions" / "2026" / "12" / "01"
    rollout /= "rollout-2026-12-01T14-30-50-01a23203-f8c7-7fb3-b9cd-fc8c29877a31.jsonl"
    chat = home / ".gemini" / "tmp" / "ws" / "chats" / "session-2026-12-01T14-30-75a4b4a3.jsonl"
    sources = {
        rollout: CORPUS / "codex-0.171.0-basic.transcript.jsonl",
        chat: CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl",
    }
    env = {"PROCTOR_CACHE_DIR": str(tmp_path / "cache")}
    args = ["history", "--home", str(home), "--agent", "codex", "--agent", "gemini-cli", "--json"]
    args += [] if cached else ["--no-cache"]
    for target, source in sources.items():
        target.parent.mkdir(parents=True)
        shutil.copy(source, target)
    alone = json.loads(CliRunner().invoke(cli, args, env=env).output)
    copies = {t.with_name(f"{t.stem} (1).jsonl") for t in sources}
    for target in sources:
        shutil.copy(target, target.with_name(f"{target.stem} (1).jsonl"))
    for _ in range(1 + cached):  # the second run reads the summaries from the cache
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 0, result.output
        got = json.loads(result.output)
        assert got["total"]["sessions"] == alone["total"]["sessions"] == 2
        assert got["total"]["usage"] == alone["total"]["usage"]
        assert {s["path"] for s in got["sessions"]} == {str(t) for t in sources}
        gone = [u for u in got["unavailable"] if "a copy of the session" in u["reason"]]
        assert {u["path"] for u in gone} == {str(c) for c in copies}


@pytest.mark.parametrize("looped", ["zzz.jsonl", "zzz"])
def test_a_link_in_a_loop_beside_sessions_leaves_the_others_their_subagents(
    tmp_path: Path, looped: str
) -> None:
    """A link pointing at itself in a project folder (named like a session, or like a folder)
    cannot be told a file or a folder: it is left out, and S2 keeps its subagent's tokens."""
    home = tmp_path / "home"
    files = plant(home / ".claude")
    folder = files["S2"].parent
    control = {
        s.session_id: s
        for s in replayed(find_sessions(["claude-code"], home, {})[0])
        if isinstance(s, SessionRecord)
    }
    assert "claude-helper-1" in control["22222222-2222-4222-8222-222222222222"].usage
    os.symlink(looped, folder / looped)
    sessions, unavailable = find_sessions(["claude-code"], home, {})
    measured = {s.session_id: s for s in replayed(sessions) if isinstance(s, SessionRecord)}
    assert measured == control
    # The link itself is named as left out, with the reason.
    assert [(u.path, u.reason) for u in unavailable] == [
        (str(folder / looped), "cannot be read (Too many levels of symbolic links): left out")
    ]


def test_a_session_written_in_utf16_is_no_session_and_one_with_a_bom_reads_whole(
    tmp_path: Path,
) -> None:
    """The CLIs write UTF-8: a file in UTF-16 (re-saved by an editor) holds no record they
    wrote, and is unavailable, saying so; the stdlib's guess read its first line alone, and
    counted a session of no step. A UTF-8 file that starts with a BOM reads as it is."""
    home = tmp_path / "home"
    files = plant(home / ".claude")
    text = files["S1"].read_text(encoding="utf-8")
    control = {
        s.session_id: s
        for s in replayed(find_sessions(["claude-code"], home, {})[0])
        if isinstance(s, SessionRecord)
    }
    files["S1"].write_bytes(text.encode("utf-16"))
    sessions, _ = find_sessions(["claude-code"], home, {})
    found = replayed(sessions)
    (gone,) = [u for u in found if isinstance(u, Unavailable)]
    assert (gone.path, gone.reason) == (str(files["S1"]), "no claude-code record in it")
    files["S1"].write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    whole = {s.session_id: s for s in replayed(sessions) if isinstance(s, SessionRecord)}
    assert whole == control


def test_another_cli_s_session_in_claude_code_s_folder_is_named_as_such(tmp_path: Path) -> None:
    """A Gemini CLI chat copied among Claude Code's sessions partly reads as Claude Code's
    (its `user` lines): no event of it is, and it is left out, saying whose it is, instead of
    a session of no step."""
    home = tmp_path / "home"
    files = plant(home / ".claude")
    folder = files["S1"].parent
    shutil.copy(CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl", folder / "gemini.jsonl")
    shutil.copy(CODEX_ROLLOUT, folder / "codex.jsonl")
    sessions, _ = find_sessions(["claude-code"], home, {})
    found = replayed(sessions)
    gone = sorted((Path(u.path).name, u.reason) for u in found if isinstance(u, Unavailable))
    assert gone == [
        ("codex.jsonl", "no claude-code record in it"),
        ("gemini.jsonl", "a gemini-cli session, not one of claude-code's: left out"),
    ]
    assert len([s for s in found if isinstance(s, SessionRecord)]) == 4
