"""A step budget per case or condition: a trial over maxToolCalls or maxTurns fails, and says
why; both conditions of a pair can run under the same budget."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

THREE_CALLS = {
    "turns": [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"shell": "cat a.txt"},
        {"shell": "ls"},
        {"say": "Done."},
    ]
}
CHECK = {"evaluators": [{"use": "file-exists", "must": ["a.txt"]}]}


def test_over_the_tool_call_budget_fails_within_it_passes(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    make_case("tight", config={**CHECK, "maxToolCalls": 2}, plan=THREE_CALLS)
    make_case("enough", config={**CHECK, "maxToolCalls": 3}, plan=THREE_CALLS)  # control
    result, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    tight = load_trial(run_dir, "tight")
    assert tight["status"] == "failed"
    assert tight["reason"] == "over budget: 3 tool calls > maxToolCalls 2"
    assert load_trial(run_dir, "enough")["status"] == "passed"
    assert result.code == 1


def test_a_condition_s_budget_and_the_turn_budget(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    conditions = {"roomy": {}, "strict": {"maxTurns": 1}}
    make_case("ab", config={**CHECK, "conditions": conditions}, plan=THREE_CALLS)
    _, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    base = run_dir / "trials/ab/scripted"
    strict = json.loads((base / "strict/1/trial.json").read_text())
    free = json.loads((base / "roomy/1/trial.json").read_text())
    assert strict["status"] == "failed" and "model turns > maxTurns 1" in strict["reason"]
    assert free["status"] == "passed"
