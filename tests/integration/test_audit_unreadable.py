"""``proctor audit`` never fails on what it cannot read: a skill folder it may not enter is a
problem listed with the others, exit 0."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.integration.test_history_cli import as_user


def test_a_skill_folder_that_cannot_be_entered_is_a_problem_not_a_stop(tmp_path: Path) -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: folder permissions would not bind")
    home, project = tmp_path / "home", tmp_path / "project"
    for name in ("shut", "open"):
        skill = home / ".claude" / "skills" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: the {name} one\n---\n")
    project.mkdir()
    shut = home / ".claude" / "skills" / "shut"
    shut.chmod(0)
    try:
        result = as_user(
            "audit", "--home", str(home), "--project", str(project), "--agent", "claude-code",
            "--json",
        )  # fmt: skip
    finally:
        shut.chmod(0o755)
    assert result.returncode == 0, result.stderr
    report = json.dumps(json.loads(result.stdout))
    assert "the open one" in report or '"open"' in report
    assert f"{shut / 'SKILL.md'}: cannot be read (Permission denied)" in report
    assert report.count(f"{shut / 'SKILL.md'}: cannot be read") == 1
