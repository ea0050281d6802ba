"""The Run page of a run whose ``resolved.json`` (its plan) does not read: it says so, naming
the file and why, where the trials not started would be listed, as ``proctor compare``, the
Compare page and the Trial page say it; the rest of the page is shown."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from proctor.models.io import write_record
from proctor.models.run import MatrixCell, ResolvedRecord
from proctor.paths import RunPaths
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import write_run

RUN = "run-20261201T000000Z-unplanned"
UNREAD = ['{"schemaVersion": 99}', "not json"]


def _planned(paths: RunPaths, repeats: int, text: str) -> None:
    """The run planned ``repeats`` trials of ``case-000`` (its run.json says so), and its
    ``resolved.json`` reads as ``text``."""
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r)
        for r in range(1, repeats + 1)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    manifest = json.loads(paths.run_json.read_text())
    paths.run_json.write_text(json.dumps({**manifest, "trialsPlanned": len(cells)}))
    paths.resolved_json.write_text(text)


def _said(page: str) -> str:
    """What the page says of the run's plan, its tags left out."""
    found = re.search(r'<p id="plan-unread"[^>]*>(.*?)</p>', page, re.S)
    assert found is not None, "the page says nothing of the run's plan"
    return html.unescape(found.group(1))


@pytest.mark.parametrize("text", UNREAD)
def test_a_run_in_progress_says_its_plan_does_not_read(tmp_path: Path, text: str) -> None:
    """Its "not started yet" list was empty, as if no trial were left to run."""
    paths = write_run(tmp_path, RUN, trials=1, cases=1, events_per_trial=0, finished=False)
    _planned(paths, 3, text)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}")
        live = client.get(f"/fragments/runs/{RUN}")
    assert page.status_code == live.status_code == 200
    said = _said(page.text)
    assert said.startswith(f"{paths.resolved_json}: ")
    assert "it holds the run's plan" in said and "not started yet are not listed" in said
    assert _said(live.text) == said
    assert 'id="not-started"' not in page.text
    assert "case-000/scripted/default/1" in page.text  # its trial that ended is listed


@pytest.mark.parametrize("text", UNREAD)
def test_a_finished_run_says_its_plan_does_not_read(tmp_path: Path, text: str) -> None:
    """Its suite.json's exit reason was all the page said."""
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0)
    _planned(paths, 2, text)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}")
    assert page.status_code == 200 and "Exit code" in page.text
    said = _said(page.text)
    assert said.startswith(f"{paths.resolved_json}: ")
    assert "it holds the run's plan" in said and "nor counted as infra-errors" in said


def test_a_finished_run_without_its_suite_json_says_it_once(tmp_path: Path) -> None:
    """The index notes the plan in the reason of a run with no suite.json: the page says it
    where the trials not started would be listed, not twice."""
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0, suite=False)
    _planned(paths, 2, "not json")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}")
    assert page.status_code == 200
    _said(page.text)
    assert html.unescape(page.text).count(f"{paths.resolved_json}: ") == 1


def test_a_stopped_run_says_its_plan_does_not_read(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0, finished=False)
    _planned(paths, 4, "not json")
    paths.journal.unlink()  # nothing runs it any more
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}")
    assert page.status_code == 200
    said = _said(page.text)
    assert "it holds the run's plan" in said and "never started are not listed" in said
    assert "this run did not finish" in html.unescape(page.text)
