"""A run of an older proctor whose condition ends in '.' (``v1.``, a name now refused since
Windows drops a folder name's final dot) still reads with `proctor report` and `compare`, and
`proctor run --resume` of it says that the name is no longer accepted and what to do, whether
the condition came from the configuration file or from the case folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Run, write_case


def old_run(proctor: Run, tmp_path: Path, in_case: bool) -> Path:
    """A finished run whose condition is ``v1.`` everywhere, as an older proctor wrote it
    (made as ``v1x`` and renamed), its second trial's record removed (left to resume)."""
    conditions = {"v1x": {}, "v2": {}}
    config = {"agents": ["scripted"], "timeoutSec": 30, "repeats": 2}
    case = write_case(
        tmp_path / "cases",
        "fix",
        config={**config, "conditions": conditions} if in_case else config,
        plan={"turns": [{"say": "hi"}]},
    )
    top = tmp_path / "proctor.json"
    top.write_text(json.dumps({} if in_case else {"conditions": conditions}))
    args = ("--source", str(tmp_path / "cases"), "--out", str(tmp_path / "out"))
    assert proctor("run", *args, "--config", str(top)).code == 0
    (run,) = (tmp_path / "out").glob("run-*")
    (run / "trials/fix/scripted/v1x").rename(run / "trials/fix/scripted/v1.")
    files = [
        case / "config.json",
        top,
        *(p for p in run.rglob("*") if p.suffix in {".json", ".jsonl", ".md"}),
    ]
    for path in files:
        path.write_text(path.read_text().replace("v1x", "v1."))
    (run / "trials/fix/scripted/v1./2/trial.json").unlink()
    return run


@pytest.mark.parametrize("in_case", [False, True], ids=["config-file", "case-folder"])
def test_a_run_with_a_condition_ending_in_a_dot_reads_but_is_not_resumed(
    proctor: Run, tmp_path: Path, in_case: bool
) -> None:
    run = old_run(proctor, tmp_path, in_case)
    resumed = proctor("run", "--resume", str(run))
    assert resumed.code == 2, resumed.err
    assert (
        f"proctor: error: --resume {run}: the run's condition 'v1.' ends in '.', which proctor "
        "no longer accepts in a name (Windows drops the dot from a folder's name), so the run "
        f"cannot be resumed; its trials still read (`proctor report {run}`); rename the "
        "condition and start a new run ("
    ) in resumed.err
    where = tmp_path / "cases/fix/config.json" if in_case else run / "config.json"
    assert f"({where}: field " in resumed.err
    assert not (run / "trials/fix/scripted/v1./2/trial.json").exists()
    report = proctor("report", str(run), "--json")
    groups = {g["condition"] for g in report.json()["groups"]}
    assert groups == {"v1.", "v2"}, report.err
    assert proctor("compare", str(run), str(run)).code == 0
