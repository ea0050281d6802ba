"""``--reporter html`` for ``proctor run`` and ``proctor report``: one self-contained file."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import Run, single_run_dir

EXAMPLES = Path(__file__).parents[2] / "examples" / "cases"


def test_run_and_report_write_a_self_contained_html_report(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(EXAMPLES / "fix-a-bug", cases / "fix-a-bug")
    shutil.copytree(EXAMPLES / "wrong-fix", cases / "wrong-fix")
    out = tmp_path / "out"
    result = proctor("run", "--source", str(cases), "--out", str(out), "--reporter", "html")
    assert result.code == 1  # wrong-fix fails on purpose
    run_dir = single_run_dir(out)
    html = (run_dir / "report.html").read_text()
    assert html.startswith("<!doctype html>") and html == result.out
    assert 'id="trial-fix-a-bug/scripted/default/1"' in html
    assert 'id="trial-wrong-fix/scripted/default/1"' in html
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)  # nothing fetched

    (run_dir / "report.html").unlink()
    again = proctor("report", str(run_dir), "--reporter", "html", "--write")
    assert again.code == 1 and (run_dir / "report.html").read_text() == again.out
    assert "fix-a-bug" in again.out


def test_each_trial_of_the_report_shows_its_steps_diff_and_terminal(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(EXAMPLES / "fix-a-bug", cases / "fix-a-bug")
    out = tmp_path / "out"
    proctor("run", "--source", str(cases), "--out", str(out), "--mode", "interactive")
    run_dir = single_run_dir(out)
    trial = run_dir / "trials/fix-a-bug/scripted/default/1"
    secret = tmp_path / "outside.txt"
    secret.write_text("OUTSIDE THE RUN\n")
    (trial / "screen.log").unlink(missing_ok=True)
    (trial / "screen.log").symlink_to(secret)  # a link leading out: not read
    html = proctor("report", str(run_dir), "--reporter", "html").out
    section = html[html.index('id="trial-fix-a-bug/scripted/default/1"') :]
    assert "<h2>Trajectory</h2>" in section and "python3 -m unittest" in section
    assert "<h2>Workspace diff</h2>" in section and "+    return a + b" in section
    assert "OUTSIDE THE RUN" not in html
    # eval runs write it too (the reporter registry is the same)
    evals = Path(__file__).parents[2] / "examples" / "evals"
    result = proctor(
        "eval", "--dir", str(evals), "builds/greeting", "--out", str(tmp_path / "e"),
        "--reporter", "html", "--no-stream",
    )  # fmt: skip
    assert result.code == 0, result.err
    report = next((tmp_path / "e").glob("run-*/report.html")).read_text()
    assert "greet.py" in report and "<h2>Trajectory</h2>" in report


def test_a_report_over_several_runs_shows_each_trial_from_its_own_run(
    proctor: Run, tmp_path: Path
) -> None:
    cases = tmp_path / "cases"
    shutil.copytree(EXAMPLES / "fix-a-bug", cases / "fix-a-bug")
    runs = []
    for name in ("first", "second"):
        out = tmp_path / name
        proctor("run", "--source", str(cases), "--out", str(out))
        runs.append(single_run_dir(out))
    # Tell the runs' trials apart: the second run's first trial saw another diff.
    (runs[1] / "trials/fix-a-bug/scripted/default/1/workspace.diff").write_text(
        "+    return a + b  # from the second run\n"
    )
    result = proctor("report", *map(str, runs), "--reporter", "html")
    assert result.code == 0, result.err
    html = result.out
    # Pooled, the second run's repeats follow the first run's two.
    first, third = _trial_section(html, 1), _trial_section(html, 3)
    assert "<h2>Trajectory</h2>" in first and "python3 -m unittest" in first
    assert "<h2>Workspace diff</h2>" in first and "from the second run" not in first
    assert "<h2>Trajectory</h2>" in third and "from the second run" in third


def _trial_section(html: str, repeat: int) -> str:
    start = html.index(f'id="trial-fix-a-bug/scripted/default/{repeat}"')
    end = html.find('id="trial-', start + 1)
    return html[start : end if end >= 0 else len(html)]
