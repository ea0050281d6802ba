"""The memory evaluation's record: per-query details, scores per label and overall, failures,
and the exit code. :func:`score_run` is pure: a dataset and the ids each query returned in,
a :class:`MemoryEvalRecord` out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from proctor.addons.memory import scoring
from proctor.addons.memory.dataset import LABELS, Dataset, Query
from proctor.models.base import CamelModel, RecordModel
from proctor.util.text import escaped_line, plural


class Thresholds(CamelModel):
    """Minimums on the overall scores; a score with no applicable query is not checked."""

    min_recall: float = 0.8
    min_precision: float = 0.5
    min_mrr: float = 0.5
    min_ndcg: float = 0.5
    min_abstention: float = 1.0
    min_update: float = 1.0


class Scores(CamelModel):
    queries: int
    recall: float | None = None
    precision: float | None = None
    mrr: float | None = None
    ndcg: float | None = None
    abstention: float | None = None
    knowledge_update: float | None = None


class QueryResult(CamelModel):
    id: str
    project: str
    labels: list[str]
    returned: list[str]
    """Every id the server returned, in its order (not only the top k)."""
    relevant: dict[str, int]
    recall: float | None = None
    precision: float | None = None
    reciprocal_rank: float | None = None
    ndcg: float | None = None
    abstained: bool | None = None
    newer_wins: bool | None = None
    unknown: list[str] = []
    """Returned ids that were never seeded, from the whole result list (those in the first k
    of a scored query are scored irrelevant)."""
    other_project: list[str] = []
    duplicates: list[str] = []


class Failure(CamelModel):
    kind: Literal["cross-project", "duplicate", "threshold"]
    message: str
    query: str | None = None
    note: str | None = None


class MemoryEvalRecord(RecordModel):
    server: str
    dataset: str
    adapter: str
    k: int
    thresholds: Thresholds
    overall: Scores
    by_label: dict[str, Scores]
    queries: list[QueryResult]
    failures: list[Failure]
    passed: bool
    exit_code: int


def score_query(dataset: Dataset, query: Query, returned: Sequence[str], k: int) -> QueryResult:
    notes = dataset.note_by_id()
    result = QueryResult(
        id=query.id,
        project=query.project,
        labels=list(query.labels),
        returned=list(returned),
        relevant=query.relevant,
        unknown=[i for i in dict.fromkeys(returned) if i not in notes],
        other_project=[
            i for i in dict.fromkeys(returned) if i in notes and notes[i].project != query.project
        ],
        duplicates=scoring.duplicates(returned),
    )
    if "abstention" in query.labels:
        result.abstained = scoring.abstained(returned)
        return result
    result.recall = scoring.recall_at_k(returned, query.relevant, k)
    result.precision = scoring.precision_at_k(returned, query.relevant, k)
    result.reciprocal_rank = scoring.reciprocal_rank(returned, query.relevant, k)
    result.ndcg = scoring.ndcg_at_k(returned, query.relevant, k)
    if "knowledge-update" in query.labels:
        replaced = {i: dataset.superseded_by(i) for i in query.relevant}
        replaced = {newer: olders for newer, olders in replaced.items() if olders}
        result.newer_wins = scoring.newer_wins(returned, replaced, k)
    return result


def summarise(results: Sequence[QueryResult]) -> Scores:
    def share(flags: list[bool | None]) -> float | None:
        return scoring.mean([float(f) for f in flags if f is not None])

    return Scores(
        queries=len(results),
        recall=scoring.mean([r.recall for r in results]),
        precision=scoring.mean([r.precision for r in results]),
        mrr=scoring.mean([r.reciprocal_rank for r in results]),
        ndcg=scoring.mean([r.ndcg for r in results]),
        abstention=share([r.abstained for r in results]),
        knowledge_update=share([r.newer_wins for r in results]),
    )


#: Score field → (threshold field, flag, what the report calls it).
CHECKS: tuple[tuple[str, str, str], ...] = (
    ("recall", "min_recall", "recall@k"),
    ("precision", "min_precision", "precision@k"),
    ("mrr", "min_mrr", "MRR"),
    ("ndcg", "min_ndcg", "nDCG@k"),
    ("abstention", "min_abstention", "abstention accuracy"),
    ("knowledge_update", "min_update", "knowledge-update accuracy"),
)


SCORE_TOLERANCE = 1e-9
"""A mean of shares such as ``(1 + 1 + 0.4) / 3`` lands a rounding error away from the exact
value (0.7999999999999999 for 0.8); a score that close to its threshold meets it."""


def below(value: float, limit: float) -> bool:
    """Whether a score falls short of its threshold by more than a rounding error."""
    return value < limit - SCORE_TOLERANCE


def failures_of(
    results: Sequence[QueryResult], overall: Scores, limits: Thresholds
) -> list[Failure]:
    failures: list[Failure] = []
    for r in results:
        for note in r.other_project:
            failures.append(Failure(
                kind="cross-project", query=r.id, note=note,
                message=f"query {r.id} (project {r.project}) returned {note}, a note of "
                "another project",
            ))  # fmt: skip
        for note in r.duplicates:
            failures.append(Failure(
                kind="duplicate", query=r.id, note=note,
                message=f"query {r.id} returned {note} more than once",
            ))  # fmt: skip
    for field, limit_field, name in CHECKS:
        value, limit = getattr(overall, field), getattr(limits, limit_field)
        if value is not None and below(value, limit):
            flag = "--" + limit_field.replace("_", "-")
            failures.append(Failure(
                kind="threshold",
                message=f"overall {name} {value:.3f} is below {flag} {limit:g}",
            ))  # fmt: skip
    return failures


def score_run(
    dataset: Dataset,
    returned: Mapping[str, Sequence[str]],
    *,
    k: int,
    thresholds: Thresholds,
    server: str,
    dataset_name: str,
    adapter_name: str,
) -> MemoryEvalRecord:
    """Score every query, group by label, and decide: any failure is exit 1."""
    results = [score_query(dataset, q, returned.get(q.id, []), k) for q in dataset.queries]
    overall = summarise(results)
    by_label = {
        label: summarise([r for r in results if label in r.labels])
        for label in LABELS
        if any(label in r.labels for r in results)
    }
    failures = failures_of(results, overall, thresholds)
    return MemoryEvalRecord(
        server=server,
        dataset=dataset_name,
        adapter=adapter_name,
        k=k,
        thresholds=thresholds,
        overall=overall,
        by_label=by_label,
        queries=results,
        failures=failures,
        passed=not failures,
        exit_code=1 if failures else 0,
    )


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


UNKNOWN_SHOWN = 10
"""Never-seeded ids shown per query in the text report (a server may return thousands)."""


def _unknown_line(result: QueryResult, k: int) -> str | None:
    """The never-seeded ids among the first ``k`` results of a scored query (the only ones
    scored irrelevant), and how many results past the first ``k`` went unscored."""
    if result.abstained is not None or not result.unknown:
        return None  # an abstention query scores nothing as irrelevant: any answer fails it
    unknown = set(result.unknown)
    scored = [i for i in dict.fromkeys(result.returned[:k]) if i in unknown]
    if not scored:
        return None
    shown = ", ".join(scored[:UNKNOWN_SHOWN])
    more = len(scored) - UNKNOWN_SHOWN
    shown += f" and {more} more (--json lists them)" if more > 0 else ""
    unscored = len(result.returned) - k
    past = f" ({plural(unscored, 'more result')} past the first {k} not scored)"
    shown += past if unscored > 0 else ""
    return f"query {result.id}: never-seeded results scored irrelevant: {shown}"


def render_text(record: MemoryEvalRecord) -> str:
    """The report for people: one row per label and overall, then unknown ids and failures.
    What the server and the dataset named (a server's command, a query's or a note's id) is
    shown with its control characters escaped (a terminal's escape sequence shown, never
    obeyed; a line break as ``\\n``)."""
    head = ["", "queries", "recall", "precision", "MRR", "nDCG", "abstain", "update"]
    rows = [head]
    for name, s in [*record.by_label.items(), ("overall", record.overall)]:
        values = (s.recall, s.precision, s.mrr, s.ndcg, s.abstention, s.knowledge_update)
        rows.append([name, str(s.queries), *(_cell(v) for v in values)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"memory-eval of {record.server} (k={record.k})"]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    lines += [line for r in record.queries if (line := _unknown_line(r, record.k))]
    lines += [f"FAIL {f.message}" for f in record.failures]
    lines.append(
        "passed" if record.passed else f"failed ({plural(len(record.failures), 'failure')})"
    )
    return "\n".join(escaped_line(line) for line in lines)
