"""Scoring a whole run from returned id lists: per label, failures, exit code (no server)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from proctor.addons.memory.dataset import load_dataset
from proctor.addons.memory.report import (
    Failure,
    MemoryEvalRecord,
    Scores,
    Thresholds,
    failures_of,
    render_text,
    score_run,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "addons" / "memory"
DATASET = load_dataset(EXAMPLES / "dataset.json")

PERFECT: dict[str, list[str]] = {
    "migrations-tool": ["atlas-migrations"],
    "signing-key": ["atlas-signing"],
    "code-review": ["atlas-code-review"],
    "deploy-rules": ["atlas-production", "atlas-staging"],
    "api-port": ["atlas-port-new", "atlas-port-old"],
    "no-kubernetes": [],
    "no-postgres-here": [],
    "replication": ["borealis-database"],
    "ship-workflow": ["borealis-ship"],
    "no-coffee-here": [],
}


def score(returned: dict[str, list[str]], **limits: float) -> MemoryEvalRecord:
    return score_run(
        DATASET, returned, k=5, thresholds=Thresholds(**limits), server="s",
        dataset_name="d", adapter_name="a",
    )  # fmt: skip


def test_a_perfect_store_passes_with_hand_computed_scores() -> None:
    record = score(PERFECT)
    assert record.passed and record.exit_code == 0 and record.failures == []
    assert record.overall.recall == 1.0
    assert record.overall.precision == pytest.approx((6 + 0.5) / 7)  # api-port returns the old note
    assert record.by_label["knowledge-update"].knowledge_update == 1.0
    assert record.by_label["abstention"].abstention == 1.0
    assert record.by_label["abstention"].recall is None
    assert set(record.by_label) == {"extraction", "multi-note", "knowledge-update", "abstention"}


def test_the_older_note_first_fails_the_knowledge_update() -> None:
    record = score(PERFECT | {"api-port": ["atlas-port-old", "atlas-port-new"]})
    assert record.by_label["knowledge-update"].knowledge_update == 0.0
    assert [f.kind for f in record.failures] == ["threshold"]
    assert "--min-update" in record.failures[0].message
    assert record.exit_code == 1


def test_a_note_of_another_project_fails_the_run_naming_query_and_note() -> None:
    record = score(PERFECT | {"migrations-tool": ["atlas-migrations", "borealis-migrations"]})
    leak = [f for f in record.failures if f.kind == "cross-project"]
    assert [(f.query, f.note) for f in leak] == [("migrations-tool", "borealis-migrations")]
    assert record.exit_code == 1


def test_a_duplicate_fails_the_run_even_when_scores_pass() -> None:
    record = score(PERFECT | {"signing-key": ["atlas-signing", "atlas-signing"]}, min_precision=0)
    assert [(f.kind, f.query, f.note) for f in record.failures] == [
        ("duplicate", "signing-key", "atlas-signing")
    ]


def test_never_seeded_results_are_listed_and_irrelevant() -> None:
    record = score(PERFECT | {"signing-key": ["ghost", "atlas-signing"]})
    query = next(q for q in record.queries if q.id == "signing-key")
    assert query.unknown == ["ghost"] and query.precision == 0.5 and query.reciprocal_rank == 0.5
    assert "never-seeded results scored irrelevant: ghost" in render_text(record)


def test_any_answer_to_an_abstention_query_fails_it() -> None:
    record = score(PERFECT | {"no-kubernetes": ["atlas-coffee"]})
    assert record.by_label["abstention"].abstention == pytest.approx(2 / 3)
    assert record.exit_code == 1
    assert score(PERFECT | {"no-kubernetes": ["atlas-coffee"]}, min_abstention=0.6).passed


def test_missing_queries_count_as_silence() -> None:
    record = score({})
    assert record.overall.recall == 0.0 and record.by_label["abstention"].abstention == 1.0
    assert record.exit_code == 1


def test_the_record_round_trips_with_camel_case_keys() -> None:
    data = score(PERFECT).to_dict()
    assert data["schemaVersion"] >= 1 and "byLabel" in data and "knowledgeUpdate" in data["overall"]
    assert MemoryEvalRecord.model_validate(data) == score(PERFECT)


def test_a_score_a_rounding_error_under_its_threshold_meets_it() -> None:
    mean = (1 + 1 + 0.4) / 3  # 0.7999999999999999 in floating point
    assert failures_of([], Scores(queries=3, recall=mean), Thresholds(min_recall=0.8)) == []
    (failure,) = failures_of([], Scores(queries=3, recall=0.7999), Thresholds(min_recall=0.8))
    assert failure.kind == "threshold"  # control: a real shortfall still fails


def _line(record: MemoryEvalRecord, query: str) -> str | None:
    lines = render_text(record).splitlines()
    return next((x for x in lines if x.startswith(f"query {query}:")), None)


def test_the_text_report_shows_a_few_never_seeded_ids_per_query() -> None:
    """A server returning thousands of ids it was never given: the text report names ten per
    query and how many more (the JSON record lists them all)."""
    returned = {**PERFECT, "signing-key": [f"ghost-{i}" for i in range(25)]}
    record = score_run(
        DATASET, returned, k=20, thresholds=Thresholds(), server="s", dataset_name="d",
        adapter_name="a",
    )  # fmt: skip
    line = _line(record, "signing-key") or ""
    assert "ghost-9," not in line and "ghost-9 and 10 more (--json lists them)" in line
    assert "ghost-10" not in line and "(5 more results past the first 20 not scored)" in line
    (query,) = [q for q in record.queries if q.id == "signing-key"]
    assert len(query.unknown) == 25
    few = score({**PERFECT, "signing-key": ["ghost-1", "ghost-2"]})  # the control: all shown
    assert _line(few, "signing-key") == (
        "query signing-key: never-seeded results scored irrelevant: ghost-1, ghost-2"
    )


def test_only_never_seeded_ids_in_the_first_k_are_said_to_be_scored() -> None:
    """Scores read the first k results only: ids past them are counted, not listed as scored
    irrelevant, and an abstention query (any answer fails it) scores none as irrelevant."""
    flood = ["atlas-signing", *(f"x{i}" for i in range(99_994))]
    record = score(PERFECT | {"signing-key": flood, "no-kubernetes": ["x0", "x1"]})
    assert _line(record, "signing-key") == (
        "query signing-key: never-seeded results scored irrelevant: x0, x1, x2, x3 "
        "(99990 more results past the first 5 not scored)"
    )
    assert _line(record, "no-kubernetes") is None
    (query,) = [q for q in record.queries if q.id == "signing-key"]
    assert len(query.unknown) == 99_994 and query.precision == 0.2  # the JSON keeps them all
    past_k = ["atlas-signing", "atlas-code-review"]
    past_k += ["atlas-production", "atlas-staging", "atlas-port-new", "ghost"]
    assert _line(score(PERFECT | {"signing-key": past_k}), "signing-key") is None


def test_the_json_keys_docs_addons_md_names_are_the_record_s() -> None:
    """docs/addons.md says what `--json` holds: each key it names is one the record has."""
    docs = (EXAMPLES.parents[2] / "docs" / "addons.md").read_text(encoding="utf-8")
    said = docs[docs.index("With `--json`, `overall`") : docs.index("give the outcome.")]
    named = set(re.findall(r"`([A-Za-z-]+)`", said)) - {"--json", "null", "-", "FAIL"}
    record = score({**PERFECT, "code-review": ["atlas-code-review"] * 2}).to_dict()
    keys = {*record, *record["queries"][0], *record["failures"][0], *record["overall"]}
    kinds = set(get_args(Failure.model_fields["kind"].annotation))
    assert named - keys - kinds == set()
    assert {"overall", "byLabel", "queries", "failures", "passed", "exitCode"} <= named
