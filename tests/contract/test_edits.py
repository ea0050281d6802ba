"""The plan's ``edit`` step becomes each CLI's own edit tool, and the edit lands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import require_cli

PLAN = {
    "turns": [
        {"read": "calc.py"},
        {"edit": {"path": "calc.py", "old": "return a - b", "new": "return a + b"}},
        {"say": "Fixed."},
    ]
}
CONFIG = {"evaluators": [{"use": "command", "run": "grep -q 'return a + b' calc.py", "gate": True}]}


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_edit_lands_through_the_cli_edit_tool(
    run_cli: Callable[..., dict[str, Any]], agent: str
) -> None:
    require_cli(agent)
    out = run_cli(agent, PLAN, config=CONFIG, src={"calc.py": "def add(a, b):\n    return a - b\n"})
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    kinds = [e["kind"] for e in out["events"] if e["type"] == "tool_call"]
    assert "edit" in kinds or (agent == "codex" and "shell" in kinds)
    # Codex's patch tool takes whole lines only: the scripted model edits through its shell
    # with a python3 script, which the process metrics count as the edit it is.
    process = out["trial"]["process"]
    assert process["isTask"] is True
    assert process["steps"]["byKind"].get("edit") == 1, process["steps"]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
@pytest.mark.parametrize(("code", "outcome"), [("a + b", "pass"), ("a - b", "fail")])
def test_a_check_piped_into_tail_takes_the_runners_summary(
    run_cli: Callable[..., dict[str, Any]], agent: str, code: str, outcome: str
) -> None:
    """``python3 -m unittest 2>&1 | tail -3`` exits with tail's status on every CLI: the check's
    outcome is what unittest's closing lines say, as each CLI records its output."""
    require_cli(agent)
    test = (
        "import unittest\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
    )
    plan = {
        "turns": [
            {"write": {"path": "calc.py", "content": f"def add(a, b):\n    return {code}\n"}},
            {"shell": "python3 -m unittest 2>&1 | tail -3"},
            {"say": "Done."},
        ]
    }
    out = run_cli(agent, plan, src={"test_calc.py": test})
    results = [e for e in out["events"] if e["type"] == "tool_result"]
    assert not results[-1].get("isError"), results[-1]  # tail's status: a success either way
    process = out["trial"]["process"]
    assert [c["outcome"] for c in process["checks"]] == [outcome]
    assert process["verified"] is (outcome == "pass")
