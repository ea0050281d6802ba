"""`run` and `validate` check, before anything, that the results directory and the temporary
folder (every trial's workspace and scratch home) are writable."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.conftest import MakeCase, Run


def test_an_unwritable_results_directory_stops_run_and_validate(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")  # a file where the results folder should go: even root cannot
    out = blocked / "results"
    run = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    assert run.code == 2 and f"the results directory {out} cannot be made" in run.err
    validate = proctor(
        "validate", "--source", str(tmp_path / "cases"), "--config", str(_top(tmp_path, out))
    )
    assert validate.code == 2 and "cannot be made" in validate.err
    fine = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(tmp_path / "ok"))
    assert fine.code == 0  # control
    assert stat.S_ISREG(blocked.stat().st_mode)


def _top(tmp_path: Path, out: Path) -> Path:
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({"out": str(out)}))
    return top


def test_validate_does_not_make_the_results_directory(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", plan={"turns": [{"say": "hi"}]})
    out = tmp_path / "later"
    result = proctor(
        "validate", "--source", str(tmp_path / "cases"), "--config", str(_top(tmp_path, out))
    )
    assert result.code == 0, result.err
    assert not out.exists()
