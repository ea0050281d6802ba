"""``proctor report``'s wall time comes from the run's journal: a resume killed after the run
wrote its ``suite.json`` adds its stretch (the ``suite.json`` is stale), a run killed before it
wrote one has a wall time all the same, and a stretch cut by a kill makes it a lower bound."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from proctor.models.journal import stretches
from tests.conftest import MakeCase, Run
from tests.integration.test_report_json_flag import two_runs


def _killed_resume(run: Path, seconds: float) -> None:
    """The journal lines of a ``--resume`` killed (``kill -9``) ``seconds`` after it began:
    its ``run-resumed`` line, a trial it started, no ``run-finished``."""
    last = json.loads((run / "journal.jsonl").read_text().splitlines()[-1])["time"]
    began = datetime.fromisoformat(last.replace("Z", "+00:00")) + timedelta(seconds=60)

    def at(moment: datetime) -> str:
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    lines = [
        {"schemaVersion": 2, "event": "run-resumed", "time": at(began), "pid": 1},
        {"schemaVersion": 2, "event": "trial-started",
         "time": at(began + timedelta(seconds=seconds)), "case": "fix", "agent": "scripted",
         "condition": "default", "repeat": 2, "pid": 2},
    ]  # fmt: skip
    with (run / "journal.jsonl").open("a") as journal:
        journal.writelines(json.dumps(line) + "\n" for line in lines)


def test_report_counts_a_killed_resume_in_the_wall_time(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, other = two_runs(proctor, make_case, tmp_path)
    recorded = json.loads((run / "suite.json").read_text())["totals"]
    assert recorded["wallLowerBound"] is False
    _killed_resume(run, 5)
    spans = stretches(run / "journal.jsonl")
    assert len(spans) == 2 and spans[0].finished and not spans[1].finished
    report = proctor("report", str(run), "--json")
    totals = report.json()["totals"]
    # The run's stretch and the killed resume's 5 s (as a resume would count them), not the
    # stale suite.json's time, which leaves the resume out.
    assert spans[0].ms > 0 and abs(spans[0].ms - recorded["wallMs"]) < 2000
    assert totals["wallMs"] == pytest.approx(spans[0].ms + 5000, abs=1), totals
    assert totals["wallLowerBound"] is True
    markdown = proctor("report", str(run)).out
    from proctor.util.text import seconds_text

    # As the report writes it (its rule for seconds: two decimals, a half up), of the time it
    # counted: the test's own sum, formatted by Python's rounding, could fall on the other
    # side of a half (5.18 where the report rightly says 5.19).
    wall = f"{seconds_text(totals['wallMs'] / 1000)}s"
    assert (
        f"- Time: at least {wall} wall (a stretch that ran it was killed or runs still: counted "
        "to the last line it wrote in journal.jsonl); "
    ) in markdown, markdown

    # A run killed before it wrote suite.json: its journal's stretches, not "n/a".
    (run / "suite.json").unlink()
    alone = proctor("report", str(run), "--json").json()["totals"]
    assert alone["wallMs"] == pytest.approx(spans[0].ms + 5000, abs=1), alone
    assert alone["wallLowerBound"] is True

    # Read with another run: the sum of the two, a lower bound, each run's own listed.
    both = proctor("report", str(run), str(other), "--json").json()
    theirs = json.loads((other / "suite.json").read_text())["totals"]["wallMs"]
    assert both["totals"]["wallMs"] == pytest.approx(alone["wallMs"] + theirs, abs=1)
    assert both["totals"]["wallLowerBound"] is True
    listed = [(r["wallMs"], r["wallLowerBound"]) for r in both["pooledRuns"]["runs"]]
    assert listed == [(alone["wallMs"], True), (theirs, False)]
    pooled = proctor("report", str(run), str(other)).out
    assert "wall (the sum of the 2 runs'; a stretch that ran it was killed" in pooled, pooled


def test_a_run_without_a_journal_keeps_the_wall_time_of_its_suite_json(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    run, _ = two_runs(proctor, make_case, tmp_path)
    recorded = json.loads((run / "suite.json").read_text())["totals"]["wallMs"]
    (run / "journal.jsonl").unlink()
    totals = proctor("report", str(run), "--json").json()["totals"]
    assert totals["wallMs"] == recorded and totals["wallLowerBound"] is False


def test_the_viewer_tells_the_wall_time_report_does(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The runs list and the run page show the journal's wall time, marked as a lower bound,
    not the stale one of suite.json."""
    from starlette.testclient import TestClient

    from proctor.view import ViewSettings, build_app

    run, _ = two_runs(proctor, make_case, tmp_path)
    _killed_resume(run, 5)
    total = proctor("report", str(run), "--json").json()["totals"]["wallMs"]
    stale = json.loads((run / "suite.json").read_text())["totals"]["wallMs"]
    from proctor.util.text import seconds_text

    # As the viewer writes it (the reports' rule for seconds).
    shown, old = f"{seconds_text(total / 1000)} s", f"{seconds_text(stale / 1000)} s"
    assert shown != old
    with TestClient(build_app(ViewSettings(results=run.parent))) as client:
        runs = client.get("/").text
        told = (  # the tooltip: a run still running is a lower bound too
            '<span title="a stretch that ran it was killed or runs still: counted to the last '
            'line it wrote in journal.jsonl">'
        )
        assert f"{told}≥ </span>{shown}" in runs, runs
        page = client.get(f"/runs/{run.name}").text
        assert f"wall time {told}at least</span> {shown}" in page, page


def test_a_journal_that_is_no_file_leaves_the_wall_time_of_suite_json(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """A named pipe in the journal's place is not read (it would block the report until a
    writer came): the wall time is suite.json's, as for a run without a journal."""
    import os

    run, _ = two_runs(proctor, make_case, tmp_path)
    recorded = json.loads((run / "suite.json").read_text())["totals"]["wallMs"]
    (run / "journal.jsonl").unlink()
    os.mkfifo(run / "journal.jsonl")
    totals = proctor("report", str(run), "--json").json()["totals"]
    assert totals["wallMs"] == recorded and totals["wallLowerBound"] is False
