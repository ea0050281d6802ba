"""Claude Code forks in a history: the copy a fork starts with counts once, in the session it
came from.

The fixtures under ``tests/fixtures/transcripts/claude-fork`` were recorded with Claude Code
2.1.197 headless against proctor's scripted model: a session (Read, Edit, Bash, then an answer)
and its fork (``claude -p --resume <id> --fork-session``: Bash, then an answer), in ``fork``;
the same after a resumed second turn (another Bash) in the original, in ``fork-of-resumed``.
The fork's file starts with a ``mode`` record and the prompt it was started with, then copies
every message line of the original as it was (uuids, times, message ids), but for the session
id. Token totals are ccusage 20.0.24's daily report over the same folders.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli
from proctor.history import forks
from tests.unit.history.planted import MODEL, ClaudeSession, plant, project_folder

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts" / "claude-fork"
ORIGINAL = "11111111-1111-4111-8111-111111111111"
CASES = {
    # folder: (fork's id, each session's steps, the fork's start, ccusage's input and output)
    "fork": (
        "1571a6e9-95f5-44e4-b9c6-8a529d954bcc",
        {"read": 2, "edit": 1},  # the Bash call is a read: cat notes.txt
        "2026-12-03T16:04:15.383000+00:00",
        (115_774, 87),
    ),
    "fork-of-resumed": (
        "973392a8-0ec5-47ac-bcb9-4a4ab8289528",
        {"read": 2, "edit": 1, "shell": 1},
        "2026-12-03T16:04:46.369000+00:00",
        (154_863, 109),
    ),
}


def history(folder: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["history", str(folder), "--json", "--no-cache", "--agent", "claude-code", *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def steps(report: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {s["sessionId"]: s["steps"]["byKind"] for s in report["sessions"]}


@pytest.mark.parametrize("case", CASES)
def test_a_recorded_fork_counts_only_its_own_work(case: str) -> None:
    fork, original_steps, fork_start, (tokens_in, tokens_out) = CASES[case]
    report = history(FIXTURES / case)
    assert steps(report) == {ORIGINAL: original_steps, fork: {"shell": 1}}
    started = {s["sessionId"]: s["startedAt"] for s in report["sessions"]}
    assert started[fork] == fork_start
    usage = report["total"]["usage"]["claude-opus-4-8"]
    assert (usage["inputTokens"], usage["outputTokens"]) == (tokens_in, tokens_out)
    assert report["unavailable"] == []


def test_control_a_fork_measured_alone_counts_its_copy_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(forks, "forks_measured_apart", lambda *args, **kwargs: [])
    fork = CASES["fork"][0]
    report = history(FIXTURES / "fork")
    assert steps(report)[fork] == {"read": 2, "edit": 1, "shell": 1}
    assert steps(report)[fork] != {"shell": 1}


def _copy(case: str, tmp_path: Path) -> Path:
    home = tmp_path / case
    shutil.copytree(FIXTURES / case, home)
    return home


def _goes_on(session: Path, count: int) -> None:
    """The session goes on: its last answer ``count`` times more, under new uuids and ids,
    later."""
    lines = session.read_text().splitlines()
    answer = json.loads(next(line for line in reversed(lines) if '"type":"assistant"' in line))
    went_on = []
    for number in range(count):
        answer["uuid"] = f"aaaaaaaa-0000-4000-8000-{number:012d}"
        answer["timestamp"] = f"2026-12-03T17:00:0{number}.000Z"
        answer["message"]["id"] = f"msg_later_{number}"
        went_on.append(json.dumps(answer))
        answer["parentUuid"] = answer["uuid"]
    session.write_text("\n".join(lines + went_on) + "\n")


def test_the_fork_is_told_by_when_its_file_starts_not_by_its_name(tmp_path: Path) -> None:
    """The fork renamed to sort first, and the original gone on after the fork with more
    lines than the fork holds: the first time each file records still tells them apart."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    fork_id = CASES["fork"][0]
    renamed = folder / "00000000-0000-4000-8000-000000000000.jsonl"
    (folder / f"{fork_id}.jsonl").rename(renamed)
    original = folder / f"{ORIGINAL}.jsonl"
    _goes_on(original, 8)
    assert len(original.read_text().splitlines()) > len(renamed.read_text().splitlines())
    report = history(home)
    by_id = {s["path"]: s for s in report["sessions"]}
    assert by_id[str(renamed)]["steps"]["byKind"] == {"shell": 1}
    assert by_id[str(original)]["steps"]["byKind"] == CASES["fork"][1]


@pytest.mark.parametrize(
    "name", ["22222222-2222-4222-8222-222222222222", "00000000-0000-4000-8000-000000000000"]
)
def test_a_session_file_copied_under_another_name_is_a_copy_not_a_session(
    name: str, tmp_path: Path
) -> None:
    """A whole copy: the file named after the session's id, as Claude Code names it, is the
    session, whichever name sorts first."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    copy = folder / f"{name}.jsonl"
    shutil.copy(folder / f"{ORIGINAL}.jsonl", copy)
    report = history(home)
    assert report["total"]["sessions"] == 2
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(copy), f"a copy of the lines of {folder / ORIGINAL}.jsonl: counted there")
    ]
    usage = report["total"]["usage"]["claude-opus-4-8"]
    assert (usage["inputTokens"], usage["outputTokens"]) == CASES["fork"][3]


def test_a_copy_of_a_fork_names_the_fork_not_the_session_it_came_from(tmp_path: Path) -> None:
    """A backup of a fork's file holds the lines the fork copied from its session and the
    fork's own: it is a copy of the fork's file, and is named so."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    fork = folder / f"{CASES['fork'][0]}.jsonl"
    copy = folder / "fork-backup.jsonl"
    shutil.copy(fork, copy)
    report = history(home)
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(copy), f"a copy of the lines of {fork}: counted there")
    ]
    assert steps(report) == {ORIGINAL: CASES["fork"][1], CASES["fork"][0]: {"shell": 1}}


@pytest.mark.parametrize(
    "name", ["00000000-0000-4000-8000-000000000000", "ffffffff-ffff-4fff-8fff-ffffffffffff"]
)
def test_a_copy_taken_before_the_session_went_on_is_the_copy(name: str, tmp_path: Path) -> None:
    """A backup of a session file under another name, then the session went on: the copy
    holds fewer lines, all the session's, with the session's id in them; it is the copy, and
    the session keeps its own start and steps (whichever name sorts first)."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    original = folder / f"{ORIGINAL}.jsonl"
    copy = folder / f"{name}.jsonl"
    shutil.copy(original, copy)
    _goes_on(original, 1)
    report = history(home)
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(copy), f"a copy of the lines of {original}: counted there")
    ]
    by_path = {s["path"]: s for s in report["sessions"]}
    assert by_path[str(original)]["steps"]["byKind"] == CASES["fork"][1]
    assert by_path[str(original)]["startedAt"] == "2026-12-03T16:04:04.531000+00:00"


def test_a_fork_started_in_the_window_is_kept_by_since(tmp_path: Path) -> None:
    """The planted S1 (2026-11-02) forked on 2026-11-04: the fork's copy starts on the 2nd,
    its own work on the 4th, so a window from the 4th to the 9th keeps the fork, with its own response
    only (100 in, 10 out), and leaves the original out."""
    config = tmp_path / "home" / ".claude"
    files = plant(config)
    fork = ClaudeSession("99999999-9999-4999-8999-999999999999", "/work/projA", "2026-11-04")
    fork.raw(json.dumps({"type": "queue-operation", "timestamp": "2026-11-04T08:00:00.000Z"}))
    last = None
    for line in files["S1"].read_text().splitlines():
        record = json.loads(line)
        record["sessionId"] = fork.session_id
        last = record["uuid"]
        fork.raw(json.dumps(record))
    fork.parent = last
    fork.user("08:00:00", "And b?")
    fork.say("08:01:00", "b is fine.")
    fork.write(project_folder(config, "/work/projA") / f"{fork.session_id}.jsonl")
    report = history(config, "--since", "2026-11-04", "--until", "2026-11-09")
    (only,) = report["sessions"]
    assert only["sessionId"] == fork.session_id
    assert (only["startedAt"], only["durationSeconds"]) == ("2026-11-04T08:00:00+00:00", 60.0)
    assert not only["isTask"] and only["steps"]["toolCalls"] == 0
    usage = report["total"]["usage"][MODEL]
    assert (usage["inputTokens"], usage["outputTokens"]) == (100, 10)
    whole = history(config)
    assert whole["total"]["sessions"] == 5 and whole["total"]["tasks"] == 2
    assert whole["total"]["usage"][MODEL]["inputTokens"] == 1500 + 100


def test_a_family_of_forks_is_read_from_the_cache_until_one_of_its_files_changes(
    tmp_path: Path,
) -> None:
    import sqlite3

    from proctor.history.cache import SummaryCache
    from proctor.history.record import SessionRecord
    from proctor.history.replay import Filters, replay
    from proctor.history.sources import sessions_under
    from proctor.models.pricing import PriceTable

    home = _copy("fork", tmp_path)
    db = tmp_path / "cache" / "history.sqlite3"
    fork = CASES["fork"][0]

    def replayed() -> tuple[dict[str, int], SummaryCache]:
        sessions, _ = sessions_under([home], ["claude-code"])
        cache = SummaryCache(db, PriceTable())
        found = replay(sessions, Filters(), PriceTable(), workers=1, cache=cache)
        records = [r for r in found if isinstance(r, SessionRecord)]
        assert forks.forks_measured_apart(records, PriceTable(), None, cache) == []
        cache.save(s.file for s in sessions)
        return {r.session_id or "": r.steps.tool_calls for r in records}, cache

    cold, first = replayed()
    assert cold == {ORIGINAL: 3, fork: 1} and first.fork_hits == 0
    warm, second = replayed()
    assert warm == cold and second.fork_hits == 2
    with sqlite3.connect(db) as connection:  # the control: what a warm replay shows is the row
        (blob,) = connection.execute("SELECT outcome FROM forks WHERE path LIKE ?", (f"%{fork}%",))
        tampered = blob[0].replace(b'"toolCalls":1', b'"toolCalls":7')
        connection.execute(
            "UPDATE forks SET outcome = ? WHERE path LIKE ?", (tampered, f"%{fork}%")
        )
    connection.close()
    assert replayed()[0] == {ORIGINAL: 3, fork: 7}
    with (next((home / "projects").iterdir()) / f"{ORIGINAL}.jsonl").open("a") as fh:
        fh.write("\n")  # a member that changes: its family is measured again
    again, third = replayed()
    assert again == cold and third.fork_hits == 0


_IDS = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|req|toolu)_\w+"
)


def _families(root: Path, count: int) -> dict[str, str]:
    """``count`` copies of the recorded fork and its original under ``root``, each with ids of
    its own (so each pair is a family of its own); each fork's path by its original's."""
    folder = next((FIXTURES / "fork" / "projects").iterdir())

    def renewed(text: str, copy: int) -> str:
        def fresh(found: re.Match[str]) -> str:
            if found[0][0].isalpha() and "_" in found[0]:
                return f"{found[0]}_{copy}"
            return str(uuid.uuid5(uuid.NAMESPACE_OID, f"{copy}:{found[0]}"))

        return _IDS.sub(fresh, text)

    pairs = {}
    for copy in range(count):
        target = root / "projects" / f"{folder.name}-{copy}"
        target.mkdir(parents=True)
        for file in folder.iterdir():
            (target / renewed(file.name, copy)).write_text(renewed(file.read_text(), copy))
        original = target / renewed(f"{ORIGINAL}.jsonl", copy)
        pairs[str(original)] = str(target / renewed(f"{CASES['fork'][0]}.jsonl", copy))
    return pairs


def test_many_families_are_read_on_the_workers_as_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four families of two (eight files: enough to be read on the pool) give what one
    process gives, and each fork counts its own work only."""
    pairs = _families(tmp_path, 4)
    pools: list[int] = []
    forked = forks.forked_pool

    def counted(processes: int, initializer: Any) -> Any:
        pools.append(processes)
        return forked(processes, initializer)

    monkeypatch.setattr(forks, "forked_pool", counted)
    on_pool = history(tmp_path, "--workers", "2")
    assert pools == [2]  # the families were read on the workers
    by_path = {s["path"]: s["steps"]["byKind"] for s in on_pool["sessions"]}
    assert len(by_path) == 8 and on_pool["unavailable"] == []
    for original, fork in pairs.items():
        assert (by_path[original], by_path[fork]) == (CASES["fork"][1], {"shell": 1})
    in_one = history(tmp_path, "--workers", "1")
    assert pools == [2]  # one process: no pool
    assert in_one == on_pool
    usage = on_pool["total"]["usage"]["claude-opus-4-8"]
    assert (usage["inputTokens"], usage["outputTokens"]) == tuple(4 * n for n in CASES["fork"][3])


def _first_response_at(session: Path) -> int:
    """The offset of the session's first response line (its first assistant line)."""
    text = session.read_bytes()
    return text.index(next(line for line in text.splitlines() if b'"type":"assistant"' in line))


@pytest.mark.parametrize("cut", ["lines", "mid-line"])
def test_a_copy_cut_before_the_first_response_is_a_copy(cut: str, tmp_path: Path) -> None:
    """``head -3 <id>.jsonl > <other id>.jsonl``, or a copy cut mid-line before the first
    answer: it holds no response to share with the session, but its lines are the session's,
    under the session's id; it is listed as a copy, as one cut after a response is."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    original = folder / f"{ORIGINAL}.jsonl"
    copy = folder / "33333333-3333-4333-8333-333333333333.jsonl"
    text = original.read_bytes()
    if cut == "lines":
        copy.write_bytes(b"".join(text.splitlines(keepends=True)[:3]))
    else:
        copy.write_bytes(text[: _first_response_at(original) - 40])
    assert b'"type":"assistant"' not in copy.read_bytes()
    report = history(home)
    assert [(u["path"], u["reason"]) for u in report["unavailable"]] == [
        (str(copy), f"a copy of the lines of {original}: counted there")
    ]
    assert steps(report) == {ORIGINAL: CASES["fork"][1], CASES["fork"][0]: {"shell": 1}}


def test_two_sessions_under_one_id_that_share_no_line_are_both_counted(
    tmp_path: Path,
) -> None:
    """The same session id in two files whose lines differ (new uuids): not a copy, each is
    a session of its own."""
    home = _copy("fork", tmp_path)
    folder = next((home / "projects").iterdir())
    original = folder / f"{ORIGINAL}.jsonl"
    text = original.read_text()
    other = folder / "33333333-3333-4333-8333-333333333333.jsonl"
    keep = {ORIGINAL}

    def fresh(found: re.Match[str]) -> str:
        if found[0] in keep:
            return found[0]
        if found[0][0].isalpha() and "_" in found[0]:
            return f"{found[0]}_other"
        return str(uuid.uuid5(uuid.NAMESPACE_OID, found[0]))

    other.write_text(_IDS.sub(fresh, text[: _first_response_at(original)]))
    report = history(home)
    assert report["unavailable"] == []
    assert report["total"]["sessions"] == 3
    assert [s["sessionId"] for s in report["sessions"]].count(ORIGINAL) == 2
