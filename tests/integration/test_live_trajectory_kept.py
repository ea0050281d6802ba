"""A trial's trajectory written while its agent ran (see :mod:`proctor.execute.live`) is no
longer the live one once the worker collected the whole transcript: a worker that dies while
its case is evaluated (its record written for it, "worker process died") keeps the collected
trajectory (and workspace diff) in the trial's folder, and no worker's mark is left beside it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_case

Run = Any


@pytest.mark.parametrize("where", ["evaluators", "teardown"])
def test_a_worker_that_dies_after_its_transcript_is_read_keeps_its_collected_trajectory(
    proctor: Run, tmp_path: Path, where: str
) -> None:
    # The agent runs long enough to be followed (a look every half second); then the case's
    # evaluator, or its teardown line (run while the trial is collected, after its
    # trajectory is written), kills the worker that runs it.
    plan = {
        "turns": [
            {"shell": "echo one > b.txt"},
            {"say": "first"},
            {"sleep": 1.5},
            {"say": "second"},
        ]
    }
    kill = "kill -9 $PPID; sleep 5"
    config: dict[str, Any] = {"agents": ["scripted"], "timeoutSec": 30}
    if where == "evaluators":
        config["evaluators"] = [{"use": "command", "run": kill, "gate": True}]
    else:
        config["teardown"] = [kill]
    write_case(tmp_path / "cases", "dies", config=config, plan=plan)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(tmp_path / "cases"), "--out", str(out))
    (folder,) = out.glob("run-*/trials/dies/scripted/default/1")
    record = json.loads((folder / "trial.json").read_text())
    assert "worker process died" in record["reason"], (record, result.err)
    lines = (folder / "trajectory.jsonl").read_text().splitlines()
    said = [json.loads(line).get("text") for line in lines]
    assert "first" in said and "second" in said  # the collected trajectory, whole
    assert not (folder / ".trajectory.live").exists()
    # So is the diff collected at the end (the diff so far was written in its place).
    assert "+one" in (folder / "workspace.diff").read_text()
    assert not (folder / ".workspace.diff.live").exists()
