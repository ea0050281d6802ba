"""A streaming parse hands on the same events as the in-memory parse, in flat memory."""

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.parse import command
from proctor.errors import ConfigError
from proctor.transcripts.builder import WINDOW
from proctor.transcripts.claude import parse_claude_session
from proctor.transcripts.detect import locate, parse_any, stream_parse
from proctor.transcripts.kinds import relativise
from tests.unit.transcripts.test_detect import CLAUDE, CODEX, GEMINI


def dumped(path: Path) -> list[dict[str, Any]]:
    return [
        e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in parse_any(path).events
    ]


@pytest.mark.parametrize("path", [CLAUDE, CODEX, GEMINI])
def test_streamed_events_equal_the_in_memory_ones(path: Path) -> None:
    file, fmt = locate(path)
    seen: list[dict[str, Any]] = []
    starts: list[tuple[str | None, str | None]] = []
    rest = stream_parse(file, fmt, seen.append, lambda s, v: starts.append((s, v)))
    whole = parse_any(path)
    assert seen == dumped(path)
    assert rest.events == [] and rest.usage == whole.usage and rest.coverage == whole.coverage
    assert starts == [(whole.session_id, whole.agent_version)]


def big_session(tmp_path: Path, copies: int, pad: int = 0) -> Path:
    """The fixture's main file repeated ``copies`` times with fresh message ids and uuids;
    ``pad`` adds that many characters to the user's prompt."""
    text = CLAUDE.read_text()
    if pad:
        text = text.replace('"content":"Add', '"content":"' + "x" * pad + "Add")
    target = tmp_path / f"big-{copies}-{pad}.jsonl"
    with open(target, "w") as out:
        for n in range(copies):
            out.write(text.replace("msg_", f"msg_{n}_").replace("-4000-8000-", f"-{n:04x}-8000-"))
    return target


def test_a_long_session_streams_with_the_in_memory_events_and_usage(tmp_path: Path) -> None:
    path = big_session(tmp_path, 60)
    seen: list[dict[str, Any]] = []
    streamed = parse_claude_session(path, sink=seen.append)
    whole = parse_claude_session(path)
    assert len(seen) > 4 * WINDOW
    assert seen == [
        e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in whole.events
    ]
    assert streamed.usage == whole.usage and streamed.usage["claude-opus-4-8"].responses > 100


def peak_bytes(path: Path, stream: bool) -> int:
    tracemalloc.start()
    try:
        parse_claude_session(path, sink=(lambda e: None) if stream else None)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def growth(tmp_path: Path, stream: bool) -> float:
    """Extra peak memory per extra byte of file, for the same records made 15 times larger."""
    plain, padded = big_session(tmp_path, 200), big_session(tmp_path, 200, pad=50_000)
    added = padded.stat().st_size - plain.stat().st_size
    assert added > 5 * plain.stat().st_size
    return (peak_bytes(padded, stream) - peak_bytes(plain, stream)) / added


def test_streaming_memory_does_not_grow_with_what_records_say(tmp_path: Path) -> None:
    assert growth(tmp_path, stream=True) < 0.1


def test_streaming_memory_per_record_is_a_few_hundred_bytes(tmp_path: Path) -> None:
    """Only ids are kept for the whole parse: uuids seen and one entry per response."""
    small, large = big_session(tmp_path, 100), big_session(tmp_path, 1100)
    records = 1000 * sum(1 for line in CLAUDE.read_text().splitlines() if line.strip())
    growth = peak_bytes(large, stream=True) - peak_bytes(small, stream=True)
    assert growth < 400 * records


def test_control_the_in_memory_parse_grows_with_what_records_say(tmp_path: Path) -> None:
    assert growth(tmp_path, stream=False) > 0.4


def usage_line(msg: str, out: int, stop: str | None) -> str:
    message = {
        "id": msg,
        "model": "m",
        "content": [{"type": "text", "text": "x"}],
        "stop_reason": stop,
        "usage": {"input_tokens": 1, "output_tokens": out},
    }
    return json.dumps({"type": "assistant", "requestId": "r", "message": message}) + "\n"


def test_a_better_line_within_the_window_updates_the_streamed_event(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(usage_line("a", 1, None) + usage_line("a", 7, "end_turn"))
    seen: list[dict[str, Any]] = []
    parse_claude_session(path, sink=seen.append)
    assert [e["outputTokens"] for e in seen if e["type"] == "usage"] == [7]


def test_a_better_line_past_the_window_still_counts_in_the_totals(tmp_path: Path) -> None:
    filler = "".join(usage_line(f"f{n}", 1, "end_turn") for n in range(2 * WINDOW))
    path = tmp_path / "s.jsonl"
    path.write_text(usage_line("a", 1, None) + filler + usage_line("a", 7, "end_turn"))
    seen: list[dict[str, Any]] = []
    streamed = parse_claude_session(path, sink=seen.append)
    assert seen[1]["outputTokens"] == 1  # already handed on: it keeps its first numbers
    assert streamed.usage == parse_claude_session(path).usage
    assert streamed.usage["m"].output_tokens == 7 + 2 * WINDOW


def test_json_output_is_one_document_with_one_event_per_line() -> None:
    result = CliRunner().invoke(command, [str(CLAUDE), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["events"] == dumped(CLAUDE)
    assert data["format"] == "claude-code" and data["sessionId"]
    assert data["usage"] == {
        m: u.model_dump(by_alias=True) for m, u in parse_any(CLAUDE).usage.items()
    }
    lines = result.output.splitlines()
    assert len(lines) == len(data["events"]) + 2


@pytest.mark.parametrize(
    "text",
    [
        '{"sessionId": "s", "projectHash": "p", "messages": [{"id": "1", "type": "user"',
        '{"name": "a package.json", "messages": []}',
    ],
)
def test_json_output_of_a_file_the_parser_refuses_is_no_half_document(
    tmp_path: Path, text: str
) -> None:
    chat = tmp_path / "session-2026-01-01T10-00-abcd1234.json"
    chat.write_text(text)
    result = CliRunner().invoke(command, [str(chat), "--agent", "gemini-cli", "--json"])
    assert isinstance(result.exception, ConfigError)  # exit 2, said by proctor's main
    assert str(chat) in str(result.exception)
    assert result.stdout == ""


def test_json_output_of_a_file_without_events_is_one_document(tmp_path: Path) -> None:
    empty = tmp_path / "s.jsonl"
    empty.write_text("")
    result = CliRunner().invoke(command, [str(empty), "--agent", "codex", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["events"] == [] and data["format"] == "codex"


def test_text_output_of_an_empty_file_still_has_its_header(tmp_path: Path) -> None:
    empty = tmp_path / "s.jsonl"
    empty.write_text("")
    result = CliRunner().invoke(command, [str(empty), "--agent", "claude-code"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [str(empty), "format claude-code"]


@pytest.mark.parametrize(
    "path",
    [
        "/ws/a.py",
        "/ws/src/a.py",
        "/ws/.github/x.yml",
        "/ws/a/../b.py",
        "/ws//a.py",
        "/ws/./a.py",
        "/wsx/a.py",
        "/ws",
        "/ws/",
        "/other/a.py",
        "a.py",
        "./a.py",
        "/ws/a/./b",
    ],
)
@pytest.mark.parametrize("cwd", ["/ws", "/ws/"])
def test_relativise_agrees_with_relpath(path: str, cwd: str) -> None:
    expected = path
    if os.path.isabs(path):
        rel = os.path.relpath(path, cwd)
        expected = path if rel.startswith("..") else rel
    elif path.startswith("./"):
        expected = path[2:]
    assert relativise(path, cwd) == expected


@pytest.mark.parametrize("as_json", [False, True])
def test_a_reader_that_stops_early_ends_the_parse_quietly(tmp_path: Path, as_json: bool) -> None:
    path = big_session(tmp_path, 100)
    argv = [sys.executable, "-m", "proctor", "parse", str(path), *(["--json"] if as_json else [])]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(200)
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0
        assert proc.stderr.read() == b""


def big_rollout(tmp_path: Path, copies: int, pad: int = 0) -> Path:
    """The Codex fixture's turns repeated ``copies`` times with fresh call ids; ``pad``
    characters added to the first prompt of each copy."""
    lines = CODEX.read_text().splitlines()
    head, body = lines[0], lines[1:]
    target = tmp_path / f"rollout-big-{copies}-{pad}.jsonl"
    with open(target, "w") as out:
        out.write(head + "\n")
        for n in range(copies):
            for line in body:
                line = line.replace('"call_', f'"call_{n}_')
                if pad and '"role":"user"' in line and "input_text" in line:
                    line = line.replace('"text":"', '"text":"' + "x" * pad, 1)
                out.write(line + "\n")
    return target


def big_chat(tmp_path: Path, copies: int, pad: int = 0) -> Path:
    """The Gemini CLI fixture's messages repeated with fresh message and call ids."""
    lines = GEMINI.read_text().splitlines()
    head, body = lines[0], lines[1:]
    folder = tmp_path / "tmp" / "proj" / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"session-big-{copies}-{pad}.jsonl"
    with open(target, "w") as out:
        out.write(head + "\n")
        for n in range(copies):
            for line in body:
                try:
                    record = json.loads(line)
                except ValueError:
                    out.write(line + "\n")  # the fixture's broken line, kept as it is
                    continue
                if isinstance(record.get("id"), str):
                    record["id"] = f"{n}-{record['id']}"
                    if pad and record.get("type") == "user":
                        record["content"] = [{"text": "x" * pad}]
                for call in record.get("toolCalls") or []:
                    call["id"] = f"{n}-{call['id']}"
                if "$rewindTo" in record:
                    continue
                out.write(json.dumps(record) + "\n")
    return target


BIG = {"codex": big_rollout, "gemini-cli": big_chat}


@pytest.mark.parametrize("fmt", sorted(BIG))
def test_a_long_codex_or_gemini_session_streams_the_in_memory_events(
    tmp_path: Path, fmt: str
) -> None:
    path = BIG[fmt](tmp_path, 80)
    seen: list[dict[str, Any]] = []
    streamed = stream_parse(path, fmt, seen.append)
    whole = parse_any(path, fmt)
    assert len(seen) > 2 * WINDOW
    assert seen == [
        e.model_dump(by_alias=True, exclude_none=True, mode="json") for e in whole.events
    ]
    assert streamed.usage == whole.usage and streamed.coverage == whole.coverage


def peak_of(path: Path, fmt: str, stream: bool) -> int:
    tracemalloc.start()
    try:
        if stream:
            stream_parse(path, fmt, lambda e: None)
        else:
            parse_any(path, fmt)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("fmt", sorted(BIG))
def test_codex_and_gemini_stream_in_flat_memory(tmp_path: Path, fmt: str) -> None:
    """Four times the session: the streamed parse holds the same window of events and a few
    hundred bytes of ids per record (where each record is, which records count); the
    in-memory parse holds every event."""
    short, long = BIG[fmt](tmp_path, 100, pad=20_000), BIG[fmt](tmp_path, 400, pad=20_000)
    lines = len(long.read_bytes().splitlines()) - len(short.read_bytes().splitlines())
    added = long.stat().st_size - short.stat().st_size
    for stream in (True, False):  # warm: what a first parse imports and caches is not growth
        peak_of(short, fmt, stream)
    streamed = peak_of(long, fmt, True) - peak_of(short, fmt, True)
    in_memory = peak_of(long, fmt, False) - peak_of(short, fmt, False)
    assert streamed < 400 * lines, "streaming memory grows by ids, not by what records say"
    assert in_memory > 0.4 * added, "control: the in-memory parse keeps every event"


@pytest.mark.parametrize("fmt", sorted(BIG))
def test_parse_prints_codex_and_gemini_events_as_it_reads_them(tmp_path: Path, fmt: str) -> None:
    path = BIG[fmt](tmp_path, 40)
    result = CliRunner().invoke(command, [str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["events"] == dumped(path)


def test_a_malformed_event_streams_as_it_is_kept_in_memory(tmp_path: Path) -> None:
    # A Codex turn end whose duration is not a number: an ``other`` event counted as
    # malformed, streamed or not, and ``proctor parse`` prints it instead of failing.
    meta = {"type": "session_meta", "payload": {"id": "t1", "cwd": str(tmp_path)}}
    bad = {"type": "event_msg", "payload": {"type": "task_complete", "duration_ms": "slow"}}
    rollout = tmp_path / "rollout-2026-01-01T00-00-00-t1.jsonl"
    rollout.write_text("\n".join(json.dumps(r) for r in (meta, bad)) + "\n")
    seen: list[dict[str, Any]] = []
    rest = stream_parse(rollout, "codex", seen.append)
    assert seen == dumped(rollout)
    assert [e.get("recordType") for e in seen] == ["malformed/turn_end"]
    assert rest.coverage == parse_any(rollout).coverage
    result = CliRunner().invoke(command, [str(rollout)])
    assert result.exit_code == 0, result.output
