"""The Python API: the worked example of docs/api.md runs as written, and the functions behave
as the CLI does."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import proctor

ROOT = Path(__file__).parents[2]


def test_the_worked_example_in_the_docs_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = (ROOT / "docs" / "api.md").read_text()
    example = re.search(r"## A worked example.*?```python\n(.*?)```", doc, re.S)
    assert example is not None
    shutil.copytree(
        ROOT / "examples" / "cases" / "fix-a-bug", tmp_path / "examples/cases/fix-a-bug"
    )
    monkeypatch.chdir(tmp_path)
    exec(compile(example.group(1), "docs/api.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "0 1.0"
    assert printed[4] == "['json', 'junit', 'markdown']"
    assert printed[5] == "0"
    assert printed[6] == "['shell', 'search', 'read', 'edit', 'shell']"
    assert (tmp_path / "api-results").is_dir()


def test_a_configuration_error_raises_the_cli_sentence(tmp_path: Path) -> None:
    with pytest.raises(proctor.ConfigError, match="no such file or directory"):
        proctor.run(tmp_path / "missing")
    with pytest.raises(proctor.ConfigError, match="unknown reporter"):
        proctor.run(tmp_path, reporters=["pdf"])
    with pytest.raises(proctor.ConfigError, match=r"proctor.run\(\): argument 'timeout'"):
        proctor.run(tmp_path, timeout=1e9)  # a time limit past a day, as the CLI refuses it
    with pytest.raises(proctor.ConfigError, match="argument 'concurrency'"):
        proctor.run(tmp_path, concurrency=0)
    with pytest.raises(
        proctor.ConfigError, match="argument 'repeats': expected an integer, got 2.5"
    ):
        proctor.run(tmp_path, repeats=2.5)
    with pytest.raises(proctor.ConfigError, match="'repeat'; did you mean 'repeats'"):
        proctor.run(tmp_path, repeat=3)


def test_parse_transcript_forces_a_format_by_agent_id() -> None:
    fixture = ROOT / "tests/fixtures/transcripts/codex"
    trajectory = proctor.parse_transcript(next(fixture.glob("rollout-2026-*.jsonl")), agent="codex")
    assert trajectory.format == "codex" and trajectory.usage
