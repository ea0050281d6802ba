import pytest

from proctor.scripted.plan import PlanError, steps_for_repeat, validate_plan


def test_variants_cycle_by_repeat() -> None:
    plan = {"variants": [[{"say": "a"}], [{"say": "b"}], [{"say": "c"}]]}
    validate_plan(plan)
    assert [steps_for_repeat(plan, r)[0]["say"] for r in range(1, 7)] == list("abcabc")


@pytest.mark.parametrize(
    ("plan", "match"),
    [
        ({}, "exactly one of 'turns' or 'variants'"),
        ({"turns": [], "variants": [[]]}, "exactly one of"),
        ({"turns": [{"say": 1}]}, r"turns\[0\]: 'say' must be a string"),
        ({"turns": [{"edit": {"path": "a"}}]}, "'edit' must be an object"),
        ({"turns": [{"exit": 300}]}, "'exit' must be an integer from 0 to 255"),
        ({"turns": [{"say": "a", "shell": "b"}]}, "exactly one action"),
        ({"turns": [{"ask": "q", "options": "Yes"}]}, "'options' must be a list"),
        ({"variants": []}, "non-empty list"),
        ({"turns": [], "extra": 1}, "unknown key"),
    ],
)
def test_invalid_plans_are_rejected(plan: object, match: str) -> None:
    with pytest.raises(PlanError, match=match):
        validate_plan(plan)
