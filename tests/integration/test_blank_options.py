"""An option given a blank value (an unset variable in a script: `--judge-model "$JUDGE"`) is
refused, exit 2: read as not given, the run went on with another value without a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["eval", "--dir", str(EXAMPLES / "evals"), "--agent", "", "--list"],
            '--agent "": expected',
        ),
        (
            ["eval", "--dir", str(EXAMPLES / "evals"), "--judge-model", " "],
            '--judge-model " ": expected',
        ),
        (
            ["run", "--source", str(EXAMPLES / "cases"), "--judge-model", "", "--dry-run"],
            '--judge-model "": expected',
        ),
        (
            ["validate", "--source", str(EXAMPLES / "cases"), "--fast-model", ""],
            '--fast-model "": expected',
        ),
        (
            [
                "run",
                "--source",
                str(EXAMPLES / "cases"),
                "--agent-model",
                "scripted= ",
                "--dry-run",
            ],
            '--agent-model "scripted= ": expected ID=VALUE',
        ),
    ],
)
def test_a_blank_option_is_refused(proctor: Run, args: list[str], said: str) -> None:
    result = proctor(*args)
    assert result.code == 2 and said in result.err, result.err


def test_control_the_same_options_given_values_are_taken(proctor: Run) -> None:
    listed = proctor("eval", "--dir", str(EXAMPLES / "evals"), "--agent", "scripted", "--list")
    assert listed.code == 0, listed.err
    planned = proctor(
        "run", "--source", str(EXAMPLES / "cases"), "--agent-model", "scripted=x", "--dry-run"
    )
    assert planned.code == 0, planned.err
