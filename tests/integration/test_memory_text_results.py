"""``proctor memory-eval`` reading a search tool's text content as a real MCP SDK server sends
it: a returned list is one text block per item, a string item as its bare text, any other
value as JSON (``_convert_to_content``), so a list of one item is that item alone."""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "addons" / "memory"
DATASET = str(EXAMPLES / "dataset.json")
ADAPTER = EXAMPLES / "reference.adapter.toml"

Run = Callable[..., CliResult]

SERVER = """
import json
import sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("ids")
notes = []

@server.tool(structured_output=False)
def remember(project: str, id: str, text: str) -> str:
    notes.append((project, id))
    return "ok"

@server.tool(structured_output=False)
def recall(project: str, query: str, limit: int = 10):
    ids = [id for p, id in notes if p == project][:limit]
    return {
        "ids": ids,
        "one": ids[:1],
        "number": [len(id) for id in ids[:1]],
        "error": {"error": "index not ready"},
    }[sys.argv[1]]

server.run()
"""


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def evaluate(proctor: Run, tmp_path: Path, returns: str, id_field: str) -> CliResult:
    script = tmp_path / "ids.py"
    script.write_text(SERVER, encoding="utf-8")
    text = ADAPTER.read_text(encoding="utf-8").replace('"structured"', '"text"')
    text = text.replace('path = "results"', 'path = ""').replace('id = "id"', f'id = "{id_field}"')
    adapter = tmp_path / "adapter.toml"
    adapter.write_text(text, encoding="utf-8")
    return proctor(
        "memory-eval", "--dataset", DATASET, "--adapter", str(adapter), "--json",
        "--mcp", sys.executable, str(script), returns,
    )  # fmt: skip


@pytest.mark.parametrize("returns", ["ids", "one", "number"])
def test_a_list_of_ids_sent_as_text_blocks_is_read(
    proctor: Run, tmp_path: Path, returns: str
) -> None:
    """``["n1", "n2"]`` arrives as the blocks ``n1`` and ``n2``, ``["n1"]`` as ``n1``, ``[5]``
    as ``5``: each is read as the list of ids it was (they were "not JSON: 'n1n2'", "not a
    list")."""
    result = evaluate(proctor, tmp_path, returns, "")
    assert result.code == 1, result.err  # read: a score below the thresholds, no error
    assert "error" not in result.json()


def test_one_object_where_a_list_was_expected_says_so(proctor: Run, tmp_path: Path) -> None:
    result = evaluate(proctor, tmp_path, "error", "id")
    assert result.code == 3
    assert result.json()["error"].endswith(
        " is one object with no 'id' (it has the key 'error'), not a list of items with 'id' "
        "(adapter fields 'results.path' and 'results.id')"
    )


LITERAL_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer("literal-ids")

@server.tool(structured_output=False)
def remember(project: str, id: str, text: str) -> str:
    return "ok"

@server.tool(structured_output=False)
def recall(project: str, query: str, limit: int = 10):
    return query.split()  # the note ids the query names, each a string
"""


def test_a_string_id_that_reads_as_json_is_that_id(proctor: Run, tmp_path: Path) -> None:
    """The MCP SDK sends the string id ``"true"`` as the bare text ``true``: with the dataset's
    note ``true`` it is that id, not the JSON ``true`` (that was "'the id (the item itself)'
    is true, expected a string or an integer", and ``[]`` an empty result, scoring 0)."""
    script = tmp_path / "literal.py"
    script.write_text(LITERAL_SERVER + "\nserver.run()\n", encoding="utf-8")
    ids = ["true", "null", "1", "[]", "1.0", "{}", '"x"']
    asked = [*ids, "true null", "n1 false"]  # one block each, several blocks
    dataset = {
        "notes": [{"id": i, "project": "p", "text": f"note {i}"} for i in [*ids, "n1", "false"]],
        "queries": [
            {"id": f"q{n}", "project": "p", "query": query, "relevant": query.split(),
             "labels": ["extraction"]}
            for n, query in enumerate(asked)
        ],
    }  # fmt: skip
    data = tmp_path / "literal.json"
    data.write_text(json.dumps(dataset), encoding="utf-8")
    adapter = tmp_path / "literal.adapter.toml"
    text = ADAPTER.read_text(encoding="utf-8").replace('"structured"', '"text"')
    text = text.replace('path = "results"', 'path = ""').replace('id = "id"', 'id = ""')
    adapter.write_text(text, encoding="utf-8")
    result = proctor(
        "memory-eval", "--dataset", str(data), "--adapter", str(adapter), "--json",
        "--mcp", sys.executable, str(script),
    )  # fmt: skip
    assert "error" not in result.json(), result.json()["error"]
    assert result.json()["overall"]["recall"] == 1.0, result.out
