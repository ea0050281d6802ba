"""The import contracts of ``make check`` hold, and can fail: a copy of the package with one
upward import planted breaks them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(src: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [str(LINT), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=src,
        check=False,
    )


@pytest.fixture(scope="module")
def lint_available() -> None:
    if not LINT.exists():
        pytest.skip("lint-imports is not installed (pip install -e '.[test]')")


@pytest.mark.usefixtures("lint_available")
def test_the_contracts_hold() -> None:
    result = lint(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "planted", "broken"),
    [
        ("models/trial.py", "import proctor.report.aggregate", "Layers BROKEN"),
        ("agents/codex/adapter.py", "import proctor.agents.claude_code.tui", "Sibling agents"),
        ("transcripts/gemini/parser.py", "import proctor.transcripts.codex.facts", "parsers"),
        ("agents/protocol.py", "import proctor.drive.pty_session", "knows nothing of drivers"),
        ("util/jsonl.py", "import proctor.errors", "imports nothing of proctor"),
    ],
)
@pytest.mark.usefixtures("lint_available")
def test_control_a_planted_import_breaks_a_contract(
    tmp_path: Path, module: str, planted: str, broken: str
) -> None:
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src" / "proctor", src / "proctor", ignore=shutil.ignore_patterns("__pycache__")
    )
    target = src / "proctor" / module
    target.write_text(target.read_text() + f"\n{planted}  # planted\n")
    result = lint(src)
    assert result.returncode != 0
    assert broken in result.stdout, result.stdout
