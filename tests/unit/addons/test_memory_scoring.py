"""Retrieval scores against values computed by hand, and their degenerate inputs."""

from __future__ import annotations

import math

import pytest

from proctor.addons.memory import scoring


def test_recall_counts_distinct_relevant_ids_in_the_top_k() -> None:
    assert scoring.recall_at_k(["x", "a", "y", "b"], {"a", "b", "c"}, 2) == pytest.approx(1 / 3)
    assert scoring.recall_at_k(["x", "a", "y", "b"], {"a", "b", "c"}, 4) == pytest.approx(2 / 3)
    assert scoring.recall_at_k(["a", "a"], {"a", "b"}, 5) == pytest.approx(1 / 2)


def test_recall_and_ndcg_are_undefined_without_relevant_notes() -> None:
    assert scoring.recall_at_k(["a"], set(), 3) is None
    assert scoring.ndcg_at_k(["a"], {}, 3) is None


def test_precision_divides_by_the_slots_returned_and_repeats_take_a_slot() -> None:
    assert scoring.precision_at_k(["a", "x", "b", "y"], {"a", "b"}, 3) == pytest.approx(2 / 3)
    assert scoring.precision_at_k(["a"], {"a", "b"}, 5) == 1.0
    assert scoring.precision_at_k(["a", "a"], {"a"}, 5) == 0.5
    assert scoring.precision_at_k([], {"a"}, 5) == 0.0


def test_never_seeded_ids_are_irrelevant_not_dropped() -> None:
    assert scoring.precision_at_k(["ghost", "a"], {"a"}, 5) == 0.5
    assert scoring.reciprocal_rank(["ghost", "a"], {"a"}, 5) == 0.5


def test_reciprocal_rank() -> None:
    assert scoring.reciprocal_rank(["x", "y", "a"], {"a"}, 5) == pytest.approx(1 / 3)
    assert scoring.reciprocal_rank(["x", "y", "a"], {"a"}, 2) == 0.0
    assert scoring.reciprocal_rank([], {"a"}, 2) == 0.0


def test_graded_ndcg_by_hand() -> None:
    # gains: a=2 -> 3, b=1 -> 1; ranked b, a: DCG = 1/log2(2) + 3/log2(3); ideal = 3 + 1/log2(3)
    expected = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert scoring.ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 5) == pytest.approx(expected)
    assert expected == pytest.approx(0.7967, abs=1e-4)
    assert scoring.ndcg_at_k(["a", "b"], {"a": 2, "b": 1}, 5) == pytest.approx(1.0)
    # one irrelevant id first: 1/log2(3)
    assert scoring.ndcg_at_k(["x", "a"], {"a": 1}, 5) == pytest.approx(0.6309, abs=1e-4)
    # a repeat earns nothing the second time
    assert scoring.ndcg_at_k(["x", "x"], {"x": 1, "y": 1}, 5) == pytest.approx(
        1 / (1 + 1 / math.log2(3))
    )


def test_ndcg_ideal_is_cut_at_k() -> None:
    assert scoring.ndcg_at_k(["a"], {"a": 1, "b": 1, "c": 1}, 1) == 1.0


def test_abstention_is_silence() -> None:
    assert scoring.abstained([]) is True
    assert scoring.abstained(["anything"]) is False


def test_newer_wins() -> None:
    replaced = {"new": {"old"}}
    assert scoring.newer_wins(["new", "old"], replaced, 5) is True
    assert scoring.newer_wins(["new"], replaced, 5) is True
    assert scoring.newer_wins(["old", "new"], replaced, 5) is False  # control: older first
    assert scoring.newer_wins(["old"], replaced, 5) is False  # newer missing
    assert scoring.newer_wins(["x", "new"], replaced, 1) is False  # newer outside the top k
    assert scoring.newer_wins([], {}, 5) is True


def test_duplicates_named_once_in_order() -> None:
    assert scoring.duplicates(["a", "b", "a", "b", "a"]) == ["a", "b"]
    assert scoring.duplicates(["a", "b"]) == []


def test_mean_skips_none_and_k_must_be_positive() -> None:
    assert scoring.mean([1.0, None, 0.0]) == 0.5
    assert scoring.mean([None]) is None
    with pytest.raises(ValueError):
        scoring.recall_at_k(["a"], {"a"}, 0)
