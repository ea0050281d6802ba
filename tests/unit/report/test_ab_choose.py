"""The one A/B pair chooser: named conditions checked and filled in, the pair most cases ran
together when none is named, and never two conditions that did not run together for the suite's
own report."""

from __future__ import annotations

import pytest

from proctor.errors import ConfigError
from proctor.models.trial import TrialRecord
from proctor.report.ab.choose import choose_pair, conditions_in, records_for_pair


def rec(case: str, condition: str, agent: str = "a") -> TrialRecord:
    return TrialRecord(case=case, agent=agent, condition=condition, repeat=1, status="passed")


def together(*conditions: str) -> list[TrialRecord]:
    return [rec("c", name) for name in conditions]


def test_conditions_in_is_sorted_and_distinct() -> None:
    assert conditions_in([]) == []
    assert conditions_in([rec("x", "z"), rec("x", "a"), rec("y", "z")]) == ["a", "z"]


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ([], None),
        (["only"], None),
        (["z", "baseline", "a"], ("a", "baseline")),
        (["default", "b"], ("b", "default")),
        (["default", "baseline"], ("default", "baseline")),
        (["b", "a"], ("b", "a")),
    ],
)
def test_the_default_pair_of_conditions_that_ran_together(
    conditions: list[str], expected: tuple[str, str] | None
) -> None:
    assert choose_pair(together(*conditions)) == expected
    assert choose_pair(together(*conditions), together_only=True) == expected


def test_the_pair_most_cases_ran_together_wins() -> None:
    records = [
        *[rec("one", c) for c in ("baseline", "with-x")],
        *[rec("two", c) for c in ("baseline", "with-y")],
        *[rec("three", c) for c in ("baseline", "with-y")],
    ]
    assert choose_pair(records) == ("with-y", "baseline")


def test_a_mixed_suite_compares_the_ab_cases_conditions() -> None:
    records = [rec("plain", "default"), rec("ab", "baseline"), rec("ab", "with-skill")]
    assert choose_pair(records) == ("with-skill", "baseline")
    assert [r.case for r in records_for_pair(records, "with-skill", "baseline")] == ["ab", "ab"]


def test_control_conditions_that_never_ran_together_pair_only_when_allowed() -> None:
    records = [rec("one", "x"), rec("two", "y")]
    assert choose_pair(records, together_only=True) is None
    assert choose_pair(records) == ("y", "x")


@pytest.mark.parametrize(
    ("treatment", "baseline", "expected"),
    [
        ("with-plugin", None, ("with-plugin", "baseline")),
        (None, "with-plugin", ("baseline", "with-plugin")),
        ("baseline", "with-plugin", ("baseline", "with-plugin")),
    ],
)
def test_a_named_condition_is_filled_in(
    treatment: str | None, baseline: str | None, expected: tuple[str, str]
) -> None:
    assert choose_pair(together("baseline", "with-plugin"), treatment, baseline) == expected


@pytest.mark.parametrize(
    ("conditions", "treatment", "baseline", "message"),
    [
        (
            ["baseline"],
            "baseline",
            None,
            "this run has fewer than two conditions (baseline); to compare two runs, give "
            "both: `proctor compare BASE_RUN CANDIDATE_RUN`",
        ),
        (["a", "b"], "c", None, "the treatment 'c': not one of the run's conditions (a, b)"),
        (["a", "b"], None, "c", "the baseline 'c': not one of the run's conditions (a, b)"),
        (
            ["baseline", "with-skill"],
            "with-skil",
            None,
            "the treatment 'with-skil': not one of the run's conditions (did you mean "
            "'with-skill'? conditions: baseline, with-skill)",
        ),
        (
            ["a", "b"],
            "a",
            "a",
            "the treatment and the baseline are both 'a': give two of the run's conditions (a, b)",
        ),
    ],
)
def test_a_bad_name_is_refused_with_a_sentence(
    conditions: list[str], treatment: str | None, baseline: str | None, message: str
) -> None:
    """One sentence, ended as the project's other errors are: with no full stop."""
    with pytest.raises(ConfigError) as refused:
        choose_pair(together(*conditions), treatment, baseline)
    assert str(refused.value) == message


def test_conditions_of_different_cases_make_no_comparison() -> None:
    """`compare` on a run whose cases each ran one condition (find-the-bug under with-skill,
    fix-a-bug under default): no pair can form, and the report said nothing was incomplete.
    It is refused (exit 2), naming each condition's cases; a case planned under both counts
    (its missing trials are incomplete pairs)."""
    from proctor.report.ab.runs import compare_conditions

    apart = [rec("find", "with-skill"), rec("fix", "default")]
    for named in ((None, None), ("with-skill", "default")):
        with pytest.raises(ConfigError) as refused:
            compare_conditions(apart, *named)
        assert "no case ran under both 'with-skill' and 'default'" in str(refused.value)
        assert "(with-skill: find; default: fix)" in str(refused.value)
    planned = [("find", "a", "with-skill", 1), ("find", "a", "default", 1)]
    report = compare_conditions(apart, "with-skill", "default", planned=planned)
    assert len(report.incomplete) == 1  # the control: planned under both, one side missing
    together_ = [rec("find", "with-skill"), rec("find", "default")]
    assert compare_conditions(together_).treatment == "with-skill"


@pytest.mark.parametrize(
    ("treatment", "baseline", "expected"),
    [
        (None, None, ("skill", "base", {"treatment", "baseline"}, "gate")),
        ("other", None, ("other", "base", {"baseline"}, "named-and-gate")),
        (None, "other", ("skill", "other", {"treatment"}, "named-and-gate")),
        ("skill", None, ("skill", "base", {"baseline"}, "named-and-gate")),
        # One of the gate's two named on the other side: the gate's other one opposite it,
        # not the first other condition in sorted order.
        ("base", None, ("base", "skill", {"baseline"}, "named-and-gate")),
        (None, "skill", ("base", "skill", {"treatment"}, "named-and-gate")),
        ("other", "base", ("other", "base", set(), "named")),
    ],
)
def test_gate_sides_fills_the_side_not_named_from_the_gate(
    treatment: str | None, baseline: str | None, expected: tuple[object, ...]
) -> None:
    from proctor.report.ab.choose import gate_sides

    sides = gate_sides(treatment, baseline, ("skill", "base"))
    assert (sides.treatment, sides.baseline, set(sides.from_gate), sides.pair_from) == expected


def test_gate_sides_without_a_gate_leaves_the_side_not_named_to_be_chosen() -> None:
    from proctor.report.ab.choose import gate_sides

    assert gate_sides(None, None, None).pair_from == "chosen"
    assert gate_sides("a", None, None)[:2] == ("a", None)
    assert gate_sides("a", None, None).pair_from == "named-and-chosen"


def test_an_ab_gate_naming_a_misspelt_condition_is_told_the_nearest() -> None:
    from proctor.report.ab.choose import gate_missing

    assert gate_missing(("with-skil", "baseline"), ["baseline", "with-skill"]) == (
        "the run's A/B gate (gate.ab) names the treatment 'with-skil': not one of the run's "
        "conditions (did you mean 'with-skill'? conditions: baseline, with-skill)"
    )
    assert gate_missing(("q", "baseline"), ["baseline", "with-skill"]) == (
        "the run's A/B gate (gate.ab) names the treatment 'q': not one of the run's "
        "conditions (baseline, with-skill)"
    )
