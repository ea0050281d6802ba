"""The viewer in headless Chromium over a run of ``proctor eval`` beside a run of ``proctor
run``: the eval run is shown as one, in the Runs list and on its page, as its reports title it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import EXAMPLES
from tests.conftest import viewer

EVAL = """
from proctor.evals import define_eval


async def test(t):
    (await t.send("hi")).expect_ok()


eval = define_eval(plan={"turns": [{"say": "hello"}]}, test=test)
"""
CONFIG = (
    "from proctor.evals import define_eval_config\nconfig = define_eval_config(max_concurrency=1)\n"
)


def _proctor(*args: str, home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "proctor", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """``proctor view`` over one run of ``proctor eval`` and one of ``proctor run``: its base
    URL, the eval run's name and the case run's."""
    root = tmp_path_factory.mktemp("evals-project")
    (root / "evals").mkdir()
    (root / "evals" / "evals.config.py").write_text(CONFIG)
    (root / "evals" / "greets.eval.py").write_text(EVAL)
    results = root / "results"
    home = root / "home"
    _proctor("eval", "--dir", str(root), "--out", str(results), home=home)
    (eval_run,) = (p.name for p in results.glob("run-*"))
    _proctor("run", "--source", str(EXAMPLES / "fix-a-bug"), "--out", str(results), home=home)
    (case_run,) = (p.name for p in results.glob("run-*") if p.name != eval_run)
    with viewer(results) as base:
        yield base, eval_run, case_run


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    yield context.new_page()
    context.close()


def test_a_run_of_proctor_eval_is_shown_as_one(page: Any, runs: tuple[str, str, str]) -> None:
    base, eval_run, case_run = runs
    page.goto(base + "/")
    row = page.locator(f"tr[data-run='{eval_run}']")
    assert row.locator(".run-command").all_inner_texts() == ["eval"]
    assert page.locator(f"tr[data-run='{case_run}'] .run-command").count() == 0

    row.locator(f"text={eval_run}").click()
    page.wait_for_selector("table.matrix")
    # As its report.html and suite.md title it, not as a `proctor run` is titled.
    assert page.inner_text("h1") == f"proctor eval {eval_run}"
    assert page.title() == f"proctor eval: {eval_run}"

    page.goto(f"{base}/runs/{case_run}")
    assert page.inner_text("h1") == f"Run {case_run}"

    listed = {r["run"]: r["command"] for r in page.request.get(f"{base}/api/runs").json()}
    assert listed == {eval_run: "eval", case_run: "run"}
