"""An ACP agent is lent none of the user's credentials: on a real provider it authenticates
only with a key its profile passes (``forwardEnv``). ``proctor agents``, ``validate`` and
``run`` warn (never refuse) when its profile passes none, naming what to add."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents.base import profile_for
from proctor.agents.credentials import KINDS
from proctor.models.config import AgentProfile
from tests.conftest import Run, write_case

WARNED = "proctor lends an ACP agent none of your credentials"


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for kind in KINDS.values():
        for name in kind.keys:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_agents_warns_of_an_acp_agent_passed_no_key(
    proctor: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-0123456789")
    listed = proctor("agents", "--agent", "acp:gemini", "--json")
    assert listed.code == 0, listed.err
    credentials = json.loads(listed.out)[0]["credentials"]
    assert credentials["needed"] is True and credentials["keys"] == []
    assert credentials["problem"] is None
    assert credentials["warning"] == (
        f"{WARNED} (no key, no login): on a real provider it authenticates only with a key its "
        "profile passes, and this one passes none. GEMINI_API_KEY is set in the environment: "
        'add "forwardEnv": ["GEMINI_API_KEY"] to its profile (for acp:gemini, the profile '
        '"gemini" with "transport": "acp"), or run with --model scripted'
    )
    # a warning, not a failure: --check passes
    checked = proctor("agents", "--agent", "acp:gemini", "--check")
    assert checked.code == 0, checked.err
    assert f"credentials: none  (warning: {WARNED}" in checked.out
    # nothing to say on the scripted model
    listed = proctor("agents", "--agent", "acp:gemini", "--model", "scripted")
    assert WARNED not in listed.out


def test_the_profile_the_warning_names_passes_the_key(
    proctor: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    profiles = {"gemini": {"transport": "acp", "forwardEnv": ["GEMINI_API_KEY"]}}
    Path("proctor.json").write_text(json.dumps({"codingagents": profiles}))
    listed = proctor("agents", "--agent", "acp:gemini")
    assert "it forwards GEMINI_API_KEY, which is not set in the environment" in listed.out
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-0123456789")
    listed = proctor("agents", "--agent", "acp:gemini", "--json")
    row = json.loads(listed.out)[0]
    assert row["credentials"]["keys"] == ["GEMINI_API_KEY"]
    assert row["credentials"]["warning"] is None
    assert row["pinned"] == "0.61.0"  # still Gemini CLI, not the Claude adapter


def test_acp_names_settings_keep_the_configured_command() -> None:
    profile = AgentProfile.model_validate({"transport": "acp", "forwardEnv": ["GEMINI_API_KEY"]})
    assert profile_for("acp:gemini", {"gemini": profile}).command == ["gemini", "--acp"]
    assert profile_for("acp:claude", {"claude": profile}).command == ["claude-code-acp"]
    own = AgentProfile.model_validate({"transport": "acp", "command": ["mine"]})
    assert profile_for("acp:gemini", {"gemini": own}).command == ["mine"]


def test_validate_warns_and_passes(proctor: Run, tmp_path: Path) -> None:
    write_case(tmp_path / "cases", "x", config={"agents": ["acp:claude"]})
    validated = proctor("validate", "--source", str(tmp_path / "cases"))
    assert validated.code == 0, validated.err
    assert f"proctor: warning: codingagents.acp:claude: {WARNED}" in validated.err
    assert (
        'set ANTHROPIC_API_KEY in the environment and add "forwardEnv": ["ANTHROPIC_API_KEY"] '
        'to its profile (for acp:claude, the profile "claude" with "transport": "acp")'
    ) in validated.err
    scripted = proctor("validate", "--source", str(tmp_path / "cases"), "--model", "scripted")
    assert WARNED not in scripted.err


def test_an_acp_agent_of_its_own_is_told_to_forward_its_providers_key() -> None:
    from proctor.agents.acp.adapter import AcpAgent

    mine = AgentProfile.model_validate({"transport": "acp", "command": ["my-agent"]})
    said = AcpAgent().credentials_warning(mine, {})
    assert said is not None and said.endswith(
        "name its provider's key in the profile's forwardEnv (set in the environment), or run "
        "with --model scripted"
    )
    forwarding = mine.model_copy(update={"forward_env": ["MY_KEY"]})
    assert AcpAgent().credentials_warning(forwarding, {"MY_KEY": "k"}) is None
