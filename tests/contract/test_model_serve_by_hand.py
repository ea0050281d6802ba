"""docs/scripted-model.md's "From a shell" blocks, run as written: ``proctor model serve`` and
each real CLI pointed at it by hand, two prompts of one session."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from proctor.agents.cli_base import find_binary
from proctor.agents.spec import spec_for
from proctor.models.config import AgentProfile
from tests.contract.conftest import require_cli

DOC = Path(__file__).parents[2] / "docs" / "scripted-model.md"
PLAN = {
    "turns": [
        {"write": {"path": "hello.txt", "content": "hi\n"}},
        {"say": "Wrote it."},
        {"endTurn": True},
        {"read": "hello.txt"},
        {"say": "Read it."},
    ]
}
TITLES = {"claude-code": "# Claude Code", "codex": "# Codex", "gemini-cli": "# Gemini CLI"}


def _blocks() -> list[str]:
    """The ``sh`` blocks of the page's "From a shell" section, in order."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### From a shell", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


@pytest.mark.parametrize("agent", list(TITLES))
def test_the_documented_commands_drive_each_cli_through_two_prompts(
    tmp_path: Path, agent: str
) -> None:
    require_cli(agent)
    spec = spec_for(agent)
    assert spec is not None and spec.binary is not None
    binary = find_binary(spec.binary, AgentProfile())
    assert binary is not None
    serve, *clis = _blocks()
    (block,) = [b for b in clis if b.startswith(TITLES[agent])]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "proctor"  # the `proctor` of the docs is this checkout's
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m proctor "$@"\n')
    shim.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    (work / "plan.json").write_text(json.dumps(PLAN))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "OPENAI_", "GEMINI_", "GOOGLE_", "CODEX_"))
    }
    env.update(HOME=str(home), PATH=f"{bin_dir}:{Path(binary).parent}:{env.get('PATH', '')}")
    # A CLI that fails ends the script; the trap stops the server, whose output pipes would
    # keep the run waiting.
    script = (
        f"set -e\n{serve}\nserver=$!\ntrap 'kill $server 2>/dev/null || true' EXIT\n"
        f"{block}\nkill %1\nwait %1\n"
    )
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert (work / "hello.txt").read_text() == "hi\n"
    records = [json.loads(line) for line in (work / "requests.jsonl").read_text().splitlines()]
    played = [r["played"] for r in records if isinstance(r["played"], dict)]
    assert {(p["segment"], p.get("tool") is not None) for p in played} >= {(1, True), (2, True)}
    assert not any(p.get("exhausted") for p in played)
    assert not re.search(r"^warning: ", done.stderr, re.M), done.stderr
