"""A provisioned skill lands where each CLI looks for skills, and the agent loads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.contract.conftest import ASSETS, require_cli

READ_SKILL = {
    "codex": 'cat "$CODEX_HOME/skills/greet/SKILL.md"',
    "gemini-cli": 'cat "$HOME/.gemini/skills/greet/SKILL.md"',
}


@pytest.mark.parametrize("agent", ["codex", "gemini-cli"])
def test_skill_is_provisioned_and_read(run_cli: Callable[..., dict[str, Any]], agent: str) -> None:
    require_cli(agent)
    config = {
        "provision": {"skills": [{"name": "greet", "path": str(ASSETS / "skills/greet")}]},
        "evaluators": [{"use": "skill-loaded", "name": "greet"}],
    }
    plan = {"turns": [{"shell": READ_SKILL[agent]}, {"say": "Hello, Ada!"}]}
    out = run_cli(agent, plan, config=config)
    assert out["trial"]["status"] == "passed", out["trial"]["evaluators"]
    result = next(e for e in out["events"] if e["type"] == "tool_result")
    assert "exclamation mark" in result["output"], result["output"]
