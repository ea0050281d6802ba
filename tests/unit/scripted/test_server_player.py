"""Step derivation: segments, chunks and the position a conversation has reached."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.scripted.server import PlanRole, Reply
from proctor.scripted.server.exchange import ModelRequest, ToolSpec, Turn, merge_turns
from proctor.scripted.server.player import NOTHING_LEFT, chunks, position, segments

STEPS: list[dict[str, Any]] = [
    {"say": "a"},
    {"sleep": 0.5},
    {"shell": "one"},
    {"exit": 3},
    {"say": "b"},
    {"ask": "Sure?", "options": ["Yes", "No"]},
    {"shell": "two"},
    {"say": "c"},
    {"endTurn": True},
    {"read": "x"},
]
TOOLS = {
    n: ToolSpec(n, params=frozenset(p)) for n, p in [("Bash", ["command"]), ("Read", ["file_path"])]
}


def request(*turns: Turn, tools: dict[str, ToolSpec] = TOOLS) -> ModelRequest:
    return ModelRequest("test", "m", False, tools, merge_turns(turns), len(turns), 100)


def test_segments_split_at_end_turn_and_at_text_asks() -> None:
    assert segments(STEPS, ask_tool=True) == [[0, 1, 2, 3, 4, 5, 6, 7], [9]]
    assert segments(STEPS, ask_tool=False) == [[0, 1, 2, 3, 4, 5], [6, 7], [9]]
    assert segments([], ask_tool=True) == [[]]


def test_chunks_pair_leading_says_with_one_tool_and_end_with_text() -> None:
    played = chunks(STEPS, segments(STEPS, True)[0], ask_tool=True)
    assert [(c.texts, c.step, c.steps, c.delay) for c in played] == [
        (("a",), {"shell": "one"}, (0, 1, 2), 0.5),
        (("b",), STEPS[5], (3, 4, 5), 0.0),
        ((), {"shell": "two"}, (6,), 0.0),
        (("c",), None, (7,), 0.0),
    ]
    text_ask = chunks(STEPS, segments(STEPS, False)[0], ask_tool=False)
    assert text_ask[-1].texts == ("b", "Sure?\n1. Yes\n2. No")
    assert chunks(STEPS, [9], True)[-1].texts == ("Done.",)


def test_position_counts_prompts_and_tool_responses_since_the_last_prompt() -> None:
    assert position([]) == (0, 0)
    turns = merge_turns(
        [
            Turn("user"),  # harness-only context
            Turn("assistant"),  # Gemini's "Got it."
            Turn("user", prompt=True),
            Turn("user", prompt=True),  # the same prompt split in two messages
            Turn("assistant", calls=2),
            Turn("user"),
            Turn("assistant", calls=1),
            Turn("user"),
            Turn("assistant"),
            Turn("user", prompt=True),
            Turn("assistant", calls=1),
            Turn("user"),
        ]
    )
    assert position(turns) == (2, 1)


def test_plan_role_derives_the_response_from_the_conversation() -> None:
    role = PlanRole(STEPS)
    first = role.respond(request(Turn("user", prompt=True)))
    assert first == Reply(("a",), first.call, 0.5, first.played)
    assert first.call is not None and first.call.name == "Bash"
    assert first.played == {
        "segment": 1,
        "response": 1,
        "steps": [0, 1, 2],
        "tool": "Bash",
        "endTurn": False,
    }
    asked = role.respond(
        request(Turn("user", prompt=True), Turn("assistant", calls=1), Turn("user"))
    )
    assert asked.texts == ("b", "Sure?\n1. Yes\n2. No") and asked.ends_turn
    answered = role.respond(
        request(
            Turn("user", prompt=True),
            Turn("assistant", calls=1),
            Turn("user"),
            Turn("assistant"),
            Turn("user", prompt=True),
        )
    )
    assert answered.call is not None and answered.call.arguments == {"command": "two"}


@pytest.mark.parametrize("extra_prompts", [2, 5])
def test_prompts_beyond_the_plan_get_a_polite_end(extra_prompts: int) -> None:
    turns = [Turn("user", prompt=True), Turn("assistant")] * extra_prompts + [
        Turn("user", prompt=True)
    ]
    reply = PlanRole([{"say": "only"}]).respond(request(*turns))
    assert reply.texts == (NOTHING_LEFT,) and reply.ends_turn


def test_a_finished_segment_repeats_its_final_text() -> None:
    role = PlanRole([{"shell": "x"}, {"say": "end"}])
    turns = [Turn("user", prompt=True)] + [Turn("assistant", calls=1), Turn("user")] * 3
    assert role.respond(request(*turns)).texts == ("end",)


SEARCH_TOOLS = {"tool_search": ToolSpec("tool_search", kind="tool_search"), **TOOLS}
MCP_STEPS: list[dict[str, Any]] = [
    {"sleep": 0.5},
    {"tool": "mcp__docs__lookup", "input": {"q": "x"}},
    {"endTurn": True},
    {"tool": "mcp__docs__lookup", "input": {"q": "y"}},
]
LOOKUP = {"mcp__docs__lookup": ToolSpec("lookup", namespace="mcp__docs")}


def test_a_deferred_tool_is_searched_for_once_then_called_with_the_step_delay() -> None:
    role = PlanRole(MCP_STEPS)
    first = role.respond(request(Turn("user", prompt=True), tools=SEARCH_TOOLS))
    assert first.call is not None and first.call.kind == "tool_search" and first.delay == 0.0
    searched = (Turn("user", prompt=True), Turn("assistant", searches=1), Turn("user"))
    call = role.respond(request(*searched, tools={**SEARCH_TOOLS, **LOOKUP}))
    assert call.call is not None and call.call.name == "mcp__docs__lookup" and call.delay == 0.5
    unfound = role.respond(request(*searched, tools=SEARCH_TOOLS))
    assert unfound.call is not None and unfound.call.name == "mcp__docs__lookup"


def test_a_new_prompt_after_a_search_searches_again() -> None:
    role = PlanRole(MCP_STEPS)
    turns = (
        Turn("user", prompt=True),
        Turn("assistant", searches=1),
        Turn("user"),
        Turn("user", prompt=True),  # the turn was interrupted; a new prompt
    )
    reply = role.respond(request(*turns, tools=SEARCH_TOOLS))
    assert reply.call is not None and reply.call.kind == "tool_search"
    assert reply.call.arguments == {"query": "docs lookup", "limit": 8}
