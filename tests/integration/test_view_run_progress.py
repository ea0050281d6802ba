"""The Run page of a run that has not run every trial it planned: how far a stopped run got,
in the words of its report's gate line; the trials it never started (or, in progress, not
yet), by case and linked; and the polls of a followed Run page, answered 304 when nothing
changed."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from proctor.models.io import read_record, write_record
from proctor.models.run import JournalEntry, MatrixCell, ResolvedRecord
from proctor.models.trial import TrialRecord
from proctor.paths import RunPaths
from proctor.report.recompute import recompute
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import end_trial, start_trial, write_run

RUN = "run-20261201T000000Z-stopped"


def _plan(paths: RunPaths, repeats: dict[str, int]) -> None:
    cells = [
        MatrixCell(case=case, agent="scripted", condition="default", repeat=r)
        for case, n in repeats.items()
        for r in range(1, n + 1)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    manifest = json.loads(paths.run_json.read_text())
    paths.run_json.write_text(json.dumps({**manifest, "trialsPlanned": len(cells)}))


def _stopped(results: Path, repeats: dict[str, int]) -> RunPaths:
    """A run of three trials (the third cut short by the stop) of the planned ``repeats``."""
    paths = write_run(results, RUN, trials=3, cases=1, events_per_trial=0)
    _plan(paths, repeats)
    trial = paths.trial("case-000", "scripted", "default", 3).trial_json
    record = read_record(trial, TrialRecord)
    cut = "interrupted: the run was stopped before this trial ended"
    update = {"status": "infra-error", "passed": None, "score": None, "reason": cut}
    write_record(trial, record.model_copy(update=update))
    manifest = json.loads(paths.run_json.read_text())
    paths.run_json.write_text(json.dumps({**manifest, "interrupted": True}))
    paths.suite_json.unlink()
    _, suite = recompute(paths.root, compact_records=True)  # as the stopped run wrote it
    assert suite is not None
    write_record(paths.suite_json, suite)
    paths.journal.unlink()  # nothing runs it any more
    return paths


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_a_stopped_run_counts_its_trials_as_its_report_s_gate_line_does(tmp_path: Path) -> None:
    """The page said "3 of 12 trials ran", counting the trial the stop cut short, where the
    report says "interrupted after 2 of 12 trials finished (1 cut short, …; 9 not started)"."""
    paths = _stopped(tmp_path, {"case-000": 8, "case-001": 4})
    _, suite = recompute(paths.root, compact_records=True)
    assert suite is not None
    said = suite.exit_reason.split("; of the finished ones")[0]
    assert said == (
        "interrupted after 2 of 12 trials finished (1 cut short, recorded as interrupted; "
        "9 not started)"
    )
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = _text(client.get(f"/runs/{RUN}").text)
    assert f"this run was {said}: `proctor run --resume {paths.root}` finishes it" in page


def test_the_runs_list_and_the_progress_line_count_the_trials_as_the_gate_line_does(
    tmp_path: Path,
) -> None:
    """Both said "3 of 12" (trials), the trial the stop cut short counted, beside the gate
    line's "interrupted after 2 of 12 trials finished (1 cut short, …)"."""
    _stopped(tmp_path, {"case-000": 8, "case-001": 4})
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        runs = _text(client.get("/").text)
        live = _text(client.get("/fragments/runs").text)
        page = _text(client.get(f"/runs/{RUN}").text)
        (listed,) = client.get("/api/runs").json()
    for shown in (runs, live):
        assert "2 of 12 (1 cut short)" in shown and "3 of 12" not in shown
    progress = "2 of 12 trials finished (1 cut short, recorded as interrupted), pass rate"
    assert progress in " ".join(page.split())
    assert "3 of 12" not in page
    assert (listed["trials"], listed["cutShort"], listed["planned"]) == (3, 1, 12)


def test_a_stopped_run_being_resumed_is_followed_as_a_run_in_progress(tmp_path: Path) -> None:
    """Its run.json keeps the stopped run's end, and its suite.json the exit 130, until the
    resume ends: the viewer took the run for stopped, followed nothing, and said to resume
    the run being resumed."""
    import os

    from proctor.models.run import JournalEntry
    from proctor.util.processes import process_start

    paths = _stopped(tmp_path, {"case-000": 8, "case-001": 4})
    pid = os.getpid()  # this process plays the resume's orchestrator
    lines = [
        JournalEntry(event="run-started", time="2026-12-01T00:00:00Z", pid=1, pid_start=1),
        JournalEntry(event="run-finished", time="2026-12-01T00:00:02Z", pid=1, pid_start=1),
        JournalEntry(event="run-resumed", time="2026-12-01T00:01:00Z", pid=pid,
                     pid_start=process_start(pid)),
    ]  # fmt: skip
    paths.journal.write_text("".join(e.model_dump_json(by_alias=True) + "\n" for e in lines))
    manifest = json.loads(paths.run_json.read_text())  # as the resume writes it, then its line
    paths.run_json.write_text(json.dumps({**manifest, "resumedAt": ["2026-12-01T01:00:00.000Z"]}))
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        # The page names the results folder, whose path may hold "130" (pytest-1130).
        runs = _text(client.get("/").text).replace(str(tmp_path), "RESULTS")
        page = _text(client.get(f"/runs/{RUN}").text).replace(str(tmp_path), "RESULTS")
        (listed,) = client.get("/api/runs").json()
    assert (listed["inProgress"], listed["exitCode"]) == (True, None)
    assert "running" in runs and "130" not in runs
    assert "running" in page and "Exit code 130" not in page
    assert "--resume" not in page and "interrupted after" not in page


def test_a_run_left_by_a_process_that_is_gone_counts_its_trials_as_its_report_does(
    tmp_path: Path,
) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0, finished=False)
    _plan(paths, {"case-000": 4})
    paths.journal.unlink()  # no orchestrator on record: nothing runs it any more
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = _text(client.get(f"/runs/{RUN}").text)
    said = "interrupted after 2 of 4 trials finished (2 not started)"
    assert f"{said}; of the finished ones" in page  # the gate line
    assert f"this run did not finish (the process that ran it is gone): {said}; " in page


def test_the_trials_a_stopped_run_never_started_are_listed_by_case(tmp_path: Path) -> None:
    """Nothing named the 17 trials that never started: they are listed (folded, being many),
    by case, each linked to its page, which says the run stopped before it started."""
    _stopped(tmp_path, {"case-000": 8, "case-001": 12})
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}").text
        listed = re.search(r'<div id="not-started">(.*?)</div>', page, re.S)
        assert listed is not None
        part = listed.group(1)
        assert "<details><summary>17 not started</summary>" in part  # folded: more than 10
        assert "case-000 (5): " in part and "case-001 (12): " in part
        links = re.findall(r'<a href="([^"]+)">([^<]+)</a>', part)
        keys = [key for _, key in links]
        assert keys == [
            *(f"case-000/scripted/default/{r}" for r in range(4, 9)),
            *(f"case-001/scripted/default/{r}" for r in range(1, 13)),
        ]
        assert links[0][0] == f"/runs/{RUN}/trials/case-000/scripted/default/4"
        trial = client.get(links[-1][0])
    assert f"Run {RUN} stopped before this trial started" in trial.text


def test_a_few_trials_not_started_are_listed_unfolded(tmp_path: Path) -> None:
    _stopped(tmp_path, {"case-000": 5})
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}").text
    assert "<details open><summary>2 not started</summary>" in page


def test_a_finished_run_lists_no_trial_as_not_started(tmp_path: Path) -> None:
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0)
    _plan(paths, {"case-000": 2})
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}").text
    assert "not-started" not in page


def _in_progress(results: Path) -> RunPaths:
    paths = write_run(results, RUN, trials=1, cases=1, events_per_trial=0, finished=False)
    _plan(paths, {"case-000": 3})
    return paths


def test_a_run_in_progress_lists_the_trials_not_started_yet(tmp_path: Path) -> None:
    paths = _in_progress(tmp_path)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        before = client.get(f"/fragments/runs/{RUN}").text
        paths.trial("case-000", "scripted", "default", 2).root.mkdir(parents=True)
        after = client.get(f"/fragments/runs/{RUN}").text
        trial = client.get(f"/runs/{RUN}/trials/case-000/scripted/default/3").text
    assert "<summary>2 not started yet</summary>" in before
    assert "case-000/scripted/default/2</a>, <a" in before
    assert "<summary>1 not started yet</summary>" in after  # the second one runs now
    assert 'id="running-now"' in after and 'id="running-now"' not in before
    assert "has not started yet" in trial


def test_an_unchanged_run_is_not_sent_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A followed Run page asked every two seconds, and each answer listed every trial's
    folder (the trials running now) and rendered the page's part again, though nothing had
    changed: it carries an ETag now, and an unchanged run is answered 304, with no body."""
    import proctor.view.index as index
    import proctor.view.routes.live as live
    import proctor.view.routes.run as run

    monkeypatch.setattr(index, "_REFRESH_EVERY_S", 0.0)  # each poll looks at the folder

    paths = _in_progress(tmp_path)
    scans: list[Path] = []
    renders: list[str] = []
    real_scan, real_render = run.running_trials, live.render
    monkeypatch.setattr(run, "running_trials", lambda d: scans.append(d) or real_scan(d))
    monkeypatch.setattr(
        live, "render", lambda *a, **k: renders.append(a[1]) or real_render(*a, **k)
    )
    url = f"/fragments/runs/{RUN}?case=case-000"
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        first = client.get(url)
        etag = first.headers["etag"]
        assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
        scans.clear()
        renders.clear()
        again = client.get(url, headers={"if-none-match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        assert scans == [] and renders == []  # no folder listed, nothing rendered
        other = client.get(f"/fragments/runs/{RUN}", headers={"if-none-match": etag})
        assert other.status_code == 200  # another filter is another page
        # A trial started (its folder made, then its journal line): the page changed.
        start_trial(paths, "case-000", 2)
        started = client.get(url, headers={"if-none-match": etag})
        assert started.status_code == 200 and 'id="running-now"' in started.text
        etag = started.headers["etag"]
        trial = f"/fragments/runs/{RUN}/trials/case-000/scripted/default/2?shown=running&page=1"
        followed = client.get(trial)
        assert "still running" in followed.text
        # It ended as the executor ends one: its trial.json, then its journal line; nothing
        # else of the run is written (run.json is, at the run's end).
        run_json = paths.run_json.read_bytes()
        end_trial(paths, "case-000", 2)
        assert paths.run_json.read_bytes() == run_json
        ended = client.get(url, headers={"if-none-match": etag})
        assert ended.status_code == 200 and 'id="running-now"' not in ended.text
        assert "case-000/scripted/default/2" in ended.text  # listed among the trials now
        again = client.get(url, headers={"if-none-match": ended.headers["etag"]})
        assert again.status_code == 304
        # The Trial page following it sees it ended, and loads again.
        over = client.get(trial, headers={"if-none-match": followed.headers["etag"]})
    assert over.status_code == 200 and "The trial has ended" in over.text
    assert 'data-reload="1"' in over.text


def test_the_ab_panel_counts_the_incomplete_pairs_as_the_report_does(tmp_path: Path) -> None:
    """The A/B panel of a stopped run said "(2 complete pairs)" only, where the report says
    "Pairs: 2 complete, 1 incomplete" and counts a case's incomplete pairs."""
    from proctor.report.ab.markdown import render_ab_markdown

    paths = write_run(
        tmp_path, RUN, trials=4, cases=1, conditions=("baseline", "with-skill"), events_per_trial=0
    )
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition=c, repeat=r)
        for r in (1, 2, 3)
        for c in ("baseline", "with-skill")
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    manifest = json.loads(paths.run_json.read_text())
    paths.run_json.write_text(json.dumps({**manifest, "interrupted": True, "trialsPlanned": 6}))
    paths.suite_json.unlink()
    _, suite = recompute(paths.root, compact_records=True)
    assert suite is not None and suite.ab is not None
    write_record(paths.suite_json, suite)
    assert "- Pairs: 2 complete, 1 incomplete " in render_ab_markdown(suite.ab)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/runs/{RUN}").text
    assert "vs baseline (2 complete pairs, 1 incomplete)</h2>" in page
    row = re.search(r"<tr><td>case-000</td><td>scripted</td>(.*?)</tr>", page)
    assert row is not None
    cells_shown = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
    assert cells_shown[:2] == ["2", "1"]  # pairs, incomplete


def test_a_run_killed_whole_counts_the_trials_it_started_and_never_recorded(
    tmp_path: Path,
) -> None:
    """A run killed with its workers (`kill -9 -- -PGID`): a trial its journal says started
    and that left no record is counted as such, as `proctor report` counts it, not as one
    never started."""
    paths = write_run(tmp_path, RUN, trials=2, cases=1, events_per_trial=0, finished=False)
    _plan(paths, {"case-000": 4})
    started = JournalEntry(
        event="trial-started",
        time="2026-12-01T00:00:01Z",
        case="case-000",
        agent="scripted",
        condition="default",
        repeat=3,
    )  # and no run-started line: no orchestrator on record, nothing runs it any more
    paths.journal.write_text(started.model_dump_json(by_alias=True) + "\n")
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        raw = client.get(f"/runs/{RUN}").text
    page = _text(raw)
    listed = re.search(r'<div id="not-started">(.*?)</div>', raw, re.S)
    assert listed is not None and "case-000/scripted/default/4" in listed.group(1)
    assert "case-000/scripted/default/3" not in listed.group(1)
    said = "interrupted after 2 of 4 trials finished (1 started but never recorded; 1 not started)"
    assert f"{said}; of the finished ones" in page  # the gate line, as the report reads it
    assert f"this run did not finish (the process that ran it is gone): {said}; " in page
    _, suite = recompute(paths.root, compact_records=True)
    assert suite is not None and suite.exit_reason.startswith(said)


def test_a_run_without_its_run_json_reads_as_its_report_reads_it(tmp_path: Path) -> None:
    """Stopped (its journal's process gone, no end written): exit 130, and no resume offered,
    which needs the run.json; still running (its journal's process runs): in progress."""
    import os
    import shutil

    from proctor.util.processes import process_start

    example = Path(__file__).resolve().parents[1] / "fixtures" / "results-v1" / "example-suite"
    run = tmp_path / RUN
    shutil.copytree(example, run)
    (run / "run.json").unlink()
    (run / "suite.json").unlink()

    def started_by(pid: int, pid_start: int | None) -> None:
        line = JournalEntry(
            event="run-started", time="2026-12-01T00:00:00Z", pid=pid, pid_start=pid_start
        )
        (run / "journal.jsonl").write_text(line.model_dump_json(by_alias=True) + "\n")

    started_by(1, 1)
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = _text(client.get(f"/runs/{RUN}").text)
        (listed,) = client.get("/api/runs").json()
    assert listed["inProgress"] is False
    assert "Exit code 130: interrupted after 17 trials finished" in page
    assert "cannot finish it: start a new run instead" in page
    assert f"--resume {run}" not in page
    started_by(os.getpid(), process_start(os.getpid()))
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = _text(client.get(f"/runs/{RUN}").text)
        (listed,) = client.get("/api/runs").json()
    assert listed["inProgress"] is True and "Exit code 130" not in page


def test_compare_of_a_stopped_ab_run_counts_its_never_started_repeats_as_incomplete(
    tmp_path: Path,
) -> None:
    """`proctor compare RUN` of an A/B run stopped after two of its four repeats says "Pairs:
    2 complete, 2 incomplete"; its Compare page said "(2
    complete pairs)" and counted no incomplete pair for the case: it read the trials, not
    the run's plan."""
    from proctor.report.ab.markdown import render_ab_markdown
    from proctor.report.ab.runs import compare_conditions
    from proctor.report.planned import planned_cells
    from proctor.report.trial_records import load_records

    paths = write_run(tmp_path, RUN, trials=4, cases=1, conditions=("a", "b"), events_per_trial=0)
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition=c, repeat=r)
        for c in ("a", "b")
        for r in range(1, 5)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    manifest = json.loads(paths.run_json.read_text())
    stopped = {**manifest, "trialsPlanned": len(cells), "interrupted": True}
    paths.run_json.write_text(json.dumps(stopped))
    paths.journal.unlink()  # nothing runs it any more
    cli = render_ab_markdown(
        compare_conditions(load_records(paths.root), "b", "a", planned=planned_cells(paths.root))
    )
    assert "Pairs: 2 complete, 2 incomplete" in cli
    with TestClient(build_app(ViewSettings(results=tmp_path))) as client:
        page = client.get(f"/compare?run={RUN}&treatment=b&baseline=a").text
    assert f"{RUN}: b against a (2 complete pairs, 2 incomplete)</h2>" in page
    assert '<td data-label="pairs" class="short num">2 (+2 incomplete)</td>' in page
