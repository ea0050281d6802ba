"""``proctor memory-eval``: score an MCP memory server on a planted dataset.

The pieces, in the order a run uses them: :mod:`.dataset` (notes and queries), :mod:`.adapter`
(how a server's tools map onto seeding and searching), :mod:`.client` (the MCP session, with
:mod:`.server_stderr` for what a server wrote to its stderr and :mod:`.search_results` for the note
ids a search returned), :mod:`.seeding` (fresh projects, seeded and queried), :mod:`.scoring` (pure
retrieval scores) and :mod:`.report` (the record, its failures and exit code).
"""

from __future__ import annotations

from proctor.addons.memory.adapter import KNOWLEDGE_GRAPH, Adapter, load_adapter
from proctor.addons.memory.client import MemoryServerError, ServerTarget
from proctor.addons.memory.dataset import Dataset, Note, Query, load_dataset
from proctor.addons.memory.report import MemoryEvalRecord, Thresholds, render_text, score_run
from proctor.addons.memory.seeding import collect_results

__all__ = [
    "KNOWLEDGE_GRAPH",
    "Adapter",
    "Dataset",
    "MemoryEvalRecord",
    "MemoryServerError",
    "Note",
    "Query",
    "ServerTarget",
    "Thresholds",
    "collect_results",
    "load_adapter",
    "load_dataset",
    "render_text",
    "score_run",
]
