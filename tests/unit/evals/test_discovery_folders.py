"""Discovery imports (so runs) only the eval files a person wrote: a copy of one in a hidden
folder (``.git``, ``.venv``, ``.tox``), ``node_modules``, ``__pycache__`` or an installed
package's folder is neither imported nor run, as the search for misnamed eval files never
entered them; a link to a folder above is not followed round, and the files are imported in
the order of their paths."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from proctor.discover import eval_files as walk
from proctor.evals import discover as discovering
from proctor.evals.discover import discover

EVAL = """\
from proctor.evals import define_eval

with open({marker!r}, "a") as seen:
    seen.write("{rel}\\n")


async def test(t):
    await t.send("hi")


eval = define_eval(test=test)
"""


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # discover() adds the project's root


def _write(root: Path, rel: str) -> None:
    path = root / "evals" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(EVAL.format(marker=str(root / "imported.txt"), rel=rel))


def test_evals_under_hidden_and_package_folders_are_not_run(tmp_path: Path) -> None:
    run = ["b.eval.py", "a/z.eval.py", "a/index.eval.py", "grp/deep/ok.eval.py"]
    skipped = [
        ".venv/lib/python3.11/site-packages/pkg/vendored.eval.py",
        "node_modules/pkg/copied.eval.py",
        ".hidden/draft.eval.py",
        ".git/old.eval.py",
        ".tox/py311/x.eval.py",
        "grp/__pycache__/cached.eval.py",
        "grp/site-packages/pkg/y.eval.py",
    ]
    for rel in run + skipped:
        _write(tmp_path, rel)
    # A link to a folder above (a loop), and a link to a file, which is an eval file.
    (tmp_path / "evals" / "grp" / "deep" / "up").symlink_to(tmp_path / "evals")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked.eval.py").write_text(
        EVAL.format(marker=str(tmp_path / "imported.txt"), rel="linked")
    )
    (tmp_path / "evals" / "grp" / "linked.eval.py").symlink_to(
        tmp_path / "elsewhere" / "linked.eval.py"
    )
    project = discover(tmp_path)
    assert [p.id for p in project.points] == ["a", "a/z", "b", "grp/deep/ok", "grp/linked"]
    # Each run once, in the order of their paths (the same on every machine).
    imported = (tmp_path / "imported.txt").read_text().splitlines()
    assert imported == [*sorted(run), "linked"]
    evals = tmp_path / "evals"
    linked = evals / "grp" / "linked.eval.py"
    assert discovering.eval_files(evals) == [*sorted(evals / rel for rel in run), linked]


def test_an_evals_folder_whose_eval_files_are_all_in_skipped_folders_has_none(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "node_modules/pkg/copied.eval.py")
    _write(tmp_path, ".venv/x.eval.py")
    assert discover(tmp_path).points == []
    assert not (tmp_path / "imported.txt").exists()


def test_the_search_is_the_one_proctor_run_hints_with() -> None:
    """The folder walk lives beside case discovery, so ``proctor run``'s hint that ``proctor
    eval`` would run a folder looks where discovery does; its names are still this module's."""
    assert discovering.eval_files is walk.eval_files
    assert discovering._folders is walk.folders_looked_in
    assert (discovering.NOT_LOOKED_IN, discovering.SUFFIX) == (walk.NOT_LOOKED_IN, ".eval.py")
