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
        # Read as no agent, each said `--agent : unknown agent ""`, the flag's value lost.
        (["agents", "--agent", ""], '--agent "": expected a value, not a blank one'),
        (["audit", "--agent", " "], '--agent " ": expected a value, not a blank one'),
        (
            ["addon", "check-install", "--agent", "", "x"],
            '--agent "": expected a value, not a blank one',
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


CASES = str(EXAMPLES / "cases")
NAMED = [
    ("run", "--source", CASES, "--dry-run", "--agent"),
    ("run", "--source", CASES, "--dry-run", "--case"),
    ("run", "--source", CASES, "--dry-run", "--tag"),
    ("run", "--source", CASES, "--dry-run", "--condition"),
    ("run", "--source", CASES, "--dry-run", "--first-condition"),
    ("run", "--source", CASES, "--dry-run", "--only-evaluator"),
    ("run", "--source", CASES, "--dry-run", "--skip-evaluator"),
    ("run", "--source", CASES, "--dry-run", "--reporter"),
    ("run", "--source", CASES, "--dry-run", "--executor", "ray", "--ray-address"),
    ("validate", "--source", CASES, "--agent"),
    ("validate", "--source", CASES, "--tag"),
    ("eval", "--dir", str(EXAMPLES / "evals"), "--list", "--case"),
    ("eval", "--dir", str(EXAMPLES / "evals"), "--list", "--tag"),
    ("compare", CASES, "--treatment"),
    ("compare", CASES, "--baseline"),
    ("report", CASES, "--goal-shape"),
]


@pytest.mark.parametrize("args", NAMED, ids=lambda a: f"{a[0]} {a[-1]}")
@pytest.mark.parametrize("blank", ["", " ", "\u00a0"])
def test_a_blank_name_is_refused_by_every_option_that_takes_one(
    proctor: Run, args: tuple[str, ...], blank: str
) -> None:
    # Not `--agent : unknown agent ''` nor `--tag : no case carries it`: the documented rule.
    result = proctor(*args, blank)
    shown = '"\\u00a0"' if blank == "\u00a0" else f'"{blank}"'
    assert result.code == 2, result.err
    assert f"{args[-1]} {shown}: expected a value, not a blank one" in result.err, result.err


@pytest.mark.parametrize(
    ("option", "said"),
    [
        ("--case", '--case "fix-a-bug\\u00a0": no case matches'),
        ("--condition", '--condition "baseline\\u00a0": no case has that condition'),
        ("--first-condition", '--first-condition "baseline\\u00a0": no case has'),
        ("--tag", '--tag "smoke\\u00a0": no case carries it'),
        ("--agent", '--agent "scripted\\u00a0": unknown agent "scripted\\u00a0"'),
        ("--only-evaluator", '--only-evaluator "command\\u00a0": no case has an evaluator'),
    ],
)
def test_a_name_with_an_unseen_character_is_shown_with_its_escape(
    proctor: Run, option: str, said: str
) -> None:
    # A no-break space at the end: shown raw, the value and its "did you mean" looked the same.
    value = said.split('"')[1].replace("\\u00a0", "\u00a0")
    result = proctor("run", "--source", CASES, "--dry-run", option, value)
    assert result.code == 2 and said in result.err, result.err
    assert "\u00a0" not in result.err


def test_control_a_plain_unknown_name_is_said_as_before(proctor: Run) -> None:
    result = proctor("run", "--source", CASES, "--dry-run", "--agent", "clude")
    assert result.code == 2 and "--agent clude: unknown agent 'clude'" in result.err, result.err


@pytest.mark.parametrize(
    ("command", "default"),
    [
        ("run", "(default: proctor.json's out, else ./proctor-results)"),
        ("eval", "(default: proctor.json's out, else ./proctor-results)"),
        ("prepare", "(default: proctor.json's out, else ./proctor-results)"),
        ("record", "(default: proctor.json's out, else ./proctor-results)"),
    ],
)
def test_the_help_of_out_says_the_default_the_command_takes(
    proctor: Run, command: str, default: str
) -> None:
    # run's said ./proctor-results alone, though proctor.json's out comes first.
    shown = " ".join(proctor(command, "--help").out.split())
    assert f"--out DIRECTORY Results folder {default}" in shown, shown


def _labels(tmp_path: Path) -> str:
    labels = tmp_path / "goals.csv"
    labels.write_text("t1,single_goal\n")
    return str(labels)


@pytest.mark.parametrize(
    ("args", "option", "value", "kind"),
    [
        (["plan-repeats", "--output", "m.json"], "--conditions", "a,,b", "condition"),
        (["plan-repeats", "--output", "m.json"], "--conditions", "a,b,", "condition"),
        (["run", "--source", CASES, "--dry-run"], "--reporter", "markdown,,json", "reporter name"),
        (["report", CASES], "--reporter", ",json", "reporter name"),
        (["eval", "--dir", str(EXAMPLES / "evals")], "--reporter", "json, ", "reporter name"),
    ],
)
def test_an_empty_item_of_a_comma_list_is_refused(
    proctor: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    option: str,
    value: str,
    kind: str,
) -> None:
    # `a,,b` was planned as `a / b`, the name between the commas dropped without a word.
    monkeypatch.chdir(tmp_path)
    if args[0] == "plan-repeats":
        args = [*args, "--goal-labels", _labels(tmp_path)]
    result = proctor(*args, option, value)
    assert result.code == 2, result.err
    assert (
        f"{option}: {value!r} holds an empty {kind} (two commas in a row, or one at an end); "
        f"give the {kind}s separated by single commas"
    ) in result.err
    assert not (tmp_path / "m.json").exists()


def test_control_a_comma_list_with_spaces_around_its_names_is_read(
    proctor: Run, tmp_path: Path
) -> None:
    manifest = tmp_path / "m.json"
    planned = proctor(
        "plan-repeats", "--goal-labels", _labels(tmp_path), "--conditions", " a , b ",
        "--output", str(manifest),
    )  # fmt: skip
    assert planned.code == 0, planned.err
    assert "of a / b planned" in planned.err
