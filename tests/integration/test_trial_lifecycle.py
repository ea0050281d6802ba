"""A trial's life as the run sees it: agent CLIs checked before any trial, the time of each
phase, and the status each way of failing leads to."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir


def _fake_cli(tmp_path: Path, version: str) -> Path:
    binary = tmp_path / "bin" / "claude"
    binary.parent.mkdir(exist_ok=True)
    binary.write_text(f"#!/bin/sh\necho '{version} (Claude Code)'\n")
    binary.chmod(binary.stat().st_mode | stat.S_IEXEC)
    return binary


def test_a_missing_agent_cli_stops_the_run_before_any_trial(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"]})
    config = tmp_path / "proctor.json"
    missing = tmp_path / "nowhere" / "claude"
    config.write_text(json.dumps({"codingagents": {"claude-code": {"binary": str(missing)}}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2
    assert "agent 'claude-code': the 'claude' CLI was not found" in result.err
    assert "run `proctor agents install`" in result.err
    assert not out.exists(), "no run folder: nothing started"


def test_a_cli_of_another_version_than_its_profile_pins_stops_the_run(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"agents": ["claude-code"]})
    binary = _fake_cli(tmp_path, "1.0.0")
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "version": "2.1.197"}
    config.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    assert result.code == 2 and "is version 1.0.0, but its profile pins 2.1.197" in result.err
    assert "proctor agents install" in result.err and not out.exists()


def test_control_the_pinned_version_found_runs(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-a-real-key")  # the run needs a key
    make_case("a", config={"agents": ["claude-code"], "timeoutSec": 5})
    binary = _fake_cli(tmp_path, "2.1.197")
    config = tmp_path / "proctor.json"
    profile = {"binary": str(binary), "version": "2.1.197"}
    config.write_text(json.dumps({"codingagents": {"claude-code": profile}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config))
    trial = load_trial(single_run_dir(out), "a", agent="claude-code")
    assert result.code == 3 and trial["agentVersion"] == "2.1.197"
    assert trial["status"] == "agent-error", "the fake CLI answers nothing: the agent failed"


def test_agent_time_without_the_harness_reaction_is_its_own(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan: dict[str, Any] = {
        "turns": [{"ask": "Proceed?", "options": ["Yes", "No"]}, {"say": "done"}]
    }
    make_case("ask", plan=plan, qna="```rules\nProceed => Yes\n```\n")
    result, out = run_cases(proctor, tmp_path)
    timings = load_trial(single_run_dir(out), "ask")["timings"]
    assert result.code == 0, result.err
    assert timings["harnessReactMs"] > 0
    assert timings["agentPureMs"] == round(timings["agentMs"] - timings["harnessReactMs"], 3)
    assert timings["agentPureMs"] < timings["agentMs"]
    assert timings["interruptions"] == 1 and timings["turnsTotal"] == 1
