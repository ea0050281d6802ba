"""An error a test raises in a module of the project its eval file imports (a helper beside
``evals/``), as the test runs, is named at the eval file's line and at the helper's own line
that raised it, as an import error of the helper is; an error of the eval file's own line,
or of a library's, names the eval file's line alone."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from proctor.drive.driver import SessionLog, TurnOutcome
from proctor.drive.talk import Talk
from proctor.evals.conversation import EvalCaseRun, conversation_for
from proctor.evals.discover import discover

HELPER = """\
def check_reply(reply):
    if not reply:
        raise ValueError("the reply is empty")


def positive(n):
    assert n > 0


def parse(text):
    import json

    return json.loads(text)
"""

EVAL = """\
from proctor.evals import define_eval

import rv_runtime_helper


async def test(t):
    {line}


eval = define_eval(test=test)
"""


class Quiet:
    """A driver whose turns end at once, with an empty reply."""

    def __init__(self) -> None:
        self.log = SessionLog()

    def start(self) -> TurnOutcome:
        return TurnOutcome("turn-end")

    def send(self, message: str) -> TurnOutcome:
        self.log.turns += 1
        return TurnOutcome("turn-end")

    def screen_excerpt(self) -> str:
        return ""

    def finish(self, last: TurnOutcome) -> None: ...

    def close(self) -> None: ...


class NoTranscript:
    def transcript_files(self, launch: Any) -> list[Path]:
        return []


@pytest.fixture(autouse=True)
def _own_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # discover() adds the project's root
    monkeypatch.delitem(sys.modules, "rv_runtime_helper", raising=False)


def _error(tmp_path: Path, line: str) -> str | None:
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "a.eval.py").write_text(EVAL.format(line=line))
    (project / "rv_runtime_helper.py").write_text(HELPER)
    point = discover(project).points[0]
    talk = Talk(
        Quiet(),
        cast(Any, NoTranscript()),
        cast(Any, SimpleNamespace(mode="headless")),
        cast(Any, None),
        None,
        tmp_path,
        tmp_path,
        time.monotonic() + 30,
    )
    return conversation_for(EvalCaseRun("a", point.test, 1, 30.0))(talk).error


def test_an_error_a_helper_raises_names_the_helper_line_too(tmp_path: Path) -> None:
    error = _error(tmp_path, "rv_runtime_helper.check_reply('')")
    eval_file, helper = tmp_path / "project" / "evals" / "a.eval.py", tmp_path / "project"
    assert error == (
        f"ValueError: the reply is empty (at {eval_file}:7, raised at "
        f"{helper / 'rv_runtime_helper.py'}:3)"
    )


def test_a_bare_assert_of_a_helper_is_shown_by_the_helper_line(tmp_path: Path) -> None:
    error = _error(tmp_path, "rv_runtime_helper.positive(0)")
    eval_file, helper = tmp_path / "project" / "evals" / "a.eval.py", tmp_path / "project"
    assert error == (
        f"AssertionError: assert n > 0 (at {eval_file}:7, raised at "
        f"{helper / 'rv_runtime_helper.py'}:7)"
    )


def test_a_library_error_under_a_helper_names_the_helper_line(tmp_path: Path) -> None:
    error = _error(tmp_path, "rv_runtime_helper.parse('not json')")
    assert error is not None
    assert error.startswith("JSONDecodeError: Expecting value")
    helper = tmp_path / "project" / "rv_runtime_helper.py"
    assert error.endswith(
        f"(at {tmp_path / 'project' / 'evals' / 'a.eval.py'}:7, raised at {helper}:13)"
    )


def test_an_error_of_the_eval_file_names_its_line_alone(tmp_path: Path) -> None:
    error = _error(tmp_path, "assert 1 == 2")
    assert (
        error
        == f"AssertionError: assert 1 == 2 (at {tmp_path / 'project' / 'evals' / 'a.eval.py'}:7)"
    )
    error = _error(tmp_path / "lib", "__import__('json').loads('x')")
    assert error is not None and "raised at" not in error
