"""A NUL character in a path a user gives is refused when the configuration is read, with a
sentence naming the file and the field: no file system names a file with one, and looking such a
path up stopped proctor with a traceback (``out``) or failed every trial."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run, write_case


def test_a_nul_in_the_results_directory_is_one_sentence_in_validate_and_run(
    proctor: Run, tmp_path: Path
) -> None:
    write_case(tmp_path / "cases", "x")
    top = tmp_path / "nul.json"
    top.write_text(json.dumps({"out": "a\0b"}))
    for args in (("validate",), ("run", "--dry-run")):
        result = proctor(*args, "--source", str(tmp_path / "cases"), "--config", str(top))
        assert result.code == 2, result.err
        assert "Traceback" not in result.err
        assert f"{top}: field 'out': a path cannot hold a NUL character" in result.err


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"provision": {"skills": [{"name": "x", "path": "a\0b"}]}}, "provision.skills[0]"),
        ({"provision": {"mcps": [{"name": "x", "command": "a\0b"}]}}, "provision.mcps[0]"),
        ({"evaluators": [{"use": "llm-judge", "rubric": "a\0b"}]}, "evaluators[0].rubric"),
        (
            {"evaluators": [{"use": "llm-judge", "artifacts": ["a\0b"]}]},
            "evaluators[0].artifacts[0]",
        ),
        ({"evaluators": [{"use": "file-exists", "must": ["a\0b"]}]}, "evaluators[0].must"),
        (
            {"evaluators": [{"use": "command", "run": "true", "copyIn": ["a\0b"]}]},
            "evaluators[0].copyIn",
        ),
        ({"expectedFiles": ["a\0b"]}, "expectedFiles[0]"),
        ({"agentModel": "a\0b"}, "agentModel"),
    ],
)
def test_a_nul_in_a_path_of_a_case_config_is_refused_naming_the_field(
    proctor: Run, tmp_path: Path, config: dict[str, Any], field: str
) -> None:
    case = write_case(tmp_path / "cases", "x", config=config)
    (case / "evaluation.md").write_text("Score it.")
    result = proctor("validate", "--source", str(tmp_path / "cases"))
    assert result.code == 2, result.out + result.err
    assert f"field '{field}'" in result.err
    assert "NUL character" in result.err


def test_a_nul_in_a_task_files_repository_is_refused(proctor: Run, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"id": "t", "prompt": "x", "repository": "a\0b"}]))
    result = proctor("validate", "--source", str(tasks), "--source-root", str(tmp_path))
    assert result.code == 2 and "Traceback" not in result.err
    assert "field 'repository': a path cannot hold a NUL character" in result.err
