"""How `proctor compare BASE CAND` says the groups of runs of suites named apart were matched."""

from __future__ import annotations

from types import SimpleNamespace

from proctor.report.pooled_runs import matched_by


def group(condition: str, candidate: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(condition=condition, candidate_condition=candidate)


def test_groups_of_one_condition_in_both_are_matched_by_it() -> None:
    said = matched_by([group("default"), group("baseline")])
    assert said == "their groups are matched by case, agent and condition"


def test_groups_whose_conditions_differ_are_matched_by_case_and_agent() -> None:
    said = matched_by([group("baseline", "treatment"), group("baseline", "treatment")])
    assert said == (
        "their groups are matched by case and agent, the conditions differing: baseline vs "
        "treatment"
    )


def test_a_mix_names_both_ways() -> None:
    said = matched_by([group("default"), group("a", "b"), group("c", "d")])
    assert said == (
        "their groups are matched by case, agent and condition, or by case and agent where a "
        "case ran under one condition in each run (the conditions differing: a vs b, c vs d)"
    )
