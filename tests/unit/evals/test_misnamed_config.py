"""A file of ``evals/`` named much as ``evals.config.py`` is (``eval.config.py``,
``evals_config.py``, ``evals.conf.py``, ``evals.config.ts``) is never read, so the settings it
holds were left out without a word: it is now warned of once, by a run, ``--list`` and
``--dry-run`` alike, with the name proctor reads. Beside an ``evals.config.py``, or imported by
an eval file as a module of shared values, it is no such file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from proctor.evals.discover import discover
from tests.conftest import Run

EVAL = """\
from proctor.evals import define_eval


async def test(t):
    await t.send("hi")


eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
"""
CONFIG = "from proctor.evals import define_eval_config\n\nconfig = define_eval_config(max_concurrency=2)\n"
MISNAMED = [
    "eval.config.py",
    "evals.config.ts",
    "evals_config.py",
    "evals.conf.py",
    "Evals.Config.py",
]
NOT = ["evals.config.py.bak", "helpers.py", "config.py", "evals.config.pyc"]


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # discover() adds the project's root


def _project(tmp_path: Path, names: list[str]) -> Path:
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "a.eval.py").write_text(EVAL)
    for name in names:
        (evals / name).write_text(CONFIG)
    return tmp_path


def test_a_misnamed_config_file_is_found(tmp_path: Path) -> None:
    root = _project(tmp_path, MISNAMED + NOT)
    assert discover(root).misnamed_config == tuple(sorted(root / "evals" / n for n in MISNAMED))


def test_beside_evals_config_py_none_is(tmp_path: Path) -> None:
    root = _project(tmp_path, [*MISNAMED, "evals.config.py"])
    project = discover(root)
    assert project.config is not None and project.misnamed_config == ()


def test_a_module_an_eval_file_imports_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "rv_evals_config", raising=False)
    root = _project(tmp_path, ["eval.config.py"])
    (root / "evals" / "rv_evals_config.py").write_text("MAX = 3\n")
    (root / "evals" / "b.eval.py").write_text("import rv_evals_config\n" + EVAL)
    monkeypatch.syspath_prepend(str(root / "evals"))
    assert discover(root).misnamed_config == (root / "evals" / "eval.config.py",)


@pytest.mark.parametrize("how", [(), ("--list",), ("--dry-run",)])
def test_it_is_warned_of_once_with_the_name_to_give_it(
    proctor: Run, tmp_path: Path, how: tuple[str, ...]
) -> None:
    root = _project(tmp_path, ["eval.config.py", "evals.config.ts"])
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *how)
    evals = root / "evals"
    warned = [line for line in result.err.splitlines() if "is not read" in line]
    assert warned == [
        f"proctor: warning: {evals / 'eval.config.py'} is not read: proctor reads the project's "
        f"settings from {evals / 'evals.config.py'} alone, and there is none (did you mean "
        "'evals.config.py'?)",
        f"proctor: warning: {evals / 'evals.config.ts'} is not read: proctor reads the project's "
        f"settings from {evals / 'evals.config.py'} alone, and there is none (did you mean "
        "'evals.config.py', a Python file that calls define_eval_config(...)?)",
    ], result.err


def test_a_module_an_eval_file_imports_in_a_test_or_a_file_of_data_is_none(
    tmp_path: Path,
) -> None:
    """A module imported inside a test (after discovery) is the eval file's own, and a file of
    data an eval file may read (``eval_config.json``) is no configuration of code: neither is
    warned of, while ``eval.config.py`` beside them still is."""
    root = _project(tmp_path, ["eval.config.py"])
    evals = root / "evals"
    (evals / "evals_config.py").write_text("LIMIT = 3\n")
    (evals / "eval_config.json").write_text('{"limit": 3}\n')
    (evals / "b.eval.py").write_text(
        EVAL.replace('await t.send("hi")', 'import evals_config\n    await t.send("hi")')
    )
    assert discover(root).misnamed_config == (evals / "eval.config.py",)


def test_a_hidden_file_named_as_an_eval_file_is_none(tmp_path: Path) -> None:
    """An editor's lock file (``.#a.eval.py``, a dangling link) and macOS's ``._a.eval.py``
    unpacked from an archive made discovery fail: neither is an eval file."""
    root = _project(tmp_path, [])
    evals = root / "evals"
    (evals / ".#a.eval.py").symlink_to("root@host.1234:1700000000")
    (evals / "._a.eval.py").write_bytes(b"\x00\x05\x16\x07\x00")
    assert [p.id for p in discover(root).points] == ["a"]
