"""The ``config.toml`` a Codex trial runs on: a case's MCP servers are waited for."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from proctor.agents.codex.config import MCP_STARTUP_WAIT_MS, codex_config
from proctor.agents.protocol import LaunchContext
from proctor.models.config import AgentProfile, Provision


def _context(tmp_path: Path, provision: Provision | None) -> LaunchContext:
    return LaunchContext(
        workspace=tmp_path / "workspace",
        home=tmp_path / "home",
        scratch=tmp_path,
        env={},
        profile=AgentProfile(),
        plan=None,
        repeat=1,
        session_id="s",
        provision=provision,
        mode="headless",
    )


def test_a_turn_waits_for_the_case_mcp_servers(tmp_path: Path) -> None:
    provision = Provision.model_validate({"mcps": [{"name": "tiny", "command": "tiny-mcp"}]})
    config = codex_config(_context(tmp_path, provision), None)
    assert config["mcp_servers"]["tiny"]["command"] == "tiny-mcp"
    # Codex's own default (about a second) leaves a slower server's tools out of the turn.
    assert config["mcp_optional_startup_grace_ms"] == MCP_STARTUP_WAIT_MS >= 10_000


def test_control_without_mcp_servers_nothing_is_waited_for(tmp_path: Path) -> None:
    config = codex_config(_context(tmp_path, None), None)
    assert "mcp_servers" not in config and "mcp_optional_startup_grace_ms" not in config


def test_a_lent_gateway_address_is_where_codex_sends_its_key(tmp_path: Path) -> None:
    """Codex 0.171 reads the OpenAI provider's address from config.toml, not from
    OPENAI_BASE_URL: a key lent for a gateway went to api.openai.com."""
    env = {"OPENAI_API_KEY": "sk-gw-123456", "OPENAI_BASE_URL": "https://gw.example/v1"}
    ctx = replace(_context(tmp_path, None), env=env)
    assert codex_config(ctx, None)["openai_base_url"] == "https://gw.example/v1"


def test_control_the_scripted_model_or_no_gateway_sets_no_openai_address(tmp_path: Path) -> None:
    ctx = _context(tmp_path, None)
    assert "openai_base_url" not in codex_config(ctx, None)
    ctx = replace(ctx, env={"OPENAI_BASE_URL": "https://gw.example/v1"})
    config = codex_config(ctx, None)
    assert config["openai_base_url"] == "https://gw.example/v1"
    ctx = replace(ctx, model_base_url="http://127.0.0.1:9")
    config = codex_config(ctx, None)
    assert "openai_base_url" not in config and config["model_provider"] == "proctor"
