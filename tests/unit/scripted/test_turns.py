"""The turns a plan plays, and the steps no message of a conversation reached."""

import pytest

from proctor.scripted.plan import validate_plan
from proctor.scripted.turns import unplayed


@pytest.mark.parametrize(
    ("plan", "condition", "repeat", "named"),
    [
        (
            {"turns": [{"say": "a"}, {"endTurn": True}, {"timeoutSec": 5, "shell": "ls"}]},
            "default",
            1,
            "turns[2] (shell)",
        ),
        (
            {"variants": [[{"say": "a"}], [{"say": "a"}, {"endTurn": True}, {"say": "b"}]]},
            "default",
            2,
            "variants[1][2] (say)",
        ),
        (
            {"conditions": {"base": {"turns": [{"endTurn": True}, {"read": "x"}]}}},
            "base",
            1,
            "conditions.base.turns[1] (read)",
        ),
        (
            {"conditions": {"b": {"variants": [[{"endTurn": True}, {"say": "v"}]]}}},
            "b",
            3,
            "conditions.b.variants[0][1] (say)",
        ),
    ],
)
def test_a_step_never_played_is_named_by_its_path_in_the_plan_and_its_action(
    plan: dict[str, object], condition: str, repeat: int, named: str
) -> None:
    """It was named by its index in the steps the repeat played and by the step's first key:
    ``turns[2] (write)`` for the third step of variant 1, ``(timeoutSec)`` for a shell step."""
    validate_plan(plan)
    told = unplayed(plan, condition, repeat, 1, "the test")
    assert told is not None
    assert told.endswith(f"so these steps never played: {named}")
