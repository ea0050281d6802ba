"""Gemini CLI headless in an approval mode but ``yolo`` leaves out every tool that would need a
confirmation; a call to one fails in its chat as "not found" (a subagent's, as "not available
to this agent"). proctor records such a call as a denial by the permission mode, with the
reason, not as an error; a made-up tool name, the call of a subagent with tools of its own and
every call in ``yolo`` or in the TUI stay as the chat says."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from proctor.agents.gemini_cli import GeminiCli, GeminiSession
from proctor.agents.gemini_cli.adapter import left_out_headless
from proctor.agents.protocol import Launch, LaunchContext, Mode
from proctor.metrics.process import compute_process_metrics
from proctor.metrics.trace import build_steps
from proctor.models.config import AgentProfile, Provision
from proctor.models.trajectory import ToolResult, Trajectory
from proctor.transcripts.gemini import parse_gemini_chat
from proctor.util.native_paths import gemini_subagent_chats

CHAT = next(
    (Path(__file__).parents[2] / "fixtures/transcripts/gemini-left-out").glob("session-*.jsonl")
)
LEFT_OUT_REASON = (
    "Gemini CLI left {name} out of the tools it offers the model headless under "
    "permissionMode '{mode}' (a tool that would need a confirmation), so the call was refused "
    'as not found: Tool "{name}" not found.'
)


def _fake_gemini(tmp_path: Path) -> Path:
    fake = tmp_path / "gemini"
    fake.write_text("#!/bin/sh\necho 0.61.0\n")
    fake.chmod(0o755)
    return fake


def _launch(tmp_path: Path, permission_mode: str | None, mode: Mode = "headless") -> Launch:
    profile = AgentProfile(permissionMode=permission_mode, binary=str(_fake_gemini(tmp_path)))
    provision = Provision.model_validate({"mcps": [{"name": "tiny", "command": "tiny-mcp"}]})
    ctx = LaunchContext(
        workspace=tmp_path / "workspace",
        home=tmp_path / "home",
        scratch=tmp_path,
        env={},
        profile=profile,
        plan=None,
        repeat=1,
        session_id="s",
        provision=provision,
        mode=mode,
    )
    return GeminiCli().prepare(ctx)


def _results(trajectory: Trajectory) -> dict[str, ToolResult]:
    names = {e.id: e.name for e in trajectory.events if e.type == "tool_call"}
    return {names[e.id]: e for e in trajectory.events if isinstance(e, ToolResult)}


@pytest.mark.parametrize("permission_mode", ["default", "DEFAULT"])
def test_a_call_to_a_left_out_tool_is_a_denial_with_its_reason(
    tmp_path: Path, permission_mode: str
) -> None:
    trajectory = parse_gemini_chat(CHAT)
    GeminiCli().annotate(trajectory, _launch(tmp_path, permission_mode))
    results = _results(trajectory)
    for name in ("run_shell_command", "write_file", "mcp_tiny_add"):
        result = results[name]
        assert (result.denied, result.is_error) == (True, False), name
        reason = LEFT_OUT_REASON.format(name=name, mode=permission_mode)
        assert (result.output or "").startswith(reason), result.output
    # A name no tool has is the model's mistake, and a tool's own failure is an error.
    for name in ("no_such_tool", "read_file"):
        assert (results[name].denied, results[name].is_error) == (False, True), name
        assert "left" not in (results[name].output or ""), name
    assert (results["list_directory"].denied, results["list_directory"].is_error) == (False, False)


def test_control_as_the_chat_says_without_the_session(tmp_path: Path) -> None:
    """Parsed alone (no session to say the mode) every not-found call is an error."""
    results = _results(parse_gemini_chat(CHAT))
    for name in ("run_shell_command", "write_file", "mcp_tiny_add", "no_such_tool"):
        assert (results[name].denied, results[name].is_error) == (False, True), name


@pytest.mark.parametrize(
    ("permission_mode", "mode"),
    [("yolo", "headless"), (None, "headless"), ("default", "interactive")],
)
def test_control_yolo_or_the_tui_leaves_nothing_out(
    tmp_path: Path, permission_mode: str | None, mode: Mode
) -> None:
    trajectory = parse_gemini_chat(CHAT)
    launch = _launch(tmp_path, permission_mode, mode)
    assert isinstance(launch.state, GeminiSession) and launch.state.left_out is None
    GeminiCli().annotate(trajectory, launch)
    assert not any(r.denied for r in _results(trajectory).values())


def test_a_subagents_not_found_call_stays_an_error(tmp_path: Path) -> None:
    trajectory = parse_gemini_chat(CHAT)
    for event in trajectory.events:
        event.sidechain = True
    GeminiCli().annotate(trajectory, _launch(tmp_path, "default"))
    assert not any(r.denied for r in _results(trajectory).values())


def test_metrics_read_a_left_out_call_as_no_failure(tmp_path: Path) -> None:
    """The steps the metrics are made of: a left-out call's outcome is unknown (a denial), not
    a failure; the made-up name and the tool's own error stay failures."""
    trajectory = parse_gemini_chat(CHAT)
    GeminiCli().annotate(trajectory, _launch(tmp_path, "default"))
    outcomes = [(s.call.name, s.outcome) for s in build_steps(trajectory.events)]
    assert outcomes == [
        ("run_shell_command", "unknown"),
        ("write_file", "unknown"),
        ("mcp_tiny_add", "unknown"),
        ("no_such_tool", "fail"),
        ("read_file", "fail"),
        ("list_directory", "pass"),
    ]
    assert compute_process_metrics(trajectory.events).is_task is False


@pytest.mark.parametrize(
    ("name", "approval", "left_out"),
    [
        ("run_shell_command", "default", True),
        ("run_shell_command", "auto_edit", True),
        ("run_shell_command", "plan", True),
        ("write_file", "default", True),
        ("write_file", "auto_edit", False),  # offered: auto_edit allows edits
        ("write_file", "plan", False),  # offered: refused outside the plans folder
        ("replace", "default", True),
        ("web_fetch", "default", True),
        ("web_fetch", "auto_edit", False),
        ("web_fetch", "plan", True),
        ("activate_skill", "auto_edit", True),
        ("list_background_processes", "plan", True),
        ("read_background_output", "default", True),
        ("mcp_tiny_add", "auto_edit", True),
        ("mcp_other_add", "default", False),  # no such server
        ("read_file", "default", False),
        ("no_such_tool", "default", False),
        ("run_shell_command", "yolo", False),
    ],
)
def test_the_tools_left_out_in_each_mode(name: str, approval: str, left_out: bool) -> None:
    assert left_out_headless(name, approval, ["tiny"]) is left_out


@pytest.mark.parametrize(
    ("server", "tool"),
    [("tiny", "mcp_tiny_add"), ("my server", "mcp_my_server_add"), ("mcp_x", "mcp_x_add")],
)
def test_an_mcp_servers_tools_as_gemini_names_them(server: str, tool: str) -> None:
    assert left_out_headless(tool, "default", [server])
    assert not left_out_headless(tool, "default", ["other"])


HOOKS_GEMINI = Path(__file__).parents[2] / "fixtures/transcripts/gemini-hooks"
"""A real headless run in ``default`` mode: the main agent called run_shell_command (left out),
then subagent ``generalist``, which called it too, and invoke_agent (never a subagent's)."""


def _hooks_trial(tmp_path: Path, permission_mode: str, agent: str = "generalist") -> Trajectory:
    """The run's chats as a trial reads them, annotated; ``agent`` names the subagent the main
    chat says it started."""
    gemini = tmp_path / "gemini-hooks"
    shutil.copytree(HOOKS_GEMINI, gemini)
    main = next(gemini.glob("tmp/workspace/chats/session-*.jsonl"))
    main.write_text(
        main.read_text().replace('"agent_name":"generalist"', f'"agent_name":"{agent}"')
    )
    launch = _launch(tmp_path, permission_mode)
    launch.state.gemini_dir, launch.state.session_id = (
        gemini,
        "643e96b3-fd5a-4f5e-ba03-66b2889a966b",
    )
    trajectory = parse_gemini_chat(main, subagents=gemini_subagent_chats(main))
    GeminiCli().annotate(trajectory, launch)
    return trajectory


def _sidechain(trajectory: Trajectory) -> dict[str, ToolResult]:
    names = {e.id: e.name for e in trajectory.events if e.type == "tool_call"}
    return {names[e.id]: e for e in trajectory.events if isinstance(e, ToolResult) and e.sidechain}


def test_a_generalists_call_to_a_left_out_tool_is_a_denial_with_its_reason(
    tmp_path: Path,
) -> None:
    results = _sidechain(_hooks_trial(tmp_path, "default"))
    shell = results["run_shell_command"]
    assert (shell.denied, shell.is_error) == (True, False)
    assert (shell.output or "").startswith(
        "Gemini CLI left run_shell_command out of the tools it offers the model headless under "
        "permissionMode 'default' (a tool that would need a confirmation), so subagent "
        "generalist, offered the main agent's tools, was refused the call: Unauthorized tool "
        "call: 'run_shell_command' is not available to this agent."
    ), shell.output
    # No subagent is offered invoke_agent, in any mode: the model's mistake.
    assert (results["invoke_agent"].denied, results["invoke_agent"].is_error) == (False, True)


@pytest.mark.parametrize(
    ("permission_mode", "agent"),
    [
        ("default", "codebase_investigator"),
        ("auto_edit", "codebase_investigator"),
        ("yolo", "generalist"),
    ],
)
def test_control_a_subagent_with_its_own_tools_or_yolo_keeps_the_error(
    tmp_path: Path, permission_mode: str, agent: str
) -> None:
    """codebase_investigator is never offered the shell; in yolo nothing is left out."""
    shell = _sidechain(_hooks_trial(tmp_path, permission_mode, agent))["run_shell_command"]
    assert (shell.denied, shell.is_error) == (False, True)
    assert (shell.output or "").startswith("Unauthorized tool call:"), shell.output
