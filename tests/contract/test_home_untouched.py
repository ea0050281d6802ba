"""The user's own ~/.claude, ~/.codex and ~/.gemini are never read for config nor written."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.cli_base import version_probe
from tests.contract.conftest import require_cli
from tests.contract.test_claude_code import BASIC, BASIC_CONFIG
from tests.integration.test_safety import tree_hash


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_real_home_is_neither_read_nor_written(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Path, monkeypatch: Any, agent: str
) -> None:
    require_cli(agent)
    home = tmp_path / "real-home"
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir(parents=True)
    # Poisoned user configuration: if any of it were read, the run would break or change.
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"env": {"ANTHROPIC_BASE_URL": "http://10.255.255.1"}})
    )
    (home / ".claude.json").write_text("{not json")
    (home / ".codex" / "config.toml").write_text('model_provider = "nowhere"\n')
    (home / ".gemini" / "settings.json").write_text("{not json")
    monkeypatch.setenv("HOME", str(home))
    version_probe.cache_clear()
    before = tree_hash(home)
    out = run_cli(agent, BASIC, config=BASIC_CONFIG)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    assert tree_hash(home) == before
