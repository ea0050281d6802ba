"""``copyIn`` of the ``command`` evaluator: held-back files arrive after the agent, a fix that
games only the visible tests fails them, and nothing leads outside the case or the workspace."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from proctor.discover.folders import load_case
from proctor.errors import ConfigError
from proctor.evaluators.base import EvaluationContext
from proctor.evaluators.copy_in import CopyInError, copy_in
from tests.conftest import write_case
from tests.unit.evaluators.helpers import context, evaluate

HIDDEN_TEST = "from calc import add\n\n\ndef test_hidden():\n    assert add(2, 5) == 7\n"
PYTEST = f"{shlex.quote(sys.executable)} -m pytest -q -p no:cacheprovider hidden_tests"
ENTRY = {"use": "command", "run": PYTEST, "copyIn": ["hidden_tests/"]}


def trial(tmp_path: Path, calc: str) -> EvaluationContext:
    tmp_path.mkdir(parents=True, exist_ok=True)
    ctx = context(tmp_path)
    (ctx.case_dir / "hidden_tests").mkdir()
    (ctx.case_dir / "hidden_tests" / "test_hidden.py").write_text(HIDDEN_TEST)
    (ctx.workspace / "calc.py").write_text(calc)
    return ctx


def test_hidden_tests_pass_on_a_real_fix_and_fail_on_a_gamed_one(tmp_path: Path) -> None:
    fixed = trial(tmp_path / "fixed", "def add(a, b):\n    return a + b\n")
    result = evaluate(ENTRY, fixed)
    assert result.passed, result.details["outputTail"]
    assert result.details["copiedIn"] == ["hidden_tests/test_hidden.py"]
    # Control: a fix that only satisfies the visible test (add(1, 2) == 3) fails them.
    gamed = trial(tmp_path / "gamed", "def add(a, b):\n    return 3\n")
    result = evaluate(ENTRY, gamed)
    assert not result.passed and result.details["exitCode"] == 1


def test_later_evaluators_see_the_copied_files(tmp_path: Path) -> None:
    ctx = trial(tmp_path, "def add(a, b):\n    return a + b\n")
    assert not evaluate({"use": "file-exists", "must": ["hidden_tests/*.py"]}, ctx).passed
    evaluate(ENTRY, ctx)
    assert evaluate({"use": "file-exists", "must": ["hidden_tests/*.py"]}, ctx).passed


def test_whatever_the_agent_left_at_the_target_is_replaced_not_written_through(
    tmp_path: Path,
) -> None:
    ctx = trial(tmp_path, "def add(a, b):\n    return a + b\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (ctx.workspace / "hidden_tests").symlink_to(outside, target_is_directory=True)
    copy_in(ctx.case_dir, ctx.workspace, ["hidden_tests"])
    assert list(outside.iterdir()) == []
    assert not (ctx.workspace / "hidden_tests").is_symlink()
    copied = ctx.workspace / "hidden_tests" / "test_hidden.py"
    assert copied.read_text() == HIDDEN_TEST
    copied.unlink()
    copied.symlink_to(outside / "planted.py")
    copy_in(ctx.case_dir, ctx.workspace, ["hidden_tests/test_hidden.py"])
    assert not (outside / "planted.py").exists() and copied.read_text() == HIDDEN_TEST


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("../secret", "is not a path inside the case folder"),
        ("/etc/passwd", "is not a path inside the case folder"),
        ("missing/", "field 'evaluators[0].copyIn[0]': 'missing/' does not exist in the case"),
        ("link", "field 'evaluators[0].copyIn[0]': 'link' leads outside the case folder"),
        (
            "held",
            "field 'evaluators[0].copyIn[0]': 'held/escape' (under 'held') leads outside the "
            "case folder",
        ),
    ],
)
def test_paths_leading_outside_the_case_are_refused_when_the_case_loads(
    tmp_path: Path, entry: str, expected: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("secret\n")
    config = {"evaluators": [{"use": "command", "run": "true", "copyIn": [entry]}]}
    folder = write_case(tmp_path / "cases", "x", config=config)
    (folder / "link").symlink_to(outside / "x.py")
    (folder / "held").mkdir()
    (folder / "held" / "escape").symlink_to(outside)
    with pytest.raises(ConfigError) as caught:
        load_case(folder)
    assert str(caught.value).startswith(f"{folder / 'config.json'}: field 'evaluators[0]")
    assert expected in str(caught.value)
    with pytest.raises((CopyInError, ValueError)):
        copy_in(folder, tmp_path, [entry])
    assert not (tmp_path / "x.py").exists()


def test_a_good_copy_in_loads(tmp_path: Path) -> None:
    config = {"evaluators": [{"use": "command", "run": "true", "copyIn": ["hidden_tests/"]}]}
    folder = write_case(tmp_path, "x", config=config)
    (folder / "hidden_tests").mkdir()
    case = load_case(folder)
    assert case.evaluators[0].params["copyIn"] == ["hidden_tests/"]


def test_a_symlink_loop_in_the_case_or_its_fixture_is_no_traceback(tmp_path: Path) -> None:
    """A link that loops leads nowhere: the case loads (its fixture keeps the link as it is)
    and a copyIn folder holding one copies the rest."""
    config = {"evaluators": [{"use": "command", "run": "true", "copyIn": ["hidden/"]}]}
    folder = write_case(tmp_path / "cases", "x", config=config, src={"a.py": "a\n"})
    (folder / "src" / "loop").symlink_to("loop")
    (folder / "hidden").mkdir()
    (folder / "hidden" / "t.py").write_text("t\n")
    (folder / "hidden" / "spin").symlink_to("spin")
    case = load_case(folder)
    assert case.fixture_kind == "dir"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    copy_in(folder, workspace, ["hidden/"])
    assert (workspace / "hidden" / "t.py").read_text() == "t\n"
