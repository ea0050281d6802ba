"""A page of the trajectory as a timeline."""

from __future__ import annotations

import json
from pathlib import Path

from proctor.models.trajectory import event_json, make_event
from proctor.view.offsets import scan_offsets
from proctor.view.timeline import build_steps, page_of_step, timeline_page


def _lines(*events: dict[str, object]) -> list[bytes]:
    return [json.dumps(e).encode() for e in events]


def _event(type: str, **fields: object) -> dict[str, object]:
    return event_json(make_event(type, **fields))  # type: ignore[arg-type]


def test_a_call_sits_beside_its_result_and_usage_joins_its_step() -> None:
    steps = build_steps(
        _lines(
            _event("assistant_text", text="let me look", ts="2026-12-01T00:00:00Z"),
            _event("usage", model="m", input_tokens=5, output_tokens=2),
            _event("tool_call", id="a", name="Bash", kind="shell", ts="2026-12-01T00:00:01.5Z"),
            _event("tool_call", id="b", name="Read", kind="read"),
            _event("tool_result", id="b", output="denied", denied=True),
            _event("tool_result", id="a", output="boom", is_error=True),
            _event("tool_result", id="zzz", output="orphan"),
        ),
        first=10,
        calls_before=4,
    )
    assert [s.kind for s in steps] == ["assistant_text", "tool_call", "tool_call", "tool_result"]
    text, call_a, call_b, orphan = steps
    assert text.usage is not None and text.usage.input_tokens == 5
    assert call_a.number == 12 and call_a.tool_index == 4 and call_a.delta_ms == 1500
    assert call_a.result is not None and call_a.result.output == "boom"
    assert call_a.marks == ["error"] and call_b.marks == ["denied"]
    assert call_b.tool_index == 5 and orphan.result is None


def test_a_line_that_is_not_an_event_is_shown_not_dropped() -> None:
    steps = build_steps([b'{"type": "no-such-type"}', b"not json"], first=0, calls_before=0)
    assert [s.kind for s in steps] == ["unreadable", "unreadable"]
    assert steps[1].raw == "not json"


def test_pages_and_steps_map_onto_each_other(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.jsonl"
    rows = [
        _event("tool_call", id=f"c{i}", name="Bash")
        if i % 3 == 0
        else _event("assistant_text", text=f"t{i}")
        for i in range(30)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    offsets = scan_offsets(path)
    assert page_of_step(offsets, 0, 10) == 1
    assert page_of_step(offsets, 4, 10) == 2  # the 5th call is line 12
    assert page_of_step(offsets, 99, 10) == 1
    page = timeline_page(path, offsets, 2, 10)
    assert (page.page, page.pages, page.first, page.total) == (2, 3, 10, 30)
    assert page.steps[0].number == 10
    calls = [s.tool_index for s in page.steps if s.kind == "tool_call"]
    assert calls == [4, 5, 6]  # numbered across pages
    assert timeline_page(path, offsets, 99, 10).page == 3


def test_a_search_of_the_tool_list_is_shown_but_is_no_step(tmp_path: Path) -> None:
    # Step n is the process metrics' n-th step: a ToolSearch call is none of them.
    path = tmp_path / "trajectory.jsonl"
    rows = [
        _event("tool_call", id="s", name="ToolSearch", kind="other", input={"query": "edit"}),
        _event("tool_result", id="s", output="found"),
        _event("tool_call", id="a", name="Read", kind="read"),
        _event("tool_call", id="t", name="tool_search", kind="other"),
        _event("tool_call", id="b", name="Edit", kind="edit"),
        _event("tool_call", id="m", name="tool_search", kind="mcp"),  # an MCP server's tool
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    offsets = scan_offsets(path)
    assert list(offsets.tool_calls) == [2, 4, 5]
    assert page_of_step(offsets, 1, 3) == 2  # Edit, line 4
    page = timeline_page(path, offsets, 1, 10)
    calls = [(s.event.name, s.tool_index) for s in page.steps if s.kind == "tool_call"]  # type: ignore[union-attr]
    assert calls == [("ToolSearch", None), ("Read", 0), ("tool_search", None), ("Edit", 1),
                     ("tool_search", 2)]  # fmt: skip
    later = timeline_page(path, offsets, 2, 3)
    assert [s.tool_index for s in later.steps if s.kind == "tool_call"] == [None, 1, 2]
