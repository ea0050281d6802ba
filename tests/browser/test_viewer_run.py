"""The Run page of a run that did not run every trial it planned, in headless Chromium: a run
stopped with SIGTERM says how far it got in the words of `proctor report`'s gate line and
lists the trials it never started, each linked; a run in progress lists those not started
yet and follows its trials as they start, its unchanged polls answered 304."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import EXAMPLES, SHOTS
from tests.conftest import viewer


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    yield context.new_page()
    context.close()


def _stopped_run(results: Path, home: Path) -> Path:
    """``proctor run`` of the example suite, five repeats, sent SIGTERM once two trials
    ended and the third started: the run folder."""
    env = {**os.environ, "HOME": str(home), "NO_COLOR": "1"}
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "proctor", "run", "--source", str(EXAMPLES)),
            *("--agent", "scripted", "--repeats", "5", "--concurrency", "1"),
            *("--out", str(results)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        for line in process.stdout:  # type: ignore[union-attr]
            if line.startswith("[2/"):
                # Once the third trial has started: the stop cuts it short.
                deadline = time.monotonic() + 60
                while len(list(results.glob("run-*/trials/*/*/*/*"))) < 3:
                    assert time.monotonic() < deadline, "the third trial never started"
                    time.sleep(0.01)
                process.send_signal(signal.SIGTERM)
                break
        process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130
    (run,) = results.glob("run-*")
    return run


def test_a_stopped_run_says_what_its_report_says_and_lists_the_trials_not_started(
    page: Any, tmp_path: Path
) -> None:
    """The page said "3 of 50 trials ran" (counting the trial the stop cut short) where the
    report says "interrupted after 2 of 50 trials finished (1 cut short, …; 47 not started)",
    and named none of the trials that never started."""
    results = tmp_path / "results"
    run = _stopped_run(results, tmp_path / "home")
    markdown = subprocess.run(
        [sys.executable, "-m", "proctor", "report", str(run)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path / "home"), "NO_COLOR": "1"},
        timeout=120,
        check=False,
    ).stdout
    gate = re.search(
        r"\*\*Exit code 130\*\* \(interrupted\): (interrupted after [^;]*?finished(?: \([^)]*\))?)",
        markdown,
    )
    assert gate is not None, markdown[:600]
    said = gate.group(1)
    waiting = int(re.search(r"(\d+) not started", said).group(1))  # type: ignore[union-attr]
    assert waiting > 10
    with viewer(results) as base:
        page.goto(f"{base}/runs/{run.name}")
        main = page.inner_text("main")
        assert f"this run was {said}: `proctor run --resume {run}` finishes it" in main
        assert " ran)" not in main and "trials ran" not in main
        # The progress line and the Runs list count the trials as the gate line does.
        counts = re.match(r"interrupted after (\d+) of (\d+) trials finished", said)
        assert counts is not None, said
        finished, planned = counts.groups()
        cut = re.search(r"\((\d+) cut short", said)
        assert cut is not None, said  # the third trial was running at the stop
        progress = " ".join(page.inner_text("#run-progress").split())
        expected = f"{finished} of {planned} trials finished ({cut.group(1)} cut short, recorded"
        assert f"{expected} as interrupted), pass rate" in progress, progress
        # "Cost against success" draws no point of the trial the stop cut short: it neither
        # passed nor failed (it was drawn on the "not passed" line), and its caption says so.
        (cut_key,) = [
            "/".join(trial.parent.relative_to(run / "trials").parts)
            for trial in run.glob("trials/*/*/*/*/trial.json")
            if json.loads(trial.read_text())["reason"].startswith("interrupted:")
        ]
        page.wait_for_function("() => document.getElementById('fig-cost').chart !== undefined")
        drawn = page.evaluate(
            "() => document.getElementById('fig-cost').chart.data.datasets"
            ".flatMap(d => d.data.map(p => p.trial))"
        )
        assert cut_key not in drawn and len(drawn) == int(finished), drawn
        assert "a stop cut short (interrupted)" in page.inner_text("#fig-cost-text")
        summary = page.locator("#not-started summary")
        assert summary.inner_text() == f"{waiting} not started"
        links = page.locator("#not-started a")
        assert not links.first.is_visible()  # folded: many
        summary.click()
        assert links.count() == waiting and links.first.is_visible()
        shown = page.inner_text("#not-started")
        assert "wrong-fix (5): " in shown  # by case
        page.screenshot(path=str(SHOTS / "run-not-started.png"))
        links.last.click()
        page.wait_for_load_state()
        assert f"Run {run.name} stopped before this trial started" in page.inner_text("main")
        assert f"proctor run --resume {run}" in page.inner_text("main")
        page.goto(f"{base}/")
        cell = page.inner_text(f'tr[data-run="{run.name}"] [data-field="trials"]')
        assert cell == f"{finished} of {planned} ({cut.group(1)} cut short)"


def test_a_run_in_progress_lists_its_trials_not_started_yet_and_follows_them(
    page: Any, tmp_path: Path
) -> None:
    """A trial planned and not started yet showed nowhere on its run's page; it is listed,
    leaves the list once it starts (then it runs now), and the page's polls of an unchanged
    run are answered 304."""
    from proctor.models.io import write_record
    from proctor.models.run import MatrixCell, ResolvedRecord
    from proctor.view.synthetic import write_run

    results = tmp_path / "results"
    name = "run-20261201T000000Z-live"
    paths = write_run(results, name, trials=1, cases=1, events_per_trial=0, finished=False)
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r)
        for r in (1, 2, 3)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    manifest = json.loads(paths.run_json.read_text())
    paths.run_json.write_text(json.dumps({**manifest, "trialsPlanned": 3}))
    # Each poll of the page's part: the ETag answered, the one the browser asked with. (A
    # 304 reaches the page as the 200 it revalidated.)
    polls: list[tuple[str | None, str | None]] = []

    def seen(r: Any) -> None:
        if "/fragments/runs/" in r.url:
            polls.append((r.headers.get("etag"), r.request.all_headers().get("if-none-match")))

    page.on("response", seen)
    with viewer(results) as base:
        page.goto(f"{base}/runs/{name}")
        assert page.inner_text("#not-started summary") == "2 not started yet"
        assert page.locator("#not-started a").all_inner_texts() == [
            "case-000/scripted/default/2",
            "case-000/scripted/default/3",
        ]
        page.wait_for_timeout(4500)  # two polls, the run unchanged
        assert len(polls) >= 2 and polls[0][0] is not None, polls
        assert polls[1] == (polls[0][0], polls[0][0]), polls  # asked again, unchanged: a 304
        assert page.inner_text("#not-started summary") == "2 not started yet"
        paths.trial("case-000", "scripted", "default", 2).root.mkdir(parents=True)  # it started
        page.wait_for_selector("#running-now", timeout=15000)
        assert "case-000/scripted/default/2" in page.inner_text("#running-now")
        assert page.inner_text("#not-started summary") == "1 not started yet"
