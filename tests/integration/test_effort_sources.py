"""An effort set in a file (a ``codingagents`` profile's, a case's or a condition's
``agentEffort``) is checked as ``--agent-effort`` is, by ``proctor run``, ``validate`` and
``proctor eval`` alike, each sentence naming the file and the field it was set in: a level Claude
Code does not take is refused (exit 2), one given the scripted agent is warned of."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_case
from tests.integration.test_evals_cli import project

Run = Any

EVAL = """
    from proctor.evals import define_eval
    async def test(t):
        (await t.send("hi")).expect_ok()
    eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""
LEVELS = "takes the effort low, medium, high, xhigh or max"


def _commands(tmp_path: Path, profiles: dict[str, Any], agent: str) -> dict[str, tuple[str, ...]]:
    """``run --dry-run``, ``validate`` and ``eval --dry-run`` of one case on ``agent``, with
    ``profiles`` as proctor.json's ``codingagents`` (the eval project's own file)."""
    root = project(tmp_path, {"a.eval.py": EVAL})
    config = root / "proctor.json"
    config.write_text(json.dumps({"codingagents": profiles}))
    write_case(tmp_path / "cases", "c", plan={"turns": [{"say": "hello"}]})
    cases = ("--source", str(tmp_path / "cases"), "--config", str(config), "--agent", agent)
    return {
        "run": ("run", *cases, "--dry-run"),
        "validate": ("validate", *cases, "--model", "scripted"),
        "eval": ("eval", "--dir", str(root), "--agent", agent, "--dry-run"),
    }


def test_a_profile_s_effort_claude_code_does_not_take_is_refused(
    proctor: Run, tmp_path: Path
) -> None:
    profiles = {"cc": {"agent": "claude-code", "agentEffort": "ultra"}}
    config = tmp_path / "proj" / "proctor.json"
    said = f"{config}: field 'codingagents.cc.agentEffort': cc (a profile of claude-code) {LEVELS}"
    for name, command in _commands(tmp_path, profiles, "cc").items():
        result = proctor(*command)
        assert result.code == 2, (name, result.err)
        assert f'{said}, not "ultra"' in result.err, (name, result.err)


def test_a_case_s_or_condition_s_effort_is_refused_naming_its_field(
    proctor: Run, tmp_path: Path
) -> None:
    case = tmp_path / "cases" / "c"
    for config, field in [
        ({"agentEffort": "ultra"}, "agentEffort"),
        ({"conditions": {"fast": {"agentEffort": "ultra"}}}, "conditions.fast.agentEffort"),
    ]:
        write_case(tmp_path / "cases", "c", config={"agents": ["claude-code"], **config})
        for command in ("run", "validate"):
            argv = ("--source", str(tmp_path / "cases"), "--model", "scripted")
            result = proctor(command, *argv, *(("--dry-run",) if command == "run" else ()))
            assert result.code == 2, (command, result.err)
            said = f"{case / 'config.json'}: field '{field}': claude-code {LEVELS}, not \"ultra\""
            assert said in result.err, (command, result.err)
    # A level it takes runs (the trial's effort is the condition's, over the case's).
    config = {"agents": ["claude-code"], "agentEffort": "low"}
    write_case(tmp_path / "cases", "c", config={**config, "conditions": {"x": {}}})
    result = proctor("run", "--source", str(tmp_path / "cases"), "--dry-run")
    assert result.code == 0 and "effort" not in result.err, result.err


def test_an_effort_set_for_the_scripted_agent_is_warned_of_naming_its_field(
    proctor: Run, tmp_path: Path
) -> None:
    profiles = {"scripted": {"agentEffort": "high"}}
    config = tmp_path / "proj" / "proctor.json"
    said = (
        f"proctor: warning: {config}: field 'codingagents.scripted.agentEffort' (\"high\", for "
        "scripted): the scripted agent plays its case's plan whatever the effort (it is only "
        "recorded in trial.json)"
    )
    for name, command in _commands(tmp_path, profiles, "scripted").items():
        result = proctor(*command)
        assert result.code == 0, (name, result.err)
        assert result.err.count(said) == 1, (name, result.err)
    # The flag's pair comes first, and is warned of as the flag.
    result = proctor(
        *_commands(tmp_path, profiles, "scripted")["validate"], "--agent-effort", "scripted=low"
    )
    assert result.code == 0 and said not in result.err, result.err
    assert 'proctor: warning: --agent-effort "scripted=low"' in result.err, result.err


def test_an_unused_profile_s_effort_claude_code_does_not_take_is_refused(
    proctor: Run, tmp_path: Path
) -> None:
    """A bad level in the file is named even when no trial of the command runs on that
    profile, as an unused profile's unknown ``agent`` is: exit 2, the file, the field and
    the levels the agent takes."""
    profiles = {"cc": {"agent": "claude-code", "agentEffort": "ultra"}, "scripted": {}}
    config = tmp_path / "proj" / "proctor.json"
    said = f"{config}: field 'codingagents.cc.agentEffort': cc (a profile of claude-code) {LEVELS}"
    for name, command in _commands(tmp_path, profiles, "scripted").items():
        result = proctor(*command)
        assert result.code == 2, (name, result.err)
        assert f'{said}, not "ultra"' in result.err, (name, result.err)
    # A profile of an agent for which proctor names no levels takes any: nothing is said.
    profiles = {"cx": {"agent": "codex", "agentEffort": "ultra"}, "scripted": {}}
    for name, command in _commands(tmp_path, profiles, "scripted").items():
        result = proctor(*command)
        assert result.code == 0 and "effort" not in result.err, (name, result.err)
