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
            r"plan.json: field 'turns\[0\]\.path': expected a non-empty string \(a folder of the "
            r"workspace\), got 5$",
        ),
        ({"turns": [{"search": "x", "path": ""}]}, "'turns.0..path': expected a non-empty string"),
        (
            {"turns": [{"say": ""}]},
            r"field 'turns\[0\]\.say': expected a non-empty string, got the string \"\"",
        ),
        (
            {"turns": [{"tool": "X", "output": {"a": 1}}]},
            r"field 'turns\[0\]\.output': expected a string, got an object",
        ),
        (  # a misspelt key was dropped silently
            {"turns": [], "errors": {"0": {"status": 429, "mesage": "slow"}}},
            r"field 'errors\.0': unknown key 'mesage' \(did you mean 'message'\?",
        ),
        (
            {"turns": [], "errors": {"0": {"status": 429, "message": 5}}},
            r"field 'errors\.0\.message': expected a string, got 5",
        ),
        (
            {"roles": {"judge": [{"status": 500, "body": "oops"}]}},
            r"field 'roles\.judge\[0\]\.body': expected a JSON object, got the string \"oops\"",
        ),
        (
            {"roles": {"judge": [{"status": 500, "message": ["x"]}]}},
            r"field 'roles\.judge\[0\]\.message': expected a string, got a list",
        ),
        (  # a nested split was accepted and then played no step at all
            {"conditions": {"a": {"conditions": {"a": {"turns": [{"say": "x"}]}}}}},
            r"field 'conditions\.a': a condition's plan cannot be split by 'conditions' again",
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
        ({"turns": [{"say": 1}]}, r"field 'turns\[0\]\.say': expected a non-empty string, got 1"),
        ({"turns": [{"edit": {"path": "a"}}]}, r"field 'turns\[0\]\.edit\.old' is required"),
        (
            {"turns": [{"exit": 300}]},
            r"field 'turns\[0\]\.exit': expected an integer from 0 to 255, got 300",
        ),
        ({"turns": [{"say": "a", "shell": "b"}]}, "exactly one action"),
        ({"turns": [{"sya": "a"}]}, r'got \["sya"\] \(did you mean \'say\'\?\)'),
        (
            {"turns": [{"ask": "q", "options": "Yes"}]},
            r"field 'turns\[0\]\.options': expected a list of strings, got the string \"Yes\"",
        ),
        ({"variants": []}, "non-empty list"),
        ({"turns": [], "extra": 1}, "unknown key"),
        (  # a near miss is named, at the top and in a step
            {"turn": []},
            r"plan.json: unknown key 'turn' \(did you mean 'turns'\? known keys: conditions, "
            r"errors, model, roles, turns, variants\)",
        ),
        (
            {"turns": [{"shell": "ls", "timeoutsec": 3}]},
            r"field 'turns\[0\]': unknown key 'timeoutsec' \(did you mean 'timeoutSec'\? known keys: "
            r"shell, timeoutSec\), for action 'shell'",
        ),
        (  # an action's name mistyped beside another action: said as an action of its own
            {"turns": [{"say": "done", "endturn": True}]},
            r"unknown key 'endturn' \(known keys: say\), for action 'say'; 'endTurn' is an "
            r"action of its own: give it a step of its own$",
        ),
        (  # a file step's fields laid beside the action: said where they go
            {"turns": [{"write": "hello.txt", "content": "hi\n"}]},
            r"field 'turns\[0\]': unknown key 'content' \(known keys: write\), for action "
            r"'write'; a write step's fields go inside it: "
            r'\{"write": \{"path": …, "content": …\}\}$',
        ),
        (
            {"turns": [{"edit": "f.py", "old": "a", "new": "b", "replaceAll": True}]},
            r"an edit step's fields go inside it: "
            r'\{"edit": \{"path": …, "old": …, "new": …, "replaceAll": …\}\} '
            r"\('replaceAll' is optional\)$",
        ),
        (  # a near miss of a field beside the action: said to go inside it too
            {"turns": [{"write": "hello.txt", "contents": "hi"}]},
            r"unknown key 'contents' \(known keys: write\), for action 'write'; a write "
            r'step\'s fields go inside it: \{"write": \{"path": …, "content": …\}\}$',
        ),
        (  # beside an object that holds it already: not said to go inside
            {"turns": [{"write": {"path": "f", "content": "x"}, "content": "y"}]},
            r"for action 'write'; 'write' holds 'content' already: leave out 'content' beside "
            r"it$",
        ),
        (
            {"turns": [{"write": {"path": "f"}, "content": "y"}]},
            r"for action 'write'; put 'content' inside 'write', with its other fields$",
        ),
        (  # a tool call's arguments beside its name: said to go under input
            {"turns": [{"tool": "Bash", "command": "ls"}]},
            r"unknown key 'command' \(known keys: fromResults, input, isError, output, tool\), "
            r"for action 'tool'; the call's arguments go under 'input': "
            r'\{"tool": NAME, "input": \{…\}\}$',
        ),
        (  # a near miss is said as one, with no other hint
            {"turns": [{"tool": "Bash", "inputs": {}}]},
            r"unknown key 'inputs' \(did you mean 'input'\? known keys: fromResults, input, "
            r"isError, output, tool\), for action 'tool'$",
        ),
        (
            {"roles": {"judg": [{"text": "x"}]}},
            r"field 'roles.judg': unknown role \(did you mean 'judge'\? known: judge, workhorse, fast\)",
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
    with pytest.raises(
        PlanError, match=r"field 'roles\.judge\[0\]\.logprobs\[1\]': expected a finite number <= 0"
    ):
        validate_plan(plan)


def test_logprobs_at_most_zero_are_accepted() -> None:
    validate_plan({"roles": {"judge": [{"text": "PASS", "logprobs": [0, -0.5, -1e6]}]}})
    with pytest.raises(
        PlanError, match=r"field 'roles\.judge\[0\]\.logprobs': expected a list, got -1"
    ):
        validate_plan({"roles": {"judge": [{"text": "PASS", "logprobs": -1}]}})


@pytest.mark.parametrize(
    ("step", "match"),
    [
        ({"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": "false"}}, "replaceAll"),
        ({"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": 1}}, "replaceAll"),
        ({"tool": "Bash", "isError": "false"}, "isError': expected true or false, got the string"),
        ({"tool": "Bash", "isError": 0}, "isError': expected true or false, got 0"),
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


@pytest.mark.parametrize(
    ("plan", "said"),
    [
        (
            {"turns": [{"sleep": "2"}]},
            "field 'turns[0].sleep': expected a number of seconds from 0 to 86400, "
            'got the string "2"',
        ),
        (
            {"variants": [[{"say": "a"}, {"exit": "1"}]]},
            "field 'variants[0][1].exit': expected an integer from 0 to 255, got the string \"1\"",
        ),
        (
            {"turns": [{"edit": {"path": "a", "old": "x", "new": "y", "replaceAll": "yes"}}]},
            "field 'turns[0].edit.replaceAll': expected true or false, got the string \"yes\"",
        ),
        ({"turns": [], "model": 5}, "field 'model': expected a string, got 5"),
        (
            {"conditions": {"b": {"turns": [{"shell": "ls", "timeoutSec": 0}]}}},
            "field 'conditions.b.turns[0].timeoutSec': expected a number of seconds above 0, "
            "at most 86400, got 0",
        ),
    ],
)
def test_a_message_names_the_field_path_and_the_value_given(plan: object, said: str) -> None:
    """Worded as config.json's are: the field as a JSON path and the value given, where
    ``turns[0]: 'sleep' must be a number …`` left out the value (a string "2" read as 2)."""
    with pytest.raises(PlanError) as raised:
        validate_plan(plan, "case/plan.json")
    assert str(raised.value) == f"case/plan.json: {said}"


@pytest.mark.parametrize("path", ["../../x", "/tmp/x", "a/../../x", "..", ".", ""])
@pytest.mark.parametrize("action", ["write", "edit"])
def test_a_file_step_outside_the_workspace_is_refused(path: str, action: str) -> None:
    """``{"write": {"path": "../../x"}}`` passed validate, and the scripted agent wrote the
    file outside the trial's workspace."""
    spec = (
        {"path": path, "content": "x"}
        if action == "write"
        else {"path": path, "old": "a", "new": "b"}
    )
    with pytest.raises(PlanError) as raised:
        validate_plan({"turns": [{action: spec}]}, "c/plan.json")
    assert str(raised.value) == (
        f"c/plan.json: field 'turns[0].{action}.path': expected a path inside the workspace "
        f"(relative, not climbing out with '..'), got the string \"{path}\""
    )


def test_a_file_step_inside_the_workspace_is_accepted() -> None:
    validate_plan(
        {"turns": [{"write": {"path": p, "content": ""}} for p in ("a", "./a/../b", "s/t")]}
    )


@pytest.mark.parametrize("path", ["/etc/passwd", "../../x", "a/../../x", "..", "."])
def test_a_read_outside_the_workspace_is_refused(path: str) -> None:
    """``{"read": "/etc/passwd"}`` passed validate and read the machine's file: a test of the
    plan passed or failed on what that machine holds, not on the trial's workspace."""
    with pytest.raises(PlanError) as raised:
        validate_plan({"turns": [{"read": path}]}, "c/plan.json")
    assert str(raised.value) == (
        "c/plan.json: field 'turns[0].read': expected a path inside the workspace "
        f"(relative, not climbing out with '..'), got the string \"{path}\""
    )


@pytest.mark.parametrize("path", ["/etc", "..", "a/../.."])
def test_a_search_outside_the_workspace_is_refused(path: str) -> None:
    with pytest.raises(PlanError) as raised:
        validate_plan({"turns": [{"search": "x", "path": path}]}, "c/plan.json")
    assert str(raised.value) == (
        "c/plan.json: field 'turns[0].path': expected a folder of the workspace "
        f"(relative, not climbing out with '..'), got the string \"{path}\""
    )


def test_a_read_and_a_search_inside_the_workspace_are_accepted() -> None:
    steps = [{"read": "a/../b"}, {"read": "./s/t"}, {"search": "x", "path": "."}]
    validate_plan({"turns": [*steps, {"search": "x", "path": "src"}, {"search": "x"}]})


@pytest.mark.parametrize(
    ("step", "field"),
    [
        ({"read": "a\0b"}, "turns[0].read"),
        ({"search": "x", "path": "src\0"}, "turns[0].path"),
        ({"write": {"path": "a\0b", "content": ""}}, "turns[0].write.path"),
        ({"edit": {"path": "\0", "old": "a", "new": "b"}}, "turns[0].edit.path"),
    ],
)
def test_a_path_with_a_nul_character_is_refused(step: dict[str, object], field: str) -> None:
    """``{"read": "a\\u0000b"}`` passed validate, and the scripted agent crashed on it mid-trial
    (``ValueError: embedded null byte``)."""
    with pytest.raises(PlanError) as raised:
        validate_plan({"turns": [step]}, "c/plan.json")
    assert str(raised.value).startswith(
        f"c/plan.json: field '{field}': expected a path without a NUL character, got the string "
    )


def test_a_step_with_no_or_two_actions_names_its_keys_as_json_writes_them() -> None:
    """The keys were shown as Python writes a list (``['say', 'shell']``)."""
    for step, got in (
        ({"say": "a", "shell": "b"}, 'got ["say", "shell"]'),
        ({"say\u00a0": "a"}, "got [\"say\\u00a0\"] (did you mean 'say'?)"),
    ):
        with pytest.raises(PlanError) as caught:
            validate_plan({"turns": [step]})
        assert str(caught.value).endswith(got), str(caught.value)
