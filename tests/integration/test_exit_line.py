"""The run's exit line, ``Exit code N: REASON.``, ends in a full stop alike in the Markdown
report, the HTML report and the viewer's Run page, whatever the reason ends in."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

from proctor.models.config import ABGate, Gate
from proctor.models.io import write_record
from proctor.models.trial import TrialRecord
from proctor.report.aggregate import aggregate
from proctor.report.html import render_html
from proctor.report.markdown import render_markdown
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import write_run

RUN = "run-20261201T000000Z-ab"


def _record(condition: str, repeat: int) -> TrialRecord:
    return TrialRecord(
        case="c", agent="s", condition=condition, repeat=repeat, status="passed", passed=True
    )


def test_the_exit_line_ends_in_a_full_stop_in_markdown_html_and_the_viewer(
    tmp_path: Path,
) -> None:
    """Markdown wrote `…: 1 incomplete pair left out.`; the HTML report and the viewer left
    its full stop off (the viewer off every reason): all three end the line in one."""
    records = [_record(side, n) for side in ("t", "b") for n in (1, 2, 3)] + [_record("t", 4)]
    gate = Gate(ab=ABGate(treatment="t", baseline="b"))
    suite = aggregate(records, gate, run_id=RUN)
    assert suite.exit_reason.endswith("1 incomplete pair left out")  # the case in point
    reason = suite.exit_reason
    assert f"): {reason}.\n" in render_markdown(suite, records)
    line = f"Exit code <strong>{suite.exit_code}</strong>: {reason}.</p>"
    assert line in render_html(suite, records, folders={})
    results = tmp_path / "results"
    paths = write_run(results, RUN, trials=1, cases=1)
    with TestClient(build_app(ViewSettings(results=results))) as client:
        page = client.get(f"/runs/{RUN}").text
        assert re.search(r"Exit code <strong>\d+</strong>: [^<]*[^.]\.</p>", page), page
        write_record(paths.suite_json, suite)
        assert line in client.get(f"/runs/{RUN}").text
