"""Telling a file's format from its first bytes gives what reading its first lines gives."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from proctor.history import sniff as sniff_module
from proctor.history.sniff import SNIFF_BYTES, sniff
from proctor.history.sources import sessions_under
from proctor.transcripts.lines import HEADER_LINES
from proctor.util.files import read_head

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted(
    p
    for folder in (ROOT / "tests" / "fixtures", ROOT / "tests" / "corpus")
    for p in folder.rglob("*.jsonl")
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_first_bytes_tell_what_the_first_lines_tell(path: Path) -> None:
    assert sniff(path, read_head(path, SNIFF_BYTES)) == sniff(path)


CLAUDE = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user"}}


def test_a_first_line_longer_than_the_bytes_read_is_read_whole(tmp_path: Path) -> None:
    long = tmp_path / "rollout.jsonl"
    meta = {"type": "session_meta", "payload": {"id": "t", "base_instructions": "x" * SNIFF_BYTES}}
    long.write_text(json.dumps(meta) + "\n")
    assert sniff(long, read_head(long, SNIFF_BYTES)) == "codex"


@pytest.mark.parametrize("at, found", [(HEADER_LINES, "claude-code"), (HEADER_LINES + 1, None)])
def test_only_the_first_header_lines_are_looked_at(
    tmp_path: Path, at: int, found: str | None
) -> None:
    path = tmp_path / "s.jsonl"
    lines = [json.dumps({"note": i}) for i in range(at - 1)] + ["", json.dumps(CLAUDE)]
    path.write_text("\n".join(lines) + "\n")
    assert sniff(path, read_head(path, SNIFF_BYTES)) == found == sniff(path)
    (listed,) = [None] if found is None else [found]
    sessions, _ = sessions_under([tmp_path], ["claude-code"])
    assert [s.agent for s in sessions] == ([] if listed is None else [listed])


def mixed_folder(root: Path) -> Path:
    """A plain folder of every session file of the corpus (three formats) with their
    reports (JSONL of another kind), an empty file, a subagent file and a file that will not
    open (see :func:`told_in_parallel_and_in_order`)."""
    folder = root / "plain"
    (folder / "deeper" / "subagents").mkdir(parents=True)
    for n, path in enumerate(sorted((ROOT / "tests" / "corpus").glob("*.jsonl"))):
        (folder / ("deeper" if n % 2 else "") / path.name).write_bytes(path.read_bytes())
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "deeper" / "subagents" / "agent-a1.jsonl").write_text(json.dumps(CLAUDE) + "\n")
    (folder / "closed.jsonl").write_text(json.dumps(CLAUDE) + "\n")
    return folder


def listed(folder: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    found, unavailable = sessions_under([folder], ["claude-code", "codex", "gemini-cli"])
    return [(s.agent, s.file) for s in found], [(u.path, u.reason) for u in unavailable]


def told_in_parallel_and_in_order(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[object, object, int]:
    real_open = os.open

    def closed(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith("closed.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", closed)  # the forked workers have it too
    serial = listed(folder)
    pools = []
    real_context = multiprocessing.get_context

    def counted(method: str | None = None) -> object:
        pools.append(method)
        return real_context(method)

    monkeypatch.setattr(multiprocessing, "get_context", counted)
    monkeypatch.setattr(sniff_module, "PARALLEL_SNIFF_FROM", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    return serial, listed(folder), len(pools)


def test_a_big_plain_folder_is_told_on_several_processes_as_on_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial, parallel, pools = told_in_parallel_and_in_order(mixed_folder(tmp_path), monkeypatch)
    assert pools == 1
    assert parallel == serial
    sessions, unavailable = serial  # type: ignore[misc]
    assert {agent for agent, _ in sessions} == {"claude-code", "codex", "gemini-cli"}
    assert [reason for _, reason in unavailable] == ["cannot be read (Permission denied)"]
    # Each CLI's headless outputs (the corpus's reports) are no sessions: passed over.
    assert len(sessions) == len(list((ROOT / "tests" / "corpus").glob("*.transcript.jsonl")))


_TOLD_CHUNK = sniff_module._told_chunk


def reasons_lost(files: list[str]) -> list[tuple[str | None, str | None]]:
    """A worker that loses why a file could not be read (a function of a module, so that the
    pool can name it to its workers)."""
    return [(agent, None) for agent, _ in _TOLD_CHUNK(files)]


def test_control_a_worker_that_loses_a_reason_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sniff_module, "_told_chunk", reasons_lost)
    serial, parallel, _ = told_in_parallel_and_in_order(mixed_folder(tmp_path), monkeypatch)
    assert parallel != serial
