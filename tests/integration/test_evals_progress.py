"""The progress `proctor eval` prints on stderr while it runs: one line per finished case, and
its warnings below it, as `proctor run` prints a trial's."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Run
from tests.integration.test_evals_cli import project

SHORT = """
    from proctor.evals import define_eval
    PLAN = {"turns": [{"say": "one"}, {"endTurn": True}, {"say": "two"}]}
    async def test(t):
        (await t.send("go")).expect_ok()
    eval = define_eval(plan=PLAN, test=test)
"""
SAID = (
    "the plan has 2 turns (split by endTurn) and the test sent 1 message, so these steps "
    "never played: turns[2] (say)"
)


def test_a_case_s_warning_is_on_its_progress_line(proctor: Run, tmp_path: Path) -> None:
    """The end summary listed the plan's steps no message reached, and the live line of the
    case said nothing of them; `proctor run` prints them under the trial's line."""
    root = project(tmp_path, {"short.eval.py": SHORT})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), "--json")
    assert result.code == 0, result.err
    lines = result.err.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ short ("))
    assert lines[at + 1] == f"    warning: {SAID}", result.err
    # --no-stream keeps the progress quiet, its warning line with it (the summary says it).
    quiet = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "--no-stream")
    assert "warning" not in quiet.err and f"    warning: {SAID}" in quiet.out
