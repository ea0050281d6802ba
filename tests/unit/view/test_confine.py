"""Files are served only from inside the results directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from proctor.view.confine import inside, run_folder, trial_folder
from proctor.view.index import ResultsIndex
from proctor.view.synthetic import write_run


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "results"
    (base / "run" / "trials").mkdir(parents=True)
    (base / "run" / "ok.txt").write_text("fine")
    (tmp_path / "secret.txt").write_text("outside")
    (base / "run" / "out-link").symlink_to(tmp_path / "secret.txt")
    (base / "run" / "in-link").symlink_to(base / "run" / "ok.txt")
    return base


def test_a_file_inside_is_served(root: Path) -> None:
    assert inside(root, "run/ok.txt") == (root / "run" / "ok.txt").resolve()
    assert inside(root, "run/in-link") == (root / "run" / "ok.txt").resolve()


def test_a_backslash_is_a_character_of_a_name_not_a_way_out(root: Path) -> None:
    (root / "run" / "back\\slash").mkdir()
    (root / "run" / "back\\slash" / "f.txt").write_text("a case folder named so")
    found = inside(root, "run/back\\slash/f.txt")
    assert found == (root / "run" / "back\\slash" / "f.txt").resolve()
    assert inside(root, "run\\..\\..\\secret.txt") is None
    assert inside(root, "\\..\\secret.txt") is None


@pytest.mark.parametrize(
    "relative",
    [
        "../secret.txt",
        "run/../../secret.txt",
        "/etc/passwd",
        "run/out-link",
        "",
        "run\\..\\x",
        "run/ok.txt\x00",
        "run/missing.txt",
    ],
)
def test_paths_leading_out_or_nowhere_are_refused(root: Path, relative: str) -> None:
    assert inside(root, relative) is None


def test_only_runs_the_index_knows_and_whole_trial_keys(tmp_path: Path) -> None:
    write_run(tmp_path, "run-a", trials=1, cases=1)
    index = ResultsIndex(tmp_path)
    index.refresh(force=True)
    assert run_folder(index, "run-a") == (tmp_path / "run-a").resolve()
    assert run_folder(index, "run-b") is None
    assert run_folder(index, "..") is None
    assert trial_folder(index, "run-a", "case-000/scripted/default/1") is not None
    assert trial_folder(index, "run-a", "case-000/scripted/default") is None
    assert trial_folder(index, "run-a", "../../../x") is None
