"""The first example of docs/evals.md runs as written: its eval file and its config file,
copied as they stand, pass on the scripted agent."""

from __future__ import annotations

import re
from pathlib import Path

from proctor.evaluators.gates.vocabulary import CALL_STATUSES
from tests.conftest import Run

DOC = Path(__file__).resolve().parents[2] / "docs" / "evals.md"


def test_the_first_example_runs_as_written(proctor: Run, tmp_path: Path) -> None:
    # Each block opens with a comment naming its file (`# evals/….py`, maybe a colon and words).
    blocks = re.findall(r"```python\n# (evals/[\w./]+\.py)[^\n]*\n(.*?)```", DOC.read_text(), re.S)
    files = dict(blocks)
    assert {"evals/builds/greeting.eval.py", "evals/evals.config.py"} <= set(files), files.keys()
    for name in ("evals/builds/greeting.eval.py", "evals/evals.config.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(files[name])
    result = proctor("eval", "--dir", str(tmp_path), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.out + result.err
    assert "1 passed, 0 failed" in result.out + result.err


def test_the_called_tool_row_names_every_status_it_accepts() -> None:
    row = next(line for line in DOC.read_text().splitlines() if line.startswith("| `called_tool("))
    said = re.findall(r'`(?:status=)?"(\w+)"`', row)
    assert said == list(CALL_STATUSES), row  # pending was accepted, and named only when refused
