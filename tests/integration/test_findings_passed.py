"""A dismissed finding whose check passes: the run's line on stderr, every report of the run
and ``proctor findings`` say so, since the finding's next failure reopens it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.conftest import MakeCase, Run
from tests.integration.test_findings_cli import (
    FAILING,
    ID,
    PASSING,
    junit_findings,
    run_reporting,
)


def test_a_run_that_passes_a_dismissed_finding_s_check_says_so_everywhere(
    proctor: Run, make_case: MakeCase, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "out"
    run_reporting(proctor, make_case, tmp_path, FAILING)
    assert proctor("findings", "dismiss", ID, "--reason", "flaky", "--dir", str(out)).code == 0
    with caplog.at_level(logging.WARNING, logger="proctor"):
        run = run_reporting(proctor, make_case, tmp_path, PASSING)
    assert (
        "proctor: findings: 1 passed while dismissed: its next failure reopens it "
        f"(`proctor findings {out} --all` lists them)"
    ) in caplog.text
    passed = {"event": "passed", "id": ID, "case": "hello", "agent": "scripted"}
    passed |= {"condition": "default", "check": "file-exists"}
    assert json.loads((run / "suite.json").read_text())["findings"] == [passed]
    markdown = (run / "suite.md").read_text()
    assert f"| passed while dismissed | `{ID}` | hello / scripted / default |" in markdown
    note = "A dismissed finding whose check passed stays dismissed: its next failure reopens it."
    assert note in markdown
    assert junit_findings((run / "junit.xml").read_text()) == {
        f"finding {ID}": "passed while dismissed: file-exists"
    }
    page = (run / "report.html").read_text()
    assert "<td>passed while dismissed</td>" in page and note in page
    assert proctor("report", str(run), "--reporter", "json").json()["findings"] == [passed]
    # `proctor findings` lists open findings only, and names the dismissed one that passed.
    listed = proctor("findings", str(out))
    assert listed.code == 0
    assert listed.out == (
        f"no open findings in {out} (2 runs applied)\n\n"
        f"1 dismissed finding ({ID}) has passed since it was dismissed: its next failure "
        f"reopens it (`proctor findings {out} --all` lists it).\n"
    )
    assert "has passed since" not in proctor("findings", str(out), "--all").out  # the state says
    # Control: the failure that reopens it is said as a reopening, and the note goes.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="proctor"):
        again = run_reporting(proctor, make_case, tmp_path, FAILING)
    assert f"proctor: findings: 1 reopened (`proctor findings {out}` lists them)" in caplog.text
    assert json.loads((again / "suite.json").read_text())["findings"] == [
        passed | {"event": "reopened"}
    ]
    assert "has passed since" not in proctor("findings", str(out)).out
