"""A plan's raw ``tool`` step naming another real CLI's own tool is warned of before any trial
on the scripted model: the step is sent unchanged, and that CLI refused it mid-trial as an
unknown tool (``unsupported call: Read`` on Codex) with nothing said beforehand."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run, write_case

PLAN = {
    "conditions": {
        "default": {
            "turns": [
                {"tool": "Read", "input": {"file_path": "a.py"}},
                {"tool": "mcp__docs__lookup", "input": {"q": "x"}},
                {"tool": "TaskOutput", "input": {}},
                {"tool": "exec_command", "input": {"cmd": "ls"}},
            ]
        }
    }
}


def test_another_clis_tool_is_warned_of_on_the_scripted_model(proctor: Run, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "x", plan=PLAN)
    args = ("validate", "--source", str(tmp_path / "cases"), "--agent", "claude-code")
    result = proctor(*args, "--agent", "gemini-cli", "--model", "scripted")
    plan = tmp_path / "cases" / "x" / "plan.json"
    assert (
        f"proctor: warning: {plan}: field 'conditions.default.turns[0].tool': 'Read' is Claude "
        "Code's; "
        "Gemini CLI (gemini-cli) has no such tool, so it refuses the call on the scripted "
        'model; a {"read": …} step is played with each CLI\'s own tool'
    ) in result.err, result.err
    assert (
        f"{plan}: field 'conditions.default.turns[3].tool': 'exec_command' is Codex's; "
        in result.err
    )
    assert "Claude Code (claude-code) has no such tool" in result.err  # exec_command
    warned = [line for line in result.err.splitlines() if "has no such tool" in line]
    assert len(warned) == 3, warned  # not the MCP tool, nor a name no CLI's table knows
    # On a real provider the plan is not played by the CLIs: nothing to say.
    real = proctor(*args, "--agent", "gemini-cli")
    assert "has no such tool" not in real.err


def test_a_tasks_plan_is_named_by_its_field_in_the_task_file(proctor: Run, tmp_path: Path) -> None:
    """A task's plan is its ``plan`` field, not a plan.json beside the task file (there is
    none): a warning and an error about it name the task and ``plan.…``."""
    tasks = tmp_path / "tasks.json"
    task = {"id": "x", "prompt": "hi", "conditions": {"default": {}}, "plan": PLAN}
    tasks.write_text(json.dumps({"tasks": [task]}))
    args = ("validate", "--source", str(tasks), "--agent", "gemini-cli", "--model", "scripted")
    warned = proctor(*args)
    assert (
        f"proctor: warning: {tasks}: tasks[0]: field 'plan.conditions.default.turns[0].tool': "
        "'Read' is Claude Code's"
    ) in warned.err, warned.err
    task["conditions"] = {"default": {}, "with-hint": {}}
    tasks.write_text(json.dumps({"tasks": [task]}))
    refused = proctor(*args)
    assert refused.code == 2
    assert (
        f"{tasks}: tasks[0]: field 'plan.conditions': no plan for condition with-hint"
        in refused.err
    ), refused.err
    assert "plan.json" not in refused.err + warned.err
