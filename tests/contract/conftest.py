"""Contract tests: the real agent CLIs (pinned, from the npm registry) against proctor's
scripted model server on 127.0.0.1. A CLI that is not installed is skipped with the reason."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.cli_base import find_binary
from proctor.agents.spec import spec_for
from proctor.models.config import AgentProfile
from tests.conftest import require_tool, single_run_dir, write_case

ASSETS = Path(__file__).parent / "assets"
#: The tiny stdio MCP server of the contract tests, as a ``provision.mcps`` entry.
TINY_MCP = {"name": "tiny", "command": sys.executable, "args": [str(ASSETS / "tiny_mcp.py")]}
SLOW_MCP = {"name": "tiny", "command": sys.executable, "args": [str(ASSETS / "slow_mcp.py")]}
"""The same server, three seconds slow to start."""


def require_cli(agent: str) -> str:
    spec = spec_for(agent)
    assert spec is not None and spec.binary is not None and spec.version is not None
    path = find_binary(spec.binary, AgentProfile())
    if path is None:
        require_tool(
            f"{agent}: the '{spec.binary}' CLI is not installed (run `proctor agents install`)"
        )
    return spec.version


@pytest.fixture
def run_cli(proctor: Any, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """Run one case on a real CLI with the scripted model; return trial.json, the trajectory
    events and the trial folder."""

    def run(
        agent: str,
        plan: dict[str, Any],
        *,
        mode: str = "headless",
        config: dict[str, Any] | None = None,
        qna: str | None = None,
        top: dict[str, Any] | None = None,
        name: str = "case",
        src: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        cases = tmp_path / "cases"
        write_case(
            cases,
            name,
            prompt="Do the task in this folder.",
            plan=plan,
            qna=qna,
            src=src,
            config={"agents": [agent], "timeoutSec": 120, **(config or {})},
        )
        args = [
            "run",
            "--source",
            str(cases),
            "--out",
            str(tmp_path / "out"),
            "--model",
            "scripted",
            "--mode",
            mode,
            "--json",
        ]
        if top is not None:
            (tmp_path / "proctor.json").write_text(json.dumps(top))
            args += ["--config", str(tmp_path / "proctor.json")]
        result = proctor(*args)
        trial_dir = single_run_dir(tmp_path / "out") / "trials" / name / agent / "default" / "1"
        trial = json.loads((trial_dir / "trial.json").read_text())
        events = [json.loads(x) for x in (trial_dir / "trajectory.jsonl").read_text().splitlines()]
        return {
            "code": result.code,
            "suite": result.out,
            "trial": trial,
            "events": events,
            "dir": trial_dir,
            "err": result.err,
        }

    return run


def tool_steps(events: list[dict[str, Any]]) -> list[tuple[str, bool | None, bool | None]]:
    """(kind, isError, denied) of every tool call, in order, from its paired result."""
    results = {e["id"]: e for e in events if e["type"] == "tool_result"}
    steps = []
    for e in events:
        if e["type"] == "tool_call":
            r = results.get(e["id"], {})
            steps.append((e["kind"], r.get("isError"), r.get("denied")))
    return steps
