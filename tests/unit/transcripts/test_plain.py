"""The plain parse (events left as their ``trajectory.jsonl`` objects, as history replay reads
them) gives what the full parse gives: the same events, coverage and usage, and the same
process metrics, for every transcript the tests hold and for planted malformed fields; and
:func:`event_conforms` never passes an object its model would read differently."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from proctor.metrics.process import compute_process_metrics, metrics_of_steps
from proctor.metrics.trace import event_stamps, plain_steps, time_span
from proctor.models import trajectory as model
from proctor.models.trajectory import EVENT_ADAPTER, event_conforms, event_json
from proctor.transcripts import builder as builder_module
from proctor.transcripts.builder import PlainTrajectory
from proctor.transcripts.claude import parse_claude_session, parse_claude_session_plain
from proctor.transcripts.codex import parse_codex_rollout, parse_codex_rollout_plain
from proctor.transcripts.detect import session_file
from proctor.transcripts.gemini import parse_gemini_chat, parse_gemini_chat_plain
from proctor.util.native_paths import claude_subagent_files

ROOT = Path(__file__).resolve().parents[2]


def transcripts() -> list[tuple[Path, str]]:
    """Every main transcript file of the three CLIs under tests/ (fixtures, corpus, runs)."""
    found = []
    for path in sorted([*ROOT.rglob("*.jsonl"), *ROOT.rglob("session-*.json")]):
        if path.name.startswith("agent-") or "subagents" in path.parts:
            continue
        try:
            _, fmt = session_file(path)
        except Exception:
            continue
        if fmt in ("claude-code", "codex", "gemini-cli"):  # the CLIs' own histories
            found.append((path, fmt))
    return found


def both(path: Path, fmt: str) -> tuple[Any, PlainTrajectory]:
    if fmt == "claude-code":
        parts = claude_subagent_files(path)
        return parse_claude_session(path, parts), parse_claude_session_plain(path, parts)
    if fmt == "codex":
        return parse_codex_rollout(path), parse_codex_rollout_plain(path)
    return parse_gemini_chat(path), parse_gemini_chat_plain(path)


def without_nulls(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if v is not None}


def read_back(event: dict[str, Any]) -> dict[str, Any]:
    return event_json(EVENT_ADAPTER.validate_python(event))


def assert_same(full: Any, plain: PlainTrajectory, workspace: str | None = None) -> None:
    assert [event_json(e) for e in full.events] == [read_back(e) for e in plain.events]
    assert (full.coverage, full.usage) == (plain.coverage, plain.usage)
    assert (full.session_id, full.agent_version) == (plain.session_id, plain.agent_version)
    reference = compute_process_metrics(full.events, workspace=workspace, with_effort=False)
    start, _ = time_span(event_stamps(plain.events))
    measured = metrics_of_steps(plain_steps(plain.events, workspace), start, workspace=workspace)
    assert measured == reference


CASES = transcripts()


def test_the_tests_hold_transcripts_of_every_cli() -> None:
    assert {fmt for _, fmt in CASES} == {"claude-code", "codex", "gemini-cli"}
    assert len(CASES) >= 10


@pytest.mark.parametrize(("path", "fmt"), CASES, ids=[p.name for p, _ in CASES])
def test_the_plain_parse_equals_the_full_parse(path: Path, fmt: str) -> None:
    full, plain = both(path, fmt)
    assert plain.events, "a transcript without events compares nothing"
    assert_same(full, plain, "/work/project")


def claude_line(**record: Any) -> str:
    base = {"sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    return json.dumps({**base, **record})


MALFORMED = [
    # A text that is not a string: the assistant_text event does not validate.
    claude_line(
        type="assistant",
        uuid="a1",
        message={"id": "m1", "model": "x", "content": [{"type": "text", "text": 5}]},
    ),
    # A tool call id that is a number: its tool_call event does not validate.
    claude_line(
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        message={
            "id": "m2",
            "model": "x",
            "content": [{"type": "tool_use", "id": 7, "name": "Edit", "input": {"file_path": "a"}}],
        },
    ),
    # A duration given as text: the schema converts it.
    claude_line(type="system", subtype="turn_duration", durationMs="1500", uuid="s1"),
    # A timestamp that is a number: the time is malformed, the message is kept without it.
    json.dumps(
        {"type": "user", "uuid": "u9", "timestamp": 12, "message": {"content": "typed at 12"}}
    ),
    claude_line(
        type="assistant",
        uuid="a3",
        timestamp="2026-01-01T00:05:00Z",
        message={
            "id": "m3",
            "model": "x",
            "content": [
                {"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "ls"}}
            ],
        },
    ),
    claude_line(
        type="user",
        uuid="u3",
        message={"content": [{"type": "tool_result", "tool_use_id": "t3", "content": "ok"}]},
    ),
]


def planted(tmp_path: Path) -> Path:
    path = tmp_path / "planted.jsonl"
    path.write_text("\n".join(MALFORMED) + "\n")
    return path


def test_planted_malformed_fields_read_the_same_both_ways(tmp_path: Path) -> None:
    path = planted(tmp_path)
    full, plain = parse_claude_session(path), parse_claude_session_plain(path)
    assert_same(full, plain, "/w")
    malformed = {k: v for k, v in plain.coverage.unknown_record_types.items() if "malformed" in k}
    assert malformed == {
        "malformed/assistant_text": 1,
        "malformed/tool_call": 1,
        "malformed/timestamp": 1,
    }
    (typed,) = [e for e in plain.events if e.get("text") == "typed at 12"]
    assert typed.get("ts") is None
    (duration,) = [e for e in plain.events if e["type"] == "turn_end"]
    assert duration["durationMs"] == 1500.0  # converted as the schema converts it


def test_control_a_check_that_passes_everything_breaks_the_equality(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builder_module, "event_conforms", lambda event: True)
    path = planted(tmp_path)
    with pytest.raises((AssertionError, ValueError)):  # a malformed event let through
        assert_same(parse_claude_session(path), parse_claude_session_plain(path), "/w")


VALUES: list[Any] = [
    None,
    "",
    "text",
    "shell",
    "bogus-kind",
    0,
    1,
    -3,
    2**60,
    True,
    False,
    1.5,
    float("nan"),
    [],
    ["a", "b"],
    ["a", 1],
    {},
    {"command": "ls"},
    {1: "x"},
    "true",
    "12",
]


def random_events(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """Events of every type with random values (of every JSON type, and a few more) in their
    fields, under their camelCase keys and, now and then, their Python names."""
    rng = random.Random(seed)
    models = model._EVENT_MODELS
    events = []
    for _ in range(count):
        chosen = rng.choice(models)
        event: dict[str, Any] = {"type": chosen.model_fields["type"].default}
        for name, info in chosen.model_fields.items():
            if name == "type" or rng.random() < 0.3:
                continue
            key = info.alias or name
            if key != name and rng.random() < 0.05:
                key = name
            event[key] = rng.choice(VALUES)
        if rng.random() < 0.05:
            event["unrelated"] = rng.choice(VALUES)
        events.append(event)
    return events


def both_nan(a: Any, b: Any) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def test_an_event_that_conforms_is_read_by_its_model_unchanged() -> None:
    conforming = failing = 0
    for event in random_events(20_000):
        if not event_conforms(event):
            try:
                EVENT_ADAPTER.validate_python(event)
            except ValueError:
                failing += 1
            continue
        conforming += 1
        read = EVENT_ADAPTER.validate_python(event).model_dump(by_alias=True)
        given = {k: v for k, v in without_nulls(event).items() if k != "unrelated"}
        # Every value given is read as it is (an int as the equal float; NaN as NaN).
        for key, value in given.items():
            kept = read[key] == value and isinstance(read[key], bool) == isinstance(value, bool)
            assert kept or both_nan(read[key], value), event
    # Neither side is empty: the check passes many events and turns down invalid ones.
    assert conforming > 1_000 and failing > 1_000


@pytest.mark.parametrize(
    "event",
    [
        {"type": "tool_result", "is_error": True},  # a Python name: the model reads it
        {"type": "tool_result", "isError": "true"},  # converted by the model
        {"type": "turn_end", "durationMs": True},  # converted by the model
        {"type": "turn_end", "durationMs": 2**60},  # not a float exactly
        {"type": "tool_call", "kind": "bogus"},
        {"type": "tool_call", "files": ["a", 1]},
        {"type": "nothing-of-ours"},
        {"type": 5},
    ],
)
def test_what_the_model_would_convert_or_refuse_does_not_conform(event: dict[str, Any]) -> None:
    assert not event_conforms(event)


def test_every_model_field_has_a_check() -> None:
    """A field type the check cannot test sends every event of its type down the slow path:
    correct, but a change to the models that does that should be seen here."""
    assert all(specs is not None for specs in model._SPECS.values())


def heads() -> list[tuple[str, list[str]]]:
    """Session files whose folder is named early, late (a resumed session opens with many
    summary lines), or never."""
    user = {"type": "user", "message": {"content": "hi"}, "timestamp": "2026-01-01T00:00:00Z"}
    with_cwd = {**user, "cwd": "/work/a"}
    meta = {"type": "session_meta", "payload": {"cwd": "/work/meta"}}
    return [
        ("first line", [json.dumps(with_cwd)]),
        ("line 64", [json.dumps(user)] * 63 + [json.dumps(with_cwd)]),
        ("line 65", [json.dumps(user)] * 64 + [json.dumps(with_cwd)]),
        (
            "line 500",
            [json.dumps({"type": "summary", "summary": "x"})] * 499 + [json.dumps(with_cwd)],
        ),
        ("blank lines", [""] * 80 + ["   "] + [json.dumps(with_cwd)]),
        ("broken lines", ["{not json"] * 63 + [json.dumps(with_cwd)]),
        ("not a string", [json.dumps({**user, "cwd": 5}), json.dumps(with_cwd)]),
        ("session_meta", [json.dumps(meta), json.dumps(with_cwd)]),
        ("none", [json.dumps(user)]),
    ]


@pytest.mark.parametrize(("name", "lines"), heads(), ids=[n for n, _ in heads()])
def test_a_parse_finds_the_folder_the_history_reads_from_the_head(
    tmp_path: Path, name: str, lines: list[str]
) -> None:
    from proctor.history.layout import Session
    from proctor.history.projects import session_project

    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    expected = {"none": None, "session_meta": "/work/meta"}.get(name, "/work/a")
    assert session_project(Session("claude-code", path)) == expected
    assert parse_claude_session_plain(path).cwd == expected


@pytest.mark.parametrize(
    "path", [p for p, fmt in CASES if fmt == "claude-code"], ids=lambda p: p.name
)
def test_every_claude_transcript_parses_to_the_folder_its_head_names(path: Path) -> None:
    from proctor.history.layout import Session
    from proctor.history.projects import session_project

    plain = parse_claude_session_plain(path, claude_subagent_files(path))
    assert plain.cwd == session_project(Session("claude-code", path))


def test_deeply_nested_lines_read_the_same_with_and_without_a_project(tmp_path: Path) -> None:
    """A line nested deeper than the stdlib reads (but not orjson) keeps its folder either way;
    one deeper than both is an unparsed line, never a session that cannot be measured."""
    from proctor.history.layout import Session
    from proctor.history.projects import session_project
    from proctor.history.replay import Filters, replay
    from proctor.models.pricing import PriceTable

    head = '{"type":"user","sessionId":"s","cwd":"/w","uuid":"u0",'
    head += '"timestamp":"2026-01-01T00:00:00Z","message":{"content":"hi"},"x":'
    for depth in (1010, 5000):
        path = tmp_path / f"deep-{depth}.jsonl"
        nested = "[" * depth + "]" * depth
        path.write_text(head + nested + "}\n" + claude_line(type="user", uuid="u1") + "\n")
        session = Session("claude-code", path)
        assert session_project(session) == parse_claude_session_plain(path).cwd == "/w"
        for project in (None, Path("/w")):
            (measured,) = replay([session], Filters(project=project), PriceTable(), workers=1)
            assert getattr(measured, "project", None) == "/w", measured
        plain = parse_claude_session_plain(path)
        assert plain.coverage.unparsed_lines == (1 if depth == 5000 else 0)


@pytest.mark.parametrize("kind", [{"x": 1}, ["a"], 5])
def test_a_record_type_that_is_not_a_string_is_an_unknown_type(tmp_path: Path, kind: Any) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": kind, "uuid": "x"}) + "\n" + MALFORMED[-1] + "\n")
    full, plain = parse_claude_session(path), parse_claude_session_plain(path)
    assert_same(full, plain, "/w")
    assert plain.coverage.unknown_record_types.get(str(kind)) == 1


def test_an_event_read_by_its_model_keeps_python_values(tmp_path: Path) -> None:
    """An event the check turns down (``sidechain`` as a number) is read by its model and kept
    with Python values: a NaN in an edit's input stays NaN, as in the full parse, so the loop
    figures (which compare inputs) agree."""
    events = [
        {"type": "tool_call", "id": f"t{i}", "name": "Edit", "kind": "edit", "sidechain": 1}
        | {"input": {"file_path": "a.py", "x": x}, "files": ["a.py"]}
        for i, x in enumerate([float("nan"), None, None])
    ]
    builder = builder_module.TrajectoryBuilder("claude-code")
    for event in events:
        builder.add(dict(event))
    plain = builder.finish_plain()
    again = builder_module.TrajectoryBuilder("claude-code")
    for event in events:
        again.add(dict(event))
    full = again.finish()
    assert_same(full, plain, "/w")
    assert math.isnan(plain.events[0]["input"]["x"])
