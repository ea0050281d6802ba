"""The Run page agrees with ``proctor report``: the marks of ``proctor annotate``, medians over
the scored trials, a status filter that narrows only the trials table, and page numbers kept
within the pages there are."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from proctor.models.io import read_record, write_record
from proctor.models.run import RunManifest
from proctor.models.trajectory import ModelUsage
from proctor.models.trial import EvaluatorResult, TrialRecord
from proctor.paths import RunPaths
from proctor.view import ViewSettings, build_app
from proctor.view.synthetic import aggregate_of, trial_record, write_run
from tests.conftest import Run

EXAMPLES = Path(__file__).parents[2] / "examples" / "cases"


def _page(results: Path, url: str) -> str:
    with TestClient(build_app(ViewSettings(results=results))) as client:
        response = client.get(url)
    assert response.status_code == 200, response.text
    return response.text


def _matrix_row(page: str, case: str) -> str:
    return re.search(rf'<tr class="outcome-\w+" data-case="{case}">(.*?)</tr>', page, re.S).group(1)  # type: ignore[union-attr]


def _cells(row: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    ]


def _fix_a_bug_run(tmp_path: Path, *options: str) -> tuple[Path, Path]:
    """The example suite's fix-a-bug case run by a proctor of its own (with ``options``):
    the results folder and the run folder."""
    results = tmp_path / "results"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "proctor", "run", "--source", str(EXAMPLES)),
            *("--case", "fix-a-bug", *options, "--out", str(results)),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (run_dir,) = results.glob("run-*")
    return results, run_dir


def test_the_run_page_applies_the_marks_of_annotate_as_report_does(
    proctor: Run, tmp_path: Path
) -> None:
    results, run_dir = _fix_a_bug_run(tmp_path)
    before = _page(results, f"/runs/{run_dir.name}")
    assert "Exit code <strong>0</strong>" in before  # control: the run passed its gate
    assert '<section id="findings">' in before  # the ledger took the run in

    mark = ("annotate", str(run_dir), "fix-a-bug/scripted/default/1", "--verdict", "failed")
    assert proctor(*mark, "--note", "cheated").code == 0
    report = proctor("report", str(run_dir), "--reporter", "json")
    assert report.code == 1
    page = _page(results, f"/runs/{run_dir.name}")
    assert "Exit code <strong>1</strong>" in page
    (group,) = json.loads(report.out)["groups"]
    assert group["stability"] != "stable-pass" and not group["gatePassed"]  # control
    cells = _cells(_matrix_row(page, "fix-a-bug"))
    assert (cells[4], cells[-1]) == (group["stability"], "failed")  # stability and gate
    assert "annotated failed: cheated" in page  # the trials table, as before
    assert '<section id="findings">' in page  # the marks change nothing the ledger holds


def test_matrix_medians_leave_out_trials_in_an_error_status(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=2, cases=1, events_per_trial=0, suite=False)
    records = []
    for repeat, status, calls, tokens in ((1, "passed", 2, 144), (2, "infra-error", 0, 0)):
        record = trial_record("case-000", "scripted", "default", repeat, status=status)
        record = record.model_copy(
            update={"tool_calls": calls, "usage": {"m": ModelUsage(input_tokens=tokens)}}
        )
        write_record(paths.trial("case-000", "scripted", "default", repeat).trial_json, record)
        records.append(record)
    write_record(paths.suite_json, aggregate_of(records, "run-a"))
    cells = _cells(_matrix_row(_page(results, "/runs/run-a"), "case-000"))
    steps, tokens = cells[7], cells[8]
    assert (steps, tokens) == ("2", "144")


def test_matrix_medians_of_counts_read_as_proctor_report_shows_them(tmp_path: Path) -> None:
    """A median between two counts (an even number of trials) keeps its half, as the report's
    statistics table shows it: the matrix rounded 1527.5 to 1528 (and 2.5 steps held)."""
    from proctor.report.markdown import render_markdown

    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=4, cases=1, events_per_trial=0, suite=False)
    records = []
    for repeat, calls, tokens in ((1, 2, 1527), (2, 2, 1527), (3, 3, 1528), (4, 3, 1528)):
        record = trial_record("case-000", "scripted", "default", repeat)
        record = record.model_copy(
            update={"tool_calls": calls, "usage": {"m": ModelUsage(input_tokens=tokens)}}
        )
        write_record(paths.trial("case-000", "scripted", "default", repeat).trial_json, record)
        records.append(record)
    suite = aggregate_of(records, "run-a")
    write_record(paths.suite_json, suite)
    cells = _cells(_matrix_row(_page(results, "/runs/run-a"), "case-000"))
    assert (cells[7], cells[8]) == ("2.5", "1,527.5")
    report = render_markdown(suite, records)
    assert "| 2.5 (2–3) | 1,527.5 (1,527–1,528) |" in report


def test_a_group_with_no_scored_trial_has_no_verdict_on_the_run_page(tmp_path: Path) -> None:
    """Its trials' errors are exit 3, no failed gate: the Gate section and the matrix say it
    has no verdict, where they listed its minPassRate 'n/a < 1' as failed; a gate evaluator
    that failed in an error trial (exit 1) is named as a failure."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1, events_per_trial=0, suite=False)
    records = []
    for case, status in (("case-000", "passed"), ("case-001", "agent-error")):
        record = trial_record(case, "scripted", "default", 1, status=status)
        write_record(paths.trial(case, "scripted", "default", 1).trial_json, record)
        records.append(record)
    write_record(paths.suite_json, aggregate_of(records, "run-a"))
    page = _page(results, "/runs/run-a")
    gate = page[page.index('<section id="gate">') : page.index('<section id="matrix">')]
    assert "Exit code <strong>3</strong>" in gate
    # The thresholds applied are the Gate line's; no failed check lists them.
    assert '<p class="gate-line">Gate: minPassRate 1.0</p>' in gate
    checks = gate.replace('<p class="gate-line">Gate: minPassRate 1.0</p>', "")
    assert "no verdict (no scored trial: 1 in error)" in gate and "minPassRate" not in checks
    assert _cells(_matrix_row(page, "case-001"))[-1] == "no verdict"
    assert _cells(_matrix_row(page, "case-000"))[-1] == "passed"  # control

    failed = records[1].model_copy(update={"status": "eval-error"})
    failed.evaluators = [EvaluatorResult(use="command", passed=False, score=0, gate=True)]
    write_record(paths.trial("case-001", "scripted", "default", 1).trial_json, failed)
    write_record(paths.suite_json, aggregate_of([records[0], failed], "run-a"))
    page = _page(results, "/runs/run-a")
    gate = page[page.index('<section id="gate">') : page.index('<section id="matrix">')]
    assert "Exit code <strong>1</strong>" in gate
    assert "failed</strong>: a gate evaluator failed in 1 trial that then ended in an" in gate
    assert _cells(_matrix_row(page, "case-001"))[-1] == "failed"


def test_a_status_filter_narrows_the_trials_table_not_the_statistics(tmp_path: Path) -> None:
    results = tmp_path / "results"
    # passed, passed, failed, passed, timeout, agent-error: 3 of 5 scored trials passed
    write_run(results, "run-a", trials=6, cases=1, events_per_trial=0)
    whole = _cells(_matrix_row(_page(results, "/runs/run-a"), "case-000"))
    page = _page(results, "/runs/run-a?status=passed")
    assert _cells(_matrix_row(page, "case-000")) == whole
    assert "(3/5)" in whole[3] and whole[4] == "flaky"
    figures = json.loads(
        re.search(r'id="figures-data">(.*?)</script>', page, re.S).group(1)  # type: ignore[union-attr]
    )
    assert len(figures["costSuccess"]) == 6  # every trial of the run
    table = page[page.index('<section id="trials">') :]
    assert table.count("/trials/case-000/") == 3 and "Trials (3 passed of 6)" in table
    assert "agent-error" in page[: page.index('<section id="trials">')]  # error statuses stay


def test_a_page_number_past_the_last_shows_the_last_page(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_run(results, "run-a", trials=150, cases=1, events_per_trial=0)
    page = _page(results, "/runs/run-a?tpage=99")
    assert "page 2 of 2" in page and "page 99" not in page
    table = page[page.index('<section id="trials">') :]
    assert table.count('<tr><td><a href="/runs/run-a/trials/') == 50
    assert RunPaths(results / "run-a").suite_json.is_file()


def test_a_run_left_unfinished_says_so_and_how_to_finish_it(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=2, cases=1, events_per_trial=0, finished=False)
    paths.journal.unlink()  # no orchestrator on record: nothing runs it any more
    page = _page(results, "/runs/run-a")
    assert "did not finish" in page and f"proctor run --resume {results / 'run-a'}" in page
    assert "did not finish" in _page(results, "/")


def test_an_eval_run_left_unfinished_says_to_run_proctor_eval_again(tmp_path: Path) -> None:
    """The index kept a run left unfinished as one `proctor run --resume` finishes, also a
    run of `proctor eval` (which cannot be resumed); its page showed that hint when it could
    not read the run's gate from its trials."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=2, cases=1, events_per_trial=0, finished=False)
    paths.journal.unlink()  # no orchestrator on record: nothing runs it any more
    manifest = read_record(paths.run_json, RunManifest)
    write_record(paths.run_json, manifest.model_copy(update={"argv": ["proctor", "eval"]}))
    page = html.unescape(_page(results, "/runs/run-a"))
    assert "did not finish" in page and "--resume" not in page
    assert "`proctor eval` again runs its cases anew (an eval run cannot be resumed)" in page


def test_a_run_left_unfinished_shows_the_gate_proctor_report_reads_from_its_trials(
    tmp_path: Path,
) -> None:
    """A run whose process is gone (killed) wrote no suite.json: its page shows the gate, exit
    code and pass@k that ``proctor report`` computes from the trials that ran, as the HTML
    report does (it showed none of them, and the matrix's gate as unknown)."""
    from proctor.report.recompute import recompute

    results, run_dir = _fix_a_bug_run(tmp_path)  # two trials
    paths = RunPaths(run_dir)
    manifest = json.loads(paths.run_json.read_text())
    # As a run killed with two of its four trials done leaves it:
    paths.run_json.write_text(json.dumps({**manifest, "finishedAt": None, "trialsPlanned": 4}))
    paths.suite_json.unlink()
    paths.journal.unlink()  # no orchestrator on record: nothing runs it any more
    _, suite = recompute(run_dir, compact_records=True)
    assert suite is not None and suite.exit_code == 130
    page = _page(results, f"/runs/{run_dir.name}")
    assert "Exit code <strong>130</strong>" in page and "pass@k and pass^k" in page
    assert (
        "this run did not finish (the process that ran it is gone): interrupted after 2 of 4 "
        "trials finished (2 not started); `proctor run --resume" in page
    )
    assert f"proctor run --resume {run_dir}" in page


def test_a_run_stopped_before_it_finished_says_how_to_finish_it(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=2, cases=1, events_per_trial=0)
    suite = json.loads(paths.suite_json.read_text())
    paths.suite_json.write_text(json.dumps({**suite, "interrupted": True, "exitCode": 130}))
    paths.journal.unlink()  # nothing runs it any more
    page = _page(results, "/runs/run-a")
    assert "this run was interrupted after 2 of 2 trials finished:" in html.unescape(page)
    assert f"proctor run --resume {results / 'run-a'}" in page
    paths.suite_json.write_text(json.dumps(suite))  # the control: a finished run says nothing
    assert "--resume" not in _page(results, "/runs/run-a")


def test_a_trial_without_its_record_in_a_live_run_is_still_running(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1, events_per_trial=0, finished=False)
    started = paths.trial("case-000", "scripted", "default", 2)
    started.root.mkdir(parents=True)
    started.trajectory.write_text("")
    page = _page(results, "/runs/run-a/trials/case-000/scripted/default/2")
    assert "still running" in page and "no terminal yet" in page
    assert "file not found" not in page and "headless" not in page
    assert "no diff yet" in page and "no change" not in page


def test_a_trial_without_a_workspace_diff_says_none_was_recorded_not_no_change(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1)
    url = "/runs/run-a/trials/case-000/scripted/default/1"
    diff = paths.trial("case-000", "scripted", "default", 1).workspace_diff
    page = _page(results, url)  # none written (a setup that failed writes none)
    assert "no diff recorded" in page and "no change" not in page
    diff.write_text("")  # the agent changed nothing
    page = _page(results, url)
    assert "no change" in page and "no diff recorded" not in page


def test_a_trial_s_process_figures_and_rules_read_as_words_not_python_values(
    tmp_path: Path,
) -> None:
    results, run_dir = _fix_a_bug_run(tmp_path)
    (trial,) = [p for p in (run_dir / "trials" / "fix-a-bug").glob("*/*/*") if p.is_dir()][:1]
    record = json.loads((trial / "trial.json").read_text())
    assert record["process"] is not None and record["rules"]  # the control: figures to show
    key = "/".join(trial.relative_to(run_dir / "trials").parts)
    page = _page(results, f"/runs/{run_dir.name}/trials/{key}")
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)
    assert not {"None", "True", "False"} & {c.strip() for c in cells}


@pytest.mark.parametrize("removed", ["trial.json", "folder", "damaged"])
def test_a_trial_removed_from_a_finished_run_counts_as_report_counts_it(
    proctor: Run, tmp_path: Path, removed: str
) -> None:
    results, run_dir = _fix_a_bug_run(tmp_path, "--repeats", "3")
    key = "fix-a-bug/scripted/default/2"
    trial = run_dir / "trials" / key
    if removed == "folder":
        shutil.rmtree(trial)
    elif removed == "damaged":
        (trial / "trial.json").write_text("{not json")
    else:
        (trial / "trial.json").unlink()
    report = proctor("report", str(run_dir), "--reporter", "json")
    counted = json.loads(report.out)
    assert report.code == 3 and counted["totals"]["statusCounts"]["infra-error"] == 1
    assert counted["totals"]["n"] == 3
    with TestClient(build_app(ViewSettings(results=results))) as client:
        (listed,) = client.get("/api/runs").json()
        runs, page = client.get("/").text, client.get(f"/runs/{run_dir.name}").text
        trial_page = client.get(f"/runs/{run_dir.name}/trials/{key}")
    assert listed["trials"] == 3 and listed["passes"] == 2
    assert "infra-error 1" in runs and 'data-field="trials">3</td>' in runs
    assert "3 of 3 trials" in page and "Exit code <strong>3</strong>" in page
    assert f">{key}</a></td><td><span" in page  # the errors
    assert ("unreadable trial.json" if removed == "damaged" else "no trial.json") in page
    if removed == "folder":
        assert trial_page.status_code == 404 and "counts as an infra-error" in trial_page.text
    else:
        assert trial_page.status_code == 200 and "trial.json" in trial_page.text


def test_every_figure_has_an_accessible_name_and_a_text_alternative(tmp_path: Path) -> None:
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=6, cases=2, suite=False)
    records = []
    for trial_json in sorted(paths.root.glob("trials/*/*/*/*/trial.json")):
        record = TrialRecord.model_validate_json(trial_json.read_text())
        record = record.model_copy(update={"usage": {"m": ModelUsage(input_tokens=10)}})
        write_record(trial_json, record)  # tokens for "Tokens per model"
        records.append(record)
    write_record(paths.suite_json, aggregate_of(records, "run-a"))
    page = _page(results, "/runs/run-a")
    canvases = re.findall(r"<canvas [^>]*>", page)
    assert len(canvases) == 5 and "No data" not in page
    for canvas in canvases:
        assert 'role="img"' in canvas and re.search(r'aria-label="[^"]{20,}"', canvas), canvas
        described = re.search(r'aria-describedby="([^"]+)"', canvas)
        assert described, canvas
        text = re.search(rf'id="{described.group(1)}">(.*?)</p>', page)
        assert text and "table" in text.group(1), canvas


def test_a_trial_s_warnings_show_on_the_run_page_and_its_own_quietly(tmp_path: Path) -> None:
    """A warning decides nothing: beside the trial's reason in the run page's trials table
    and under its verdict on its page, the trial still passed."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1, events_per_trial=0, suite=False)
    said = "the plan has 2 turns (split by endTurn) and the test sent 1 message"
    record = trial_record("case-000", "scripted", "default", 1)
    record = record.model_copy(update={"warnings": [said]})
    write_record(paths.trial("case-000", "scripted", "default", 1).trial_json, record)
    write_record(paths.suite_json, aggregate_of([record], "run-a"))
    run_page = _page(results, "/runs/run-a")
    assert f'<div class="warning">warning: {said}</div>' in run_page
    trial_page = _page(results, "/runs/run-a/trials/case-000/scripted/default/1")
    assert f'<li class="warning">warning: {said}</li>' in trial_page
    assert "status-passed" in trial_page and "outcome-fail" not in trial_page


def test_an_eval_run_is_named_by_the_evals_its_person_ran_not_proctors_copy(
    tmp_path: Path,
) -> None:
    """`proctor eval` writes its cases under the results directory (evals-src/<timestamp>),
    and its run.json's source names that copy: the Runs list and the Run page named the copy;
    they name the evals folder the run recorded (its suite, whole) and its eval files."""
    results = tmp_path / "results"
    paths = write_run(results, "run-a", trials=1, cases=1, events_per_trial=0)
    copy = (results / "evals-src" / "20261201T000000Z").as_posix()
    manifest = read_record(paths.run_json, RunManifest)
    write_record(
        paths.run_json,
        manifest.model_copy(
            update={
                "argv": ["proctor", "eval"],
                "source": copy,
                "suite": "proj/evals",
                "eval_files": ["builds/index.eval.py"],
            }
        ),
    )
    named = f"{Path(os.path.realpath(tmp_path)).as_posix()}/proj/evals (builds/index.eval.py)"
    page = html.unescape(_page(results, "/runs/run-a"))
    assert f"source {named}, its cases written to {copy}," in page
    listed = html.unescape(_page(results, "/"))
    assert named in listed and copy not in listed


def test_a_run_without_run_json_whose_journal_never_ended_is_stopped_as_report_reads_it(
    tmp_path: Path,
) -> None:
    """No run.json, a suite.json of an earlier end (not interrupted) and a journal that says
    the run started again and never ended: `proctor report` reads it stopped (exit 130); the
    Run page showed the stale suite.json's verdict (exit 0), and the Runs list its exit code."""
    results, run_dir = _fix_a_bug_run(tmp_path)
    paths = RunPaths(run_dir)
    paths.run_json.unlink()
    lines = paths.journal.read_text().splitlines(keepends=True)
    assert json.loads(lines[-1])["event"] == "run-finished"
    paths.journal.write_text("".join(lines[:-1]))
    report = subprocess.run(
        [sys.executable, "-m", "proctor", "report", str(run_dir), "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home")},
        timeout=120,
    )
    assert json.loads(report.stdout)["exitCode"] == 130, report.stdout  # control
    page = html.unescape(_page(results, f"/runs/{run_dir.name}"))
    assert "Exit code <strong>130</strong>" in page and "Exit code <strong>0<" not in page
    assert "this run did not finish (the process that ran it is gone)" in page
    listed = _page(results, "/")
    row = listed[listed.index(f">{run_dir.name}<") :]
    assert "did not finish" in row[: row.index("</tr>")]
