"""Side requests: detection and schema-filled answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

import proctor.scripted.server as server_pkg
from proctor.scripted.server import side
from proctor.scripted.server.exchange import ModelRequest, ToolSpec
from proctor.scripted.server.side import TITLE, SideRole, answer, fill, is_side_request

TOOLS = {"Bash": ToolSpec("Bash")}


def req(
    tools: dict[str, ToolSpec] = TOOLS,
    system: str = "",
    schema: Any = None,
    texts: tuple[str, ...] = (),
) -> ModelRequest:
    return ModelRequest(
        "t", "m", False, tools, (), 1, 10, system=system, texts=texts, schema=schema
    )


@pytest.mark.parametrize(
    ("request_", "side"),
    [
        (req(), False),
        (req(tools={}), True),
        (req(schema={"type": "object"}), True),
        (req(system="Generate a short title for this chat."), True),
        (req(system="Generate a short title for this chat." + "x" * 3000), False),
        (req(system="You are an agent."), False),
    ],
)
def test_side_request_detection(request_: ModelRequest, side: bool) -> None:
    assert is_side_request(request_) is side
    assert (SideRole().respond(request_) is None) is not side


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "object", "properties": {"title": {"type": "string"}}}, {"title": TITLE}),
        (
            {
                "type": "OBJECT",
                "properties": {"model_choice": {"type": "STRING", "enum": ["flash", "pro"]}},
            },
            {"model_choice": "flash"},
        ),
        ({"properties": {"next_speaker": {"enum": ["model", "user"]}}}, {"next_speaker": "user"}),
        (
            {
                "type": "object",
                "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 100}},
            },
            {"score": 1},
        ),
        (
            {"type": "object", "properties": {"c": {"type": "number"}, "b": {"type": "boolean"}}},
            {"c": 0.0, "b": False},
        ),
        ({"type": "array", "items": {"type": "string"}, "minItems": 2}, ["scripted", "scripted"]),
        ({"anyOf": [{"type": "null"}, {"type": "string"}]}, None),
        ({"type": ["string", "null"]}, "scripted"),
        ({"const": "fixed"}, "fixed"),
        (
            {
                "type": "object",
                "properties": {
                    "nested": {"type": "object", "properties": {"reasoning": {"type": "string"}}}
                },
            },
            {"nested": {"reasoning": "Scripted model: a fixed answer."}},
        ),
    ],
)
def test_fill_matches_schemas(schema: dict[str, Any], value: Any) -> None:
    assert fill(schema) == value


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "array", "minItems": 10**9}, ["scripted"] * side.MAX_ITEMS),
        ({"type": "array", "minItems": float("inf")}, []),
        ({"type": "array", "minItems": "3"}, []),
        ({"type": "integer", "minimum": float("inf")}, 1),
        ({"type": "integer", "minimum": 2.5}, 3),
        ({"type": "integer", "minimum": 10**40}, 10**40),
        ({"type": "number", "minimum": float("nan")}, 0.0),
        ({"type": "number", "minimum": 10**400}, 0.0),
        ({"type": "string", "minLength": 12}, "scriptedxxxx"),
        ({"type": "string", "minLength": 10**9}, "scripted".ljust(side.MAX_LENGTH, "x")),
    ],
)
def test_fill_clamps_sizes_and_ignores_non_finite_bounds(
    schema: dict[str, Any], value: Any
) -> None:
    assert fill(schema) == value


def test_fill_stays_small_for_nested_and_deep_schemas() -> None:
    nested: dict[str, Any] = {"type": "string"}
    for _ in range(10):
        nested = {"type": "array", "minItems": 1000, "items": nested}
    assert len(json.dumps(fill(nested))) < 50 * side.MAX_VALUES
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(500):
        deep = {"type": "object", "properties": {"a": deep}}
    value = fill(deep)
    for _ in range(side.MAX_DEPTH + 1):
        value = value["a"]
    assert value is None


def test_answers() -> None:
    assert json.loads(answer(req(schema={}))) == {}
    assert answer(req(tools={}, texts=("Write a title for: fix it",))) == TITLE
    assert answer(req(tools={}, texts=("Summarise this",))) == "OK"


def test_public_names() -> None:
    assert sorted(server_pkg.__all__) == [
        "ModelRequest",
        "PlanRole",
        "Reply",
        "Role",
        "ScriptedModelServer",
        "SideRole",
        "ToolCall",
        "default_roles",
    ]
