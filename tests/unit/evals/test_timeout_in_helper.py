"""A test that runs out of time while it is in a module of the project its eval file calls (a
``helpers.py`` beside ``evals/``) is named at the eval file's line and at the helper's line it
was at, blocked without awaiting or awaiting, as an error a helper raises names the helper's
line; one waiting in the eval file's own line, or in a library, names the eval file's line
alone."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from proctor.evals.context import TestContext
from proctor.evals.conversation import OutOfTime, run_with_watchdog
from proctor.evals.discover import discover

HELPER = """\
import asyncio
import threading

RELEASE = threading.Event()


def wait():
    RELEASE.wait()


async def nap():
    await asyncio.sleep(30)
"""

EVAL = """\
import asyncio

from proctor.evals import define_eval

import rv_timeout_helper


async def test(t):
    {line}


eval = define_eval(test=test)
"""


@pytest.fixture(autouse=True)
def _own_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # discover() adds the project's root
    monkeypatch.delitem(sys.modules, "rv_timeout_helper", raising=False)


def _stopped_at(tmp_path: Path, line: str) -> str | None:
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "a.eval.py").write_text(EVAL.format(line=line))
    (project / "rv_timeout_helper.py").write_text(HELPER)
    sys.modules.pop("rv_timeout_helper", None)  # (imported afresh: its event unset)
    point = discover(project).points[0]
    t = TestContext(None)
    try:
        ended = run_with_watchdog(point.test, t, 0.2)
    finally:
        sys.modules["rv_timeout_helper"].RELEASE.set()  # the blocked thread left behind ends
    assert isinstance(ended, OutOfTime)
    return t._stopped_at


def test_blocked_in_a_helper_names_the_helper_line(tmp_path: Path) -> None:
    at = _stopped_at(tmp_path, "rv_timeout_helper.wait()")
    project = tmp_path / "project"
    assert at == (
        f"{project / 'evals' / 'a.eval.py'}:9, inside {project / 'rv_timeout_helper.py'}:8"
    )


def test_awaiting_in_a_helper_names_the_helper_line(tmp_path: Path) -> None:
    at = _stopped_at(tmp_path, "await rv_timeout_helper.nap()")
    project = tmp_path / "project"
    assert at == (
        f"{project / 'evals' / 'a.eval.py'}:9, inside {project / 'rv_timeout_helper.py'}:12"
    )


def test_waiting_in_the_eval_file_or_a_library_names_its_line_alone(tmp_path: Path) -> None:
    assert _stopped_at(tmp_path / "a", "await asyncio.sleep(30)") == (
        f"{tmp_path / 'a' / 'project' / 'evals' / 'a.eval.py'}:9"
    )
    assert _stopped_at(tmp_path / "b", "rv_timeout_helper.RELEASE.wait()") == (
        f"{tmp_path / 'b' / 'project' / 'evals' / 'a.eval.py'}:9"
    )
