"""``proctor memory-eval``: a tool the adapter names and the server does not have is one
sentence naming the adapter field and the tools the server lists, over stdio and over HTTP,
rather than the server's own "Unknown tool"."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult
from tests.integration.test_memory_eval import (  # noqa: F401 (a fixture)
    ADAPTER,
    DATASET,
    SERVER,
    http_server,
    scratch_in_tmp,
)

Run = Callable[..., CliResult]


def misspelt(tmp_path: Path, old: str, new: str) -> str:
    adapter = tmp_path / "misspelt.adapter.toml"
    adapter.write_text(Path(ADAPTER).read_text().replace(f'"{old}"', f'"{new}"', 1))
    return str(adapter)


@pytest.mark.parametrize(
    ("old", "new", "field"), [("recall", "recal", "search"), ("remember", "store", "seed")]
)
def test_a_tool_the_server_does_not_have_is_named_with_the_tools_it_has(
    proctor: Run, tmp_path: Path, old: str, new: str, field: str
) -> None:
    adapter = misspelt(tmp_path, old, new)
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", adapter, "--json",
        "--mcp", sys.executable, SERVER,
    )  # fmt: skip
    assert result.code == 3, result.err
    sentence = (
        f"the memory server has no tool '{new}' (adapter field '{field}.tool'); its tools: "
        "remember, recall"
    )
    assert sentence in result.json()["error"]
    assert ("did you mean 'recall'?" in result.err) == (new == "recal")
    assert "Unknown tool" not in result.json()["error"] and "Traceback" not in result.err


def test_over_http_too(proctor: Run, tmp_path: Path, http_server: str) -> None:  # noqa: F811
    adapter = misspelt(tmp_path, "recall", "search")
    result = proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", adapter, "--mcp", http_server
    )
    assert result.code == 3, result.err
    assert "has no tool 'search' (adapter field 'search.tool'); its tools: remember, recall" in (
        result.err
    )
