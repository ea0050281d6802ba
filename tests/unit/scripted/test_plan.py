import pytest

from proctor.scripted.plan import (
    PlanError,
    plan_errors,
    plan_roles,
    steps_for_repeat,
    validate_plan,
)


def test_variants_cycle_by_repeat() -> None:
    plan = {"variants": [[{"say": "a"}], [{"say": "b"}], [{"say": "c"}]]}
    validate_plan(plan)
    assert [steps_for_repeat(plan, r)[0]["say"] for r in range(1, 7)] == list("abcabc")


@pytest.mark.parametrize(
    ("plan", "match"),
    [
        (  # the scripted agent crashed on it mid-trial, the server answered a 500
            {"turns": [{"search": "x", "path": 5}]},
            r"turns\[0\]: 'path' must be a non-empty string",
        ),
        ({"turns": [{"search": "x", "path": ""}]}, "'path' must be a non-empty string"),
        ({"turns": [{"say": ""}]}, r"turns\[0\]: 'say' must be a non-empty string"),
        ({"turns": [{"tool": "X", "output": {"a": 1}}]}, "'output' must be a string"),
        (  # a misspelt key was dropped silently
            {"turns": [], "errors": {"0": {"status": 429, "mesage": "slow"}}},
            r"errors\.0: unknown key 'mesage' \(did you mean 'message'\?",
        ),
        ({"turns": [], "errors": {"0": {"status": 429, "message": 5}}}, "'message' must be a"),
        ({"roles": {"judge": [{"status": 500, "body": "oops"}]}}, "'body' must be a JSON object"),
        ({"roles": {"judge": [{"status": 500, "message": ["x"]}]}}, "'message' must be a"),
        (  # a nested split was accepted and then played no step at all
            {"conditions": {"a": {"conditions": {"a": {"turns": [{"say": "x"}]}}}}},
            r"conditions\.a: a condition's plan cannot be split by 'conditions' again",
        ),
    ],
)
def test_wrong_types_in_a_plan_are_refused_naming_the_field(plan: object, match: str) -> None:
    with pytest.raises(PlanError, match=match):
        validate_plan(plan)


def test_a_condition_scripts_its_own_roles_and_errors() -> None:
    """A condition's own ``roles`` and ``errors`` were validated and then ignored: its trials
    got the top-level ones (or the default judge verdict, which passes)."""
    plan = {
        "roles": {"judge": [{"text": "top"}], "fast": [{"text": "question"}]},
        "errors": {"0": {"status": 500}},
        "conditions": {
            "baseline": {"turns": [], "roles": {"judge": [{"json": {"score": 10}}]}},
            "treatment": {"turns": [], "errors": {"1": {"status": 429}}},
        },
    }
    validate_plan(plan)
    assert plan_roles(plan, "baseline") == {
        "judge": [{"json": {"score": 10}}],
        "fast": [{"text": "question"}],
    }
    assert plan_roles(plan, "treatment") == plan["roles"]
    assert plan_errors(plan, "baseline") == {0: {"status": 500}}
    assert plan_errors(plan, "treatment") == {1: {"status": 429}}


@pytest.mark.parametrize(
    ("plan", "match"),
    [
        ({}, "exactly one of 'turns' or 'variants'"),
        ({"turns": [], "variants": [[]]}, "exactly one of"),
        ({"turns": [{"say": 1}]}, r"turns\[0\]: 'say' must be a non-empty string"),
        ({"turns": [{"edit": {"path": "a"}}]}, "'edit' must be an object"),
        ({"turns": [{"exit": 300}]}, "'exit' must be an integer from 0 to 255"),
        ({"turns": [{"say": "a", "shell": "b"}]}, "exactly one action"),
        ({"turns": [{"sya": "a"}]}, r"got \['sya'\] \(did you mean 'say'\?\)"),
        ({"turns": [{"ask": "q", "options": "Yes"}]}, "'options' must be a list"),
        ({"variants": []}, "non-empty list"),
        ({"turns": [], "extra": 1}, "unknown key"),
        (  # a near miss is named, at the top and in a step
            {"turn": []},
            r"plan.json: unknown key 'turn' \(did you mean 'turns'\? known keys: conditions, "
            r"errors, model, roles, turns, variants\)",
        ),
        (
            {"turns": [{"shell": "ls", "timeoutsec": 3}]},
            r"turns\[0\]: unknown key 'timeoutsec' \(did you mean 'timeoutSec'\? known keys: "
            r"shell, timeoutSec\), for action 'shell'",
        ),
        (
            {"roles": {"judg": [{"text": "x"}]}},
            r"roles.judg: unknown role \(did you mean 'judge'\? known: judge, workhorse, fast\)",
        ),
        (
            {"roles": {"judge": [{"text": "x", "mesage": "y"}]}},
            r"unknown key 'mesage' \(did you mean 'message'\?",
        ),
    ],
)
def test_invalid_plans_are_rejected(plan: object, match: str) -> None:
    with pytest.raises(PlanError, match=match):
        validate_plan(plan)


@pytest.mark.parametrize(
    "value", [1.0, 1000, 1e-9, float("inf"), float("-inf"), float("nan"), True]
)
def test_logprobs_must_be_finite_and_at_most_zero(value: object) -> None:
    plan = {"roles": {"judge": [{"text": "PASS", "logprobs": [-0.1, value]}]}}
    with pytest.raises(PlanError, match=r"roles\.judge\[0\]: 'logprobs'\[1\] must be a finite"):
        validate_plan(plan)


def test_logprobs_at_most_zero_are_accepted() -> None:
    validate_plan({"roles": {"judge": [{"text": "PASS", "logprobs": [0, -0.5, -1e6]}]}})
    with pytest.raises(PlanError, match="'logprobs' must be a list"):
        validate_plan({"roles": {"judge": [{"text": "PASS", "logprobs": -1}]}})


@pytest.mark.parametrize(
    ("step", "match"),
    [
        ({"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": "false"}}, "replaceAll"),
        ({"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": 1}}, "replaceAll"),
        ({"tool": "Bash", "isError": "false"}, "'isError' must be true or false"),
        ({"tool": "Bash", "isError": 0}, "'isError' must be true or false"),
    ],
)
def test_a_flag_is_a_json_boolean_never_a_string_or_number(step: object, match: str) -> None:
    """``bool("false")`` is true: a string flag would do the opposite of what it says."""
    with pytest.raises(PlanError, match=match):
        validate_plan({"turns": [step]})


def test_boolean_flags_are_accepted() -> None:
    validate_plan(
        {
            "turns": [
                {"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": False}},
                {"tool": "Bash", "isError": True, "output": "boom"},
            ]
        }
    )
