"""The Compare page's "compare its conditions" form in headless Chromium: choosing another run
offers that run's conditions as the treatment and the baseline, the pair ``proctor compare RUN``
would compare chosen, and pressing the button compares them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import viewer


def _offered(page: Any, side: str) -> tuple[list[str], str]:
    select = page.locator(f'#compare-conditions select[name="{side}"]')
    values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
    return values, select.input_value()


def test_choosing_another_run_offers_its_conditions(browser: Any, tmp_path: Path) -> None:
    from proctor.view.synthetic import write_run

    results = tmp_path / "results"
    write_run(
        results, "run-20261201T000000Z-ab", trials=6, cases=1, conditions=("a", "baseline", "z")
    )
    write_run(results, "run-20261202T000000Z-xy", trials=4, cases=1, conditions=("x", "y"))
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    try:
        page = context.new_page()
        with viewer(results) as base:
            page.goto(base + "/compare")
            assert _offered(page, "treatment") == (["x", "y"], "y")
            assert _offered(page, "baseline") == (["x", "y"], "x")
            page.select_option('#compare-conditions select[name="run"]', "run-20261201T000000Z-ab")
            assert _offered(page, "treatment") == (["a", "baseline", "z"], "a")
            assert _offered(page, "baseline") == (["a", "baseline", "z"], "baseline")
            page.select_option('#compare-conditions select[name="treatment"]', "z")
            page.click("#compare-conditions button")
            page.wait_for_selector("#compare-table")
            assert "treatment=z&baseline=baseline" in page.url
            assert "z against baseline" in page.locator("h2").first.inner_text()
            assert _offered(page, "treatment") == (["a", "baseline", "z"], "z")
    finally:
        context.close()


def test_a_run_of_one_condition_in_the_address_is_not_offered(browser: Any, tmp_path: Path) -> None:
    """``/compare?run=RUN`` for a run of one condition offered that run in the chooser, its one
    condition as both the treatment and the baseline: it is not offered, the page says it has
    nothing to compare within it and links the comparison with another run."""
    from proctor.view.synthetic import write_run

    results = tmp_path / "results"
    write_run(results, "run-20261201T000000Z-xy", trials=4, cases=1, conditions=("x", "y"))
    write_run(results, "run-20261202T000000Z-one", trials=2, cases=1, conditions=("solo",))
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    try:
        page = context.new_page()
        with viewer(results) as base:
            page.goto(base + "/compare?run=run-20261202T000000Z-one")
            runs = page.locator('#compare-conditions select[name="run"] option')
            offered = runs.evaluate_all("os => os.map(o => o.value)")
            assert offered == ["run-20261201T000000Z-xy"]
            assert _offered(page, "treatment") == (["x", "y"], "y")
            assert _offered(page, "baseline") == (["x", "y"], "x")
            said = page.locator("#compare-single")
            assert said.inner_text() == (
                "Run run-20261202T000000Z-one has one condition, solo: there is nothing to "
                "compare within it; compare it with another run instead."
            )
            assert page.locator("#compare-error").count() == 0
            said.locator("a").click()
            page.wait_for_selector("#compare-choose")
            assert page.url.endswith("/compare?a=run-20261202T000000Z-one")
            assert (
                "is the baseline run: choose the candidate run above"
                in page.locator("#compare-choose").inner_text()
            )
    finally:
        context.close()
