"""The reader for a measure (``parse_claude_for_measure``) gives every session the measure the
full parse gives: over the Claude Code sessions of the fixtures, and over damaged copies of
them (fields of other types, fields and lines gone, lines moved, bytes that are not UTF-8)."""

from __future__ import annotations

import copy
import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.history import replay
from proctor.history.sources import Session
from proctor.models.pricing import PriceTable
from proctor.transcripts.claude import parse_claude_session_plain
from proctor.transcripts.claude.measure import parse_claude_for_measure

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = [
    ROOT / "fixtures/transcripts/claude/7f3c2a10-0000-4000-8000-000000000001.jsonl",
    ROOT / "corpus/claude-code-2.1.197-basic.transcript.jsonl",
    ROOT / "corpus/claude-code-2.1.197-failures.transcript.jsonl",
    ROOT / "corpus/claude-code-2.1.197-two-turns.transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/ask-a-question/scripted/default/1"
    "/raw-transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/find-the-bug/scripted/baseline/1"
    "/raw-transcript.jsonl",
    ROOT / "fixtures/results-v1/example-suite/trials/fix-a-bug/scripted/default/1"
    "/raw-transcript.jsonl",
]
VALUES: list[Any] = [None, 0, 7, -1, 2.5, 2**70, "", "x", "<synthetic>", True, False, [], {}]
VALUES += [["a"], {"a": 1}, "2026-01-01T00:00:00Z", "tool_result", "text", "tool_use"]
VALUES += ["assistant", "user", "summary", "AskUserQuestion", "Skill", "Task", "Edit"]
FLAGS = ["isMeta", "isCompactSummary", "isApiErrorMessage", "isSidechain", "toolDenialKind"]
FLAGS += ["toolUseResult", "requestId", "cwd", "timestamp", "parentUuid", "uuid", "type"]
"""Record fields a damaged line may gain (or have changed)."""


def _measure(path: Path, reader: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(
        replay, "_parse", lambda session, _project: reader(session.path, replay.claude_parts(path))
    )
    replay._subfolders.cache_clear()
    replay._legacy_subagents.cache_clear()
    return replay.measure_session(Session("claude-code", path), None, PriceTable())


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    return (
        _measure(path, parse_claude_for_measure, monkeypatch),
        _measure(path, parse_claude_session_plain, monkeypatch),
    )


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name + "/" + p.name[:12])
def test_the_fixtures_measure_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full = _both(path, monkeypatch)
    assert isinstance(fast, bytes)
    assert fast == full


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value: keys and indexes from the top."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key)
            yield from _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*at, index)
            yield from _paths(item, (*at, index))


def _damaged_line(line: bytes, rng: random.Random) -> bytes:
    try:
        record = json.loads(line)
    except ValueError:  # damaged already
        return line
    if not isinstance(record, dict):
        return line
    places = list(_paths(record))
    if not places:
        return line
    if rng.random() < 0.3:
        record[rng.choice(FLAGS)] = copy.deepcopy(rng.choice([*VALUES, "User rejected tool use"]))
        return json.dumps(record).encode()
    for _ in range(rng.choice([1, 1, 2, 3])):
        place = rng.choice(places)
        holder = record
        for step in place[:-1]:
            holder = holder[step]
        if isinstance(holder, dict) and rng.random() < 0.2:
            holder.pop(place[-1], None)
        else:
            try:
                holder[place[-1]] = copy.deepcopy(rng.choice(VALUES))
            except (IndexError, KeyError, TypeError):
                pass
        places = list(_paths(record))
        if not places:
            break
    return json.dumps(record).encode()


def _damaged(lines: list[bytes], rng: random.Random) -> list[bytes]:
    lines = list(lines)
    for _ in range(rng.choice([1, 2, 4])):
        i = rng.randrange(len(lines))
        roll = rng.random()
        if roll < 0.6:
            lines[i] = _damaged_line(lines[i], rng)
        elif roll < 0.7:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]  # written before its parent
        elif roll < 0.75:
            del lines[i]
        elif roll < 0.8:
            lines.insert(i, lines[i])
        elif roll < 0.85:
            lines[i] = lines[i][: len(lines[i]) // 2]
        elif roll < 0.9:
            lines[i] = lines[i].replace(b'"', b'"\xff', 1)  # not UTF-8
        elif roll < 0.95:
            lines[i] = lines[i].replace(b"\\n", b"\\ud83d", 1)  # a lone surrogate
        else:
            lines[i] = b"[1, 2]"
        if not lines:
            break
    return lines


def _copy(main: Path, into: Path) -> tuple[Path, list[Path]]:
    """The session (and its subagent folder) copied under ``into``: its files to damage."""
    target = into / main.name
    shutil.copy(main, target)
    folder = main.parent / main.stem
    if folder.is_dir():
        shutil.copytree(folder, into / main.stem)
    return target, sorted((into / main.stem).rglob("*.jsonl"))


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("SEEDS", "4"))))
def test_damaged_copies_measure_alike(
    seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    checked = 0
    for round_ in range(150):
        source = rng.choice(SESSIONS)
        folder = tmp_path / str(round_)
        folder.mkdir()
        main, parts = _copy(source, folder)
        for file in [main, *parts]:
            if file is main or rng.random() < 0.5:
                lines = [line for line in file.read_bytes().split(b"\n") if line]
                file.write_bytes(b"\n".join(_damaged(lines, rng)) + b"\n")
        fast, full = _both(main, monkeypatch)
        assert fast == full, f"seed {seed}, round {round_}: {main}"
        checked += isinstance(fast, bytes)
    assert checked > 100  # most copies still measure (a control on the damage itself)
