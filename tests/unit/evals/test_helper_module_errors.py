"""An eval file whose import stops in a module of the project it imports (a helper beside
``evals/``) is named at the line of its ``import``, and the helper's line that raised is
named too: a SyntaxError's line is the helper's, never read as the eval file's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from proctor.evals.discover import EvalFileProblems, discover

EVAL = """\
from proctor.evals import define_eval

import {module}


async def test(t):
    await t.send("hi")


eval = define_eval(test=test)
"""


def _problems(tmp_path: Path, module: str, helper: str) -> list[str]:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "a.eval.py").write_text(EVAL.format(module=module))
    (tmp_path / f"{module}.py").write_text(helper)
    with pytest.raises(EvalFileProblems) as raised:
        discover(tmp_path)
    return raised.value.problems


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # discover() adds the project's root


def test_a_syntax_error_of_a_helper_is_said_at_the_import_line(tmp_path: Path) -> None:
    helper = "X = 1\n" * 12 + "def broken(:\n    pass\n"
    problems = _problems(tmp_path, "rv_helper_syntax", helper)
    assert problems == [
        f"{tmp_path / 'evals' / 'a.eval.py'}:3: cannot be imported (SyntaxError: invalid "
        "syntax (rv_helper_syntax.py, line 13))"
    ]


def test_an_error_a_helper_raises_names_the_helper_line(tmp_path: Path) -> None:
    helper = "X = 1\nY = 1 / 0\n"
    problems = _problems(tmp_path, "rv_helper_raises", helper)
    assert problems == [
        f"{tmp_path / 'evals' / 'a.eval.py'}:3: cannot be imported (ZeroDivisionError: "
        f"division by zero, at {tmp_path / 'rv_helper_raises.py'}:2)"
    ]


def test_a_relative_import_of_an_eval_file_is_told_the_import_by_path(tmp_path: Path) -> None:
    (tmp_path / "evals" / "grp").mkdir(parents=True)
    (tmp_path / "evals" / "grp" / "shared.py").write_text("X = 1\n")
    (tmp_path / "evals" / "grp" / "a.eval.py").write_text(
        EVAL.format(module="rv_unused").replace("import rv_unused", "from .shared import X")
    )
    with pytest.raises(EvalFileProblems) as raised:
        discover(tmp_path)
    assert raised.value.problems == [
        f"{tmp_path / 'evals' / 'grp' / 'a.eval.py'}:3: cannot be imported (ImportError: "
        "attempted relative import with no known parent package; an eval file is no module of "
        "a package: import a module beside it by its path from the project's folder, from "
        "evals.grp.NAME import …)"
    ]
