"""Evaluator parameters are user configuration: read strictly, and an ``external`` evaluator's
``env`` that no program could be started with is refused when the case loads, not at trial
time."""

import sys
from pathlib import Path
from typing import Any

import pytest

from proctor.errors import ConfigError
from proctor.evaluators.base import parse_evaluator_specs
from tests.unit.evaluators.helpers import context, evaluate

PY = sys.executable


def refused(entry: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as info:
        parse_evaluator_specs([entry], "case/config.json")
    message = str(info.value)
    assert message.startswith("case/config.json: ")
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            {"use": "external", "command": PY, "timeoutSec": True},
            "field 'evaluators[0].timeoutSec': expected a number, got true",
        ),
        (
            {"use": "external", "command": PY, "timeoutSec": "30"},
            "field 'evaluators[0].timeoutSec': expected a number, got the string \"30\"",
        ),
        (
            {"use": "external", "command": PY, "passThreshold": "75"},
            "field 'evaluators[0].passThreshold': expected a number, got the string \"75\"",
        ),
        (
            {"use": "command", "run": "true", "expectExit": False},
            "field 'evaluators[0].expectExit': expected an integer, got false",
        ),
        (
            {"use": "command", "run": "true", "expectExit": 1.0},
            "field 'evaluators[0].expectExit': expected an integer, got 1.0",
        ),
        (
            {"use": "command", "run": "true", "expectExit": 256},
            "field 'evaluators[0].expectExit': expected less than or equal to 255, got 256",
        ),
        (
            {"use": "command", "run": "true", "expectExit": -1},
            "field 'evaluators[0].expectExit': expected greater than or equal to 0, got -1",
        ),
        (
            {"use": "file-exists"},
            "field 'evaluators[0]': give 'must' or 'mustNot' (a list of globs): without either",
        ),
        (
            {"use": "file-exists", "must": [], "mustNot": []},
            "field 'evaluators[0]': give 'must' or 'mustNot'",
        ),
        (
            {"use": "trajectory-check", "toolPattern": "Bash", "min": "1"},
            "field 'evaluators[0].min': expected an integer, got the string \"1\"",
        ),
        (
            {"use": "hook-transcript-check", "pluginManifest": "p.json", "requireCommands": "yes"},
            "field 'evaluators[0].requireCommands': expected true or false, got the string",
        ),
    ],
)
def test_a_parameter_of_the_wrong_type_is_refused(entry: dict[str, Any], expected: str) -> None:
    assert expected in refused(entry)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"A=B": "x"}, "field 'evaluators[0].env': 'A=B' is not an environment variable name"),
        ({"": "x"}, "field 'evaluators[0].env': '' is not an environment variable name"),
        ({"A\0B": "x"}, "field 'evaluators[0].env': 'A\\x00B' is not an environment variable"),
        ({"A": "x\0y"}, "field 'evaluators[0].env.A': an environment variable's value cannot"),
        ({"A": 1}, "field 'evaluators[0].env.A': expected a string, got 1"),
    ],
)
def test_an_external_env_no_program_could_start_with_is_refused(
    env: dict[str, Any], expected: str
) -> None:
    message = refused({"use": "external", "command": PY, "env": env})
    assert expected in message


def test_a_nul_in_the_external_program_or_its_arguments_is_refused() -> None:
    assert "field 'evaluators[0].args[1]': cannot hold a NUL character" in refused(
        {"use": "external", "command": PY, "args": ["-c", "x\0"]}
    )
    assert "field 'evaluators[0].command': cannot hold a NUL character" in refused(
        {"use": "external", "command": "py\0thon"}
    )


@pytest.mark.parametrize("name", ["", "   "])
def test_a_blank_score_metric_is_refused(name: str) -> None:
    # (Accepted, it would name no value the program prints: every trial an eval-error.)
    message = refused({"use": "external", "command": PY, "scoreMetric": name})
    assert "field 'evaluators[0].scoreMetric'" in message


def test_a_nul_in_a_command_evaluator_s_line_is_refused() -> None:
    assert "field 'evaluators[0].run': cannot hold a NUL character" in refused(
        {"use": "command", "run": "pytest -q\0"}
    )


def test_an_external_env_of_any_name_the_system_holds_reaches_the_program(
    tmp_path: Path,
) -> None:
    """Not only shell names: a name with '-' or '.' is a valid variable for a program."""
    ctx = context(tmp_path)
    body = (
        "import json, os, sys; sys.stdin.read(); "
        "ok = os.environ.get('MY-VAR') == 'a b' and os.environ.get('EMPTY') == ''; "
        "print(json.dumps({'values': [{'name': 'ok', 'value': 100 if ok else 0}]}))"
    )
    result = evaluate(
        {
            "use": "external",
            "command": PY,
            "args": ["-c", body],
            "env": {"MY-VAR": "a b", "EMPTY": ""},
            "timeoutSec": 30,
            "scoreMetric": "ok",
        },
        ctx,
    )
    assert not result.error, result.message
    assert result.passed and result.score == 100.0


TRUE = {"use": "command", "run": "true"}
EXISTS = {"use": "file-exists", "must": ["a.txt"]}


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([{**TRUE, "label": "rule:unverified"}], "evaluators[0].label': 'rule:unverified': a"),
        ([{**TRUE, "label": "eval: used_no_tools()"}], "evaluators[0].label': 'eval: used_no"),
        ([EXISTS, {**TRUE, "label": "file-exists"}], "evaluators[1].label': 'file-exists' names"),
        ([{**TRUE, "label": "file-exists"}, EXISTS], "evaluators[1].use': 'file-exists' names"),
        ([{**TRUE, "label": "tests"}, {**TRUE, "label": "tests"}], "[1].label': 'tests' names"),
        # A label that takes the number the ledger gives a use repeated without one.
        ([TRUE, TRUE, {**TRUE, "label": "command#2"}], "[2].label': 'command#2' is the check"),
        ([{**TRUE, "label": "command#2"}, TRUE, TRUE], "[2].use': as 'command' evaluator number"),
        ([TRUE, TRUE, TRUE, {**TRUE, "label": "command#3"}], "'command#3' is the check name"),
    ],
)
def test_a_label_that_would_name_another_check_is_refused(
    entries: list[dict[str, Any]], expected: str
) -> None:
    """A check's name in the findings ledger is its label: one that a task rule's check, an
    eval's assertion or another evaluator of the case has too would merge two checks."""
    with pytest.raises(ConfigError, match="^config.json: field '") as caught:
        parse_evaluator_specs(entries, "config.json")
    assert expected in str(caught.value)


def test_labels_of_their_own_and_repeated_uses_are_kept() -> None:
    """The controls: a repeated use without labels is numbered (``command#2``)."""
    entries = [EXISTS, {**EXISTS, "must": ["b.txt"]}, TRUE, {**TRUE, "label": "rules"}, TRUE]
    specs = parse_evaluator_specs(entries, "config.json")
    assert [s.label for s in specs] == [None, None, None, "rules", None]
    numbered = [TRUE, TRUE, {**TRUE, "label": "command#3"}]  # no third unlabelled command
    assert [s.label for s in parse_evaluator_specs(numbered, "config.json")] == [
        None,
        None,
        "command#3",
    ]
