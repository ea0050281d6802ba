"""``proctor run --repeat-check N`` in-process against the scripted agent: a deterministic suite
passes, an evaluator that counts its calls fails naming the first difference, real agents and
model-backed evaluators are left out and listed, and a comparison that never compares is caught
by the same assertions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.session import repeat_check
from proctor.session.repeat_check import Comparison
from tests.conftest import MakeCase, Run, run_cases

PLAN = {
    "turns": [
        {"say": "Writing it."},
        {"read": "README.md"},
        {"write": {"path": "hello.txt", "content": "hello\n"}},
        {"shell": "cat hello.txt"},
        {"say": "Done."},
    ]
}
EVALUATORS = [
    {"use": "file-exists", "must": ["hello.txt"], "gate": True},
    {"use": "command", "run": "grep -q hello hello.txt", "label": "greets"},
    {"use": "trajectory-check", "toolPattern": "Bash|shell", "min": 1},
]
COUNTER = """#!/bin/sh
# Scores 10, 20, 30, ... : one more each time it runs (the count is kept outside the workspace).
cat > /dev/null
n=$(cat "$COUNTER" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$COUNTER"
echo "{\\"values\\": [{\\"name\\": \\"count\\", \\"value\\": $((n * 10))}]}"
"""


def deterministic_case(make_case: MakeCase, agents: list[str] | None = None) -> Path:
    config = {
        "agents": agents or ["scripted"],
        "timeoutSec": 30,
        "repeats": 2,
        "evaluators": EVALUATORS,
    }
    return make_case("hello", config=config, plan=PLAN, src={"README.md": "# hello\n"})


def counting_case(make_case: MakeCase, tmp_path: Path) -> None:
    external = {
        "use": "external",
        "command": "count.sh",
        "scoreMetric": "count",
        "env": {"COUNTER": str(tmp_path / "n")},
    }
    folder = make_case(
        "counted",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [external]},
        plan=PLAN,
    )
    script = folder / "count.sh"
    script.write_text(COUNTER)
    script.chmod(0o755)


def test_a_deterministic_suite_is_identical_three_times(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case)
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "3", "--json")
    assert result.code == 0, result.err
    check = result.json()
    assert check["identical"] is True and check["exitCode"] == 0
    assert (check["repetitions"], check["trialsCompared"], check["evaluatorsCompared"]) == (
        3,
        2,
        6,
    )
    assert check["differenceCount"] == 0 and check["firstDifference"] is None
    assert check["excludedTrials"] == [] and check["excludedEvaluators"] == []
    folders = sorted(out.glob("run-*"))
    assert sorted(r["folder"] for r in check["runs"]) == [str(f) for f in folders]
    for folder in folders:
        suite = json.loads((folder / "suite.json").read_text())
        assert suite["exitCode"] == 0 and len(list(folder.glob("trials/hello/*/*/*"))) == 2


def assert_counter_fails_naming_first_difference(result: Any) -> None:
    assert result.code == 1, result.err
    first = (
        "trial counted/scripted/default/1: evaluators[0] (external).score is 10.0 in "
        "repetition 1 and 20.0 in repetition 2"
    )
    assert "- verdict: **different (2 difference(s))**" in result.out
    assert f"- first difference: {first}" in result.out


def test_an_evaluator_that_counts_its_calls_fails_the_check(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    counting_case(make_case, tmp_path)
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert_counter_fails_naming_first_difference(result)
    assert len(list(out.glob("run-*"))) == 2


def test_control_a_check_that_never_compares_passes_the_counting_suite(
    proctor: Run, make_case: MakeCase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never_compares(first: list[Any], other: list[Any], **_: Any) -> Comparison:
        return Comparison(len(first), 0, [], [])

    monkeypatch.setattr(repeat_check, "compare_repetitions", never_compares)
    counting_case(make_case, tmp_path)
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2")
    with pytest.raises(AssertionError):
        assert_counter_fails_naming_first_difference(result)
    assert result.code == 0


def test_a_real_agent_is_left_out_and_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case, ["scripted", "claude-code"])
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2", "--json")
    assert result.code == 0, result.err
    check = result.json()
    reason = "not deterministic: a real agent"
    assert check["excludedTrials"] == [
        {"what": f"hello/claude-code/default/{n}", "reason": reason} for n in (1, 2)
    ]
    assert check["trialsCompared"] == 2
    assert not list(out.glob("run-*/trials/hello/claude-code"))


def test_only_real_agents_is_a_configuration_error(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    deterministic_case(make_case, ["codex"])
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "2")
    assert result.code == 2
    assert "nothing deterministic to repeat" in result.err and "Traceback" not in result.err
    assert not out.exists() or not list(out.glob("run-*"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--repeat-check", "2", "--dry-run"), "use one or the other"),
        (("--repeat-check", "1"), "--repeat-check"),
        (("--repeat-check", "two"), "--repeat-check"),
    ],
)
def test_bad_input_is_one_sentence_and_exit_2(
    proctor: Run, make_case: MakeCase, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    deterministic_case(make_case)
    result, _ = run_cases(proctor, tmp_path, *args)
    assert result.code == 2 and message in result.err and "Traceback" not in result.err


def test_a_model_backed_evaluator_is_left_out_and_listed(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    judge = {"use": "llm-judge", "rubric": "evaluation.md", "label": "notes"}
    folder = make_case(
        "judged",
        config={"agents": ["scripted"], "timeoutSec": 30, "evaluators": [EVALUATORS[0], judge]},
        plan={
            **PLAN,
            "roles": {"judge": [{"json": {"score": 85, "rationale": "Fine."}}]},
        },
        src={"README.md": "# hello\n"},
    )
    (folder / "evaluation.md").write_text("Score 0-100: is hello.txt there?\n")
    config = tmp_path / "proctor.json"
    config.write_text(json.dumps({"models": {"judge": "scripted/judge"}}))
    result, _ = run_cases(proctor, tmp_path, "--repeat-check", "2", "--config", str(config))
    assert result.code == 0, result.err
    assert (
        '- `judged: evaluators[1] (llm-judge, "notes")`: model-backed: its result comes from a '
        "model" in result.out
    )
    assert "- evaluators compared: 1 per repetition" in result.out


def test_only_the_first_repetition_is_applied_to_the_findings_ledger(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    failing = [{"use": "file-exists", "must": ["missing.txt"], "label": "absent"}]
    config = {"agents": ["scripted"], "timeoutSec": 30, "evaluators": failing}
    make_case("hello", config=config, plan=PLAN, src={"README.md": "# hello\n"})
    result, out = run_cases(proctor, tmp_path, "--repeat-check", "3")
    assert result.code == 0, result.err
    runs = out.glob("run-*")
    repetitions = {json.loads((f / "run.json").read_text())["repetition"]: f for f in runs}
    assert sorted(repetitions) == [1, 2, 3]
    ledger = json.loads((out / "findings.json").read_text())
    assert ledger["runs"] == [repetitions[1].name]
    (finding,) = ledger["findings"]
    assert finding["failures"] == 1 and finding["state"] == "open"
    # A later ordinary run is applied as usual.
    again, _ = run_cases(proctor, tmp_path)
    assert again.code == 1
    ledger = json.loads((out / "findings.json").read_text())
    assert len(ledger["runs"]) == 2 and ledger["findings"][0]["failures"] == 2
