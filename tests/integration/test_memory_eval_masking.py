"""``proctor memory-eval --env NAME``: what a server says that quotes the forwarded value (a
tool's error, a stray stdout line) is masked before it is shortened: it kept the part of the
value before the cut."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.util import masking
from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
SERVER = str(EXAMPLES / "memory_server.py")
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = str(EXAMPLES / "reference.adapter.toml")
SECRET = "ZZTESTenvopt-secret-9876543210"

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(masking, "_SECRETS", set())
    monkeypatch.setenv("MEM_SECRET", SECRET)


def shows_part(text: str) -> bool:
    return any(SECRET[:n] in text or SECRET[-n:] in text for n in range(6, len(SECRET) + 1))


def evaluate(proctor: Run, *server: str) -> CliResult:
    return proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", ADAPTER, "--env", "MEM_SECRET",
        "--mcp", *server,
    )  # fmt: skip


@pytest.mark.parametrize("before", [240, 250, 265])
def test_a_tool_error_quoting_the_value_shows_no_part_of_it(
    proctor: Run, tmp_path: Path, before: int
) -> None:
    server = tmp_path / "leaky.py"
    server.write_text(
        "import os\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "from mcp.server.mcpserver.exceptions import ToolError\n"
        "server = MCPServer('leaky')\n"
        "@server.tool()\n"
        "def remember(project: str, id: str, text: str) -> dict:\n"
        f"    raise ToolError('r' * {before} + os.environ['MEM_SECRET'] + ' end')\n"
        "server.run()\n"
    )
    result = evaluate(proctor, sys.executable, str(server))
    assert result.code == 3, result.err
    assert "returned an error (seeding note" in result.err and "rrrr" in result.err
    assert not shows_part(result.out + result.err), result.err[-80:]


def test_a_stray_stdout_line_quoting_the_value_shows_no_part_of_it(proctor: Run) -> None:
    noisy = f'echo "Starting {"s" * 60}$MEM_SECRET"; exec {sys.executable} {SERVER}'
    result = evaluate(proctor, "sh", "-c", noisy)
    assert result.code == 0, result.err
    assert "wrote a line to stdout that is not JSON-RPC ('Starting sss" in result.err
    assert not shows_part(result.out + result.err), result.err
