"""What the report of several runs read as one says of them: the runs in the JSON report, the
trials they planned, the wall time they recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import MakeCase, Run
from tests.integration.test_report_json_flag import two_runs


def test_the_json_report_of_several_runs_lists_them(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    first, second = two_runs(proctor, make_case, tmp_path)
    single = proctor("report", str(first), "--reporter", "json").json()
    assert "pooledRuns" not in single  # one run's report is as it was
    assert single == json.loads((first / "suite.json").read_text())
    both = proctor("report", str(first), str(second), "--reporter", "json")
    assert both.code == 0, both.err
    pooled = both.json()["pooledRuns"]
    assert [(r["folder"], r["path"], r["trials"], r["planned"]) for r in pooled["runs"]] == [
        (first.name, str(first), 2, 2),
        (second.name, str(second), 2, 2),
    ]
    assert pooled["runs"][0]["runId"] == first.name and pooled["notes"] == []
    assert pooled["runs"][1]["source"] == str((tmp_path / "cases").resolve())
    assert not pooled["runs"][0]["stoppedShort"] and pooled["runs"][0]["wallMs"] > 0


def test_runs_read_together_with_one_whose_planned_trials_are_unknown(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A run without run.json does not say how many trials it planned: the runs read with it
    do not either, never the others' count alone, which leaves its trials out."""
    first, second = two_runs(proctor, make_case, tmp_path)
    stopped = tmp_path / "stopped"
    shutil.copytree(first, stopped)
    manifest = json.loads((stopped / "run.json").read_text())
    manifest.update(interrupted=True, finishedAt=None, runId="run-stopped")
    (stopped / "run.json").write_text(json.dumps(manifest))
    (stopped / "suite.json").unlink()
    (stopped / "journal.jsonl").unlink()  # (with it, its stretches date it)
    (stopped / "trials/fix/scripted/default/2/trial.json").unlink()
    control = proctor("report", str(stopped), str(second), "--reporter", "json")
    assert control.json()["exitReason"].startswith("interrupted after 3 of 4 trials finished")
    (second / "run.json").unlink()
    report = proctor("report", str(stopped), str(second), "--reporter", "json")
    assert report.code == 130, report.err
    suite = report.json()
    # Not "3 of 2": the second run's trials are among the 3, its plan among none.
    assert suite["exitReason"].startswith("interrupted after 3 trials finished;"), suite
    assert [r["planned"] for r in suite["pooledRuns"]["runs"]] == [2, None]
    markdown = proctor("report", str(stopped), str(second))
    assert (
        "n/a wall (`stopped` recorded none: no journal.jsonl or suite.json of it dates it); "
        in (markdown.out)
    ), markdown.out
