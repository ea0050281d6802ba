"""Add-on entries are checked when a case is loaded: a bad one is a config error (exit 2) and
nothing is provisioned, let alone deleted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_case


def _skill_case(root: Path, name: str) -> Path:
    case = write_case(root, "c", config={"provision": {"skills": [{"name": name, "path": "s"}]}})
    (case / "s").mkdir()
    (case / "s" / "SKILL.md").write_text("---\nname: s\n---\n")
    return case


@pytest.mark.parametrize("name", ["VICTIM", "../..", "..", "a/b"])
def test_a_skill_name_that_is_not_one_folder_is_refused_and_nothing_is_deleted(
    proctor: Any, tmp_path: Path, name: str
) -> None:
    victim = tmp_path / "victim"
    (victim / "keep").mkdir(parents=True)
    _skill_case(tmp_path / "cases", str(victim) if name == "VICTIM" else name)
    cases = str(tmp_path / "cases")
    for args in (("validate",), ("run", "--out", str(tmp_path / "out"))):
        result = proctor(*args, "--source", cases)
        assert result.code == 2, result.err
        assert "field 'provision.skills[0].name'" in result.err
        assert len(result.err.strip().splitlines()) == 1
    assert (victim / "keep").is_dir()


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"command": "python", "args": "server.py"}, "'args' of 'srv' must be a list of strings"),
        ({"command": "python", "env": ["A=1"]}, "'env' of 'srv' must be an object of strings"),
        ({"command": "python", "env": {"PORT": 8080}}, "'env' of 'srv' must be an object"),
        ({"command": ""}, "'command' of 'srv' must be a non-empty string"),
        ({"url": "http://x", "headers": ["A: b"]}, "'headers' of 'srv' must be an object"),
        ({"command": "python", "headers": {"A": "b"}}, "'headers' of 'srv' applies to a 'url'"),
    ],
)
def test_bad_mcp_fields_are_config_errors(
    proctor: Any, tmp_path: Path, entry: dict[str, Any], says: str
) -> None:
    write_case(tmp_path, "c", config={"provision": {"mcps": [{"name": "srv", **entry}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2 and "field 'provision.mcps[0]'" in result.err and says in result.err


def test_a_hook_without_a_command_is_a_config_error(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path, "c", config={"provision": {"hooks": [{"name": "h", "event": "Stop"}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2
    assert "field 'provision.hooks[0]': 'command' of 'h' is required" in result.err


def test_a_skill_without_a_path_is_a_config_error(proctor: Any, tmp_path: Path) -> None:
    write_case(tmp_path, "c", config={"provision": {"skills": [{"name": "s"}]}})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 2 and "'path' of 's' is required" in result.err


def test_good_entries_validate(proctor: Any, tmp_path: Path) -> None:
    provision = {
        "mcps": [
            {"name": "local", "command": "python", "args": ["s.py"], "env": {"A": "1"}},
            {"name": "remote", "url": "https://x/mcp", "headers": {"Authorization": "Bearer t"}},
        ],
        "hooks": [{"name": "h", "command": "true", "event": "Stop"}],
    }
    write_case(tmp_path, "c", config={"agents": ["scripted"], "provision": provision})
    result = proctor("validate", "--source", str(tmp_path))
    assert result.code == 0, result.err
