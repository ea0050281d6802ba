"""Telling a file's format from its first bytes gives what reading its first lines gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.history.sources import SNIFF_BYTES, sessions_under, sniff
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
