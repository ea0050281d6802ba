"""Retrieval scores: pure functions of ranked id lists, no files, no servers.

Conventions, pinned by tests: a ranked list is scored on its first ``k`` entries; an id counts
once, at its first position (a repeat earns nothing and still takes a slot); ids that were never
seeded are simply not relevant. Recall and nDCG are ``None`` when a query has no relevant
notes; precision of an empty top ``k`` is 0.0; the reciprocal rank with no relevant hit is 0.0.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be 1 or more, got {k}")


def first_hits(ranked: Sequence[str], k: int) -> list[tuple[int, str]]:
    """``(position, id)`` of each id's first occurrence within the top ``k`` (positions from 0)."""
    _check_k(k)
    seen: set[str] = set()
    hits: list[tuple[int, str]] = []
    for position, note_id in enumerate(ranked[:k]):
        if note_id not in seen:
            seen.add(note_id)
            hits.append((position, note_id))
    return hits


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float | None:
    """Share of the relevant ids found in the top ``k``; ``None`` without relevant ids."""
    hits = {note_id for _, note_id in first_hits(ranked, k)}
    if not relevant:
        return None
    return len(hits & set(relevant)) / len(set(relevant))


def precision_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Share of the returned top-``k`` slots holding a distinct relevant id (fewer than ``k``
    results are not padded: a server that returns one right note scores 1.0); 0.0 when empty."""
    top = ranked[:k]
    hits = [note_id for _, note_id in first_hits(ranked, k) if note_id in relevant]
    return len(hits) / len(top) if top else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1 / the position (from 1) of the first relevant id in the top ``k``; 0.0 when none."""
    for position, note_id in first_hits(ranked, k):
        if note_id in relevant:
            return 1.0 / (position + 1)
    return 0.0


def ndcg_at_k(ranked: Sequence[str], grades: Mapping[str, int], k: int) -> float | None:
    """Normalised discounted cumulative gain with graded relevance: gain ``2**grade - 1`` at
    position ``i`` (from 0) discounted by ``log2(i + 2)``; ``None`` without relevant ids."""
    hits = first_hits(ranked, k)
    ideal_grades = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    if not ideal_grades:
        return None
    dcg = sum(_gain(grades.get(note_id, 0), position) for position, note_id in hits)
    ideal = sum(_gain(grade, position) for position, grade in enumerate(ideal_grades))
    return dcg / ideal


def _gain(grade: int, position: int) -> float:
    return float(2**grade - 1) / math.log2(position + 2)


def abstained(ranked: Sequence[str]) -> bool:
    """An abstention query passes only when nothing at all comes back."""
    return not ranked


def newer_wins(ranked: Sequence[str], replaced: Mapping[str, Collection[str]], k: int) -> bool:
    """Every newer note (a key of ``replaced``) is in the top ``k``, and each note it replaces
    is either absent from the top ``k`` or ranked below it. True when ``replaced`` is empty."""
    position = {note_id: pos for pos, note_id in first_hits(ranked, k)}
    for newer, olders in replaced.items():
        if newer not in position:
            return False
        if any(position.get(old, math.inf) < position[newer] for old in olders):
            return False
    return True


def duplicates(ranked: Sequence[str]) -> list[str]:
    """Ids that appear more than once in one result list (each named once, in order)."""
    seen: set[str] = set()
    repeated: list[str] = []
    for note_id in ranked:
        if note_id in seen and note_id not in repeated:
            repeated.append(note_id)
        seen.add(note_id)
    return repeated


def mean(values: Sequence[float | None]) -> float | None:
    """Mean of the values that are not ``None``; ``None`` when there are none."""
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None
