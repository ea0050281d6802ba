"""The viewer in a real browser: Playwright for Python driving Debian's Chromium (installed by
``.ci/run`` with apt; never ``playwright install``). Skipped, with the reason printed, only when
that Chromium is absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import require_tool, viewer

CHROMIUM = Path("/usr/lib/chromium/chromium")
EXAMPLES = Path(__file__).parents[2] / "examples" / "cases"
ROOT = Path(__file__).parents[2]
# Screenshots are test artifacts (test-artifacts/screenshots/); `UPDATE_SCREENSHOTS=1 make test`
# also refreshes the ones docs/viewer.md shows.
SHOTS = (
    ROOT / "docs" / "viewer"
    if os.environ.get("UPDATE_SCREENSHOTS")
    else ROOT / "test-artifacts" / "screenshots"
)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if not CHROMIUM.exists():
        require_tool(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    home = tmp_path_factory.mktemp("browser-home")
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox"],
            env={"HOME": str(home), "XDG_CONFIG_HOME": str(home), "XDG_CACHE_HOME": str(home)},
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project with one small case suite for the playground."""
    root = tmp_path_factory.mktemp("project")
    for case in ("fix-a-bug", "find-the-bug", "wrong-fix"):
        shutil.copytree(EXAMPLES / case, root / "suite" / case)
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, project: Path) -> Iterator[tuple[str, Path]]:
    """``proctor view`` over a results directory holding a real run of the project's suite;
    yields its base URL and the results directory."""
    from proctor.view.synthetic import write_planted_run, write_run

    results = tmp_path_factory.mktemp("results")
    env = {**os.environ, "HOME": str(results.parent / "home")}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "proctor",
            "run",
            "--source",
            str(project / "suite"),
            "--out",
            str(results),
        ],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    write_planted_run(results, "run-20261201T000000Z-planted")
    write_run(results, "run-20261130T000000Z-long", trials=1, cases=1, events_per_trial=1000)
    with viewer(results, "--source", str(project)) as base:
        yield base, results
