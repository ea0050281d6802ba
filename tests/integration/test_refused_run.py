"""A run its executor refuses before any trial (a Ray cluster that cannot be joined, no node
able to run the trials) leaves no run folder behind: exit 2, one sentence, nothing to clean."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.execute import executor as executor_module
from tests.conftest import MakeCase, Run, run_cases


class Refusing:
    name = "local"

    def run(self, trials: Sequence[Any], run: Any, **_: Any) -> Any:
        raise ConfigError("no Ray node can run these trials: node 10.0.0.7: no claude CLI")


class StartsThenRefuses(Refusing):
    def run(self, trials: Sequence[Any], run: Any, **_: Any) -> Any:
        run.trial(*trials[0].key).root.mkdir(parents=True)  # a trial had begun
        return super().run(trials, run)


@pytest.mark.parametrize(("executor", "folders_left"), [(Refusing, 0), (StartsThenRefuses, 1)])
def test_a_run_refused_before_any_trial_leaves_no_run_folder(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    executor: type,
    folders_left: int,
) -> None:
    """The control: a run refused after a trial began keeps its folder."""
    make_case("a")
    monkeypatch.setitem(executor_module.EXECUTORS, "local", executor)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 2
    assert "no Ray node can run these trials" in result.err
    assert len(list(out.glob("run-*"))) == folders_left


def test_a_refused_run_removes_the_results_folders_it_made_and_only_those(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An --out the run made for itself (and the folders above it) goes with its run folder,
    so a retried run leaves nothing behind; one that was there stays, with what it holds."""
    make_case("a")
    monkeypatch.setitem(executor_module.EXECUTORS, "local", Refusing)
    cases = str(tmp_path / "cases")
    new = tmp_path / "new" / "deep"
    for _ in range(2):  # retried: still nothing left
        result = proctor("run", "--source", cases, "--out", str(new))
        assert result.code == 2, result.err
    assert not (tmp_path / "new").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.md").write_text("mine")
    assert proctor("run", "--source", cases, "--out", str(kept)).code == 2
    assert [p.name for p in kept.iterdir()] == ["notes.md"]
    # An empty folder of the user's, named through one that is not there: kept.
    empty = tmp_path / "empty"
    empty.mkdir()
    through = f"{tmp_path}/typo/../empty"
    assert proctor("run", "--source", cases, "--out", through).code == 2
    assert empty.is_dir()
