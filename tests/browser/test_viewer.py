"""The viewer in headless Chromium: the pages people click through, a planted XSS payload that
must stay inert, following a run in progress, and a playground batch watched to its end.
Screenshots of each page go to ``docs/viewer/`` (``docs/viewer.md`` shows them)."""

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
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    page.dialogs = []  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


SYNTHETIC = ("-planted", "-long", "-live", "-wide", "-wide-ab", "-alike")
"""The runs written by the server fixture (tests/browser/conftest.py) and by the tests."""


def _real_run(results: Path) -> str:
    """The run ``proctor run`` made for the server fixture, whatever the day and hour it ran:
    the first real one (a playground batch adds later ones)."""
    return min(p.name for p in results.glob("run-*") if not p.name.endswith(SYNTHETIC))


def _shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_runs_to_run_to_trial_to_compare(page: Any, server: Server) -> None:
    base, results = server
    run = _real_run(results)
    page.goto(base + "/")
    _shot(page, "runs")
    page.click(f"text={run}")
    page.wait_for_selector("table.matrix")
    assert page.locator("table.matrix tr[data-case]").count() == 4  # find-the-bug has 2 conditions
    # The charts' scripts end the page: the matrix is there before they have run.
    drawn = "() => document.getElementById('fig-scores').chart !== undefined"
    for _ in range(150):  # (polled here: wait_for_function's own polls break the page's CSP)
        if page.evaluate(drawn):
            break
        page.wait_for_timeout(100)
    assert page.evaluate(drawn), "the figures were never drawn"
    _shot(page, "run")
    page.locator("#figures").screenshot(path=str(SHOTS / "figures.png"))

    page.select_option("form.filters select[name=condition]", "with-skill")
    page.click("form.filters button")
    page.wait_for_url("**condition=with-skill**")
    assert page.locator("table.matrix tr[data-case]").count() == 1

    page.goto(f"{base}/runs/{run}")
    page.click("table.trials >> text=fix-a-bug/scripted/default/1")
    page.wait_for_selector("#trajectory")
    call = page.locator("details.tool").first
    output = call.locator("pre.tool-output")
    assert output.is_visible() and "FAILED" in output.inner_text()
    call.locator("summary").click()
    assert not output.is_visible()
    call.locator("summary").click()
    assert output.is_visible()
    _shot(page, "trial")

    page.goto(f"{base}/compare")
    page.select_option("select[name=run]", run)
    page.click("text=compare its conditions")
    page.wait_for_selector("#compare-table")
    assert "with-skill against baseline" in page.content()
    _shot(page, "compare")


def test_a_group_of_a_bar_figure_opens_from_anywhere_over_it(page: Any, server: Server) -> None:
    """A group's bar in the time figure (or its range) opened its trials only when hit: a group
    whose times are a sliver of the largest has a bar a pixel high, which a click misses. A
    click anywhere over its column (its row, for the ranges) opens them."""
    base, results = server
    run = _real_run(results)
    for figure, spot in (
        ("fig-phases", "{x: (bar.x), y: area.top + 2}"),
        ("fig-ranges", "{x: area.right - 2, y: (bar.y)}"),
    ):
        page.goto(f"{base}/runs/{run}")
        drawn = f"() => document.getElementById('{figure}').chart !== undefined"
        for _ in range(150):  # (polled here: wait_for_function breaks the page's CSP)
            if page.evaluate(drawn):
                break
            page.wait_for_timeout(100)
        target = page.evaluate(
            """(id) => { const canvas = document.getElementById(id); const chart = canvas.chart;
            canvas.scrollIntoView({block: 'center'});
            const area = chart.chartArea, bar = chart.getDatasetMeta(0).data[0];
            const at = SPOT, box = canvas.getBoundingClientRect();
            const figures = JSON.parse(document.getElementById('figures-data').textContent);
            const url = id === 'fig-phases' ? figures.groupUrls[0] : figures.ranges[0].url;
            return {x: box.left + at.x, y: box.top + at.y, url: new URL(url, location.href).href}; }""".replace(
                "SPOT", spot
            ),
            figure,
        )
        page.mouse.click(target["x"], target["y"])
        page.wait_for_url(target["url"], timeout=5000)


def test_page_through_a_large_transcript(page: Any, server: Server) -> None:
    base, _ = server
    page.goto(f"{base}/runs/run-20261130T000000Z-long/trials/case-000/scripted/default/1")
    assert "page 1 of 5" in page.inner_text("#trajectory .pager")
    page.locator("#trajectory a[rel=next]").first.click()
    page.wait_for_url("**page=2**")
    assert "page 2 of 5" in page.inner_text("#trajectory .pager")
    assert page.locator("#e200").count() == 1 and page.locator("#e199").count() == 0


def test_planted_markup_stays_inert(page: Any, server: Server) -> None:
    base, _ = server
    run = "run-20261201T000000Z-planted"
    trial = f"{base}/runs/{run}/trials/case-000/scripted/default/1"
    for url in (f"{base}/", f"{base}/runs/{run}", trial, trial + "/raw"):
        page.goto(url)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None, url
        assert page.locator("img[src=x]").count() == 0, url
    page.goto(trial)
    assert "<script>window.__pwned" in page.inner_text("#diff")  # shown as text
    assert "warning: <script>window.__pwned" in page.inner_text("li.warning")
    page.goto(f"{base}/runs/{run}")
    assert "warning: <script>window.__pwned" in page.inner_text("#trials .warning")
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_the_inertness_check_sees_a_payload_that_runs(page: Any) -> None:
    """Control: the same payload put into a page unescaped does run, and the check sees it."""
    from proctor.view.synthetic import XSS

    page.set_content(f"<html><body>{XSS}</body></html>")
    page.wait_for_load_state("load")
    assert page.evaluate("window.__pwned") in (1, 2)


def test_a_run_in_progress_grows_without_a_reload(page: Any, server: Server) -> None:
    from proctor.models.io import write_record
    from proctor.models.run import JournalEntry
    from proctor.view.synthetic import trial_record, write_run

    base, results = server
    paths = write_run(results, "run-20261202T000000Z-live", trials=1, cases=1, finished=False)
    page.goto(f"{base}/runs/{paths.root.name}")
    assert "running" in page.inner_text("#run-progress")
    assert page.locator("table.trials tr").count() == 2
    page.evaluate("window.__stamp = 'same page'")
    record = trial_record("case-000", "scripted", "default", 2, status="failed")
    write_record(paths.trial("case-000", "scripted", "default", 2).trial_json, record)
    entry = JournalEntry(event="trial-finished", time="2026-12-02T00:00:01Z")
    with paths.journal.open("a") as fh:
        fh.write(json.dumps(entry.model_dump(mode="json", by_alias=True)) + "\n")
    page.locator("table.trials tr").nth(2).wait_for(timeout=15000)  # polled, no reload
    assert page.evaluate("window.__stamp") == "same page"
    # The figures were drawn again on the new canvases, and the old charts went with them.
    charts = page.evaluate("Object.keys(Chart.instances).length")
    canvases = page.evaluate("document.querySelectorAll('canvas').length")
    assert charts == canvases, (charts, canvases)
    # A filter being chosen is not reset by the next refresh, nor its focus dropped.
    page.focus("form.filters select[name=status]")
    page.select_option("form.filters select[name=status]", "failed")
    record = trial_record("case-000", "scripted", "default", 3, status="passed")
    write_record(paths.trial("case-000", "scripted", "default", 3).trial_json, record)
    with paths.journal.open("a") as fh:
        fh.write(json.dumps(entry.model_dump(mode="json", by_alias=True)) + "\n")
    page.wait_for_timeout(4500)  # two refreshes' time
    assert page.eval_on_selector("form.filters select[name=status]", "e => e.value") == "failed"
    assert page.evaluate("document.activeElement.name") == "status"


def test_playground_batch_runs_and_links_its_trials(page: Any, server: Server) -> None:
    base, _ = server
    page.goto(f"{base}/playground")
    page.check("input[name=case][value=fix-a-bug]")
    _shot(page, "playground")
    page.click("#start-batch")
    page.wait_for_selector("#batch-status[data-state=running], #batch-status[data-state=finished]")
    try:
        page.wait_for_selector("#batch-status[data-state=finished]", timeout=90000)
    except Exception as exc:  # say where the batch stood, not only that it did not finish
        status = page.locator("#batch-status")
        state, text = status.get_attribute("data-state"), status.inner_text()
        progress = page.inner_text("#batch-progress")
        raise AssertionError(f"batch state {state!r}: {text!r} ({progress!r})") from exc
    page.wait_for_selector("#batches a")  # the list of batches brought up to date in place
    page.wait_for_timeout(1500)  # (it reloaded once: the trials' links went)
    assert page.locator("#batch-trials a").count() >= 1, page.inner_html("#batch-trials")
    # Opened again, the latest batch's state is still shown.
    page.goto(f"{base}/playground")
    assert page.get_attribute("#batch-status", "data-state") == "finished"
    assert page.inner_text("#batch-status").startswith("finished")
    page.locator("#batches a").first.click()
    page.wait_for_selector("table.trials")
    page.click("table.trials >> text=fix-a-bug/scripted/default/1")
    page.wait_for_selector("#trajectory")


def test_the_playground_follows_a_batch_running_when_it_opens(page: Any, server: Server) -> None:
    """A page opened (or reloaded) while a batch runs shows it running and follows it to its
    end; the batch here is a row the test writes, so that it is running when the page opens."""
    import sqlite3

    from proctor.view.schema import INDEX_FILE

    base, results = server
    db = sqlite3.connect(results / INDEX_FILE, timeout=30)
    with db:
        db.execute(
            "INSERT INTO batches (id, created, state, source, cases, message) "
            "VALUES ('followed', '9999-01-01T00:00:00.000Z', 'running', '.', '[]', NULL)"
        )
    try:
        page.goto(f"{base}/playground")
        assert page.get_attribute("#batch-status", "data-state") == "running"
        # Another one asked for meanwhile is refused, and the page keeps saying why while it
        # follows the running one (its poll comes every second).
        page.check("input[name=case][value=fix-a-bug]")
        page.click("#start-batch")
        # (A locator, not wait_for_function: its later polls evaluate a string in the page,
        # which the viewer's Content-Security-Policy forbids.)
        page.locator("#batch-status", has_text="still running").wait_for(timeout=15000)
        page.wait_for_timeout(1600)
        assert "batch followed is still running" in page.inner_text("#batch-status")
        with db:
            db.execute(
                "UPDATE batches SET state = 'finished', message = 'every check passed' "
                "WHERE id = 'followed'"
            )
        page.wait_for_selector("#batch-status[data-state=finished]", timeout=30000)
        assert "every check passed" in page.inner_text("#batch-status")
    finally:
        with db:
            db.execute("DELETE FROM batches WHERE id = 'followed'")
        db.close()


def test_pages_keep_to_a_phone_s_width(browser: Any, server: Server) -> None:
    """At 375 px a wide table scrolls in its own box: the page itself never scrolls sideways."""
    base, results = server
    run = _real_run(results)
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = context.new_page()
        trial = f"/runs/{run}/trials/fix-a-bug/scripted/default/1"
        for url in ("/", f"/runs/{run}", trial, "/playground"):
            page.goto(base + url)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 376, (url, width)
    finally:
        context.close()


def test_a_run_whose_folder_is_removed_while_followed_says_so(page: Any, server: Server) -> None:
    import shutil

    from proctor.view.synthetic import write_run

    base, results = server
    paths = write_run(results, "run-20261202T000000Z-gone-live", trials=1, cases=1, finished=False)
    page.goto(f"{base}/runs/{paths.root.name}")
    assert "running" in page.inner_text("#run-progress")
    shutil.rmtree(paths.root)
    page.locator("#live-gone").wait_for(timeout=15000)
    assert "no longer in the results folder" in page.inner_text("#live-gone")
    assert page.locator("table.trials tr").count() == 2  # what was shown stays


LONG_CASE = "fix-the-bug-" + "in-a-case-named-at-great-length-" * 5 + "end"

BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('th, td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (!text || /[\\s\\-\\/]/.test(text) || text.length > 12) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (lines.size > 1) broken.push(text);
    }
  }
  return broken;
}"""
"""The short words (no space, hyphen or slash) of the page's table cells that are broken over
two lines."""


def _wide_run(results: Path) -> str:
    """A finished run of one trial of a case named at length (as ``proctor run`` names it)."""
    from proctor.view.synthetic import write_run

    paths = write_run(results, "run-20261129T000000Z-wide", trials=1, cases=1)
    trials = paths.root / "trials"
    (trials / "case-000").rename(trials / LONG_CASE)
    record = trials / LONG_CASE / "scripted" / "default" / "1" / "trial.json"
    reason = "the output was " + "0123456789abcdef" * 14  # a token of 224 characters
    record.write_text(
        json.dumps({**json.loads(record.read_text()), "case": LONG_CASE, "reason": reason})
    )
    return paths.root.name


def test_a_long_case_name_breaks_no_word_and_keeps_to_a_phone_s_width(
    browser: Any, server: Server
) -> None:
    """A table cell is never narrower than its longest word: with a case named at length a table
    with room breaks no word, number or heading (it squeezed \"scripted\" to \"script\" over
    \"ed\"), and at 375 px neither the tables nor the filter's choice of cases widen the page."""
    base, results = server
    run = _wide_run(results)
    for width in (1360, 375):
        context = browser.new_context(viewport={"width": width, "height": 800})
        try:
            page = context.new_page()
            for url in (f"/runs/{run}", "/"):  # (a new run is looked for on its page)
                page.goto(base + url)
                assert LONG_CASE in page.content()
                if width == 375:
                    scrolled = page.evaluate("document.documentElement.scrollWidth")
                    assert scrolled <= 376, (url, scrolled)
                else:
                    assert page.evaluate(BROKEN_WORDS) == [], url
                    # A reason's long token wraps: the trials table keeps to the window.
                    trials = "(t => !t || t.scrollWidth <= t.clientWidth)(%s)"
                    assert page.evaluate(trials % "document.querySelector('table.trials')")
        finally:
            context.close()


def test_a_file_served_as_plain_text_logs_no_console_error(page: Any, server: Server) -> None:
    """Chromium asks a plain-text file's site for /favicon.ico (no page names an icon there):
    it is answered, where a 404 logged a console error."""
    base, results = server
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{base}/runs/{_real_run(results)}/files/run.json")
    page.wait_for_load_state("load")
    page.wait_for_timeout(1500)  # the icon is asked for after the load
    assert '"runId"' in page.inner_text("body")
    assert errors == []


LONG_CONDITIONS = (
    "baseline-without-any-skill-or-hint",
    "with-the-where-to-look-skill-provisioned-into-the-workspace",
)


def _long_named_ab_run(results: Path) -> str:
    """A finished A/B run of two cases named at length, each under two conditions named at
    length, two repeats each: every figure has a group per case × condition."""
    from proctor.models.io import write_record
    from proctor.models.trial import TrialRecord
    from proctor.view.synthetic import aggregate_of, write_run

    name = "run-20261128T000000Z-wide-ab"
    paths = write_run(
        results, name, trials=8, cases=2, conditions=LONG_CONDITIONS, events_per_trial=0
    )
    trials = paths.root / "trials"
    records = []
    for c in (0, 1):
        long = f"{LONG_CASE}-{c}"
        (trials / f"case-{c:03d}").rename(trials / long)
        for record_file in (trials / long).glob("*/*/*/trial.json"):
            record = TrialRecord.model_validate_json(record_file.read_text())
            record = record.model_copy(update={"case": long})
            write_record(record_file, record)
            records.append(record)
    write_record(paths.suite_json, aggregate_of(records, name))
    return name


CHART_LABELS = """(id) => {
  const chart = document.getElementById(id).chart;
  const axis = chart.options.indexAxis === "y" ? chart.scales.y : chart.scales.x;
  const lines = axis.ticks.flatMap(t => Array.isArray(t.label) ? t.label : [t.label]);
  chart.tooltip.setActiveElements([{datasetIndex: 0, index: 0}], {x: 0, y: 0});
  chart.update();
  return {lines, title: chart.tooltip.title, area: chart.chartArea, width: chart.width,
          height: chart.height};
}"""
"""A figure's tick labels (each line), the title of the tooltip of its first point or bar, and
its plot area."""


def test_long_group_names_leave_the_figures_readable(browser: Any, server: Server) -> None:
    """A group named at length (case · agent · condition) was a tick label as long as the
    figure: rotated, the labels of Score per trial and Time per phase took all the canvas
    and left no plot, and those of the elapsed ranges were cut at the canvas's edge. A tick
    shows the parts that tell the groups apart, cut to its room; the tooltip names the whole
    group."""
    base, results = server
    run = _long_named_ab_run(results)
    errors: list[str] = []
    for width in (1360, 375):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"{base}/runs/{run}")
            drawn = "() => document.getElementById('fig-ranges').chart !== undefined"
            for _ in range(150):  # (polled here: wait_for_function breaks the page's CSP)
                if page.evaluate(drawn):
                    break
                page.wait_for_timeout(100)
            page.locator("#figures").screenshot(path=str(SHOTS / f"figures-long-{width}.png"))
            for figure in ("fig-scores", "fig-phases", "fig-ranges"):
                shown = page.evaluate(CHART_LABELS, figure)
                assert all(len(line) <= 40 for line in shown["lines"]), (width, figure, shown)
                assert LONG_CASE not in " ".join(shown["lines"])
                assert "scripted" not in " ".join(shown["lines"])  # the same in every group
                area = shown["area"]
                if figure == "fig-ranges":  # the labels leave the bars half the width
                    assert area["right"] - area["left"] >= shown["width"] * 0.45, (width, shown)
                else:  # and the plot most of the height
                    assert area["bottom"] - area["top"] >= shown["height"] * 0.5, (width, shown)
                whole = f"{LONG_CASE}-0 · scripted · {LONG_CONDITIONS[0]}"
                assert shown["title"] == [whole], (figure, shown["title"])
            assert errors == []
        finally:
            context.close()


SIMILAR_CASES = (
    "asks.choice",
    "builds.endpoints",
    "builds.greeting",
    "builds.no-web",
    "failing.wrong-file.edits-the-test",
    "failing.wrong-file.not-ready",
    "judged.summary",
    "tools.order",
)
"""Eight cases named as `proctor eval` names its cases: long, and alike at their start."""


def test_eight_long_case_names_are_not_cut_to_a_few_letters(browser: Any, server: Server) -> None:
    """With eight groups at 1200 px a tick had room for 9 characters: each name was cut to
    that, side by side (`build…nts`, `build…ing`, `build…web`), where a rotated tick shows 24.
    A tick stands side by side only while that shows as much of the names as rotated."""
    from proctor.models.io import write_record
    from proctor.models.trial import TrialRecord
    from proctor.view.synthetic import aggregate_of, write_run

    base, results = server
    name = "run-20261127T000000Z-alike"
    paths = write_run(results, name, trials=8, cases=8, events_per_trial=0)
    trials = paths.root / "trials"
    records = []
    for c, case in enumerate(SIMILAR_CASES):
        (trials / f"case-{c:03d}").rename(trials / case)
        for record_file in (trials / case).glob("*/*/*/trial.json"):
            record = TrialRecord.model_validate_json(record_file.read_text())
            record = record.model_copy(update={"case": case})
            write_record(record_file, record)
            records.append(record)
    write_record(paths.suite_json, aggregate_of(records, name))
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{base}/runs/{name}")
        drawn = "() => document.getElementById('fig-phases').chart !== undefined"
        for _ in range(150):  # (polled here: wait_for_function breaks the page's CSP)
            if page.evaluate(drawn):
                break
            page.wait_for_timeout(100)
        for figure in ("fig-scores", "fig-phases"):
            lines = page.evaluate(CHART_LABELS, figure)["lines"]
            assert "builds.endpoints" in lines and "builds.greeting" in lines, (figure, lines)
            assert all(len(line) >= 11 for line in lines), (figure, lines)
    finally:
        context.close()


ROW_HEIGHTS = """() => Array.from(document.querySelectorAll('#compare-table tr'))
  .filter(r => r.getBoundingClientRect().height > 0)
  .map(r => r.getBoundingClientRect().height)"""


def test_compare_is_readable_on_a_phone(browser: Any, server: Server) -> None:
    """At 375 px each compared group is a card, a cell to a line under its column's name: the
    figures column squeezed to a word's width made each row some 700 px tall."""
    base, results = server
    run = _real_run(results)
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = context.new_page()
        for url in (f"/compare?a={run}&b={run}", f"/compare?run={run}"):
            page.goto(base + url)
            page.wait_for_selector("#compare-table")
            heights = page.evaluate(ROW_HEIGHTS)
            # ~470 px with the figures' readable names, a line each; 650–700 as a table.
            assert heights and max(heights) < 560, (url, heights)
            figures = page.locator("#compare-table td[data-label=figures]").first
            assert figures.bounding_box()["width"] > 300, url
            assert "figures" in figures.evaluate("td => getComputedStyle(td, '::before').content")
            scrolled = page.evaluate("document.documentElement.scrollWidth")
            assert scrolled <= 376, (url, scrolled)
            _shot(page, "compare-375" if "run=" in url else "compare-runs-375")
    finally:
        context.close()


def test_a_followed_page_keeps_the_keyboard_focus_on_its_link(page: Any, server: Server) -> None:
    """A refresh of a run in progress swaps the part it follows: a link a keyboard user had
    reached there keeps the focus (it fell to the page's body, and Tab started again from the
    top of the page)."""
    from proctor.models.io import write_record
    from proctor.models.run import JournalEntry
    from proctor.view.synthetic import trial_record, write_run

    base, results = server
    paths = write_run(results, "run-20261203T000000Z-kbd-live", trials=1, cases=1, finished=False)
    entry = JournalEntry(event="trial-finished", time="2026-12-03T00:00:01Z")
    pages = {
        "/": f"tr[data-run='{paths.root.name}'] a",
        f"/runs/{paths.root.name}": "table.trials a",
    }
    for repeat, (url, link) in enumerate(pages.items(), start=2):
        page.goto(base + url)
        page.focus(link)
        href = page.evaluate("document.activeElement.getAttribute('href')")
        page.evaluate("document.querySelector('[data-live]').firstElementChild.dataset.old = 1")
        record = trial_record("case-000", "scripted", "default", repeat, status="passed")
        write_record(paths.trial("case-000", "scripted", "default", repeat).trial_json, record)
        with paths.journal.open("a") as fh:
            fh.write(json.dumps(entry.model_dump(mode="json", by_alias=True)) + "\n")
        swapped = "document.querySelector('[data-live] [data-old]') === null"
        for _ in range(150):  # (polled here: wait_for_function's own polls break the CSP)
            if page.evaluate(swapped):
                break
            page.wait_for_timeout(100)
        assert page.evaluate(swapped), f"{url}: the part was never refreshed"
        focused = "[document.activeElement.tagName, document.activeElement.getAttribute('href')]"
        assert page.evaluate(focused) == ["A", href], url


def test_a_long_path_keeps_to_a_phone_s_width(browser: Any, tmp_path: Path) -> None:
    """A results folder and a run's source named by paths with no space or hyphen in a long
    stretch break where they must at 375 px: the header's path and the Run page's line widened
    the page (to 557 px for a source of 70 characters)."""
    from proctor.models.io import read_record, write_record
    from proctor.models.run import RunManifest
    from proctor.view.synthetic import write_run
    from tests.conftest import viewer

    results = tmp_path / ("agentevaluationresultsfromthenightlyjobs" * 2)
    paths = write_run(results, "run-20261201T000000Z-abcdef", trials=2, cases=1)
    manifest = read_record(paths.run_json, RunManifest)
    manifest.source = "/home/someone/projects/agentevaluationcasesforthecalculatorproject/cases"
    write_record(paths.run_json, manifest)
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = context.new_page()
        with viewer(results) as base:
            for url in ("/", f"/runs/{paths.root.name}"):
                page.goto(base + url)
                assert manifest.source in page.inner_text("body").replace("\n", "") or url == "/"
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 376, (url, width)
    finally:
        context.close()
