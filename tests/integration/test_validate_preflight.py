"""``validate`` checks the agent CLIs the planned trials run, as ``run`` does before any trial
(it skipped that check: a missing CLI passed validate, then run refused); and a ``binary`` the
scripted agent's profile gives that cannot be run stops the run before any trial (every trial
was an infra-error: ``FileNotFoundError``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from proctor.agents.scripted.adapter import ScriptedAgent
from proctor.models.config import AgentProfile
from tests.conftest import Run, write_case

MISSING = "agent 'scripted': the binary its profile gives, /nonexistent/bin, is not a program"


def test_the_scripted_agents_binary_is_checked_before_any_trial(
    proctor: Run, tmp_path: Path
) -> None:
    write_case(tmp_path / "cases", "x", plan={"turns": [{"say": "hi"}]})
    top = tmp_path / "bin.json"
    top.write_text(json.dumps({"codingagents": {"scripted": {"binary": "/nonexistent/bin"}}}))
    out = tmp_path / "out"
    args = ("--source", str(tmp_path / "cases"), "--config", str(top))
    result = proctor("run", *args, "--out", str(out))
    assert result.code == 2 and MISSING in result.err, result.err
    assert not out.exists()
    result = proctor("validate", *args)
    assert result.code == 2 and MISSING in result.err, result.err


def test_control_the_scripted_agent_runs_under_a_binary_that_is_there() -> None:
    agent = ScriptedAgent()
    assert agent.preflight(AgentProfile(binary=sys.executable)) is None
    assert agent.preflight(AgentProfile(binary=Path(sys.executable).name)) is None  # on PATH
    assert agent.preflight(AgentProfile()) is None


def test_validate_refuses_an_agent_cli_that_run_would(proctor: Run, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "x", config={"agents": ["claude-code"]})
    top = tmp_path / "cc.json"
    top.write_text(json.dumps({"codingagents": {"claude-code": {"binary": "/nonexistent/c"}}}))
    args = ("--source", str(tmp_path / "cases"), "--config", str(top))
    validated = proctor("validate", *args)
    ran = proctor("run", *args, "--out", str(tmp_path / "out"))
    said = "agent 'claude-code': the 'claude' CLI was not found"
    assert ran.code == 2 and said in ran.err, ran.err
    # Only the profile's binary was looked at: the sentence names it, not folders never read.
    named = "codingagents.claude-code.binary '/nonexistent/c' names no file"
    assert named in ran.err and named in validated.err and "and PATH)" not in ran.err
    assert validated.code == 2 and said in validated.err, validated.out + validated.err


def test_validate_takes_runs_agent_backend_and_role_models(
    proctor: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate had no --agent, --model or --judge-model: a run's judge without a key, or a
    Gemini model named google/…, passed validate and stopped the run."""
    for name in ("ANTHROPIC_API_KEY", "PROCTOR_ANTHROPIC_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./.env
    write_case(tmp_path / "cases", "x", plan={"turns": [{"say": "hi"}]})
    args = ("--source", str(tmp_path / "cases"), "--agent", "scripted")
    assert proctor("validate", *args).code == 0
    judged = proctor("validate", *args, "--judge-model", "anthropic/claude-x")
    assert judged.code == 2
    assert "--judge-model: the judge role (anthropic/claude-x) needs a key" in judged.err
    gemini = proctor("validate", *args, "--workhorse-model", "google/gemini-x")
    assert gemini.code == 2 and "a Gemini model is reached through" in gemini.err
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123456")
    assert proctor("validate", *args, "--judge-model", "anthropic/claude-x").code == 0


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (("--condition", "nope"), "--condition nope: case 'x' has no such condition"),
        (("--first-condition", "nope"), "--first-condition nope: no case has that condition"),
        (("--case", "nope"), "--case nope: no case matches (cases: x)"),
        (("--tag", "nope"), "--tag nope: no case carries it"),
        (("--agent-model", "nope=m"), "--agent-model nope=…: unknown agent 'nope'"),
        (("--agent-effort", "e"), '--agent-effort "e": expected ID=VALUE'),
        (("--only-evaluator", "nope"), "--only-evaluator nope: no case has an evaluator"),
        (("--skip-evaluator", "nope"), "--skip-evaluator nope: no case has an evaluator"),
    ],
)
def test_validate_refuses_the_selection_run_refuses(
    proctor: Run, tmp_path: Path, option: tuple[str, str], said: str
) -> None:
    """validate had no --condition, --case, --tag, ...: a selection run refuses (exit 2) was
    an unknown option to validate, which could not check what that run would run."""
    config = {"agents": ["scripted"], "evaluators": [{"use": "file-exists", "must": ["a"]}]}
    write_case(tmp_path / "cases", "x", config=config, plan={"turns": [{"say": "hi"}]})
    args = ("--source", str(tmp_path / "cases"), *option)
    ran = proctor("run", "--dry-run", *args)
    validated = proctor("validate", *args)
    assert ran.code == 2 and said in ran.err, ran.err
    assert validated.code == 2 and said in validated.err, validated.err


def test_validate_checks_only_the_cases_and_conditions_chosen(proctor: Run, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "x", plan={"turns": [{"say": "hi"}]})
    write_case(tmp_path / "cases", "y", plan={"turns": [{"say": "hi"}]})
    chosen = proctor("validate", "--source", str(tmp_path / "cases"), "--case", "x", "--json")
    assert chosen.code == 0, chosen.err
    assert [c["name"] for c in json.loads(chosen.out)["cases"]] == ["x"]
