"""``proctor findings`` after a run that chose part of its suite (``--case``, ``--tag``): the
open findings of the cases it left out are said to be unchecked by a run of part of the suite,
never as gone (renamed or removed, to be dismissed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run
from tests.integration.test_findings_cli import CONFIG, FAILING, ID, PASSING


@pytest.mark.parametrize("option", [("--case", "other"), ("--tag=quick",)])
def test_a_case_a_partial_run_left_out_is_said_so_not_gone(
    proctor: Run,
    make_case: MakeCase,
    tmp_path: Path,
    option: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_case("hello", config=CONFIG, plan=FAILING)
    make_case("other", config={**CONFIG, "tags": ["quick"]}, plan=PASSING)
    out = tmp_path / "out"
    argv = ("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert proctor(*argv).code == 1
    # The command run.json records (in-process, sys.argv is pytest's).
    monkeypatch.setattr(sys, "argv", ["proctor", *argv, *option])
    partial = proctor(*argv, *option)
    assert partial.code == 0, partial.err
    listed = proctor("findings", str(out))
    assert listed.code == 0, listed.err
    chosen = " ".join(option).replace("=", " ")
    assert f"1 open finding ({ID}) was not checked by the latest run of its suite (" in (listed.out)
    assert (
        f"), which ran part of it only ({chosen}). A finding stays open until a run checks it: "
        "run the suite again, or its case."
    ) in listed.out
    assert "closes one that is gone" not in listed.out


def test_a_case_a_run_of_another_case_folder_left_out_is_said_so_not_gone(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A run of one case folder (``--source cases/other``, to check a fix) is a run of the
    suite holding it, which ran part of it only: the findings of its other cases are not
    gone."""
    make_case("hello", config=CONFIG, plan=FAILING)
    make_case("other", config=CONFIG, plan=PASSING)
    out = tmp_path / "out"
    assert proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out)).code == 1
    alone = proctor("run", "--source", str(tmp_path / "cases" / "other"), "--out", str(out))
    assert alone.code == 0, alone.err
    listed = proctor("findings", str(out))
    assert listed.code == 0, listed.err
    assert (
        f"1 open finding ({ID}) was not checked by the latest run of its suite (run-"
    ) in listed.out
    assert (
        "), which ran part of it only (the case folder cases/other alone). A finding stays "
        "open until a run checks it: run the suite again, or its case."
    ) in listed.out
    assert "closes one that is gone" not in listed.out
