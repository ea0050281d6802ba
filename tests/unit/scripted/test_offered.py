"""Tool calls the scripted model made that the CLI had not offered, read from the request log."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.scripted.offered import SHOWN_TOOLS, exhausted_prompts, unoffered_calls


def _log(tmp_path: Path, *records: dict[str, object]) -> Path:
    log = tmp_path / "model-requests.jsonl"
    lines = [json.dumps({"method": "POST", "path": "/v1/messages", **r}) for r in records]
    log.write_text("\n".join(lines) + "\nnot json\n[1]\n")
    return log


def _played(turn: int, response: int, tool: str | None, **more: object) -> dict[str, object]:
    return {"segment": turn, "response": response, "steps": [0], "tool": tool, **more}


def test_a_call_of_a_tool_no_request_offered_is_told_once(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        {"tools": ["Bash", "Read"], "played": _played(1, 1, "Read")},
        {"tools": ["Bash", "Read"], "played": _played(1, 2, "Grep")},
        {"tools": ["Bash", "Read"], "played": _played(1, 3, "Grep")},
        {"tools": ["Bash", "Read"], "played": _played(1, 4, None, endTurn=True)},
    )
    (said,) = unoffered_calls(log, "claude-code 2.1.197")
    assert said.startswith(
        "the plan called Grep (turn 1, response 2), which claude-code 2.1.197 did not offer the "
        "model (it offered Bash, Read): "
    )


def test_offered_tools_side_requests_and_searches_are_no_warning(tmp_path: Path) -> None:
    log = _log(
        tmp_path,
        {"tools": ["Bash"], "played": _played(1, 1, "Bash")},
        {"tools": [], "played": _played(1, 2, "Grep")},  # a request that offered none
        {"tools": ["Bash"], "played": "side request"},
        {"tools": ["tool_search"], "played": _played(1, 3, "tool_search", searchFor="mcp__x__y")},
    )
    assert unoffered_calls(log, "codex") == []
    assert unoffered_calls(tmp_path / "missing.jsonl", "codex") == []


def test_a_long_list_of_offered_tools_is_cut(tmp_path: Path) -> None:
    tools = [f"T{i:02d}" for i in range(SHOWN_TOOLS + 3)]
    (said,) = unoffered_calls(_log(tmp_path, {"tools": tools, "played": _played(2, 1, "X")}), "a")
    assert f"T{SHOWN_TOOLS - 1:02d} and 3 more)" in said and f"T{SHOWN_TOOLS:02d}" not in said


def test_the_prompts_answered_with_nothing_left_are_read_from_the_request_log(
    tmp_path: Path,
) -> None:
    log = _log(
        tmp_path,
        {"tools": ["Bash"], "played": _played(1, 1, None, endTurn=True)},
        {"tools": ["Bash"], "played": {"segment": 3, "exhausted": True}},
        {"tools": ["Bash"], "played": {"segment": 2, "exhausted": True}},
        {"tools": ["Bash"], "played": {"segment": 2, "exhausted": True}},  # asked again
        {"tools": [], "played": {"segment": "4", "exhausted": True}},
    )
    assert exhausted_prompts(log) == [2, 3]
    played = _log(tmp_path, {"tools": ["Bash"], "played": _played(1, 1, None, endTurn=True)})
    assert exhausted_prompts(played) == []
    # No request played the plan (the scripted agent plays it itself), or no log at all.
    assert exhausted_prompts(_log(tmp_path, {"tools": []})) is None
    assert exhausted_prompts(tmp_path / "missing.jsonl") is None
