"""``proctor memory-eval`` against the real ``@modelcontextprotocol/server-memory`` at its pinned
version, over stdio, with the example dataset: its honest scores, and a leak when it is scoped by
argument (its search has no project filter)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from proctor.addons.memory.install import install_memory_server, memory_server_entry
from tests.conftest import CliResult

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "addons" / "memory"
DATASET = str(EXAMPLES / "dataset.json")

Run = Callable[..., CliResult]


@pytest.fixture(scope="module")
def server_entry() -> str:
    folder = ROOT / ".agents"
    entry = memory_server_entry(folder)
    if entry is None:
        if shutil.which("npm") is None or shutil.which("node") is None:
            reason = "npm/node not on PATH: cannot install @modelcontextprotocol/server-memory"
            print(f"skipped: {reason}")
            pytest.skip(reason)
        install_memory_server(folder)
        entry = memory_server_entry(folder)
    assert entry is not None
    return str(entry)


@pytest.fixture(autouse=True)
def scratch_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)


def test_the_real_server_scores_as_documented(proctor: Run, server_entry: str) -> None:
    result = proctor(
        "memory-eval", "--dataset", DATASET,
        "--adapter", str(EXAMPLES / "knowledge-graph.adapter.json"),
        "--json", "--mcp", "node", server_entry,
    )  # fmt: skip
    assert result.code == 0, result.err
    record = result.json()
    queries = {q["id"]: q for q in record["queries"]}
    # Substring search in insertion order: "review" also matches "Design reviews", seeded first.
    assert queries["code-review"]["returned"] == ["atlas-design", "atlas-code-review"]
    assert queries["code-review"]["precision"] == 0.5
    assert queries["code-review"]["reciprocalRank"] == 0.5
    # Both deploy notes, staging (grade 1) before production (grade 2): nDCG 0.797.
    assert queries["deploy-rules"]["returned"] == ["atlas-staging", "atlas-production"]
    assert queries["deploy-rules"]["ndcg"] == pytest.approx(0.7967, abs=1e-4)
    # The adapter deletes the superseded note, so only the newer one comes back.
    assert queries["api-port"]["returned"] == ["atlas-port-new"]
    assert queries["api-port"]["newerWins"] is True
    overall = record["overall"]
    assert overall["recall"] == 1.0 and overall["abstention"] == 1.0
    assert overall["precision"] == pytest.approx(6.5 / 7)
    assert overall["mrr"] == pytest.approx(6.5 / 7)
    assert record["failures"] == []


def test_the_real_server_scoped_by_argument_leaks(proctor: Run, server_entry: str) -> None:
    result = proctor(
        "memory-eval", "--dataset", DATASET,
        "--adapter", str(EXAMPLES / "knowledge-graph-shared.adapter.json"),
        "--json", "--mcp", "node", server_entry,
    )  # fmt: skip
    assert result.code == 1, result.err
    leaks = {
        (f["query"], f["note"]) for f in result.json()["failures"] if f["kind"] == "cross-project"
    }
    assert leaks == {
        ("migrations-tool", "borealis-migrations"),
        ("deploy-rules", "borealis-ship"),
        ("no-postgres-here", "borealis-database"),
        ("no-coffee-here", "atlas-coffee"),
    }


def test_the_default_adapter_is_the_knowledge_graph_one(proctor: Run, server_entry: str) -> None:
    result = proctor("memory-eval", "--dataset", DATASET, "--json", "--mcp", "node", server_entry)
    assert result.code == 0, result.err
    assert result.json()["adapter"] == "built-in knowledge-graph"


def _fingerprint(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(folder)): (path.stat().st_mtime_ns, path.stat().st_size)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_a_run_scoped_by_argument_stores_in_its_scratch_folder(
    proctor: Run, server_entry: str, tmp_path: Path
) -> None:
    # The server's default storage is a file beside its own script: a run must not write into
    # the installed package, and a second run must not see the first one's notes.
    package = Path(server_entry).parent.parent
    before = _fingerprint(package)
    data = json.loads(Path(DATASET).read_text())
    shared = str(EXAMPLES / "knowledge-graph-shared.adapter.json")
    edited = tmp_path / "edited.json"
    for text in ("Database migrations run with alembic upgrade head.", "Migrations use flyway."):
        note = next(n for n in data["notes"] if n["id"] == "atlas-migrations")
        note["text"] = text
        edited.write_text(json.dumps(data))
        result = proctor(
            "memory-eval", "--dataset", str(edited), "--adapter", shared, "--json",
            "--mcp", "node", server_entry,
        )  # fmt: skip
        assert result.code == 1, result.err
        queries = {q["id"]: q for q in result.json()["queries"]}
        # The second run's note says flyway: the stored text of the first run would still match.
        returned = queries["migrations-tool"]["returned"]
        assert ("atlas-migrations" in returned) == ("alembic" in text), returned
    assert _fingerprint(package) == before


def test_a_server_printing_to_stdout_is_noted_once_however_many_processes_start(
    proctor: Run, server_entry: str
) -> None:
    """Process-scoped, one server process per project (the dataset has two): the stray line
    each one prints is one cause, said once, not once per process."""
    noisy = f"echo memory server starting; exec node {server_entry}"
    result = proctor(
        "memory-eval", "--dataset", DATASET,
        "--adapter", str(EXAMPLES / "knowledge-graph.adapter.json"),
        "--mcp", "sh", "-c", noisy,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert result.err.count("not JSON-RPC ('memory server starting')") == 1, result.err


def test_integer_ids_are_seeded_and_scored_as_their_text(
    proctor: Run, server_entry: str, tmp_path: Path
) -> None:
    """``{"id": 1}``: the note is stored under "1" and found as "1", as ``relevant: [1]`` asks."""
    data = {
        "notes": [
            {"id": 1, "project": "p", "text": "migrations run with alembic"},
            {"id": 2, "project": "p", "text": "the signing key is in the vault"},
        ],
        "queries": [
            {"id": 1, "project": "p", "query": "alembic", "relevant": [1], "labels": ["extraction"]}
        ],
    }
    dataset = tmp_path / "ints.json"
    dataset.write_text(json.dumps(data))
    result = proctor(
        "memory-eval", "--dataset", str(dataset), "--json", "--mcp", "node", server_entry
    )
    assert result.code == 0, result.err
    record = result.json()
    assert [(q["id"], q["returned"], q["recall"]) for q in record["queries"]] == [("1", ["1"], 1.0)]
