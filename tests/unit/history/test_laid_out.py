"""A plain folder given as a PATH whose every session file lies where one CLI keeps its sessions,
named as it names them (``~/.claude/projects``, a project folder in it, ``~/.codex/sessions``,
``~/.gemini/tmp`` or a folder below it), is read as that CLI's, as its history folder is, without
each file's first bytes read to tell its format; any other folder's files are told apart by their
first bytes. A file given alone that is no session of any format, but is named and placed as
one CLI keeps its sessions, is that CLI's, for the replay to say why it is none."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from proctor.history import walk as walk_module
from proctor.history.layout import Session
from proctor.history.replay import Filters, replay
from proctor.history.sniff import gemini_side_files, laid_out, told_all
from proctor.history.sources import AGENTS, find_sessions, sessions_under
from proctor.models.history import Unavailable
from proctor.models.pricing import PriceTable
from tests.unit.history.planted import plant

ROOT = Path(__file__).resolve().parents[3]
ROLLOUT = next((ROOT / "tests" / "corpus").glob("codex-*.transcript.jsonl"))
ID = "0c8a4a2e-3f6e-4d7e-9a55-2f1b6c1d9e01"


def _unsniffed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(files: list[str]) -> list[tuple[str | None, str | None]]:
        raise AssertionError(f"the first bytes of {len(files)} files were read")

    monkeypatch.setattr(walk_module, "told_all", refuse)


def _replayed(sessions: list[Session]) -> list[object]:
    return list(replay(sessions, Filters(), PriceTable(), workers=1))


def test_a_projects_folder_is_read_as_claude_codes_without_a_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / ".claude")
    projects = tmp_path / ".claude" / "projects"
    home, _ = find_sessions(["claude-code"], tmp_path, {})
    sniffed = told_all([s.file for s in home])
    assert {agent for agent, _ in sniffed} == {"claude-code"}  # what a read would tell
    _unsniffed(monkeypatch)
    given, unavailable = sessions_under([projects], ["claude-code"])
    assert unavailable == [] and given == home  # as the history folder lists them
    folder = Path(home[0].file).parent  # a project folder given: its sessions
    alone, _ = sessions_under([folder], ["claude-code"])
    assert [s.file for s in alone] == [s.file for s in home if s.path.parent == folder]
    assert all(s.agent == "claude-code" for s in alone)


def test_a_codex_sessions_folder_is_read_as_codexs_without_a_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    day = tmp_path / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for hour in ("10", "11"):
        shutil.copy(ROLLOUT, day / f"rollout-2026-12-01T{hour}-00-00-{ID}.jsonl")
    shutil.copy(ROLLOUT, tmp_path / "sessions" / f"rollout-2026-11-30T09-00-00-{ID}.jsonl")
    _unsniffed(monkeypatch)
    found, unavailable = sessions_under([tmp_path / "sessions"], ["codex"])
    assert unavailable == [] and [s.agent for s in found] == ["codex"] * 3


@pytest.mark.parametrize(
    "odd",
    [
        "-w/notes.jsonl",  # not named as a session
        f"{ID}.jsonl",  # beside the project folders, not in one
        f"-w/deeper/{ID}.jsonl",  # below a project folder
        f"-w/{ID.upper()}.jsonl",  # a session id is lower case
        f"w/{ID.replace('0c8a', '3c8a')}.jsonl",  # a folder not named after a project's
    ],
)
def test_control_one_file_out_of_place_has_every_file_read(tmp_path: Path, odd: str) -> None:
    projects = tmp_path / "projects"
    (projects / "-w").mkdir(parents=True)
    shutil.copy(ROLLOUT, projects / "-w" / f"{ID.replace('0c8a', '1c8a')}.jsonl")
    (projects / odd).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROLLOUT, projects / odd)
    files = sorted(str(p) for p in projects.rglob("*.jsonl"))
    assert laid_out(str(projects), files) is None
    found, _ = sessions_under([projects], ["codex", "claude-code"])
    # Read, each file is the Codex rollout it is.
    assert len(found) == 2 and {s.agent for s in found} == {"codex"}


def test_another_clis_file_laid_out_as_a_claude_session_is_never_used_as_one(
    tmp_path: Path,
) -> None:
    projects = tmp_path / "projects"
    (projects / "-w").mkdir(parents=True)
    shutil.copy(ROLLOUT, projects / "-w" / f"{ID}.jsonl")
    (projects / "-w" / f"{ID.replace('0c8a', '2c8a')}.jsonl").write_text("")
    found, _ = sessions_under([projects], ["claude-code"])
    assert [s.agent for s in found] == ["claude-code", "claude-code"]
    results = _replayed(found)
    assert all(isinstance(r, Unavailable) for r in results)
    reasons = sorted(r.reason for r in results if isinstance(r, Unavailable))
    # As in the history folder: an empty file, and a Codex rollout left out, never measured
    # as Claude Code's.
    assert reasons == ["empty", "no claude-code record in it"]


def test_a_laid_out_file_that_cannot_be_read_is_unavailable_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for hour in ("10", "11"):
        shutil.copy(ROLLOUT, folder / f"rollout-2026-12-01T{hour}-00-00-{ID}.jsonl")
    real_open = os.open

    def no_b(path: object, *args: object, **kwargs: object) -> int:
        if "T11-" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", no_b)
    found, unavailable = sessions_under([folder], ["codex"])
    assert len(found) == 2 and unavailable == []  # not read while listed
    gone = [r for r in _replayed(found) if isinstance(r, Unavailable)]
    assert [(Path(u.path).name, u.reason) for u in gone] == [
        (f"rollout-2026-12-01T11-00-00-{ID}.jsonl", "cannot be read (Permission denied)")
    ]


def test_control_sessions_saved_under_their_ids_in_a_folder_of_ones_own_are_read(
    tmp_path: Path,
) -> None:
    # Codex's and Gemini CLI's session ids are UUIDs too: a folder of sessions saved under
    # their ids, Claude Code's among them, is no Claude Code project folder.
    claude = next((ROOT / "tests" / "corpus").glob("claude-code-*.transcript.jsonl"))
    for folder in (tmp_path / "saved", tmp_path / "by-project" / "app"):
        folder.mkdir(parents=True)
        shutil.copy(claude, folder / f"{ID}.jsonl")
        shutil.copy(ROLLOUT, folder / f"{ID.replace('0c8a', '4c8a')}.jsonl")
    for given in (tmp_path / "saved", tmp_path / "by-project"):
        found, _ = sessions_under([given], ["claude-code", "codex"])
        assert sorted(s.agent for s in found) == ["claude-code", "codex"]
    # A Codex rollout alone, under its thread id, is Codex's.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(ROLLOUT, alone / f"{ID}.jsonl")
    found, _ = sessions_under([alone], ["codex"])
    assert [s.agent for s in found] == ["codex"]


GEMINI = next((ROOT / "tests" / "corpus").glob("gemini-cli-*.transcript.jsonl"))
EMPTY_CHAT = "session-2026-12-04T10-00-eeee0001.jsonl"
CUT_CHAT = "session-2026-12-04T15-00-eeee0006.json"
CUT_SHORT = (
    "not a whole JSON document (a chat of the older releases, cut short while it was written?)"
)


def _gemini_history(root: Path) -> Path:
    """A Gemini CLI ``tmp/`` with a good chat, an empty one and one cut short as it was
    written; its ``chats/`` folder."""
    chats = root / ".gemini" / "tmp" / "p" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats / "session-2026-12-04T09-00-aaaa0001.jsonl")
    (chats / EMPTY_CHAT).write_bytes(b"")
    (chats / CUT_CHAT).write_text(
        '{"sessionId":"eeee0006-x","projectHash":"ab","messages":[{"id":"u1"'
    )
    return chats


@pytest.mark.parametrize("below", ["tmp", "tmp/p", "tmp/p/chats"])
def test_a_gemini_folder_below_its_history_folder_says_which_chats_are_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: str
) -> None:
    chats = _gemini_history(tmp_path)
    home, _ = find_sessions(["gemini-cli"], tmp_path, {})
    _unsniffed(monkeypatch)
    found, unavailable = sessions_under([tmp_path / ".gemini" / below], ["gemini-cli"])
    assert unavailable == [] and sorted(found, key=str) == sorted(home, key=str)
    gone = sorted(
        (Path(u.path).name, u.reason) for u in _replayed(found) if isinstance(u, Unavailable)
    )
    assert gone == [(EMPTY_CHAT, "empty"), (CUT_CHAT, CUT_SHORT)]
    assert laid_out(str(chats), [str(chats / "notes.jsonl")]) is None  # not named as a chat


@pytest.mark.parametrize("below", ["tmp", "tmp/p"])
def test_gemini_clis_own_files_beside_its_chats_leave_the_folder_laid_out_as_its(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: str
) -> None:
    """An interactive Gemini CLI keeps its prompt log (``logs.json``), the chats ``/chat save``
    saved (``checkpoint-<tag>.json``), the checkpoints ``/restore`` reads and a session's
    developer log in the project's folder, beside ``chats/``: none is a chat, and the folder is
    still Gemini CLI's, its damaged chats said so."""
    chats = _gemini_history(tmp_path)
    project = chats.parent
    (project / "logs.json").write_text('[{"sessionId":"s","messageId":0,"type":"user"}]')
    (project / "checkpoint-before-refactor.json").write_text('[{"role":"user","parts":[]}]')
    (project / "checkpoints").mkdir()
    (project / "checkpoints" / "2026-12-04T09-00-00_000Z-app.py-write_file.json").write_text("{}")
    (project / "logs").mkdir()
    (project / "logs" / "session-aaaa0001.jsonl").write_text('{"type":"console"}\n')
    home, _ = find_sessions(["gemini-cli"], tmp_path, {})
    _unsniffed(monkeypatch)
    found, unavailable = sessions_under([tmp_path / ".gemini" / below], ["gemini-cli"])
    assert unavailable == [] and sorted(found, key=str) == sorted(home, key=str)
    gone = sorted(
        (Path(u.path).name, u.reason) for u in _replayed(found) if isinstance(u, Unavailable)
    )
    assert gone == [(EMPTY_CHAT, "empty"), (CUT_CHAT, CUT_SHORT)]
    # The control: such a name anywhere but beside a project's chats is no side file of it.
    elsewhere = [
        str(tmp_path / "logs.json"),
        str(chats / "logs" / "x.jsonl"),
        str(chats / EMPTY_CHAT),
    ]
    assert gemini_side_files(elsewhere) == set()


def test_a_damaged_chat_given_alone_in_its_chats_folder_says_why(tmp_path: Path) -> None:
    chats = _gemini_history(tmp_path)
    for name, reason in ((CUT_CHAT, CUT_SHORT), (EMPTY_CHAT, "empty")):
        found, unavailable = sessions_under([chats / name], ["gemini-cli"])
        assert unavailable == [] and found == [Session("gemini-cli", chats / name)]
        assert [(u.path, u.reason) for u in _replayed(found)] == [(str(chats / name), reason)]
    # So is an empty Codex rollout, named as Codex names its rollouts.
    rollout = tmp_path / f"rollout-2026-12-01T10-00-00-{ID}.jsonl"
    rollout.write_bytes(b"")
    found, _ = sessions_under([rollout], AGENTS)
    assert [(u.agent, u.reason) for u in _replayed(found)] == [("codex", "empty")]
    # The control: an empty file elsewhere, named as no CLI names its sessions, is none.
    (tmp_path / "notes.jsonl").write_bytes(b"")
    found, unavailable = sessions_under([tmp_path / "notes.jsonl"], AGENTS)
    assert found == [] and [u.reason for u in unavailable] == ["not a session transcript"]
