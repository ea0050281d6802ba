"""The ACP agents proctor configures run CLIs it pins: ``acp:claude`` the Claude Code ACP
adapter, ``acp:gemini`` the Gemini CLI. ``proctor agents`` shows each pin, and ``validate``
and ``run`` warn of another version, as they do for the CLIs' own adapters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from proctor.agents import cli_base
from proctor.agents.spec import GEMINI_CLI
from tests.conftest import Run, write_case


def _install(agents: Path, package: str, program: str, version: str) -> None:
    folder = agents / "node_modules" / package
    (folder / "bin").mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": package, "version": version}))
    script = folder / "bin" / "main.js"
    script.write_text("#!/bin/sh\nexit 1\n")
    script.chmod(0o755)
    bin_dir = agents / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    link = bin_dir / program
    link.unlink(missing_ok=True)
    link.symlink_to(script)


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `.agents` folder of its own, the only one proctor looks in."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(cli_base, "SOURCE_CHECKOUT", empty)
    folder = tmp_path / "agents"
    monkeypatch.setenv("PROCTOR_AGENTS_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    _install(folder, "@zed-industries/claude-code-acp", "claude-code-acp", "0.16.2")
    return folder


def test_acp_gemini_shows_the_gemini_cli_pin(proctor: Run, agents: Path) -> None:
    _install(agents, "@google/gemini-cli", "gemini", "9.9.9")
    listed = proctor("agents", "--json", "--agent", "acp:gemini", "--agent", "acp:claude")
    assert listed.code == 0, listed.err
    rows = {row["id"]: row for row in json.loads(listed.out)}
    assert rows["acp:gemini"]["version"] == "9.9.9"
    assert rows["acp:gemini"]["pinned"] == GEMINI_CLI.version == "0.61.0"
    assert rows["acp:claude"]["pinned"] == "0.16.2"
    listed = proctor("agents", "--agent", "acp:gemini")
    assert (  # as validate warns of it (below)
        f"version 9.9.9  (warning: {agents / 'node_modules/.bin/gemini'} is version 9.9.9, not "
        "0.61.0, the version of @google/gemini-cli proctor pins" in listed.out
    )


@pytest.mark.parametrize("version", ["9.9.9", "0.61.0"])
def test_validate_warns_of_acp_gemini_at_another_version(
    proctor: Run, agents: Path, tmp_path: Path, version: str
) -> None:
    _install(agents, "@google/gemini-cli", "gemini", version)
    write_case(tmp_path / "cases", "x", config={"agents": ["acp:gemini"]})
    validated = proctor("validate", "--source", str(tmp_path / "cases"), "--model", "scripted")
    assert validated.code == 0, validated.err
    said = (
        f"proctor: warning: codingagents.acp:gemini: {agents / 'node_modules/.bin/gemini'} is "
        "version 9.9.9, not 0.61.0, the version of @google/gemini-cli proctor pins"
    )
    assert (said in validated.err) == (version == "9.9.9"), validated.err


def test_an_acp_profile_of_its_own_program_is_pinned_by_none(proctor: Run, agents: Path) -> None:
    _install(agents, "my-acp", "my-acp", "1.0.0")
    profiles = {"mine": {"transport": "acp", "command": ["my-acp"]}}
    Path("proctor.json").write_text(json.dumps({"codingagents": profiles}))
    listed = proctor("agents", "--json", "--agent", "mine")
    assert json.loads(listed.out)[0]["pinned"] is None
