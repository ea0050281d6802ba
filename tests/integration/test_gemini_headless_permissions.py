"""Gemini CLI headless with a ``permissionMode`` but ``yolo`` offers the model no shell tool (it
leaves out every tool that would need a confirmation), so the agent silently cannot run
commands or tests: ``run`` (and ``validate``) warn before the first trial, naming the profile,
the mode and what to use instead; the run goes ahead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents.gemini_cli import GeminiCli
from proctor.models.config import AgentProfile
from proctor.plan import checks
from tests.conftest import MakeCase, Run, run_cases

WARNING = (
    "proctor: warning: codingagents.gemini-cli: permissionMode '{mode}' runs Gemini CLI "
    "headless without {tools}, activate_skill or any MCP server's tools (it does not offer the "
    "model a tool that would need a confirmation; a call to one is refused as not found, a "
    "denial), so the agent cannot run commands or tests, load the case's skills or call its MCP "
    "servers; use permissionMode 'yolo' (or none) headless, or --mode interactive to answer its "
    "confirmations"
)


@pytest.mark.parametrize(
    ("mode", "tools"),
    [
        ("default", "run_shell_command, write_file, replace, web_fetch"),
        ("auto_edit", "run_shell_command"),
        ("acceptEdits", "run_shell_command"),  # an alias of auto_edit
        ("plan", "run_shell_command, web_fetch"),
    ],
)
def test_a_mode_that_leaves_the_shell_out_is_warned_of_headless(mode: str, tools: str) -> None:
    profile = AgentProfile(permissionMode=mode)
    said = GeminiCli().profile_warning(profile, "headless")
    assert said is not None
    assert "proctor: warning: codingagents.gemini-cli: " + said == WARNING.format(
        mode=mode, tools=tools
    )
    # In the TUI the tools are offered and their confirmations answered by the case's policy.
    assert GeminiCli().profile_warning(profile, "interactive") is None


@pytest.mark.parametrize("mode", [None, "yolo", "YOLO"])
def test_control_yolo_offers_every_tool(mode: str | None) -> None:
    profile = AgentProfile(permissionMode=mode)
    assert GeminiCli().profile_warning(profile, "headless") is None


def _fake_gemini(tmp_path: Path) -> Path:
    """A ``gemini`` at the pinned version that does nothing: the trial fails, quickly."""
    fake = tmp_path / "gemini"
    fake.write_text("#!/bin/sh\necho 0.61.0\n")
    fake.chmod(0o755)
    return fake


def test_run_warns_before_its_first_trial_and_goes_ahead(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("a", config={"agents": ["gemini-cli"]}, plan={"turns": [{"say": "hi"}]})
    make_case("b", config={"agents": ["gemini-cli"]}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    profile = {"permissionMode": "auto_edit", "binary": str(_fake_gemini(tmp_path))}
    config.write_text(json.dumps({"codingagents": {"gemini-cli": profile}}))
    result, out = run_cases(proctor, tmp_path, "--config", str(config), "--model", "scripted")
    warning = WARNING.format(mode="auto_edit", tools="run_shell_command")
    assert result.err.count(warning) == 1, result.err  # once, not once per trial
    assert result.err.index(warning) < result.err.index("running 2 trials"), result.err
    assert out.exists()  # not an error: the trials ran
    # validate says it too; in the TUI (the case's mode) nothing is said.
    args = ("--source", str(tmp_path / "cases"), "--config", str(config))
    assert warning in proctor("validate", *args).err
    profile["mode"] = "interactive"
    config.write_text(json.dumps({"codingagents": {"gemini-cli": profile}}))
    assert "warning" not in proctor("validate", *args).err


def test_control_no_warning_with_yolo(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "preflight_problems", lambda trials: [])
    make_case("a", config={"agents": ["gemini-cli"]}, plan={"turns": [{"say": "hi"}]})
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"codingagents": {"gemini-cli": {"permissionMode": "yolo"}}}))
    result = proctor("validate", "--source", str(tmp_path / "cases"), "--config", str(config))
    assert result.code == 0 and "warning" not in result.err, result.err
