"""The Run page's figures and task rules when there is little to show: a figure with no data
says so in place of empty axes, an excluded trial is no point of "Cost against success", task
rules with no task to judge say why; and the viewer answers ``/favicon.ico``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from starlette.testclient import TestClient

from proctor.models.io import write_record
from proctor.models.run import AnnotationsRecord
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import NOT_EVALUATED, TrialAnnotation, TrialRecord
from proctor.paths import RunPaths
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import aggregate_of, trial_record, write_run


def _page(results: Path, url: str) -> str:
    with TestClient(build_app(ViewSettings(results=results))) as client:
        response = client.get(url)
    assert response.status_code == 200, response.text
    return response.text


def _run(results: Path, statuses: list[str], *, finished: bool = True) -> RunPaths:
    """A run "run-a" of one case whose trials end in ``statuses``, each with tokens of a
    model; a finished run has its suite.json, an unfinished one was killed (no orchestrator)."""
    paths = write_run(
        results, "run-a", trials=len(statuses), cases=1, events_per_trial=0, suite=False
    )
    records: list[TrialRecord] = []
    for repeat, status in enumerate(statuses, start=1):
        record = trial_record("case-000", "scripted", "default", repeat, status=status)
        update: dict[str, object] = {"usage": {"m": ModelUsage(input_tokens=100 * repeat)}}
        if status == "skipped":
            update["reason"] = NOT_EVALUATED
        record = record.model_copy(update=update)
        write_record(paths.trial("case-000", "scripted", "default", repeat).trial_json, record)
        records.append(record)
    if finished:
        write_record(paths.suite_json, aggregate_of(records, "run-a"))
    else:
        manifest = json.loads(paths.run_json.read_text())
        paths.run_json.write_text(json.dumps({**manifest, "finishedAt": None}))
        paths.journal.unlink()  # nothing runs it any more
    return paths


def _figures(page: str) -> dict[str, object]:
    found = re.search(r'id="figures-data">(.*?)</script>', page, re.S)
    assert found
    data: dict[str, object] = json.loads(found.group(1))
    return data


def _figure(page: str, title: str) -> str:
    start = page.index(f"<h3>{title}</h3>")
    return page[start : page.index("</div>", start)]


def test_a_figure_with_no_data_says_so_instead_of_drawing_empty_axes(tmp_path: Path) -> None:
    # A --no-evaluate run: every trial skipped, none scored.
    _run(tmp_path / "results", ["skipped", "skipped"])
    page = _page(tmp_path / "results", "/runs/run-a")
    scores = _figure(page, "Score per trial, by group")
    assert "<canvas" not in scores and "No data: no trial has a score" in scores
    cost = _figure(page, "Cost against success")
    assert "<canvas" not in cost and "No data: every trial was skipped" in cost
    phases = _figure(page, "Time per phase: agent and harness")
    assert "<canvas" not in phases and "No data: every trial was skipped" in phases
    assert '<canvas id="fig-tokens"' in page  # control: its tokens were recorded


def test_a_killed_run_s_figures_without_data_say_so(tmp_path: Path) -> None:
    # Every trial timed out, and the run was killed before it wrote suite.json.
    paths = _run(tmp_path / "results", ["timeout", "timeout", "timeout"], finished=False)
    for repeat in (1, 2, 3):  # killed: no usage on record
        trial = paths.trial("case-000", "scripted", "default", repeat).trial_json
        record = json.loads(trial.read_text())
        trial.write_text(json.dumps({**record, "usage": {}}))
    page = _page(tmp_path / "results", "/runs/run-a")
    assert "did not finish" in page  # control: read as killed
    tokens = _figure(page, "Tokens per model")
    assert "<canvas" not in tokens and "No data: no model&#39;s tokens were recorded" in tokens
    ranges = _figure(page, "Repeated runs: the agent&#39;s elapsed time")
    assert "<canvas" not in ranges and "No data: no group has a scored trial" in ranges
    assert '<canvas id="fig-scores"' in page  # control: a timeout has its score


def test_task_rules_with_no_task_say_why_rather_than_0_of_0(tmp_path: Path) -> None:
    _run(tmp_path / "results", ["timeout", "timeout"])
    page = _page(tmp_path / "results", "/runs/run-a")
    start = page.index('<h2 id="rules">')
    rules = page[start : page.index("</section>", start)]
    assert "0 of 0 tasks" not in rules
    assert "No task to judge: the task rules judge only a trial whose agent changed code" in rules
    assert "none of this run's 2 trials did (2 timeout)" in rules


def test_an_excluded_trial_is_no_point_of_cost_against_success(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = _run(results, ["passed", "failed", "passed"])
    marks = AnnotationsRecord(
        annotations=[
            TrialAnnotation(
                trial="case-000/scripted/default/2", verdict="excluded", note="flaky box", at="x"
            )
        ]
    )
    write_record(paths.annotations, marks)
    older = paths.annotations.stat().st_mtime - 10
    os.utime(paths.suite_json, (older, older))  # the marks came after the aggregate
    page = _page(results, "/runs/run-a")
    assert "annotated excluded: flaky box" in page  # control: the mark is applied
    points = _figures(page)["costSuccess"]
    assert isinstance(points, list)
    assert [(p["status"], p["y"]) for p in points] == [("passed", 1), ("passed", 1)]
    assert "a skipped or excluded trial is no sample and is left out" in page
    # Nor is its time part of "Time per phase": the bar sums trials 1 and 3 only.
    phases = _figures(page)["phases"]
    assert isinstance(phases, dict)
    every = sum(
        json.loads(paths.trial("case-000", "scripted", "default", r).trial_json.read_text())[
            "timings"
        ]["agentMs"]
        for r in (1, 3)
    )
    assert phases["agent"] == [every / 1000]
    caption = _figure(page, "Time per phase: agent and harness")
    assert "a skipped or excluded trial is no sample and is left out" in caption


def test_the_viewer_answers_favicon_ico(tmp_path: Path) -> None:
    """A file served as plain text is no page naming an icon: the browser asks for
    /favicon.ico, which was a 404 and a console error."""
    write_run(tmp_path / "results", "run-a", trials=1, cases=1, events_per_trial=0)
    with TestClient(build_app(ViewSettings(results=tmp_path / "results"))) as client:
        served = client.get("/runs/run-a/files/run.json")
        icon = client.get("/favicon.ico")
    assert served.status_code == 200 and served.headers["content-type"].startswith("text/plain")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
    assert icon.content[:4] == b"\0\0\1\0" and len(icon.content) > 22  # an ICO of one image


def test_pass_at_k_with_no_scored_trial_says_so_and_one_condition_offers_no_comparison(
    tmp_path: Path,
) -> None:
    """A --no-evaluate run: pass@k was a table of group names and no number, and the run's
    summary offered to compare its conditions, a page saying it has fewer than two."""
    _run(tmp_path / "results", ["skipped", "skipped"])
    page = _page(tmp_path / "results", "/runs/run-a")
    start = page.index('<section id="passk">')
    passk = page[start : page.index('<h2 id="rules">', start)]
    assert "<table" not in passk
    assert "No data: pass@k and pass^k are estimated from a group's scored trials" in passk
    assert "compare its conditions" not in page
    write_run(tmp_path / "ab", "run-b", trials=4, cases=1, conditions=("a", "b"))
    two = _page(tmp_path / "ab", "/runs/run-b")
    assert '<a href="/compare?run=run-b">compare its conditions</a>' in two  # control
    assert 'id="passk-none"' not in two and "pass@1" in two


def test_each_time_says_which_time_it_is(tmp_path: Path) -> None:
    """The matrix's median and the trials table's time are the trial time (total_ms); the
    ranges figure plots the agent's elapsed time of the statistics, and says it is another
    measure (it pointed to the matrix's "median time" as if it were its own). A transcript
    with no time span (its events at one instant) is no trial of 0 s there: the agent time
    stands in."""
    results = tmp_path / "results"
    paths = _run(results, ["passed", "passed"])
    records = []
    for repeat in (1, 2):
        trial = paths.trial("case-000", "scripted", "default", repeat).trial_json
        data = json.loads(trial.read_text())
        data["process"] = {"effort": {"elapsedSeconds": 0.0}}
        data["timings"]["agentMs"] = 700.0 + 100 * repeat
        record = TrialRecord.model_validate(data)
        write_record(trial, record)
        records.append(record)
    write_record(paths.suite_json, aggregate_of(records, "run-a"))
    page = _page(results, "/runs/run-a")
    assert ">median trial time</th>" in page and ">trial time</th>" in page
    ranges = _figure(page, "Repeated runs: the agent&#39;s elapsed time")
    assert "It is not the trial time of the" in ranges
    assert "each group&#39;s median time" not in ranges.lower()
    (shown,) = _figures(page)["ranges"]  # type: ignore[misc]
    assert (shown["min"], shown["max"]) == (0.8, 0.9), shown


def test_the_compare_page_names_its_figures_as_the_markdown_report_does(tmp_path: Path) -> None:
    """Compare's figures read "median elapsed (s): …", as ``proctor compare`` names them, not
    by their JSON keys (``elapsedSeconds: …``)."""
    write_run(tmp_path, "run-b", trials=4, cases=1, conditions=("a", "b"))
    page = _page(tmp_path, "/compare?run=run-b&treatment=b&baseline=a")
    assert 'id="compare-table"' in page
    assert "median elapsed (s): " in page and "pass rate: " in page
    assert "elapsedSeconds" not in page and "passRate" not in page


def test_the_compare_page_never_shows_a_claimed_interval_reaching_zero(tmp_path: Path) -> None:
    """Six repeats, condition b passing all six, a three (pairs a=3, b=3): the pass rate's
    interval is [0.0000556, 0.812]; at three decimals its lower bound read `0.000`, an interval
    that seemed to reach the 0 it excludes. Its 3 discordant pairs are p = 0.25 by McNemar's
    exact test, and the figure says so beside the interval."""
    paths = write_run(tmp_path, "run-b", trials=12, cases=1, conditions=("a", "b"), suite=False)
    for repeat in range(1, 7):
        for condition, passed in (("b", True), ("a", repeat <= 3)):
            status = "passed" if passed else "failed"
            record = trial_record("case-000", "scripted", condition, repeat, status=status)
            write_record(paths.trial("case-000", "scripted", condition, repeat).trial_json, record)
    page = _page(tmp_path, "/compare?run=run-b&treatment=b&baseline=a")
    assert (
        "pass rate: 50% → 100% (+50 pts, CI [+0.006, +81] pts; exact test p = 0.25: no claim)"
    ) in page
    # A difference of 0 carries no sign, as in every report (not +0).
    assert "median tool calls: 3 → 3 (0, CI [0, 0])" in page, page


def test_the_compare_page_gives_each_groups_figures_as_proctor_compare_prints_them(
    tmp_path: Path,
) -> None:
    """A group's figures read as ``proctor compare`` prints their kind: a rate in percent and
    points, seconds with two decimals, a count whole with a thousands separator; not every
    figure as a fraction with three decimals (``pass rate: 0.667 → 1.000``, ``median tokens:
    2749.000 → 956.000``); an interval that excludes 0 without the exact test's agreement
    says so (3 trials against 3: p = 0.1 by the rank-sum test)."""
    write_run(tmp_path, "run-a", trials=3, cases=1)
    paths = write_run(tmp_path, "run-b", trials=3, cases=1)
    for repeat in range(1, 4):
        record = trial_record("case-000", "scripted", "default", repeat, status="passed")
        record.usage = {"m": ModelUsage(input_tokens=2000, output_tokens=749)}
        write_record(paths.trial("case-000", "scripted", "default", repeat).trial_json, record)
    page = _page(tmp_path, "/compare?a=run-a&b=run-b")
    figures = re.findall(r'<div class="small">([^<]*)</div>', page)
    assert "pass rate: 67% → 100% (+33 pts, CI [-29, +79] pts)" in figures, figures
    assert "median elapsed (s): 0.80 → 0.80 (0.00, CI [0.00, 0.00])" in figures, figures
    tokens = "median tokens: 0 → 2,749 (+2,749, CI [+2,749, +2,749]; exact test p = 0.1: no claim)"
    assert tokens in figures, figures
    assert not [f for f in figures if ".000" in f], figures


def test_a_trial_a_stop_cut_short_is_left_out_of_cost_against_success(tmp_path: Path) -> None:
    """An interrupted trial is no "not passed" point: it is left out, and the caption says so."""
    results = tmp_path / "results"
    paths = _run(results, ["passed", "failed"])
    trial = paths.trial("case-000", "scripted", "default", 2).trial_json
    record = json.loads(trial.read_text())
    record.update(status="infra-error", reason="interrupted: the run was stopped")
    trial.write_text(json.dumps(record))
    older = trial.stat().st_mtime - 10
    os.utime(paths.suite_json, (older, older))
    page = _page(results, "/runs/run-a")
    points = _figures(page)["costSuccess"]
    assert isinstance(points, list)
    assert [(p["status"], p["y"]) for p in points] == [("passed", 1)]
    caption = _figure(page, "Cost against success")
    assert "and so is the trial a stop cut short (interrupted)" in caption
