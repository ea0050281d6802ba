"""`proctor history` and `proctor mark` end to end: planted histories of the three CLIs (real
recordings of Codex and Gemini CLI from tests/corpus), read-only, never failing."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import Run
from tests.unit.history.planted import PROJECT_A, plant

CORPUS = Path(__file__).parents[1] / "corpus"
GEMINI_CHAT = next(
    (Path(__file__).parents[1] / "fixtures/transcripts/gemini-subagent").glob("**/session-*.jsonl")
)


def fingerprint(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` with its content hash and mode."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[str(path.relative_to(root))] = f"{digest}:{stat.st_mode}:{stat.st_mtime_ns}"
    return found


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Planted Claude Code sessions, and the corpus's Codex and Gemini CLI recordings."""
    home = tmp_path / "home"
    plant(home / ".claude")
    day = home / ".codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for i, path in enumerate(sorted(CORPUS.glob("codex-*.transcript.jsonl"))):
        shutil.copy(path, day / f"rollout-2026-12-01T14-00-0{i}-thread{i}.jsonl")
    chats = home / ".gemini" / "tmp" / "project1" / "chats"
    chats.mkdir(parents=True)
    for i, path in enumerate(sorted(CORPUS.glob("gemini-cli-*.transcript.jsonl"))):
        shutil.copy(path, chats / f"session-2026-12-01T14-0{i}-abcd{i}.jsonl")
    return home


def test_history_reads_all_three_clis_and_writes_nothing(proctor: Run, home: Path) -> None:
    before = fingerprint(home)
    result = proctor("history", "--home", str(home), "--json", "--by", "agent")
    assert result.code == 0, result.err
    assert fingerprint(home) == before
    assert result.out.endswith("}\n") and not result.out.endswith("\n\n")  # one line's end
    report = json.loads(result.out)
    assert [(g["key"], g["sessions"]) for g in report["groups"]] == [
        ("claude-code", 4),
        ("codex", 3),
        ("gemini-cli", 3),
    ]
    assert report["total"]["tasks"] == 2 and report["unavailable"] == []
    assert report["schemaVersion"] == 2


def test_tokens_match_what_parse_reads_from_each_session(proctor: Run, home: Path) -> None:
    report = json.loads(proctor("history", "--home", str(home), "--json").out)
    for session in report["sessions"]:
        parsed = json.loads(proctor("parse", session["path"], "--json").out)
        assert session["usage"] == parsed["usage"], session["path"]


def test_one_agent_and_a_missing_history(proctor: Run, home: Path, tmp_path: Path) -> None:
    shutil.rmtree(home / ".codex")
    result = proctor("history", "--home", str(home), "--agent", "codex", "--agent", "gemini-cli")
    assert result.code == 0
    assert f"- codex: {home}/.codex: no such folder: " in result.out
    assert "Sessions: 3 (0 tasks, 3 without a code change)" in result.out  # Gemini only


def test_a_plain_folder_and_its_errors(proctor: Run, home: Path, tmp_path: Path) -> None:
    result = proctor("history", str(home / ".claude" / "projects"), "--json")
    assert result.code == 0 and len(json.loads(result.out)["sessions"]) == 4
    missing = proctor("history", str(tmp_path / "nowhere"))
    assert (
        missing.code == 2 and "nothing to replay" in missing.err and "Traceback" not in missing.err
    )
    bad_date = proctor("history", "--home", str(home), "--since", "last week")
    assert bad_date.code == 2 and '--since "last week"' in bad_date.err
    empty = proctor("history", "--home", str(home), "--since", "")
    assert empty.code == 2 and empty.err.strip() == (
        'proctor: error: --since "": expected a date like 2026-11-30, an ISO week date like '
        "2026-W48-1, a time like 2026-11-30T14:00, today, yesterday, or days or weeks back like "
        "7d or 2w, not a blank one"
    )
    window = proctor(
        "history", "--home", str(home), "--since", "2026-11-05", "--until", "2026-11-01"
    )
    assert window.code == 2 and "--since 2026-11-05 is after --until 2026-11-01" in window.err
    back = proctor("history", "--home", str(home), "--since", "9999999d")
    assert back.code == 2 and '--since "9999999d": out of the range of dates' in back.err
    today = proctor("history", "--home", str(home), "--agent", "claude-code", "--until", "today")
    assert today.code == 0 and "Sessions: 4 (2 tasks" in today.out  # planted in 2026-11
    far = proctor("history", "--home", str(home), "--since", "0001-01-01T00:00+01:00")
    assert far.code == 2 and "out of the range of dates" in far.err and "Traceback" not in far.err
    a_file = proctor("history", "--home", str(home), "--project", str(tmp_path / "notes.txt"))
    assert a_file.code == 0  # a folder that is gone may still name sessions: not checked
    (tmp_path / "notes.txt").write_text("x")
    a_file = proctor("history", "--home", str(home), "--project", str(tmp_path / "notes.txt"))
    assert a_file.code == 2 and "a file; a project is the folder a session ran in" in a_file.err
    far_mark = proctor("mark", "x", "--at", "9999-12-31T23:00-05:00")
    assert far_mark.code == 2 and "out of the range of dates" in far_mark.err


def test_mark_refuses_a_file_as_project_in_history_s_sentence(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Click's own "Directory '…' is a file" was mark's, where history says proctor's."""
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "notes.txt").write_text("x")
    said = f"--project {tmp_path / 'notes.txt'}: a file; a project is the folder a session ran in"
    for command in (["mark", "x"], ["history", "--home", str(home)]):
        result = proctor(*command, "--project", str(tmp_path / "notes.txt"))
        assert (result.code, result.err) == (2, f"proctor: error: {said}\n"), result.err
    assert not (tmp_path / "data" / "changes.jsonl").exists()  # no mark written
    gone = proctor("mark", "x", "--project", str(tmp_path / "gone"))  # the control
    assert gone.code == 0 and "is not a folder here; the mark is kept" in gone.err


def test_project_filter_and_markdown(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = proctor("history", "--home", str(home), "--project", PROJECT_A, "--by", "week")
    assert result.code == 0
    assert "Sessions: 2 (2 tasks, 0 without a code change)" in result.out
    assert "| 2026-W45 | 2 | 2 | 1/2 (50%) |" in result.out
    monkeypatch.setenv("TZ", "UTC")
    by_day = proctor("history", "--home", str(home), "--project", PROJECT_A, "--by", "day")
    assert by_day.code == 0 and "| day | sessions |" in by_day.out
    assert "| 2026-11-02 | 1 | 1 | 1/1 (100%) |" in by_day.out
    assert "| 2026-11-03 | 1 | 1 | 0/1 (0%) |" in by_day.out
    by_month = proctor(
        "history", "--home", str(home), "--agent", "claude-code", "--by", "month", "--json"
    )
    groups = json.loads(by_month.out)["groups"]
    assert json.loads(by_month.out)["by"] == "month"
    assert [(g["key"], g["sessions"], g["tasks"]) for g in groups] == [("2026-11", 4, 2)]
    monkeypatch.delenv("TZ")
    empty = proctor("history", "--home", str(home), "--project", "")  # an unset variable
    assert empty.code == 2 and "--project is empty" in empty.err and not empty.out
    here = proctor("history", "--home", str(home), "--project", ".")  # the control
    assert here.code == 0, here.err
    # `--project=~/projA`: the `~` no shell expands is the home folder.
    monkeypatch.setenv("HOME", "/work")
    tilde = proctor("history", "--home", str(home), "--project=~/projA", "--by", "week")
    assert tilde.code == 0 and tilde.out == result.out


def test_a_change_time_reads_alike_in_mark_and_in_the_changes_table(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """To the millisecond, as `mark` prints it, in the table and the JSON (they showed it to
    the microsecond, `….640000+00:00`); a finer --at is kept whole."""
    import re

    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    marked = proctor("mark", "now", "--project", PROJECT_A)
    found = re.search(r"at (\S+) for", marked.err)
    assert marked.code == 0 and found, marked.err
    printed = found.group(1)
    assert re.fullmatch(r"\S+T\d\d:\d\d:\d\d\.\d{3}\+00:00", printed), printed
    fine = proctor("mark", "fine", "--project", PROJECT_A, "--at", "2026-11-03T00:00:00.5Z")
    assert "at 2026-11-03T00:00:00.500+00:00 for" in fine.err, fine.err
    finer = proctor("mark", "finer", "--project", PROJECT_A, "--at", "2026-11-03T00:00:00.5001Z")
    assert "at 2026-11-03T00:00:00.500100+00:00 for" in finer.err, finer.err
    text = proctor("history", "--home", str(home), "--changes").out
    assert f"| now | {PROJECT_A} | {printed} | before |" in text, text
    assert f"| fine | {PROJECT_A} | 2026-11-03T00:00:00.500+00:00 | before |" in text
    assert f"| finer | {PROJECT_A} | 2026-11-03T00:00:00.500100+00:00 | before |" in text
    shown = json.loads(proctor("history", "--home", str(home), "--changes", "--json").out)
    assert [c["change"]["at"] for c in shown] == [
        "2026-11-03T00:00:00.500+00:00", "2026-11-03T00:00:00.500100+00:00", printed
    ]  # fmt: skip


def test_mark_says_a_time_without_a_zone_is_taken_in_utc_when_tz_names_no_zone(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Without a zone, on this machine's clock" is UTC when TZ names a zone the system does
    not have: mark says so, rather than leave the user thinking it was their zone's."""
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TZ", "Nowhere/Land")
    said = (
        "proctor: note: --at 2026-11-03T14:00 has no zone, and TZ=Nowhere/Land names no time "
        "zone this system knows: it is taken in UTC"
    )
    marked = proctor("mark", "x", "--project", PROJECT_A, "--at", "2026-11-03T14:00")
    assert marked.code == 0 and said in marked.err, marked.err
    day = proctor("mark", "y", "--project", PROJECT_A, "--at", "2026-W45-2")
    assert "--at 2026-W45-2 has no zone" in day.err, day.err
    zoned = proctor("mark", "z", "--project", PROJECT_A, "--at", "2026-11-03T14:00+01:00")
    assert zoned.code == 0 and "has no zone" not in zoned.err  # the control


def test_mark_then_changes(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TZ", "UTC")  # a time without a zone is on the machine's clock
    marked = proctor(
        "mark", "enabled the guard", "--project", PROJECT_A, "--at", "2026-11-03T00:00"
    )
    assert marked.code == 0, marked.err
    assert "in the future" not in marked.err
    later = proctor("mark", "not yet", "--project", PROJECT_A, "--at", "2999-01-01")
    assert later.code == 0 and "2999-01-01T00:00:00.000+00:00 is in the future" in later.err
    journal = tmp_path / "data" / "changes.jsonl"
    journal.write_text(journal.read_text().splitlines()[0] + "\n")  # the future mark taken back
    assert json.loads(journal.read_text())["text"] == "enabled the guard"
    result = proctor("history", "--home", str(home), "--changes", "--json")
    assert result.code == 0, result.err
    (comparison,) = json.loads(result.out)
    schema = json.loads(
        (Path(__file__).parents[2] / "docs/schemas/changes.schema.json").read_text()
    )
    jsonschema.validate(json.loads(result.out), schema)  # the published schema
    assert (comparison["before"]["tasks"], comparison["after"]["tasks"]) == (1, 1)
    assert comparison["comparable"] is False
    # Not made, and still labelled as what it would be: an uncontrolled comparison.
    assert comparison["note"].startswith("too few tasks to compare: 1 before and 1 after")
    assert "uncontrolled comparison" in comparison["note"]
    text = proctor("history", "--home", str(home), "--changes").out
    assert "Uncontrolled comparison" in text and "too few tasks" in text
    assert f"| enabled the guard | {PROJECT_A} |" in text
    other = proctor("mark", "elsewhere", "--project", str(tmp_path), "--at", "2026-11-03T00:00")
    assert other.code == 0, other.err
    fine = proctor(
        "mark", "fine", "--project", str(tmp_path), "--at", "2026-11-15T10:00:00.123456789"
    )
    assert fine.code == 0 and "digits past the sixth of its fraction are dropped" in fine.err
    assert ".123456" in journal.read_text().splitlines()[-1]
    journal.write_text("\n".join(journal.read_text().splitlines()[:2]) + "\n")  # taken back
    broken = proctor("mark", "two\nlines\x1b[31m", "--project", str(tmp_path))
    assert broken.code == 0 and "marked 'two lines\\x1b[31m' at" in broken.err, broken.err
    journal.write_text("\n".join(journal.read_text().splitlines()[:2]) + "\n")  # taken back
    both = json.loads(proctor("history", "--home", str(home), "--changes", "--json").out)
    assert [c["change"]["text"] for c in both] == ["enabled the guard", "elsewhere"]
    only = proctor("history", "--home", str(home), "--changes", "--json", "--project", PROJECT_A)
    assert [c["change"]["text"] for c in json.loads(only.out)] == ["enabled the guard"]
    # Options that leave the project's tasks out are named, not blamed on the history.
    kept = json.loads(
        proctor(
            "history", "--home", str(home), "--changes", "--json", "--agent", "codex",
            "--agent", "codex", "--since", "2026-11-01",
        ).out
    )  # fmt: skip
    assert kept[0]["warnings"] == [
        f"no task --agent codex --since 2026-11-01 keeps ran in {PROJECT_A}"
    ]
    assert both[0]["warnings"] == []  # the control: unfiltered, it has tasks
    gone = proctor("history", "--home", str(tmp_path / "data"), "--changes")
    assert gone.code == 0 and "proctor: note: unavailable: claude-code" in gone.err
    assert proctor("mark", "later", "--at", "tomorrow").code == 2
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "a-file"))
    blocked = proctor("mark", "again")
    assert blocked.code == 2 and f"({tmp_path / 'a-file'} is a file, not a folder)" in blocked.err


def test_parse_of_a_folder_of_sessions_says_it_shows_one(proctor: Run, home: Path) -> None:
    folder = home / ".claude" / "projects" / PROJECT_A.replace("/", "-")
    result = proctor("parse", str(folder))
    assert result.code == 0
    assert f"{folder} holds 2 session files; this is the newest" in result.err
    assert "proctor history" in result.err
    single = proctor("parse", str(next(folder.glob("*.jsonl"))))
    assert "holds" not in single.err  # control: one file, nothing to say
    # The projects folder itself (no session directly in it): the newest of all, said so.
    projects = home / ".claude" / "projects"
    everything = proctor("parse", str(projects))
    assert everything.code == 0, everything.err
    assert (
        f"{projects} holds " in everything.err and f"`proctor history {projects}`" in everything.err
    )
    assert everything.out.startswith(str(projects))
    empty = home / "empty"
    empty.mkdir()
    nothing = proctor("parse", str(empty))
    assert nothing.code == 2 and "no session transcript found in this folder" in nothing.err


def test_parse_with_another_agent_says_what_the_folder_holds(proctor: Run, home: Path) -> None:
    """A folder whose sessions are all another agent's, read with --agent, says whose they
    are, as `history` does, not that it holds no session."""
    projects = home / ".claude" / "projects"
    for folder, count in ((projects, 4), (projects / PROJECT_A.replace("/", "-"), 2)):
        result = proctor("parse", str(folder), "--agent", "codex")
        assert result.code == 2
        assert result.err == (
            f"proctor: error: {folder}: no codex session transcript in this folder: it holds "
            f"sessions of other agents only: {count} claude-code sessions\n"
        )
    assert proctor("parse", str(projects), "--agent", "claude-code").code == 0  # the control


def test_a_second_history_reads_the_cache_and_gives_the_same_report(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(cache))
    before = fingerprint(home)
    first = proctor("history", "--home", str(home), "--json")
    assert first.code == 0, first.err
    assert (cache / "history.sqlite3").is_file()
    second = proctor("history", "--home", str(home), "--json")
    assert second.out == first.out and second.err == ""
    assert fingerprint(home) == before  # the cache lives outside the history folders


def test_no_cache_keeps_nothing(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(cache))
    result = proctor("history", "--home", str(home), "--no-cache", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["total"]["sessions"] == 10
    assert not cache.exists()


def test_an_unusable_cache_is_a_note_and_the_report_is_whole(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(blocker / "cache"))
    result = proctor("history", "--home", str(home), "--json")
    assert result.code == 0
    assert "proctor: note: the history cache" in result.err
    assert json.loads(result.out)["total"]["sessions"] == 10


def test_a_named_pipe_among_the_sessions_is_passed_over(home: Path) -> None:
    """A pipe named like a session would block whoever opened it; the replay leaves it, and
    names it under the CLI whose folder holds it."""
    before = json.loads(_history_json(home))
    project = next((home / ".claude" / "projects").iterdir())
    chats = next((home / ".gemini" / "tmp").iterdir()) / "chats"
    pipes = [
        ("claude-code", project / "0000-pipe.jsonl"),
        ("claude-code", project / "agent-pipe.jsonl"),
        ("codex", home / ".codex" / "sessions" / "2026" / "12" / "01" / "rollout-pipe.jsonl"),
        ("gemini-cli", chats / "session-pipe.json"),
    ]
    for _, pipe in pipes:
        os.mkfifo(pipe)
    after = json.loads(_history_json(home))
    reason = "not a regular file (a named pipe, a socket, a device): left out, never opened"
    assert after.pop("unavailable") == [
        {"agent": agent, "path": str(pipe), "reason": reason} for agent, pipe in pipes
    ]
    assert before.pop("unavailable") == []
    assert after == before


def _history_json(home: Path) -> str:
    """`proctor history --json --no-cache` over ``home`` in a subprocess, within a minute."""
    argv = [sys.executable, "-m", "proctor", "history", "--home", str(home), "--json", "--no-cache"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_session_path_that_is_not_utf8_is_cached_and_read_back(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    rollout = next((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    odd = os.fsencode(tmp_path / "odd") + b"/caf\xe9"
    os.makedirs(odd)
    shutil.copy(rollout, odd + b"/rollout-x.jsonl")
    folder = tmp_path / "odd"
    first = proctor("history", str(folder), "--json")
    assert first.code == 0, first.err
    assert "Traceback" not in first.err and "could not be written" not in first.err
    second = proctor("history", str(folder), "--json")  # read from the cache
    assert second.out == first.out and json.loads(second.out)["total"]["sessions"] == 1


def test_a_cached_session_is_named_as_this_replay_names_it(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    linked = tmp_path / "linked"
    linked.symlink_to(home / ".codex")
    through_link = proctor("history", "linked", "--json")
    assert through_link.code == 0, through_link.err
    paths = [s["path"] for s in json.loads(through_link.out)["sessions"]]
    assert paths and all(p.startswith(f"{linked}/sessions/") for p in paths)
    absolute = proctor("history", str(home / ".codex"), "--json")
    paths = [s["path"] for s in json.loads(absolute.out)["sessions"]]
    assert paths and all(p.startswith(str(home)) for p in paths)


@pytest.mark.parametrize(
    ("variable", "value", "folder"),
    [
        ("CODEX_HOME", "home/.codex", ".codex"),
        ("CODEX_HOME", "./sub/../home/.codex", ".codex"),
        ("CLAUDE_CONFIG_DIR", "home/.claude", ".claude"),
        ("CLAUDE_CONFIG_DIR", "nowhere,home/.claude", ".claude"),  # one of several
        ("GEMINI_CLI_HOME", "home", ".gemini"),
        ("--home", "home", ""),
        ("PATH", "home/.gemini", ".gemini"),
    ],
)
def test_a_relative_history_folder_gives_absolute_session_paths_and_hits_the_cache(
    proctor: Run,
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    folder: str,
) -> None:
    """As the CLIs take it (Codex CLI makes CODEX_HOME absolute): every path the JSON names
    reads from any folder, and a cached session is the same row read either way."""
    (tmp_path / "sub").mkdir()
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    monkeypatch.chdir(tmp_path)

    def paths(given: str) -> tuple[list[str], list[str]]:
        if variable == "--home":
            args = ["--home", given]
        elif variable == "PATH":
            args = [given]
        else:
            monkeypatch.setenv(variable, given)
            args = []
        result = proctor("history", *args, "--json")
        assert result.code == 0, result.err
        report = json.loads(result.out)
        return [s["path"] for s in report["sessions"]], [u["path"] for u in report["unavailable"]]

    relative, gone = paths(value)
    assert relative and all(p.startswith(f"{home / folder}/") for p in relative), relative
    assert all(p.startswith("/") for p in gone), gone
    db = tmp_path / "cache" / "history.sqlite3"

    def rows() -> list[tuple[int, str]]:
        with sqlite3.connect(db) as connection:
            found = connection.execute("SELECT rowid, path FROM summaries ORDER BY path")
            listed = found.fetchall()
        connection.close()
        return listed

    written = rows()
    assert [path for _, path in written] == sorted(relative)
    absolute, _ = paths(str(home / folder) if variable != "GEMINI_CLI_HOME" else str(home))
    assert absolute == relative
    assert rows() == written  # every summary read from the cache: no row written again


def test_a_path_through_a_link_and_up_is_the_folder_the_system_reads(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`link/..` is the folder above the link's target (what `ls link/..` lists), not the
    current folder; a PATH holding nothing is named as it was typed."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "link").symlink_to(home / ".codex" / "sessions")
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "cache"))
    result = proctor("history", "link/..", "--json", "--no-cache")
    assert result.code == 0, result.err
    paths = [s["path"] for s in json.loads(result.out)["sessions"]]
    assert paths and all(p.startswith(f"{home / '.codex'}/") for p in paths), paths
    missing = proctor("history", "nope", "--no-cache")
    assert missing.code == 2 and "nothing to replay (nope: " in missing.err, missing.err


def test_options_that_do_not_apply_are_named(proctor: Run, home: Path) -> None:
    both = proctor("history", str(home / ".codex"), "--home", str(home), "--json")
    assert both.code == 0 and f"proctor: note: --home {home} is not read" in both.err
    by = proctor("history", "--home", str(home), "--changes", "--by", "week")
    assert by.code == 0 and "proctor: note: --by week does not apply to --changes" in by.err
    plain = proctor("history", "--home", str(home), "--json")  # the control: nothing to say
    assert "note: --" not in plain.err


def test_a_name_that_is_not_utf8_shows_the_same_bytes_in_markdown_and_json(
    proctor: Run, tmp_path: Path
) -> None:
    odd = os.fsencode(tmp_path / "h" / ".codex" / "sessions") + b"/caf\xe9"
    os.makedirs(odd)
    with open(odd + b"/rollout-empty.jsonl", "wb"):
        pass  # an empty session: listed unavailable, by its path
    home = str(tmp_path / "h")
    shown = json.loads(proctor("history", "--home", home, "--json", "--no-cache").out)
    assert any("caf\\xe9/rollout-empty" in u["path"] for u in shown["unavailable"])
    text = proctor("history", "--home", home, "--no-cache").out
    assert "caf\\xe9/rollout-empty.jsonl: empty" in text and "\\udce9" not in text


STOPPED = """
import os, signal, sys
from proctor.cli.progress import ReplayProgress

real = ReplayProgress.advance

def advance(self):
    real(self)
    if self.done == 3:  # Ctrl-C, after three sessions came back
        os.kill(os.getpid(), signal.SIGINT)

ReplayProgress.advance = advance
from proctor.cli.main import main
main(["history", "--home", sys.argv[1], "--json", "--workers", "2"])
"""


def _cached_rows(cache: Path) -> int:
    import sqlite3

    if not (cache / "history.sqlite3").is_file():
        return 0
    connection = sqlite3.connect(cache / "history.sqlite3")
    try:
        return int(connection.execute("SELECT count(*) FROM summaries").fetchone()[0])
    finally:
        connection.close()


def test_a_replay_stopped_with_ctrl_c_keeps_what_it_measured_for_the_next(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(cache))
    whole = json.loads(proctor("history", "--home", str(home), "--json", "--no-cache").out)
    assert len(whole["sessions"]) >= 8  # enough for the pool, and for some to be left
    stopped = subprocess.run(
        [sys.executable, "-c", STOPPED, str(home)],
        cwd=Path(__file__).parents[2],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stopped.returncode == 130, stopped.stderr
    assert "interrupted" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    kept = _cached_rows(cache)
    assert 1 <= kept < len(whole["sessions"])
    # The next replay reads those from the cache, measures the rest, and reports all of it.
    again = proctor("history", "--home", str(home), "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out) == whole
    assert _cached_rows(cache) == len(whole["sessions"])


def test_a_proctor_json_of_the_folder_that_does_not_read_is_a_note(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only its prices were to be read: the replay goes on, unpriced, and says why; the same
    file named with --config is an error (exit 2), since its prices were asked for."""
    folder = tmp_path / "suite"
    folder.mkdir()
    config = folder / "proctor.json"
    config.write_text('{"suite": 5, "pricing": {}}')
    monkeypatch.chdir(folder)
    result = proctor("history", "--home", str(home), "--agent", "claude-code")
    assert result.code == 0 and "Sessions: 4 (2 tasks" in result.out
    assert f"proctor: note: {config}: unknown key 'suite'" in result.err
    assert "its prices are not used" in result.err
    named = proctor("history", "--home", str(home), "--config", str(config))
    assert named.code == 2 and "unknown key 'suite'" in named.err
    assert config.read_text() == '{"suite": 5, "pricing": {}}'  # left as the user wrote it


def test_the_summary_says_what_its_options_kept_and_on_which_clock(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Sessions: 2`` of a --since, --agent or --project run read as the whole history's:
    a line under the title says what the options kept, and the time zone the days, weeks and
    months are of; a summary of the whole history, by no day, has none."""
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    narrowed = proctor(
        "history", "--home", str(home), "--agent", "claude-code", "--project", PROJECT_A,
        "--since", "2026-11-01", "--until", "2026-11-30", "--by", "week",
    )  # fmt: skip
    assert narrowed.code == 0
    assert narrowed.out.startswith(
        f"# History\n\nSessions of claude-code only, that ran in {PROJECT_A}, started "
        "2026-11-01 to 2026-11-30 (days and weeks of the local time zone, "
        "America/Los_Angeles).\n\n- "
    )
    since = proctor("history", "--home", str(home), "--since", "2026-11-01")
    assert "\nSessions started on 2026-11-01 or after (days of the local time zone, " in since.out
    by_week = proctor("history", "--home", str(home), "--by", "week")
    assert "# History\n\nWeeks of the local time zone, America/Los_Angeles.\n\n" in by_week.out
    whole = proctor("history", "--home", str(home), "--by", "agent")
    assert whole.out.startswith("# History\n\n- Sessions: ")  # the control


def test_a_tz_the_system_does_not_know_is_said_to_leave_the_days_in_utc(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The C library reads a ``TZ`` it has no zone for as UTC: the line under the title says
    so, rather than calling UTC's days those of the zone ``TZ`` names."""
    monkeypatch.setenv("TZ", "Nowhere/Land")
    by_day = proctor("history", "--home", str(home), "--by", "day")
    assert by_day.out.startswith(
        "# History\n\nDays of UTC, since TZ=Nowhere/Land names no time zone this system knows.\n\n"
    )
    since = proctor("history", "--home", str(home), "--since", "2026-11-01")
    assert (
        "\nSessions started on 2026-11-01 or after (days of UTC, since TZ=Nowhere/Land names "
        "no time zone this system knows).\n" in since.out
    )
    monkeypatch.setenv("TZ", "EST5EDT")  # a POSIX TZ string needs no zone file: the control
    assert (
        "Days of the local time zone, EST5EDT.\n"
        in proctor("history", "--home", str(home), "--by", "day").out
    )


def test_filters_that_keep_nothing_say_so(proctor: Run, home: Path) -> None:
    result = proctor(
        "history", "--home", str(home), "--project", "/nowhere", "--since", "2026-11-01"
    )
    assert result.code == 0 and "Sessions: 0 (0 tasks" in result.out
    assert "note: none of the 10 sessions listed passes --project /nowhere --since 2026-11-01" in (
        result.err
    )
    assert "none of" not in proctor("history", "--home", str(home)).err  # the control


def test_a_project_no_session_ran_in_says_the_next_step(
    proctor: Run, home: Path, tmp_path: Path
) -> None:
    """A --project that keeps no session says whether the folder is there, and where to see
    the folders the sessions ran in; a --since alone that keeps none needs no such step."""
    gone = proctor("history", "--home", str(home), "--project", str(tmp_path / "nope"))
    assert gone.code == 0
    assert (
        f"none of the 10 sessions listed passes --project {tmp_path / 'nope'} (no such folder "
        "here); `proctor history --by project` lists the folders they ran in"
    ) in gone.err
    there = proctor("history", "--home", str(home), "--project", str(tmp_path))
    assert (
        f"passes --project {tmp_path}; `proctor history --by project` lists the folders they ran in"
    ) in there.err
    late = proctor("history", "--home", str(home), "--since", "2030-01-01")
    assert late.err.rstrip().endswith("none of the 10 sessions listed passes --since 2030-01-01")


def test_filters_that_keep_nothing_of_one_session_say_it_in_the_singular(
    proctor: Run, tmp_path: Path
) -> None:
    """One session listed: "the 1 session listed does not pass", never "none of the 1
    sessions listed passes", and the folder it ran in."""
    result = proctor("history", str(GEMINI_CHAT), "--project", str(tmp_path / "nope"))
    assert result.code == 0, result.err
    assert (
        f"note: the 1 session listed does not pass --project {tmp_path / 'nope'} (no such "
        "folder here); `proctor history --by project` lists the folder it ran in"
    ) in result.err, result.err
    late = proctor("history", str(GEMINI_CHAT), "--since", "2030-01-01")
    assert late.err.rstrip().endswith("the 1 session listed does not pass --since 2030-01-01")
    assert "sessions listed" not in late.err


def test_a_table_by_group_with_no_session_left_says_so(proctor: Run, home: Path) -> None:
    """The Markdown printed the table's head alone; the JSON's groups are an empty list."""
    for by in ("day", "week", "month", "project", "agent"):
        result = proctor("history", "--home", str(home), "--since", "2999-01-01", "--by", by)
        assert result.code == 0, result.err
        assert f"\n\nNo session to show by {by}.\n" in result.out, result.out
        assert f"| {by} | sessions |" not in result.out
    report = json.loads(
        proctor(
            "history", "--home", str(home), "--since", "2999-01-01", "--by", "day", "--json"
        ).out
    )
    assert (report["by"], report["groups"], report["total"]["sessions"]) == ("day", [], 0)
    kept = proctor("history", "--home", str(home), "--by", "day").out  # the control
    assert "| day | sessions |" in kept and "No session to show" not in kept


def test_a_cache_folder_inside_a_history_is_not_used(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = fingerprint(home)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home / ".claude" / "cache"))
    result = proctor("history", "--home", str(home))
    assert result.code == 0 and "Sessions: 10" in result.out
    assert "no cache is kept" in result.err
    assert fingerprint(home) == before
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home.parent / "cache"))  # the control
    assert "no cache" not in proctor("history", "--home", str(home)).err
    assert (home.parent / "cache" / "history.sqlite3").is_file()


@pytest.mark.parametrize("given", [False, True])
def test_a_cache_folder_inside_another_agent_s_history_is_not_used(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch, given: bool
) -> None:
    """Not even when this replay reads another agent's history only, or a folder given
    (the agents' folders are then those the environment names)."""
    before = fingerprint(home)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home / ".codex" / "proctor-cache"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    args = [str(home / ".claude")] if given else ["--home", str(home)]
    result = proctor("history", *args, "--agent", "claude-code")
    assert result.code == 0 and "Sessions: 4" in result.out
    assert f"would be inside {home / '.codex'}" in result.err
    assert not (home / ".codex" / "proctor-cache").exists()
    assert fingerprint(home) == before


@pytest.mark.parametrize("cli", [".codex", ".gemini"])
def test_a_cache_folder_inside_the_user_s_own_history_is_not_used_under_home(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: str
) -> None:
    """--home names the histories read; the user's own (HOME's) stay out of bounds, whether
    they exist or not."""
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(user / cli / "proctor-cache"))
    result = proctor("history", "--home", str(home), "--agent", "claude-code")
    assert result.code == 0 and "Sessions: 4" in result.out
    name = {".codex": "Codex", ".gemini": "Gemini CLI"}[cli]
    assert f"would be inside {user / cli}, {name}'s history folder: no cache" in result.err
    assert not (user / cli).exists()
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(user / "cache"))  # the control
    kept = proctor("history", "--home", str(home), "--agent", "claude-code")
    assert kept.code == 0 and "would be inside" not in kept.err and (user / "cache").is_dir()


def test_a_cache_folder_beside_a_session_file_given_alone_is_not_used(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = next((home / ".claude" / "projects").glob("*/*.jsonl"))
    before = fingerprint(home)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(session.parent))
    result = proctor("history", str(session))
    assert result.code == 0 and "Sessions: 1" in result.out
    assert f"would be inside {session.parent}, the folder of {session.name}" in result.err
    assert fingerprint(home) == before
    # A Gemini CLI chat's subagent chats are in a folder named by its session id.
    chats = tmp_path / "gemini" / "chats"
    chat = chats / GEMINI_CHAT.name
    chats.mkdir(parents=True)
    shutil.copy(GEMINI_CHAT, chat)
    session_id = json.loads(GEMINI_CHAT.read_text().splitlines()[0])["sessionId"]
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(chats / session_id / "cache"))
    result = proctor("history", str(chat))
    assert result.code == 0 and f"{chats / session_id}, the subagents' folder" in result.err
    assert not (chats / session_id).exists()
    # And those of its subagents' subagents, in a folder named by the subagent's own id.
    source = GEMINI_CHAT.parent
    shutil.copytree(source / session_id, chats / session_id)
    (subagent,) = (chats / session_id).glob("*.jsonl")
    nested = chats / subagent.stem
    nested.mkdir()
    shutil.copy(subagent, nested / "nested.jsonl")
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(nested))
    result = proctor("history", str(chat))
    assert result.code == 0 and f"{nested}, the subagents' folder" in result.err
    assert not (nested / "history.sqlite3").exists()
    # Below a session's project folder, where Claude Code keeps it, the cache would be in
    # the history too; and above a CLI's projects/ folder given, in the CLI's own folder.
    before = fingerprint(home)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(session.parent / "cache"))
    result = proctor("history", str(session))
    assert f"{session.parent}, the history folder of {session.name}" in result.err
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home / ".claude"))
    result = proctor("history", str(home / ".claude" / "projects"))
    assert f"{home / '.claude'}, the folder of the history projects/ given" in result.err
    assert result.code == 0 and fingerprint(home) == before
    # A folder of that name elsewhere is no CLI's: the folder above it is not read.
    mine = tmp_path / "me"
    (mine / "sessions").mkdir(parents=True)
    shutil.copy(session, mine / "sessions" / session.name)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(mine / ".cache" / "proctor"))
    result = proctor("history", str(mine / "sessions"))
    assert result.code == 0 and "no cache" not in result.err, result.err
    assert (mine / ".cache" / "proctor" / "history.sqlite3").is_file()
    # The control: a cache in a folder below one that merely holds the file is not where it
    # reads (a session file kept in the home folder, the cache in ~/.cache).
    kept = tmp_path / "user-home"
    kept.mkdir()
    shutil.copy(session, kept / session.name)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(kept / "cache"))
    result = proctor("history", str(kept / session.name))
    assert result.code == 0 and "no cache" not in result.err
    assert (kept / "cache" / "history.sqlite3").is_file()


@pytest.mark.parametrize(
    ("given", "cache", "cli"),
    [
        (".codex/sessions/2026/12/01", ".codex/sessions/cache", ".codex"),  # a day
        (".gemini/tmp/project1", ".gemini/cache", ".gemini"),  # a project
        (".gemini/tmp/project1/chats/CHAT", ".gemini/tmp/cache", ".gemini"),  # a chat alone
        (".claude/projects/-work-projA", ".claude/cache", ".claude"),  # a project folder
        ("codex-home/archived_sessions/2026", "codex-home/cache", "codex-home"),  # marked
    ],
)
def test_a_cache_folder_inside_the_cli_folder_above_a_path_given_is_not_used(
    proctor: Run, home: Path, monkeypatch: pytest.MonkeyPatch, given: str, cache: str, cli: str
) -> None:
    """A PATH below a CLI's projects/, sessions/, archived_sessions/ or tmp/ (a project, a
    day, a chat) lies in the CLI's folder: the cache is never written there."""
    codex = home / "codex-home"
    shutil.copytree(home / ".codex" / "sessions", codex / "archived_sessions")
    (codex / "config.toml").write_text("")  # what tells a Codex folder of another name
    chat = next((home / ".gemini" / "tmp" / "project1" / "chats").glob("*.jsonl"))
    path = home / given.replace("CHAT", chat.name)
    before = fingerprint(home)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home / cache))
    result = proctor("history", str(path))
    assert result.code == 0 and "Sessions: " in result.out, result.err
    assert f"would be inside {home / cli}, the history folder that holds {path}: no cache" in (
        result.err
    )
    assert fingerprint(home) == before and not (home / cache).exists()
    # The control: the same cache beside the CLI's folder is kept.
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(home / "cache"))
    kept = proctor("history", str(path))
    assert kept.code == 0 and "no cache" not in kept.err
    assert (home / "cache" / "history.sqlite3").is_file()


def test_control_a_cache_beside_a_folder_named_as_a_cli_s_but_no_cli_s_is_kept(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = tmp_path / "me" / "sessions" / "2026" / "12" / "01"  # ~/sessions: no CLI's
    shutil.copytree(home / ".codex" / "sessions" / "2026" / "12" / "01", day)
    monkeypatch.setenv("PROCTOR_CACHE_DIR", str(tmp_path / "me" / ".cache" / "proctor"))
    for given in (day, next(day.glob("*.jsonl"))):
        result = proctor("history", str(given))
        assert result.code == 0 and "no cache" not in result.err, result.err
    assert (tmp_path / "me" / ".cache" / "proctor" / "history.sqlite3").is_file()


UNPRIVILEGED = ("--bounding-set=-dac_override,-dac_read_search,-fowner",
                "--inh-caps=-dac_override,-dac_read_search,-fowner")  # fmt: skip


def as_user(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``proctor ARGS`` in a process that folder permissions bind: root without the
    capabilities that override them (``setpriv``), else the user as is."""
    command = [sys.executable, "-m", "proctor", *args]
    if os.geteuid() == 0:
        command = ["setpriv", *UNPRIVILEGED, *command]
    return subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )


@pytest.fixture
def shut(tmp_path: Path) -> Iterator[Callable[[Path], Path]]:
    """Shut folders (chmod 000) for the test, opened again afterwards; skips where the
    permissions would not bind (root without ``setpriv``)."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: folder permissions would not bind")
    closed: list[Path] = []

    def close(folder: Path) -> Path:
        folder.chmod(0)
        closed.append(folder)
        return folder

    yield close
    for folder in closed:
        folder.chmod(0o755)


def test_a_history_folder_that_cannot_be_entered_is_listed_and_the_others_reported(
    home: Path, shut: Callable[[Path], Path]
) -> None:
    shut(home / ".codex")
    result = as_user("history", "--home", str(home), "--no-cache", "--json", "--by", "agent")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [g["key"] for g in report["groups"]] == ["claude-code", "gemini-cli"]
    assert report["unavailable"] == [
        {
            "agent": "codex",
            "path": str(home / ".codex"),
            "reason": f"permission denied: {home / '.codex'}",  # the folder shut, no child
        }
    ]


@pytest.mark.parametrize("shut_home", [False, True], ids=["folder-above-shut", "home-shut"])
def test_a_home_that_cannot_be_entered_lists_each_history_as_unavailable(
    home: Path, tmp_path: Path, shut: Callable[[Path], Path], shut_home: bool
) -> None:
    """--home behind a folder proctor may not enter is read as the environment's folders are
    (each agent's history unavailable, the outermost shut folder named, exit 0), never said
    to be missing."""
    outer = tmp_path / "outer"
    outer.mkdir()
    inner = outer / "home"
    shutil.copytree(home, inner)
    closed = shut(inner if shut_home else outer)
    result = as_user("history", "--home", str(inner), "--no-cache", "--json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)["unavailable"]
    assert [(u["agent"], u["path"], u["reason"]) for u in listed] == [
        (agent, str(inner / folder), f"permission denied: {closed}")
        for agent, folder in (
            ("claude-code", ".claude"),
            ("codex", ".codex"),
            ("gemini-cli", ".gemini"),
        )
    ]


def test_a_home_that_is_not_a_folder_is_one_true_sentence(proctor: Run, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    for given, why in (
        (tmp_path / "a-file", f"{tmp_path / 'a-file'} is not a folder"),
        (tmp_path / "gone", f"{tmp_path / 'gone'}: no such folder"),
        (tmp_path / "a-file" / "home", f"{tmp_path / 'a-file' / 'home'}: no such folder"),
    ):
        result = proctor("history", "--home", str(given), "--no-cache")
        assert result.code == 2 and f"Invalid value for '--home': {why} (" in result.err


def test_a_path_that_cannot_be_read_is_listed_and_the_other_paths_read(
    home: Path, tmp_path: Path, shut: Callable[[Path], Path]
) -> None:
    locked = tmp_path / "locked"
    (locked / "projects").mkdir(parents=True)
    shut(locked)
    result = as_user("history", str(locked), str(home / ".claude"), "--no-cache", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["sessions"]) == 4
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(locked), f"permission denied: {locked}: its sessions are left out")
    ]
    alone = as_user("history", str(locked), "--no-cache")
    assert alone.returncode == 2 and "Traceback" not in alone.stderr
    assert f"nothing to replay ({locked}: permission denied: {locked}:" in alone.stderr


def test_a_path_behind_a_shut_folder_is_listed_with_the_cache_kept(
    home: Path, tmp_path: Path, shut: Callable[[Path], Path]
) -> None:
    """Where the cache would lie is told of a PATH proctor may not look at too (it was an
    error that stopped the replay)."""
    locked = tmp_path / "locked"
    (locked / "in").mkdir(parents=True)
    shut(locked)
    result = as_user("history", str(locked / "in"), str(home / ".claude"), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["sessions"]) == 4
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(locked / "in"), f"permission denied: {locked}: its sessions are left out")
    ]
    assert (Path(os.environ["PROCTOR_CACHE_DIR"]) / "history.sqlite3").is_file()


@pytest.mark.parametrize("mode", [0, 0o555], ids=["shut", "read-only"])
def test_mark_with_a_data_folder_that_cannot_be_entered_names_the_folder(
    tmp_path: Path, shut: Callable[[Path], Path], mode: int
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    journal = locked / "data" / "changes.jsonl"
    shut(locked).chmod(mode)
    result = as_user("mark", "enabled the guard", env={"PROCTOR_DATA_DIR": str(journal.parent)})
    assert result.returncode == 2 and "Traceback" not in result.stderr
    why = f"permission denied: {locked}" + ("" if mode == 0 else " cannot be written in")
    assert result.stderr == (
        f"proctor: error: {journal}: cannot write the change journal ({why}); expected a "
        "file in a folder proctor can write (PROCTOR_DATA_DIR names another folder)\n"
    )


def test_mark_with_a_dangling_link_for_a_journal_says_so(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "changes.jsonl").symlink_to(tmp_path / "gone" / "changes.jsonl")
    result = as_user("mark", "enabled the guard", env={"PROCTOR_DATA_DIR": str(data)})
    assert result.returncode == 2
    assert f"(it is a link to {tmp_path / 'gone' / 'changes.jsonl'}, which cannot be " in (
        result.stderr
    )


def test_mark_with_a_folder_where_the_journal_belongs_says_so(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data" / "changes.jsonl").mkdir(parents=True)
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    result = proctor("mark", "enabled the guard")
    assert result.code == 2
    assert f"{tmp_path / 'data' / 'changes.jsonl'}: cannot write the change journal (it is a " in (
        result.err
    )


@pytest.mark.parametrize("odd", [False, True])
def test_a_copied_session_in_a_folder_whose_name_is_not_utf8_counts_once(
    proctor: Run, home: Path, tmp_path: Path, odd: bool
) -> None:
    """The copy is read again by its file to be told a copy: the file the session is, not its
    name as the JSON escapes it (bk\\xe9)."""
    name = b"bk\xe9" if odd else b"bk"
    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/" + name))
    shutil.copytree(home / ".claude" / "projects" / "-work-projA", folder)
    session = "22222222-2222-4222-8222-222222222222"
    shutil.copy(folder / f"{session}.jsonl", folder / "22222222-copy.jsonl")
    result = proctor("history", str(folder), "--json", "--no-cache")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["total"]["sessions"], report["total"]["tasks"]) == (2, 2)
    (copy,) = report["unavailable"]
    assert copy["path"].endswith("/22222222-copy.jsonl") and "copy" in copy["reason"]


def test_a_name_too_long_or_a_link_in_a_loop_is_one_sentence(
    proctor: Run, home: Path, tmp_path: Path
) -> None:
    long = tmp_path / ("a" * 300)
    parsed = proctor("parse", f"{long}.jsonl")
    assert parsed.code == 2 and parsed.err.endswith(": cannot be read (File name too long)\n")
    for extra in ((), ("--changes",)):
        result = proctor("history", "--home", str(home), "--project", str(long), *extra)
        assert (result.code, result.err) == (
            2, f"proctor: error: --project {long}: File name too long\n",
        )  # fmt: skip
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    looped = proctor("parse", str(loop))
    assert (looped.code, looped.err) == (
        2, f"proctor: error: {loop}: cannot be read (Too many levels of symbolic links)\n",
    )  # fmt: skip
    replayed = proctor("history", str(loop))
    assert replayed.code == 2 and replayed.err == (
        f"proctor: error: nothing to replay ({loop}: cannot be read (Too many levels of "
        "symbolic links))\n"
    )
    gone = proctor("parse", str(tmp_path / "gone.jsonl"))  # the control: a missing file
    assert gone.err == f"proctor: error: {tmp_path / 'gone.jsonl'}: no such file or folder\n"


def test_parse_says_when_a_session_s_subagents_cannot_be_listed(
    proctor: Run, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    session = (
        home
        / ".claude"
        / "projects"
        / "-work-projA"
        / ("22222222-2222-4222-8222-222222222222.jsonl")
    )
    subagents = session.parent / session.stem / "subagents"
    with caplog.at_level(logging.WARNING, logger="proctor"):
        assert proctor("parse", str(session)).code == 0
        assert "cannot be listed" not in caplog.text  # the control: listed, counted
        shutil.rmtree(subagents)
        subagents.symlink_to("subagents")  # a link in a loop: it cannot be listed
        result = proctor("parse", str(session))
    assert result.code == 0, result.err
    assert (
        f"proctor: warning: {session}: its subagent folder {subagents} cannot be listed (Too "
        "many levels of symbolic links): its subagents' steps and tokens are not counted"
    ) in caplog.text


def test_a_name_with_a_terminal_s_escape_sequence_is_shown_escaped(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file or folder name holding ESC is printed escaped (`\\x1b[31m`) by `history` (its
    *Unavailable* list, the notes of `--changes`, an error), `mark` and the error line: on a
    terminal the sequence was obeyed, and piped, Click stripped it, naming a file that is not
    there (`…/bad.jsonl`)."""
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    project = next((home / ".claude" / "projects").iterdir())
    (project / "\x1b[31mbad.jsonl").write_bytes(b"")  # an empty session: listed unavailable
    shown = "\\x1b[31mbad.jsonl: empty"
    listed = proctor("history", "--home", str(home), "--agent", "claude-code", "--no-cache")
    assert listed.code == 0 and shown in listed.out, listed.out
    changes = proctor("history", "--home", str(home), "--agent", "claude-code", "--changes")
    assert changes.code == 0 and shown in changes.err, changes.err
    odd = tmp_path / "\x1b[31mapp"
    odd.mkdir()
    marked = proctor("mark", "x", "--project", str(odd))
    assert marked.code == 0 and f"for {tmp_path}/\\x1b[31mapp (" in marked.err, marked.err
    gone = proctor("mark", "x", "--project", str(odd / "gone"))
    assert f"note: {tmp_path}/\\x1b[31mapp/gone is not a folder here" in gone.err, gone.err
    missing = proctor("history", str(odd / "nowhere"))
    assert missing.code == 2 and f"({tmp_path}/\\x1b[31mapp/nowhere: no such" in missing.err
    assert "\x1b" not in listed.out + changes.err + marked.err + gone.err + missing.err


def test_a_tag_in_a_change_or_a_folder_s_name_is_shown_as_written_where_markdown_renders(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`<Button>` in a change's text, or in a folder's name in the tables and the
    *Unavailable* list, is escaped (`\\<Button>`), as in suite.md: a job summary rendered it
    as an HTML tag, and dropped it."""
    monkeypatch.setenv("PROCTOR_DATA_DIR", str(tmp_path / "data"))
    odd = tmp_path / "<b>app"
    odd.mkdir()
    assert proctor("mark", "replaced <Button> with <Link>", "--project", str(odd)).code == 0
    text = proctor("history", "--home", str(home), "--changes").out
    escaped = str(tmp_path / "\\<b>app")
    assert f"| replaced \\<Button> with \\<Link> | {escaped} |" in text, text
    project = next((home / ".claude" / "projects").iterdir())
    (project / "<i>.jsonl").write_bytes(b"")  # an empty session: listed unavailable
    listed = proctor("history", "--home", str(home), "--agent", "claude-code", "--no-cache")
    assert "/\\<i>.jsonl: empty" in listed.out, listed.out


def test_the_help_of_since_names_every_form_it_takes(proctor: Run, home: Path) -> None:
    """A time is taken (its day on this machine's clock), as the docs and the error say; the
    help named dates and counts back only."""
    shown = " ".join(proctor("history", "--help").out.split())
    assert "a time (its day on this machine's clock: 2026-11-29T20:00-08:00)" in shown
    kept = proctor("history", "--home", str(home), "--since", "2026-11-29T20:00-08:00")
    assert kept.code == 0, kept.err


def test_a_path_of_another_agents_sessions_is_read_and_said(proctor: Run, home: Path) -> None:
    # --agent keeps none of the PATH's sessions: the folder was read (exit 0, as a --since that
    # keeps none), and the reason names what --agent left out; never counted in codex's place.
    projects = str(home / ".claude" / "projects")
    result = proctor("history", projects, "--agent", "codex", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["sessions"] == []
    assert report["unavailable"] == [
        {
            "agent": None,
            "path": projects,
            "reason": "holds sessions of other agents only: 4 claude-code sessions, "
            "left out by --agent",
        }
    ]


@pytest.mark.parametrize("given", [("",), (" ",), ("--home", ""), ("--home", " ")])
def test_a_blank_path_or_home_is_refused_not_read_as_the_current_folder(
    proctor: Run, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: tuple[str]
) -> None:
    """``proctor history "$LOGS"`` (or ``--home "$DIR"``) with the variable unset: a blank
    path is the current folder, whose sessions were replayed (or, for --home, none found
    there) without a word."""
    monkeypatch.chdir(home)  # sessions under it: a blank PATH would read them
    refused = proctor("history", *given)
    assert refused.code == 2 and not refused.out
    blank = json.dumps(given[-1])
    expected = "a session file or a folder of them" if len(given) == 1 else "the folder holding"
    assert f"expected {expected}" in refused.err and f"not a blank path, got {blank}" in refused.err
