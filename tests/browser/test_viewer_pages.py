"""The viewer's pages in headless Chromium: the Compare page's overall figures as `proctor
compare` prints them, an annotation said once on the Trial page, a trial not started yet
followed until it runs, the Runs page's filters kept fresh, the playground's checkboxes
kept with their names on a phone, Compare opened with one run chosen, the transcript's
pager as a landmark used from the keyboard, and no nameless stop of the Tab key on the
playground."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SHOTS
from tests.browser.test_viewer import SYNTHETIC

Server = tuple[str, Path]
MINE = ("-copy", "-plan-live", "-newcase")
"""The runs this module's tests write beside the real one."""


def _real_run(results: Path) -> str:
    """The run ``proctor run`` made for the server fixture."""
    return min(p.name for p in results.glob("run-*") if not p.name.endswith(SYNTHETIC + MINE))


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    yield context.new_page()
    context.close()


def _proctor(*args: str) -> str:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return done.stdout


def _candidate(results: Path, run: str) -> str:
    """A copy of ``run`` with fix-a-bug's first trial marked failed by hand, made once."""
    name = "run-20200104T000000Z-copy"
    if not (results / name).exists():
        shutil.copytree(results / run, results / name)
        mark = ("--verdict", "failed", "--note", "drifted to another bug")
        _proctor("annotate", str(results / name), "fix-a-bug/scripted/default/1", *mark)
    return name


def _cli_overall(markdown: str) -> list[list[str]]:
    """The rows of the "Overall (groups in both runs)" table of `proctor compare`."""
    part = markdown.split("## Overall (groups in both runs)", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in part.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[1:]]


def test_compare_shows_the_overall_figures_of_proctor_compare(browser: Any, server: Server) -> None:
    """The Compare page of two runs had no overall section: it shows the table `proctor
    compare` prints, the same numbers and verdict words, a card a figure on a phone."""
    base, results = server
    run = _real_run(results)
    candidate = _candidate(results, run)
    cli = _cli_overall(_proctor("compare", str(results / run), str(results / candidate)))
    assert cli and cli[0][0] == "pass rate"
    for width in (1360, 375):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.goto(f"{base}/compare?a={run}&b={candidate}")
            shown = page.evaluate(
                """() => Array.from(document.querySelectorAll('#compare-overall tr:not(.head)'))
                .map(r => Array.from(r.cells).map(c => c.textContent.trim()))"""
            )
            assert shown == cli
            assert "Overall (groups in both runs)" in page.inner_text("main")
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
            page.screenshot(path=str(SHOTS / f"compare-overall-{width}.png"), full_page=True)
        finally:
            context.close()


def test_an_annotation_is_said_once_on_the_trial_page(page: Any, server: Server) -> None:
    """The mark was shown twice (the reason "annotated failed: … (was passed: …)" and an
    "Annotated failed: …" line): once now, with what the trial ended with before it."""
    base, results = server
    candidate = _candidate(results, _real_run(results))
    page.goto(f"{base}/runs/{candidate}/trials/fix-a-bug/scripted/default/1")
    verdict = page.inner_text("section.verdict")
    assert verdict.count("drifted to another bug") == 1, verdict
    assert "Annotated failed by hand: drifted to another bug" in verdict
    assert "Before the annotation: " in verdict
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "trial-annotated.png"))


def test_a_trial_not_started_yet_says_so_and_follows_the_run(page: Any, server: Server) -> None:
    """A planned trial of a run in progress with no folder yet was "not found": it has not
    started yet, and its page follows the run, showing the trial once it runs and its verdict
    once it ends."""
    from proctor.models.io import write_record
    from proctor.models.run import MatrixCell, ResolvedRecord
    from proctor.view.synthetic import trial_record, write_run, write_trajectory_lines

    base, results = server
    paths = write_run(results, "run-20200105T000000Z-plan-live", trials=1, cases=1, finished=False)
    cells = [
        MatrixCell(case="case-000", agent="scripted", condition="default", repeat=r) for r in (1, 2)
    ]
    write_record(paths.resolved_json, ResolvedRecord(matrix=cells))
    url = f"{base}/runs/{paths.root.name}/trials/case-000/scripted/default/2"
    page.goto(url)
    state = page.inner_text("#trial-state")
    assert "has not started yet" in state and "not found" not in page.inner_text("main")
    page.screenshot(path=str(SHOTS / "trial-not-started.png"))
    trial = paths.trial("case-000", "scripted", "default", 2)
    write_trajectory_lines(trial.trajectory, 3)  # it started
    page.wait_for_selector("#trajectory", timeout=15000)
    assert "still running" in page.inner_text("#trial-state")
    write_record(trial.trial_json, trial_record("case-000", "scripted", "default", 2))
    page.wait_for_selector("section.verdict", timeout=15000)
    # A trial the plan does not hold stays not found.
    missing = page.goto(f"{base}/runs/{paths.root.name}/trials/case-000/scripted/default/9")
    assert missing is not None and missing.status == 404


def test_the_runs_filters_offer_a_new_run_s_case_without_a_reload(
    page: Any, server: Server
) -> None:
    """The agent, case and tag choices were outside the refreshed part: a new run's case was
    offered only after a reload. Now they are refreshed, and a choice being made is kept."""
    from proctor.models.io import write_record
    from proctor.view.synthetic import trial_record, write_run

    base, results = server
    page.goto(base + "/")
    page.evaluate("window.__stamp = 'same page'")
    option = "form.filters select[name=case] option[value='{}']"
    paths = write_run(results, "run-20200106T000000Z-newcase", trials=1, cases=1)
    record = trial_record("a-brand-new-case", "scripted", "default", 1)
    write_record(paths.trial("a-brand-new-case", "scripted", "default", 1).trial_json, record)
    (paths.root / "trials").touch()
    page.locator(option.format("a-brand-new-case")).wait_for(state="attached", timeout=15000)
    assert page.evaluate("window.__stamp") == "same page"
    # A choice not yet applied (and its focus) is left alone by the next refreshes.
    page.focus("form.filters select[name=case]")
    page.select_option("form.filters select[name=case]", "a-brand-new-case")
    record = trial_record("another-new-case", "scripted", "default", 1)
    write_record(paths.trial("another-new-case", "scripted", "default", 1).trial_json, record)
    page.wait_for_timeout(4500)  # two refreshes' time
    chosen = "form.filters select[name=case]"
    assert page.eval_on_selector(chosen, "e => e.value") == "a-brand-new-case"
    assert page.evaluate("document.activeElement.name") == "case"


CHECKBOX_APART = """() => Array.from(document.querySelectorAll('#playground-form fieldset label'))
  .filter(l => l.getClientRects().length > 0)
  .filter(l => {
    const input = l.querySelector('input');
    const box = input.getBoundingClientRect();
    const rects = [];  // the name's text, line by line
    const walk = document.createTreeWalker(l, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(n);
      rects.push(...Array.from(range.getClientRects()).filter(r => r.width > 1));
    }
    const tops = new Set(rects.map(r => Math.round(r.top / 10)));
    const wide = rects.reduce((sum, r) => sum + r.width, box.width + 8);
    const room = l.closest('fieldset').clientWidth - 24;
    const apart = !rects.length || Math.abs(rects[0].top - box.top) > box.height;
    return apart || (tops.size > 1 && wide < room);  // torn apart, or broken while it fits
  }).map(l => l.textContent.trim())"""


def test_a_playground_checkbox_stays_with_its_name_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """At 375 px a case's name broke away from its checkbox ("five-" beside it, the rest below,
    or the box alone at a line's end): the box and the start of its name share a line."""
    from tests.conftest import viewer

    project = tmp_path / "project"
    examples = Path(__file__).parents[2] / "examples" / "cases"
    names = ["fix-a-bug", "five-file-layout", "find-the-bug", "wrong-fix", "ask-a-question"]
    names += ["a-very-long-case-name-that-describes-what-the-agent-must-do-here"]
    for name in names:
        shutil.copytree(examples / "fix-a-bug", project / "suite" / name)
    results = tmp_path / "results"
    results.mkdir()
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = context.new_page()
        with viewer(results, "--source", str(project)) as base:
            page.goto(base + "/playground")
            page.wait_for_selector("#playground-form fieldset label")
            assert page.evaluate(CHECKBOX_APART) == []
            assert page.evaluate("document.documentElement.scrollWidth") <= 376
            page.screenshot(path=str(SHOTS / "playground-375.png"), full_page=True)
    finally:
        context.close()


def test_compare_with_the_baseline_chosen_offers_its_source_s_other_run(
    page: Any, server: Server
) -> None:
    """``/compare?a=RUN`` (as a link to it would be) showed the bare form, its candidate the
    newest run: it says the candidate is still to choose, chooses another run of RUN's source,
    and offers it as a link that compares them, the groups one run holds alone counted."""
    base, results = server
    run = _real_run(results)
    candidate = _candidate(results, run)
    page.goto(f"{base}/compare?a={run}")
    said = page.inner_text("#compare-choose")
    assert said.startswith(f"{run} is the baseline run: choose the candidate run above")
    assert page.eval_on_selector("select[name=b]", "s => s.value") == candidate
    page.get_by_role("link", name=candidate).click()
    page.wait_for_url(f"**b={candidate}**")
    assert page.locator("#compare-table").count() == 1


def test_the_transcript_pager_is_a_landmark_used_from_the_keyboard(
    page: Any, server: Server
) -> None:
    """The pager was a plain box: it is a navigation landmark naming what it pages, its page
    marked current, and its next link followed from the keyboard."""
    base, _ = server
    page.goto(f"{base}/runs/run-20261130T000000Z-long/trials/case-000/scripted/default/1")
    top = page.get_by_role("navigation", name="transcript pages", exact=True)
    assert top.locator("[aria-current=page]").inner_text() == "page 1 of 5"
    assert page.get_by_role("navigation", name="transcript pages, again below the events").count()
    top.get_by_role("link", name="next").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**page=2**")
    assert top.locator("[aria-current=page]").inner_text() == "page 2 of 5"


def test_the_keyboard_meets_no_nameless_stop_on_the_playground(page: Any, server: Server) -> None:
    """Before any batch, the playground's link to a batch's run was an empty ``href="#"``
    link: the Tab key stopped on it and a screen reader read nothing. Every stop has a name."""
    base, _ = server
    page.goto(f"{base}/playground")
    stops = []
    for _ in range(60):
        page.keyboard.press("Tab")
        stop = page.evaluate(
            """() => { const e = document.activeElement;
            if (!e || e === document.body) return null;
            const named = (e.labels && e.labels.length ? e.labels[0].innerText : '')
              || e.getAttribute('aria-label') || e.innerText || e.value || '';
            return [e.tagName, e.id, named.trim()]; }"""
        )
        if stop is None or stop in stops:
            break
        stops.append(stop)
    assert any(tag == "BUTTON" and name == "run" for tag, _, name in stops), stops
    assert [s for s in stops if not s[2]] == []


def test_the_playground_runs_the_cases_ticked_in_the_suite_chosen(
    page: Any, tmp_path: Path
) -> None:
    """Every suite's cases were shown at once and every tick was sent with the suite chosen:
    a case ticked under the second suite while the first was chosen was refused (`suite alpha
    has no case 'wrong-fix'`). Only the chosen suite's cases show, and only its ticks go."""
    import json

    from tests.conftest import viewer

    project = tmp_path / "project"
    examples = Path(__file__).parents[2] / "examples" / "cases"
    shutil.copytree(examples / "fix-a-bug", project / "alpha" / "fix-a-bug")
    shutil.copytree(examples / "wrong-fix", project / "beta" / "wrong-fix")
    results = tmp_path / "results"
    results.mkdir()
    sent: list[object] = []

    def refuse(route: Any) -> None:  # what the page asks for, and no batch run
        sent.append(json.loads(route.request.post_data or "null"))
        route.fulfill(status=409, content_type="application/json", body='{"error": "not here"}')

    with viewer(results, "--source", str(project)) as base:
        page.route("**/api/batches", refuse)
        page.goto(base + "/playground")
        alpha = page.locator("fieldset[data-suite=alpha]")
        beta = page.locator("fieldset[data-suite=beta]")
        assert alpha.is_visible() and beta.is_hidden()
        page.check("input[name=case][value=fix-a-bug]")
        page.select_option("select[name=suite]", "beta")
        assert alpha.is_hidden() and beta.is_visible()
        page.check("input[name=case][value=wrong-fix]")
        page.click("#start-batch")
        page.locator("#batch-status", has_text="not here").wait_for(timeout=15000)
        page.select_option("select[name=suite]", "alpha")
        page.click("#start-batch")
        for _ in range(150):  # (the route's handler runs as the page waits)
            if len(sent) == 2:
                break
            page.wait_for_timeout(100)
    assert len(sent) == 2, sent
    assert sent[0] == {"suite": "beta", "cases": ["wrong-fix"]}
    assert sent[-1] == {"suite": "alpha", "cases": ["fix-a-bug"]}
