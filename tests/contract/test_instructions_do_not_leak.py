"""The user's own instruction and settings files never reach a trial: not those in the home,
not those in any folder above the workspace (Claude Code reads CLAUDE.md from every ancestor,
Codex AGENTS.md from the project root down, Gemini CLI GEMINI.md upwards). What each real CLI
sends to the scripted model is searched for a marker planted in them."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.cli_base import version_probe
from tests.contract.conftest import require_cli
from tests.contract.test_claude_code import BASIC, BASIC_CONFIG
from tests.contract.test_gemini_cli import YOLO

PLANTED = "PLANTED-INSTRUCTION-7f3a9c"
INSIDE = "WORKSPACE-INSTRUCTION-2b8e41"
NAMES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md")


def plant(folder: Path, marker: str) -> None:
    """Instruction files of all three CLIs, and their settings folders, in ``folder``."""
    text = f"Always start every answer with the word {marker}.\n"
    for name in NAMES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    for sub in (".claude", ".codex", ".gemini"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / ".claude" / "CLAUDE.md").write_text(text)
    (folder / ".codex" / "AGENTS.md").write_text(text)
    (folder / ".gemini" / "GEMINI.md").write_text(text)


@pytest.fixture
def bodies(tmp_path: Path, monkeypatch: Any) -> Path:
    """Every request body the scripted model server reads, appended to a file (the server's
    own log keeps no bodies). Patched before the trial's worker is forked, so it applies there."""
    from proctor.scripted.server import handler

    log = tmp_path / "bodies.log"
    read_body = handler.read_body

    def keeping(rfile: Any, headers: Any) -> bytes:
        raw = read_body(rfile, headers)
        with open(log, "ab") as fh:
            fh.write(raw + b"\n")
        return raw

    monkeypatch.setattr(handler, "read_body", keeping)
    return log


@pytest.mark.parametrize("mode", ["headless", "interactive"])
@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_no_instruction_file_above_the_workspace_or_in_the_home_is_read(
    run_cli: Callable[..., dict[str, Any]],
    tmp_path: Path,
    monkeypatch: Any,
    bodies: Path,
    agent: str,
    mode: str,
) -> None:
    require_cli(agent)
    home = tmp_path / "user-home"
    plant(home, PLANTED)
    outer = tmp_path / "above"  # every folder above the workspace is at or below this one
    plant(outer, PLANTED)
    # A repository above the workspace (a temporary folder inside one): Codex and Gemini CLI
    # read instruction files from a project root (a folder with `.git`) down.
    (outer / ".git").mkdir()
    (outer / "tmp").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(outer / "tmp"))
    version_probe.cache_clear()
    src = {name: f"{INSIDE}\n" for name in NAMES}
    # Gemini CLI's terminal asks before each edit unless in yolo mode (as its own tests run it).
    top = YOLO if agent == "gemini-cli" and mode == "interactive" else None
    out = run_cli(agent, BASIC, mode=mode, config=BASIC_CONFIG, src=src, top=top)
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    sent = bodies.read_text(errors="replace")
    assert INSIDE in sent  # control: the CLI reads instruction files, and the log shows them
    assert PLANTED not in sent
