"""A file of the evals folder that defines an eval but whose name does not end ``.eval.py``
(``greet_eval.py``, ``greet.evals.py``, ``eval_greet.py``, ``greet.eval.txt``) is never run:
it was skipped without a word beside other eval files, and the error for a folder of such
files alone did not name them. Each is now a warning on stderr (a run, ``--list`` and
``--dry-run`` alike) that names it, the line of its ``define_eval(...)`` and the name to give
it; the error names them when they are all there is. A helper module is not one."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import pytest

from proctor.evals import discover
from tests.conftest import Run
from tests.integration.test_evals_cli import project, run_json

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("go")).expect_ok()
    eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
"""
MISNAMED = {
    "greet.evals.py": "greet.eval.py",
    "grp/greet_eval.py": "greet.eval.py",
    "eval_greet.py": "greet.eval.py",
    "greet.eval.txt": "greet.eval.py",
    "Shout.Eval.PY": "Shout.eval.py",
}
HELPERS = {
    # A helper module: functions, a case(...) list, a wrapper of define_eval; none at module
    # level defines an eval.
    "helpers.py": """
        from proctor.evals import case, define_eval
        async def _test(t):
            await t.send("go")
        CASES = [case(id="a", test=_test)]
        def make_eval(**kw):
            return define_eval(**kw)
    """,
    "conftest.py": "import pytest\n",
    "notes.txt": "eval = define_eval(test=test) is how a file defines one\n",
    "greet.eval.py.bak": EVAL,
}


def _said(root: Path, rel: str) -> str:
    renamed = MISNAMED.get(rel, "greet.eval.py")
    return (
        f"{root / 'evals' / rel} calls define_eval(...) at line 5 but is not run: only a "
        f"file whose name ends .eval.py is an eval file; rename it {renamed}"
    )


@pytest.mark.parametrize("how", [(), ("--list",), ("--dry-run",)])
def test_a_misnamed_eval_file_is_a_warning_beside_eval_files(
    proctor: Run, tmp_path: Path, how: tuple[str, ...]
) -> None:
    # A module an eval file imports to share its eval is that file's, not a misnamed one (its
    # name differs by test: the tests' process keeps the modules an earlier one imported).
    shared = "shared_" + "_".join(a.strip("-").replace("-", "_") for a in how)
    files = {f"{shared}.py": EVAL, "uses.eval.py": f"from evals.{shared} import eval\n"}
    root = project(
        tmp_path, {"ok.eval.py": EVAL, **dict.fromkeys(MISNAMED, EVAL), **HELPERS, **files}
    )
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *how)
    assert result.code == 0, result.err
    warned = [line for line in result.err.splitlines() if "is not run" in line]
    assert warned == [f"proctor: warning: {_said(root, rel)}" for rel in sorted(MISNAMED)], (
        result.err
    )
    assert "helpers.py" not in result.err and "shared.py" not in result.err, result.err


def test_the_error_for_a_folder_of_misnamed_files_alone_names_them(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"greet_eval.py": EVAL, "helpers.py": HELPERS["helpers.py"]})
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 2, result.err
    assert (
        f"{root / 'evals'}: holds no *.eval.py file (evals live in DIR/evals/**/*.eval.py); "
        f"{_said(root, 'greet_eval.py')}"
    ) in result.err, result.err
    assert "warning" not in result.err, result.err  # said once, in the error
    listed = proctor("eval", "--dir", str(root), "--list")
    assert listed.code == 0 and _said(root, "greet_eval.py") in listed.err, listed.err


LONG = "from proctor.evals import define_eval\nx = 1" + "+1" * 100_000 + "\n"
"""A file Python's parser cannot take (its expression too deep: RecursionError) that names
define_eval, so it is parsed."""


@pytest.mark.parametrize("how", [(), ("--list",), ("--dry-run",)])
def test_a_file_python_cannot_parse_is_no_misnamed_eval_file(
    proctor: Run, tmp_path: Path, how: tuple[str, ...]
) -> None:
    root = project(tmp_path, {"ok.eval.py": EVAL, "data.txt": LONG, "deep/long.py": LONG})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *how)
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "is not run" not in result.err, result.err


def test_only_a_file_naming_define_eval_is_parsed_and_caches_and_hidden_folders_are_not_entered(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder of many fixtures: each is read, none parsed; the folders of installed packages,
    # caches and hidden ones are not listed at all.
    fixtures = {f"fixtures/f{i}.py": f"VALUE = {i}\n" for i in range(40)}
    skipped = ["node_modules/pkg/greet_eval.py", ".venv/lib/greet_eval.py"]
    skipped += ["__pycache__/greet_eval.py", "grp/.hidden/greet_eval.py"]
    root = project(
        tmp_path,
        {"ok.eval.py": EVAL, "greet_eval.py": EVAL, **fixtures, **dict.fromkeys(skipped, EVAL)},
    )
    evals = root / "evals"
    parsed: list[Path] = []
    listed: list[Path] = []
    parse, scandir, looking = ast.parse, os.scandir, discover.misnamed_files
    inside = False  # (the eval files' own search, *.eval.py, is not this one)

    def parsing(source: Any, filename: Any = "<unknown>", *args: Any, **kwargs: Any) -> Any:
        parsed.append(Path(filename))
        return parse(source, filename, *args, **kwargs)

    def listing(path: Any = ".") -> Any:
        if inside:
            listed.append(Path(path))
        return scandir(path)

    def misnamed(evals_dir: Path) -> Any:
        nonlocal inside
        inside = True
        try:
            return looking(evals_dir)
        finally:
            inside = False

    monkeypatch.setattr(ast, "parse", parsing)
    monkeypatch.setattr(os, "scandir", listing)
    monkeypatch.setattr(discover, "misnamed_files", misnamed)
    result = proctor("eval", "--dir", str(root), "--list")
    monkeypatch.undo()
    assert result.code == 0, result.err
    warned = [line for line in result.err.splitlines() if "is not run" in line]
    assert warned == [f"proctor: warning: {_said(root, 'greet_eval.py')}"], result.err
    assert [p for p in parsed if p.is_relative_to(evals)] == [evals / "greet_eval.py"], parsed
    entered = {p.relative_to(evals).as_posix() for p in listed if p.is_relative_to(evals)}
    assert entered == {".", "fixtures", "grp"}, entered
