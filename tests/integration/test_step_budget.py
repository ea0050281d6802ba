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
    assert tight["reason"].startswith("over budget: ")  # stopped mid-turn, or judged after
    assert tight["reason"].endswith("3 tool calls > maxToolCalls 2")
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


SLOW_CALLS = {
    "turns": [
        {"write": {"path": "a.txt", "content": "a\n"}},
        {"sleep": 0.5},
        {"shell": "cat a.txt"},
        {"sleep": 0.5},
        {"shell": "ls"},
        {"sleep": 4},
        {"write": {"path": "late.txt", "content": "too late\n"}},
        {"say": "Done."},
    ]
}


def test_proctor_stops_an_agent_mid_turn_when_it_goes_over_budget(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    """The agent has no limit of its own: proctor watches its transcript and ends it at the
    third call, so the fourth (written seconds later) never happens."""
    make_case("stopped", config={**CHECK, "maxToolCalls": 2}, plan=SLOW_CALLS)
    make_case("roomy", config={**CHECK, "maxToolCalls": 4}, plan=SLOW_CALLS)  # control
    result, out = run_cases(proctor, tmp_path)
    run_dir = single_run_dir(out)
    stopped = load_trial(run_dir, "stopped")
    assert stopped["status"] == "failed"
    assert stopped["reason"] == (
        "over budget: proctor stopped the agent: 3 tool calls > maxToolCalls 2"
    )
    assert stopped["timings"]["agentMs"] < 4000
    diff = (run_dir / "trials/stopped/scripted/default/1/workspace.diff").read_text()
    assert "a.txt" in diff and "late.txt" not in diff
    roomy = load_trial(run_dir, "roomy")
    assert roomy["status"] == "passed", roomy["reason"]
    assert roomy["timings"]["agentMs"] > 4000
    assert result.code == 1
