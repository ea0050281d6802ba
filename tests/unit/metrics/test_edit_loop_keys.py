"""An edit loop is one edit made again with an equal input, whichever way its key is written
(orjson for an input of strings, booleans and nulls; the standard library for any other)."""

from __future__ import annotations

from typing import Any

import pytest

from proctor.metrics.loops import find_loops
from proctor.metrics.trace import plain_steps


def _edits(*inputs: dict[str, Any]) -> list[Any]:
    events: list[dict[str, Any]] = []
    for i, tool_input in enumerate(inputs):
        events.append(
            {
                "type": "tool_call",
                "id": f"t{i}",
                "name": "Edit",
                "kind": "edit",
                "input": tool_input,
                "files": ["a.py"],
            }
        )
        events.append({"type": "tool_result", "id": f"t{i}", "isError": False})
    return plain_steps(events)


FLAT = {"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": False}


@pytest.mark.parametrize(
    ("inputs", "loops"),
    [
        ([FLAT, dict(reversed(FLAT.items())), FLAT], 1),  # key order does not matter
        ([FLAT, {**FLAT, "new_string": "z"}, FLAT], 0),
        ([FLAT, {**FLAT, "replace_all": None}, FLAT], 0),  # false is not null
        ([{"x": float("nan")}, {"x": None}, {"x": None}], 0),  # NaN is not null (not flat)
        ([{"x": 1}, {"x": True}, {"x": 1}], 0),  # 1 is not true
        ([{"edits": [{"a": "b"}]}] * 3, 1),  # nested: the standard library's key
        ([{"x": 2**70}] * 3, 1),
    ],
)
def test_equal_edits_loop(inputs: list[dict[str, Any]], loops: int) -> None:
    assert len(find_loops(_edits(*inputs), 3)) == loops
