"""The README's example of a refused qna.md rule line is the message proctor prints for it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.conftest import Run

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_example_of_a_bad_rule_line_is_the_message(proctor: Run, tmp_path: Path) -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    example = re.search(r"`(qna\.md: rules block, line (\d+): expected [^`]*got (.+?))`", readme)
    assert example is not None
    said, line, got = example.group(1), int(example.group(2)), example.group(3)
    case = tmp_path / "cases" / "ask"
    shutil.copytree(ROOT / "examples" / "cases" / "ask-a-question", case)
    # The bad line at the file's line the README names (a line of the file, not of the block).
    lines = ["Answers.", "", "```rules", "(?i)readme => No"]
    lines += ["# comment"] * (line - 1 - len(lines)) + [got.strip('"'), "```", ""]
    (case / "qna.md").write_text("\n".join(lines), encoding="utf-8")
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert result.code == 2, result.err
    assert f"{case / 'qna.md'}: {said.removeprefix('qna.md: ')}" in result.err, result.err
