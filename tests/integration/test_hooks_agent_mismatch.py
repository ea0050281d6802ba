"""`proctor hooks test` refuses a case for a CLI that never runs the source's hooks (a Gemini
CLI case against a Claude Code plugin, Claude Code cases against Gemini CLI's settings), where
no hook would match and a silent case would pass having exercised nothing."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run

EXAMPLE = Path(__file__).parents[2] / "examples" / "addons" / "hook"


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def silent(agent: str | None, event: str, tool: str) -> dict[str, Any]:
    case = {"id": "quiet", "event": event, "tool": tool, "input": {"command": "rm -rf /"}}
    return {**case, **({"agent": agent} if agent else {}), "expect": {"silent": True}}


def test_a_gemini_case_against_a_claude_code_plugin_is_refused(
    proctor: Run, tmp_path: Path
) -> None:
    cases = write(
        tmp_path / "cases.json", [silent("gemini-cli", "BeforeTool", "run_shell_command")]
    )
    result = proctor("hooks", "test", str(EXAMPLE / "guard-plugin"), "--cases", str(cases))
    assert result.code == 2, result.out
    assert result.err.count("\n") <= 1 and "Traceback" not in result.err
    assert (
        f"{cases}: case 'quiet' is for gemini-cli, but {EXAMPLE / 'guard-plugin'} holds Claude "
        "Code hooks, which Gemini CLI never runs (a case for them needs the agent claude-code"
    ) in result.err


def test_claude_code_cases_against_gemini_settings_are_refused(
    proctor: Run, tmp_path: Path
) -> None:
    group = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "exit 2"}]}
    source = write(
        tmp_path / "home" / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [group]}}
    )
    cases = write(tmp_path / "cases.json", [silent(None, "PreToolUse", "Bash")])
    result = proctor("hooks", "test", str(source), "--cases", str(cases), "--agent", "claude-code")
    assert result.code == 2
    assert "is for claude-code, but" in result.err and "holds Gemini CLI hooks" in result.err


def test_a_settings_file_elsewhere_is_told_by_its_events(proctor: Run, tmp_path: Path) -> None:
    group = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "exit 2"}]}
    source = write(tmp_path / "hooks.json", {"hooks": {"BeforeTool": [group]}})
    cases = write(tmp_path / "cases.json", [silent("claude-code", "PreToolUse", "Bash")])
    result = proctor("hooks", "test", str(source), "--cases", str(cases))
    assert result.code == 2 and "holds Gemini CLI hooks" in result.err


def test_control_a_case_for_the_source_s_own_agent_runs(proctor: Run, tmp_path: Path) -> None:
    group = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "true"}]}
    source = write(
        tmp_path / "home" / ".gemini" / "settings.json", {"hooks": {"BeforeTool": [group]}}
    )
    cases = write(
        tmp_path / "cases.json", [silent("gemini-cli", "BeforeTool", "run_shell_command")]
    )
    result = proctor("hooks", "test", str(source), "--cases", str(cases))
    assert result.code == 0, result.err
