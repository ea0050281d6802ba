"""A script that uses proctor is type-checked against proctor's own annotations: the package
carries the ``py.typed`` marker (PEP 561), as docs/api.md says type checkers know every field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

_SCRIPT = """\
import proctor

result = proctor.run("cases", cases="fix-a-bug", repeats=2)
rate: float | None = result.suite.totals.pass_rate
for trial in result.records:
    status: str = trial.status
wrong: str = result.exit_code
"""


def test_mypy_checks_a_script_against_proctors_annotations(tmp_path: Path) -> None:
    """Without the marker mypy skipped proctor ("module is installed, but missing library
    stubs or py.typed marker") and checked nothing a script did with it."""
    (tmp_path / "script.py").write_text(_SCRIPT)
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary"]
    done = subprocess.run(
        [*mypy, "--cache-dir", str(tmp_path / "cache"), "script.py"],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.stdout.splitlines() == [
        'script.py:7: error: Incompatible types in assignment (expression has type "int",'
        ' variable has type "str")  [assignment]'
    ], done.stdout + done.stderr
