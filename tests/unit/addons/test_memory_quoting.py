"""How memory-eval quotes what a server said: a tool error by its first meaningful line, a
result without the adapter's path by what it holds there."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("one line", "one line"),
        ("\n\n  boom: no such project  \nTraceback ...\n", "boom: no such project"),
        (
            "Error executing tool remember: 2 validation errors for rememberArguments\n"
            "text\n  Field required [type=missing, input_value={}, input_type=dict]\n"
            "    For further information visit https://errors.pydantic.dev/2/v/missing\n"
            "id\n  Field required [type=missing, input_value={}, input_type=dict]",
            "Error executing tool remember: 2 validation errors for rememberArguments: text: "
            "Field required",
        ),
    ],
)
def test_a_tool_error_is_quoted_by_its_first_meaningful_line(text: str, line: str) -> None:
    from proctor.addons.memory.client import first_meaningful_line

    assert first_meaningful_line(text) == line


@pytest.mark.parametrize(
    ("data", "path", "said"),
    [
        ({"result": "[]"}, "hits", ": it has the key 'result' (the MCP SDK's structured"),
        ({"a": 1, "b": 2}, "hits", ": it has the keys 'a', 'b'"),
        ({"data": {"x": 1}}, "data.hits", ": 'data' has the key 'x'"),
        ({"data": [1]}, "data.hits", ": 'data' is a list"),
        ({"data": {}}, "data.hits", ": 'data' is an empty object"),
    ],
)
def test_a_result_without_the_path_says_what_it_has_there(
    data: object, path: str, said: str
) -> None:
    from proctor.addons.memory.adapter import ResultMapping
    from proctor.addons.memory.search_results import _found_instead

    assert _found_instead(data, ResultMapping(path=path, id="id")).startswith(said)
