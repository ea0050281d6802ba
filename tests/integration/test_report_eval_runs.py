"""``proctor report`` of several runs of ``proctor eval``: each eval run writes its cases to a
folder of its own (``<out>/evals-src/<timestamp>``), so its ``run.json``'s ``source`` never
names its suite; the suite it recorded and the eval files it ran do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

PASSING = """
    from proctor.evals import define_eval
    async def test(t):
        await t.send("hi")
        t.message_includes("hello")
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""


def test_runs_of_one_eval_file_are_one_suite_and_of_two_are_two(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"builds/api.eval.py": PASSING, "tools/x.eval.py": PASSING})
    runs = []
    for picked in ("builds", "builds", "tools"):
        result, out = run_json(proctor, root, tmp_path, picked)
        assert result.code == 0, result.err
        runs.append(out["runDir"])
    manifest = json.loads((Path(runs[0]) / "run.json").read_text())
    assert manifest["evalFiles"] == ["builds/api.eval.py"]
    same = proctor("report", runs[0], runs[1])
    assert same.code == 0, same.err
    assert "different suites" not in same.out + same.err
    other = proctor("report", runs[0], runs[2])
    assert other.code == 0, other.err
    suite = "proj/evals"  # beside the results directory: named relative to their folder
    assert (
        "proctor: note: the runs are of different suites (run.json's source, or of a run of "
        f"generated cases, its suite and evalFiles): {Path(runs[0]).name}: {suite} "
        f"(builds/api.eval.py); {Path(runs[2]).name}: {suite} (tools/x.eval.py); their trials "
        "are read as one sample set all the same"
    ) in other.err
