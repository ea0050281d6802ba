"""Runs of the real CLIs connect nowhere but the scripted model server (checked with strace)."""

from __future__ import annotations

import json
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from proctor.agents.cli_base import find_binary
from proctor.agents.spec import spec_for
from proctor.models.config import AgentProfile
from tests.conftest import require_tool
from tests.contract.conftest import require_cli
from tests.contract.test_claude_code import BASIC

CONNECT = re.compile(r"connect\(\d+, \{sa_family=(AF_INET6?|AF_UNIX|AF_NETLINK)[^}]*\}")
ADDR = re.compile(r'inet_(?:addr|pton)\((?:AF_INET6?, )?"([^"]+)"')
PORT = re.compile(r"sin6?_port=htons\((\d+)\)")


def outside_connections(trace: str, allowed_port: int) -> list[str]:
    """connect() calls to anything but loopback on the scripted server's port."""
    bad = []
    for line in trace.splitlines():
        match = CONNECT.search(line)
        if match is None or match.group(1) in ("AF_UNIX", "AF_NETLINK"):
            continue
        addr = ADDR.search(line)
        port = PORT.search(line)
        host = addr.group(1) if addr else "?"
        if (
            host not in ("127.0.0.1", "::1", "::ffff:127.0.0.1")
            or not port
            or int(port.group(1)) != allowed_port
        ):
            bad.append(line.strip()[:200])
    return bad


def test_control_the_checker_flags_an_outside_connection() -> None:
    trace = (
        '123 connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("160.79.104.10")}, 16) = -1\n'
        '123 connect(6, {sa_family=AF_INET, sin_port=htons(8765), sin_addr=inet_addr("127.0.0.1")}, 16) = 0\n'
        '123 connect(7, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0\n'
    )
    assert len(outside_connections(trace, 8765)) == 1
    assert outside_connections(trace.splitlines()[1], 8765) == []


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_no_connection_but_the_scripted_server(
    run_cli: Callable[..., dict[str, Any]], tmp_path: Path, agent: str
) -> None:
    require_cli(agent)
    strace = shutil.which("strace")
    if strace is None:
        require_tool("strace is not installed (.ci/run installs it)")
    real = find_binary(str(spec_for(agent).binary), AgentProfile())  # type: ignore[union-attr]
    trace = tmp_path / "connect.trace"
    wrapper = tmp_path / "traced-cli"
    wrapper.write_text(f'#!/bin/sh\nexec {strace} -f -qq -e trace=connect -o {trace} {real} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    out = run_cli(agent, BASIC, top={"codingagents": {agent: {"binary": str(wrapper)}}})
    assert out["trial"]["status"] == "passed", out["trial"]["reason"]
    requests = [
        json.loads(x) for x in (out["dir"] / "model-requests.jsonl").read_text().splitlines()
    ]
    assert requests, "the CLI never reached the scripted server"
    port = None
    for line in trace.read_text().splitlines():
        if "127.0.0.1" in line and (m := PORT.search(line)):
            port = int(m.group(1))
    assert port is not None
    assert outside_connections(trace.read_text(), port) == []
