"""The Trial page of a trial that has not run to its end, in headless Chromium: a running
trial's timeline follows it without a reload (focus, scroll and folded tool calls kept), its
polls are conditional, and a planned trial whose run stops says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SHOTS

Server = tuple[str, Path]


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 420})
    yield context.new_page()
    context.close()


def _plan(paths: Any, repeats: int) -> None:
    from proctor.models.io import write_record
    from proctor.models.run import MatrixCell, ResolvedRecord

    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r)
        for r in range(1, repeats + 1)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))


def _until(page: Any, script: str, what: str, tries: int = 150) -> None:
    """Wait for ``script`` to be true (polled here: wait_for_function's own polls break the
    page's CSP; a page loaded again meanwhile is asked again)."""
    from playwright.sync_api import Error

    for _ in range(tries):
        try:
            if page.evaluate(script):
                return
        except Error:
            pass
        page.wait_for_timeout(100)
    raise AssertionError(f"never: {what}")


def test_a_running_trial_s_timeline_grows_without_a_reload(page: Any, server: Server) -> None:
    """It grew on a reload only. Now its page follows it: the new events come in place, the
    keyboard focus, the scroll and a tool call folded by hand stay; the polls ask whether
    anything changed (If-None-Match); once the trial ends the page shows its verdict and
    stops asking."""
    from proctor.models.io import write_record
    from proctor.models.trajectory import event_json
    from proctor.view.synthetic import events, trial_record, write_run, write_trajectory_lines

    base, results = server
    paths = write_run(results, "run-20200106T000000Z-trial-live", trials=1, cases=1, finished=False)
    _plan(paths, 2)
    trial = paths.trial("case-000", "scripted", "default", 2)
    write_trajectory_lines(trial.trajectory, 12)
    asked: list[dict[str, str]] = []
    page.on(
        "request",
        lambda r: asked.append(r.all_headers()) if "/fragments/" in r.url else None,
    )
    page.goto(f"{base}/runs/{paths.root.name}/trials/case-000/scripted/default/2")
    assert "still running" in page.inner_text("#trial-state")
    count = "document.querySelectorAll('.timeline > [id^=e]').length"
    shown = page.evaluate(count)
    page.evaluate("window.__stamp = 'same page'")
    page.eval_on_selector("#e5 details", "d => { d.open = false; }")
    page.focus("#step-1")
    page.evaluate("window.scrollTo(0, 300)")
    scrolled = page.evaluate("window.scrollY")
    assert scrolled > 0
    with trial.trajectory.open("a") as fh:
        for event in list(events(20))[12:]:
            fh.write(json.dumps(event_json(event)) + "\n")
    _until(page, f"{count} > {shown}", "the timeline grew")
    assert page.evaluate("window.__stamp") == "same page"  # no reload
    assert "Trajectory (20 events)" in page.inner_text("#trajectory h2")
    assert page.eval_on_selector("#e5 details", "d => d.open") is False
    assert page.eval_on_selector("#e1 details", "d => d.open") is True
    assert page.evaluate("document.activeElement.id") == "step-1"
    assert page.evaluate("window.scrollY") == scrolled
    page.wait_for_timeout(2500)  # a poll that found nothing changed
    assert any("if-none-match" in h for h in asked), asked
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "trial-running.png"))
    write_record(trial.trial_json, trial_record("case-000", "scripted", "default", 2))
    page.wait_for_selector("section.verdict", timeout=15000)
    assert page.locator("[data-live]").count() == 0
    asked.clear()
    page.wait_for_timeout(4500)  # two polls' time
    assert asked == []


def test_a_planned_trial_s_page_says_when_its_run_stops(page: Any, server: Server) -> None:
    """A trial a run planned, and never started because the run was stopped: its page said
    the trial "was not found". Followed while the run goes on, it then says that the run
    stopped before the trial started, and links back to the run."""
    from proctor.models.io import read_record, write_record
    from proctor.models.run import RunManifest
    from proctor.view.synthetic import write_run

    base, results = server
    paths = write_run(results, "run-20200107T000000Z-stops", trials=1, cases=1, finished=False)
    _plan(paths, 2)
    response = page.goto(f"{base}/runs/{paths.root.name}/trials/case-000/scripted/default/2")
    assert response is not None and response.status == 200
    assert "has not started yet" in page.inner_text("#trial-state")
    manifest = read_record(paths.run_json, RunManifest)
    update = {"finished_at": "2026-12-01T00:01:00.000Z", "interrupted": True}
    write_record(paths.run_json, manifest.model_copy(update=update))
    _until(page, "!!document.querySelector('#trial-state.outcome-fail')", "the page said so")
    said = page.inner_text("main")
    assert "stopped before this trial started" in said and "not found" not in said
    page.click(f"text=Back to run {paths.root.name}")
    assert page.url.endswith(f"/runs/{paths.root.name}")


def test_a_step_not_taken_yet_is_said_and_shown_once_taken(browser: Any, tmp_path: Path) -> None:
    """A running trial opened at ``?step=N`` past its end showed page 1 without a word. It
    says the step is not there yet, the page's refresh keeps saying it, and once the agent
    takes the step the followed part shows it, without a reload."""
    from proctor.view.synthetic import write_run, write_trajectory_lines
    from tests.conftest import viewer

    results = tmp_path / "results"
    paths = write_run(results, "run-20200108T000000Z-step", trials=1, cases=1, finished=False)
    _plan(paths, 2)
    trial = paths.trial("case-000", "scripted", "default", 2)
    write_trajectory_lines(trial.trajectory, 12)  # steps 0 to 2
    context = browser.new_context(viewport={"width": 1100, "height": 600})
    try:
        page = context.new_page()
        with viewer(results) as base:
            page.goto(f"{base}/runs/{paths.root.name}/trials/case-000/scripted/default/2?step=9")
            said = "this trial has no step 9 yet: it is still running"
            assert said in page.inner_text("#step-missing")
            page.evaluate("window.__stamp = 'same page'")
            page.wait_for_timeout(2500)  # a refresh: the note stays
            assert said in page.inner_text("#step-missing")
            write_trajectory_lines(trial.trajectory, 40)  # steps 0 to 9
            _until(page, "!!document.getElementById('step-9')", "step 9 shown")
            assert page.locator("#step-missing").count() == 0
            assert page.evaluate("window.__stamp") == "same page"  # no reload
    finally:
        context.close()


def test_a_running_trial_s_page_shows_the_agent_s_first_step_before_it_ends(
    browser: Any, tmp_path: Path
) -> None:
    """A real run of a scripted agent that sleeps between its steps: its trial's page said
    "0 events" until the trial ended, then showed every event at once. It shows the first
    step while the agent sleeps before the next one, without a reload."""
    from tests.conftest import (
        SLOW_FIRST,
        SLOW_KEY,
        SLOW_SECOND,
        slow_run,
        slow_trial_folder,
        viewer,
    )

    context = browser.new_context(viewport={"width": 1100, "height": 600})
    try:
        page = context.new_page()
        with slow_run(tmp_path) as (results, process):
            folder = slow_trial_folder(results, process)
            with viewer(results) as base:
                page.goto(f"{base}/runs/{folder.parents[4].name}/trials/{SLOW_KEY}")
                page.evaluate("window.__stamp = 'same page'")
                timeline = "(document.querySelector('.timeline') || {innerText: ''}).innerText"
                _until(
                    page,
                    f"{timeline}.includes({SLOW_FIRST!r}) || !!document.querySelector"
                    "('section.verdict')",
                    "the first step shown, or the trial ended",
                )
                assert not (folder / "trial.json").exists()  # shown while the trial runs
                shown = page.evaluate(timeline)
                assert SLOW_FIRST in shown and SLOW_SECOND not in shown
                assert page.evaluate("window.__stamp") == "same page"  # no reload
    finally:
        context.close()
