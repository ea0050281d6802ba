"""A ``tool`` step's ``fromResults``: input fields taken from the conversation's tool results,
for what only a run tells (a background task's id), in every dialect and in the scripted agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proctor.scripted.plan import PlanError, filled_input, validate_plan
from proctor.scripted.server import PlanRole, anthropic, gemini, openai_chat, openai_responses
from proctor.scripted.server.dialect import Route
from proctor.scripted.server.exchange import ModelRequest, ToolSpec, Turn, merge_turns
from tests.conftest import MakeCase, Run, load_trial, run_cases, single_run_dir

STEP = {
    "tool": "TaskOutput",
    "input": {"task_id": "unknown", "block": True},
    "fromResults": {"task_id": r"with ID: (\w+)"},
}


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ([], "fromResults': expected an object of input field .*, got a list"),
        ({}, "fromResults': expected an object of input field .*, got an object"),
        ({"task_id": 5}, r"fromResults\.task_id': expected a regular expression .*, got 5"),
        ({"task_id": "ID: (\\w+"}, r"fromResults\.task_id': not a regular expression"),
        ({"task_id": "ID: \\w+"}, r"fromResults\.task_id': the expression needs a group"),
    ],
)
def test_a_bad_from_results_is_named(spec: Any, said: str) -> None:
    with pytest.raises(PlanError, match=r"field 'turns\[0\]\." + said):
        validate_plan({"turns": [{"tool": "TaskOutput", "fromResults": spec}]})


def test_from_results_is_only_a_tool_steps_key() -> None:
    validate_plan({"turns": [STEP]})
    with pytest.raises(PlanError, match="unknown key"):
        validate_plan({"turns": [{"shell": "ls", "fromResults": {"x": "(y)"}}]})


def test_the_latest_result_that_matches_gives_the_value() -> None:
    results = ["with ID: first", "no id here", "with ID: second", "nothing"]
    assert filled_input(STEP, results) == {"task_id": "second", "block": True}
    # No result matches: the input's own value stays, and a field without one stays out.
    assert filled_input(STEP, ["nothing"]) == {"task_id": "unknown", "block": True}
    bare = {"tool": "X", "fromResults": {"id": "id=(\\d+)"}}
    assert filled_input(bare, []) == {}
    assert filled_input(bare, ["id=7"]) == {"id": "7"}
    # An optional group that did not take part is no value.
    optional = {"tool": "X", "input": {"id": "0"}, "fromResults": {"id": "id(?:=(\\d+))?"}}
    assert filled_input(optional, ["id"]) == {"id": "0"}
    assert STEP["input"] == {"task_id": "unknown", "block": True}  # the plan is left as it was


def test_a_number_field_takes_the_match_as_a_number_and_an_empty_match_is_no_value() -> None:
    """Codex's ``write_stdin`` wants its ``session_id`` as a number: a string is refused."""
    poll = {"tool": "write_stdin", "input": {"session_id": 0, "chars": ""}}
    poll["fromResults"] = {"session_id": r"session ID (\w+)"}
    results = ["Process running with session ID 42541", "Process running with session ID x7"]
    # The latest result's value is not a number: the one before gives it.
    assert filled_input(poll, results) == {"session_id": 42541, "chars": ""}
    ratio = {"tool": "X", "input": {"r": 0.5}, "fromResults": {"r": r"r=(\S+)"}}
    assert filled_input(ratio, ["r=2.5", "r=inf"]) == {"r": 2.5}
    kept = {"tool": "X", "input": {"id": "keep"}, "fromResults": {"id": r"ID: (\d*)"}}
    assert filled_input(kept, ["with ID: bp5y"]) == {"id": "keep"}
    flag = {"tool": "X", "input": {"on": True}, "fromResults": {"on": r"on=(\w+)"}}
    assert filled_input(flag, ["on=yes"]) == {"on": "yes"}  # a flag is not a number


def test_each_dialect_gives_its_tool_results_in_order() -> None:
    claude = anthropic.parse(
        {
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "user", "content": [{"type": "tool_result", "content": "one"}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "content": [{"type": "text", "text": "two"}]},
                        {"type": "text", "text": "a reminder"},
                    ],
                },
            ]
        },
        Route(),
        10,
    )
    assert claude.results == ("one", "two")
    chat = openai_chat.parse(
        {"messages": [{"role": "user", "content": "go"}, {"role": "tool", "content": "one"}]},
        Route(),
        10,
    )
    assert chat.results == ("one",)
    codex = openai_responses.parse(
        {
            "input": [
                {"type": "message", "role": "user", "content": "go"},
                {"type": "function_call_output", "call_id": "a", "output": "one"},
                {"type": "custom_tool_call_output", "call_id": "b", "output": "two"},
            ]
        },
        Route(),
        10,
    )
    assert codex.results == ("one", "two")
    parts = [
        {"functionResponse": {"name": "a", "response": {"output": "one"}}},
        {"functionResponse": {"name": "b", "response": {"error": "two"}}},
    ]
    chat_of_gemini = gemini.parse(
        {
            "contents": [
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "user", "parts": parts},
            ]
        },
        Route(),
        10,
    )
    assert chat_of_gemini.results == ("one", json.dumps({"error": "two"}))


def test_the_scripted_model_fills_the_call_from_the_results() -> None:
    tools = {"TaskOutput": ToolSpec("TaskOutput", params=frozenset({"task_id", "block"}))}
    turns = merge_turns([Turn("user", prompt=True), Turn("assistant", calls=1), Turn("user")])
    request = ModelRequest(
        "test",
        "m",
        False,
        tools,
        turns,
        3,
        100,
        results=("Command running in background with ID: bp5y3phg0.",),
    )
    reply = PlanRole([{"shell": "make test"}, STEP]).respond(request)
    assert reply.call is not None and reply.call.name == "TaskOutput"
    assert reply.call.arguments == {"task_id": "bp5y3phg0", "block": True}


def test_the_scripted_agent_fills_the_call_from_its_results(
    proctor: Run, make_case: MakeCase, tmp_path: Path
) -> None:
    plan = {
        "turns": [
            {"shell": "echo job-41"},
            {"tool": "Lookup", "input": {"job": "none"}, "fromResults": {"job": r"job-(\d+)"}},
            {"say": "Done."},
        ]
    }
    make_case(plan=plan)
    result, out = run_cases(proctor, tmp_path)
    assert result.code == 0, result.err
    trial_dir = single_run_dir(out) / "trials" / "case" / "scripted" / "default" / "1"
    events = [json.loads(x) for x in (trial_dir / "trajectory.jsonl").read_text().splitlines()]
    calls = [e for e in events if e["type"] == "tool_call" and e["name"] == "Lookup"]
    assert [c["input"] for c in calls] == [{"job": "41"}]
    assert load_trial(single_run_dir(out), "case")["status"] == "passed"
