"""The scripted agent starts once per trial: its imports stay on the standard library's
light side (no pydantic, no dataclasses and inspect), which a test can check without a clock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from proctor.agents.scripted.adapter import PROGRAM

HEAVY = ("pydantic", "dataclasses", "inspect", "psutil", "click", "proctor.models")

PROBE = (
    "import runpy, sys\n"
    "sys.argv = [sys.argv[1], '--help']\n"
    "try:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)


def imported_by(program: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, program], capture_output=True, text=True
    )
    return set(proc.stderr.split())


def test_the_scripted_agent_imports_nothing_heavy() -> None:
    modules = imported_by(str(PROGRAM))
    assert "proctor.util.native_paths" in modules  # the probe did run the program
    assert [m for m in HEAVY if m in modules] == []


def test_control_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    program = tmp_path / "heavy.py"
    src = PROGRAM.parents[2]
    program.write_text(
        f"import sys\nsys.path.insert(0, {str(src)!r})\n"
        "import dataclasses\nimport proctor.util.native_paths\n"
    )
    modules = imported_by(str(program))
    assert "proctor.util.native_paths" in modules
    assert [m for m in HEAVY if m in modules] == ["dataclasses", "inspect"]
