"""A turn of an eval written as code sees the calls as the trial's trajectory records them:
headless Gemini CLI in permissionMode ``default`` leaves out the tools that would ask, and a
call to one is a denial by the mode (``status='denied'``), not a failed call."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from proctor.agents.gemini_cli import GeminiCli
from proctor.drive.driver import TurnOutcome
from proctor.evals.context import TestContext
from tests.unit.agents.test_gemini_left_out import CHAT, _launch


class _Gemini(GeminiCli):
    def transcript_files(self, launch: Any) -> list[Path]:
        return [CHAT]


def _turn(tmp_path: Path, permission_mode: str | None) -> Any:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    talk: Any = SimpleNamespace(
        adapter=_Gemini(),
        launch=_launch(tmp_path, permission_mode),
        workspace=workspace,
        driver=SimpleNamespace(log=SimpleNamespace(exit_code=0, failure=None)),
    )
    context = TestContext(None)
    context._add_turn(talk, "Do the task.", TurnOutcome("turn-end"), {})
    return context.turns[-1]


def test_a_left_out_call_is_denied_in_the_turn(tmp_path: Path) -> None:
    turn = _turn(tmp_path, "default")
    assert turn.called_tool("shell", status="denied")
    assert turn.called_tool("mcp_tiny_add", status="denied")
    assert turn.called_tool("no_such_tool", status="failed")  # a made-up name stays an error
    assert not turn.called_tool("shell", status="failed")


def test_control_in_yolo_the_chat_says_failed(tmp_path: Path) -> None:
    turn = _turn(tmp_path, "yolo")
    assert turn.called_tool("shell", status="failed")
    assert not turn.called_tool("shell", status="denied")
