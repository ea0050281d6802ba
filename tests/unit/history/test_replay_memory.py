"""A replay's workers run with the cyclic collector paused: that holds only while measuring a
session leaves no reference cycle behind, and a worker still collects once enough has built up
(should a measure ever leave one)."""

from __future__ import annotations

import gc
import os
import shutil
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from proctor.history import replay
from proctor.history.layout import Session
from proctor.history.sources import sessions_under
from proctor.models.pricing import PriceTable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
CORPUS = Path(__file__).resolve().parents[2] / "corpus"
HISTORIES = [
    (FIXTURES / "claude", "claude-code"),
    (CORPUS, "claude-code"),
    (FIXTURES / "codex", "codex"),
    (FIXTURES / "gemini", "gemini-cli"),
    (FIXTURES / "gemini-subagent", "gemini-cli"),
]


@pytest.fixture
def paused() -> Iterator[None]:
    """The collector paused, as in a worker; its state before given back."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


@pytest.mark.parametrize(
    ("folder", "agent"), HISTORIES, ids=[f"{a}:{f.name}" for f, a in HISTORIES]
)
def test_measuring_a_session_leaves_no_reference_cycle(
    folder: Path, agent: str, paused: None
) -> None:
    sessions, _ = sessions_under((folder,), (agent,))
    assert sessions
    for session in sessions:
        replay.measure_session(session, None, PriceTable())  # caches filled, modules imported
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds is kept, to be named
        replay.measure_session(session, None, PriceTable())
        gc.collect()
        left = sorted({type(o).__name__ for o in gc.garbage})
        gc.set_debug(0)
        gc.garbage.clear()
        assert left == [], f"{session.file}: a measure left cycles of {left}"


def test_measuring_a_session_whose_path_is_not_utf8_leaves_no_reference_cycle(
    tmp_path: Path, paused: None
) -> None:
    odd = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(odd)
    source = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
    copy = os.fsdecode(odd + b"/" + os.fsencode(source.name))
    shutil.copy(source, copy)
    session = Session("claude-code", copy)
    assert rb"caf\\xe9" in replay.measure_session(session, None, PriceTable())  # type: ignore[operator]
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    replay.measure_session(session, None, PriceTable())
    gc.collect()
    left = sorted({type(o).__name__ for o in gc.garbage})
    assert left == [], f"a measure left cycles of {left}"


class _Knot:
    """An object in a reference cycle of its own."""

    def __init__(self) -> None:
        self.me = self


def _knots(count: int) -> weakref.ref[_Knot]:
    knots = [_Knot() for _ in range(count)]
    return weakref.ref(knots[0])


def test_a_worker_collects_between_sessions_once_enough_has_built_up(
    monkeypatch: pytest.MonkeyPatch, paused: None
) -> None:
    gc.collect()
    left: list[weakref.ref[_Knot]] = []

    def leaky(job: Any, *_: Any) -> Any:
        left.append(_knots(job))
        return job, None, None

    monkeypatch.setattr(replay, "_measure_job", leaky)
    replay._measure_in_worker(100)  # type: ignore[arg-type]
    assert left[-1]() is not None, "a few objects left: no collection yet"
    replay._measure_in_worker(replay._COLLECT_AFTER)  # type: ignore[arg-type]  # 2 each
    assert left[0]() is None and left[-1]() is None, "enough built up: collected"


def test_each_worker_keeps_the_memory_it_frees(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker's allocator is told to keep what it frees (see proctor.util.memory): each
    worker, forked from this process, says so in a file of its own."""
    marks = tmp_path / "marks"
    marks.mkdir()

    def kept() -> bool:
        (marks / str(os.getpid())).touch()
        return True

    monkeypatch.setattr(replay, "keep_freed_memory", kept)
    sessions, _ = sessions_under((FIXTURES / "claude", CORPUS), ("claude-code",))
    assert len(sessions) >= replay.SERIAL_BELOW
    results = list(replay.replay(sessions, replay.Filters(), PriceTable(), workers=2))
    assert len(results) == len(sessions)
    assert len(list(marks.iterdir())) == 2
    assert not (marks / str(os.getpid())).exists()  # this process's own allocator is left be
