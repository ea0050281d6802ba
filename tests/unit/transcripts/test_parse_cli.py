import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from proctor.cli.parse import command
from proctor.errors import ConfigError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude" / "7f3c2a10-0000-4000-8000-000000000001.jsonl"
CODEX = (
    FIXTURES / "codex" / "rollout-2026-11-29T10-00-00-019ad3f0-5c1e-7a02-9c4b-3e1f00000001.jsonl"
)


def run(*args: str) -> dict:
    result = CliRunner().invoke(command, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict = json.loads(result.stdout)  # a note (a folder of several sessions) is stderr's
    return data


def test_json_has_events_usage_coverage_and_format() -> None:
    data = run(str(CODEX))
    assert data["format"] == "codex"
    call = next(e for e in data["events"] if e["type"] == "tool_call")
    assert {"id", "name", "kind", "input"} <= set(call)
    result = next(e for e in data["events"] if e["type"] == "tool_result")
    assert {"id", "isError", "denied"} <= set(result)
    assert data["usage"]["gpt-5.5"] == {
        "inputTokens": 11172,
        "outputTokens": 355,
        "cacheReadTokens": 41728,
        "cacheWriteTokens": 0,
        "responses": 5,
        "cacheWrite1hTokens": 0,
    }
    assert data["coverage"]["unknownRecordTypes"] == {
        "event_msg/hologram_started": 1,
        "brand_new_record": 1,
    }
    assert data["coverage"]["unparsedLines"] == 1
    assert data["usageCheck"]["ok"] is True


def test_agent_option_and_folders() -> None:
    assert run(str(CLAUDE), "--agent", "scripted")["format"] == "claude-code"
    # The chat under tmp/ is the newest of the folder's two sessions (the other beside it).
    data = run(str(FIXTURES / "gemini"))
    assert data["format"] == "gemini-cli" and "/tmp/proj/chats/" in data["path"]
    data = run(str(CLAUDE.with_suffix("")))
    assert any(e.get("sidechain") for e in data["events"])


def test_human_output_lists_events_usage_and_coverage() -> None:
    result = CliRunner().invoke(command, [str(CODEX)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[1].startswith("format codex · session 019ad3f0")
    assert any("tool_result" in x and "call_rm_4 denied" in x for x in lines)
    assert any("tool_result" in x and "call_pytest_3 error" in x for x in lines)
    assert (
        "  gpt-5.5: input 11,172, output 355, cache read 41,728, cache write 0 (5 responses)"
        in lines
    )
    assert lines[-1].startswith("coverage: 43 lines, 1 unparsed, unknown record types:")
    assert max(len(x) for x in lines if x[:4].strip().isdigit()) <= 100


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The machine's clock in Los Angeles for the test (and put back after it)."""
    import time

    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("zone")
def test_human_output_dates_its_times_on_the_clock_history_keeps_days_by(tmp_path: Path) -> None:
    """Times are shown on the machine's clock, whatever offset the file wrote them in, under
    a line naming their day (again when the day changes) and, once, their zone, as `proctor
    history` takes its days; token counts have thousands separators as its tables do."""
    session = "7f3c2a10-0000-4000-8000-0000000000aa"

    def line(uuid: int, at: str, message: dict) -> str:
        kind = message["role"]
        return json.dumps(
            {"type": kind, "sessionId": session, "cwd": "/ws", "timestamp": at, "message": message,
             "uuid": f"00000000-0000-4000-8000-{uuid:012d}", "isSidechain": False}
        )  # fmt: skip

    answer = {
        "role": "assistant", "id": "msg_1", "model": "claude-opus-4-8",
        "content": [{"type": "text", "text": "Done."}],
        "usage": {"input_tokens": 12345, "output_tokens": 7, "cache_read_input_tokens": 1000000},
    }  # fmt: skip
    file = tmp_path / f"{session}.jsonl"
    file.write_text(
        line(1, "2026-11-30T09:59:00+02:00", {"role": "user", "content": "Go."}) + "\n"
        + line(2, "2026-11-30T08:00:01Z", answer) + "\n"
    )  # fmt: skip
    lines = CliRunner().invoke(command, [str(file)]).output.splitlines()
    assert lines[3:8] == [
        "     2026-11-29 (times of the local time zone, America/Los_Angeles)",
        "   1 23:59:00 user_message   Go.",
        "     2026-11-30",
        "   2 00:00:01 assistant_text Done.",
        "   3 00:00:01 usage          claude-opus-4-8 in=12,345 out=7 cache_read=1,000,000 "
        "cache_write=0",
    ]
    assert "  claude-opus-4-8: input 12,345, output 7, cache read 1,000,000, cache write 0 " \
        "(1 response)" in lines  # fmt: skip


def test_missing_path_is_a_config_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(command, [str(tmp_path / "nope.jsonl")])
    assert isinstance(result.exception, ConfigError)
    assert "nope.jsonl: no such file or folder" in str(result.exception)


def test_unknown_agent_is_a_usage_error() -> None:
    result = CliRunner().invoke(command, [str(CLAUDE), "--agent", "cursor"])
    assert result.exit_code == 2


def test_a_rollout_is_read_in_two_passes_with_its_usage_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import proctor.transcripts.codex.parser as codex_parser

    passes: list[Path] = []
    real = codex_parser.file_lines

    def counted(path: Path) -> Iterator[bytes]:
        passes.append(path)
        return real(path)

    monkeypatch.setattr(codex_parser, "file_lines", counted)
    for as_json in (True, False):
        passes.clear()
        args = [str(CODEX), "--json"] if as_json else [str(CODEX)]
        result = CliRunner().invoke(command, args)
        assert result.exit_code == 0, result.output
        assert "total_token_usage" in result.output or '"usageCheck"' in result.output
        assert passes == [CODEX, CODEX]  # facts, then events and the check: not four readings


def test_a_codex_rollout_is_read_with_its_subagents_threads(tmp_path: Path) -> None:
    """Read as a Claude Code session is read with its subagent files; the usage check is the
    main thread's (its own ``total_token_usage``)."""
    threads = FIXTURES / "codex" / "threads" / "spawn"
    home = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    home.mkdir(parents=True)
    for rollout in threads.glob("rollout-*.jsonl"):
        (home / rollout.name).write_bytes(rollout.read_bytes())
    parent = home / "rollout-2026-12-02T18-46-40-01a23814-8c07-7ed2-a026-1df397406950.jsonl"
    data = run(str(parent))
    sides = [bool(e.get("sidechain")) for e in data["events"] if e["type"] == "tool_call"]
    assert sides == [False, False, False, True, True]
    assert data["usage"]["gpt-5.5"]["responses"] == 6
    assert data["usageCheck"]["ok"] is True and data["usageCheck"]["responses"] == 4
    child = home / "rollout-2026-12-02T18-46-40-01a23814-8d8e-7be2-860f-be0579516593.jsonl"
    alone = run(str(child))  # a subagent's rollout given on its own: its own thread only
    assert [bool(e.get("sidechain")) for e in alone["events"]] == [False] * len(alone["events"])


def test_every_event_of_a_subagent_s_thread_is_marked_in_the_text(tmp_path: Path) -> None:
    """A forked subagent's harness messages and its note of the history it inherited are its
    own, not the main thread's: shown as every other event of its thread is."""
    threads = FIXTURES / "codex" / "threads" / "fork"
    home = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    home.mkdir(parents=True)
    for rollout in threads.glob("rollout-*.jsonl"):
        (home / rollout.name).write_bytes(rollout.read_bytes())
    parent = home / "rollout-2026-12-02T18-46-40-01a23814-8c5a-7df2-b169-268a1aa10d94.jsonl"
    sides = [bool(e.get("sidechain")) for e in run(str(parent))["events"]]
    result = CliRunner().invoke(command, [str(parent)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line[:4].strip().isdigit()]
    assert len(lines) == len(sides) and any(sides)
    for line, side in zip(lines, sides, strict=True):
        assert ("[sidechain] " in line) == side, line
    inherited = next(line for line in lines if "inherited-history" in line)
    assert "[sidechain] inherited-history: history inherited from thread" in inherited


def test_a_folder_shows_its_newest_session_as_history_lists_them(tmp_path: Path) -> None:
    """The newest file that is a session: not a subagent's thread (its session is), not a file
    that holds a title alone (older Claude Code releases wrote them beside a session)."""
    import os

    home = tmp_path / ".codex" / "sessions" / "2026" / "12" / "02"
    home.mkdir(parents=True)
    for rollout in (FIXTURES / "codex" / "threads" / "spawn").glob("rollout-*.jsonl"):
        (home / rollout.name).write_bytes(rollout.read_bytes())
    parent = home / "rollout-2026-12-02T18-46-40-01a23814-8c07-7ed2-a026-1df397406950.jsonl"
    child = home / "rollout-2026-12-02T18-46-40-01a23814-8d8e-7be2-860f-be0579516593.jsonl"
    os.utime(parent, (1_000_000_000, 1_000_000_000))  # the thread is the newest file
    result = CliRunner().invoke(command, [str(tmp_path / ".codex")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(str(parent)) and str(child) not in result.stdout
    project = tmp_path / ".claude" / "projects" / "-w"
    project.mkdir(parents=True)
    session = project / CLAUDE.name
    session.write_bytes(CLAUDE.read_bytes())
    os.utime(session, (1_000_000_000, 1_000_000_000))
    title = project / "d0000000-0000-4000-8000-0000000000aa.jsonl"
    title.write_text('{"type":"summary","summary":"Fix a bug","leafUuid":"x"}\n')
    result = CliRunner().invoke(command, [str(project)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(str(session))
    assert f"{project} holds 2 session files; this is the newest, {session}" in result.stderr
    title.write_text('{"type":"summary","summary":"Fix a bug","leafUuid":"x"}\n' * 2)
    alone = CliRunner().invoke(command, [str(title)])  # the control: named, it is shown
    assert alone.exit_code == 0 and alone.stdout.startswith(str(title))


def test_an_empty_file_is_said_to_be_empty(tmp_path: Path) -> None:
    """It was "not a Claude Code, Codex or Gemini CLI transcript (pass --agent to force
    one)", which sent the user looking at its format; forced, it reads as no event."""
    for text in ("", "\n\n  \n"):
        empty = tmp_path / "session.jsonl"
        empty.write_text(text)
        result = CliRunner().invoke(command, [str(empty)])
        assert isinstance(result.exception, ConfigError)
        assert f"{empty}: an empty file (no record), not yet a transcript" in str(result.exception)
    forced = CliRunner().invoke(command, [str(empty), "--agent", "codex"])
    assert forced.exit_code == 0 and "coverage: 0 lines" in forced.stdout, forced.output
    # No total and no source to name: "source None" was printed.
    assert "no total in the rollout; 0 repeated token_count skipped" in forced.stdout


def test_help_shows_no_markup() -> None:
    """Click prints a docstring as written: ``<session>/`` showed its doubled backticks."""
    result = CliRunner().invoke(command, ["--help"])
    assert result.exit_code == 0 and "``" not in result.output
    assert "a Claude Code <session>/ folder" in " ".join(result.output.split())


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini-cli"])
def test_a_record_without_a_type_is_counted_as_one(tmp_path: Path, agent: str) -> None:
    """Claude Code's and Codex's parsers counted it under the type "None"."""
    file = tmp_path / "untyped.jsonl"
    file.write_text('{"a": 1}\n{"type": null}\n')
    result = CliRunner().invoke(command, [str(file), "--agent", agent, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["coverage"]["unknownRecordTypes"] == {"unknown-record": 2}


def test_a_dash_is_not_standard_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-`` was "no such file or folder"; a file named ``-`` is still read."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(command, ["-"], input="")
    assert isinstance(result.exception, ConfigError)
    assert "not from standard input" in str(result.exception)
    (tmp_path / "-").write_bytes(CLAUDE.read_bytes())
    named = CliRunner().invoke(command, ["-"])
    assert named.exit_code == 0 and named.stdout.startswith("-\n"), named.output


@pytest.mark.parametrize("name", ["trajectory.jsonl", "trial.json"])
def test_a_trial_s_own_record_names_the_transcript_beside_it(tmp_path: Path, name: str) -> None:
    """A trial folder's trajectory (already parsed) or trial.json was "not a Claude Code,
    Codex or Gemini CLI transcript (pass --agent to force one)": forced, it read as nothing."""
    (tmp_path / "raw-transcript.jsonl").write_bytes(CLAUDE.read_bytes())
    (tmp_path / "trajectory.jsonl").write_text('{"type":"user_message","text":"hi"}\n')
    (tmp_path / "trial.json").write_text('{"schemaVersion": 2, "case": "fix"}\n')
    result = CliRunner().invoke(command, [str(tmp_path / name)])
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception) == (
        f"{tmp_path / name}: a record proctor wrote of a trial, not a transcript: parse the "
        f"trial's native transcript, {tmp_path / 'raw-transcript.jsonl'}"
    )


@pytest.mark.usefixtures("zone")
def test_an_event_time_that_is_no_time_is_shown_as_unknown() -> None:
    from proctor.cli.parse import local_day_and_clock

    assert local_day_and_clock("nonsense-timestamp") == (None, "?")
    assert local_day_and_clock("2026-11-29T10:00:00") == ("2026-11-29", "10:00:00")
    assert local_day_and_clock(None) == (None, "")


def test_the_command_a_folder_s_note_suggests_can_be_copied_as_it_is(tmp_path: Path) -> None:
    """A folder with a space in its name is quoted in the `proctor history` the note offers,
    and a terminal's escape sequence in it is shown, never obeyed."""
    folder = tmp_path / "my hist\x1b[31m"
    folder.mkdir()
    for rollout in (FIXTURES / "codex").glob("rollout-*.jsonl"):
        (folder / rollout.name).write_bytes(rollout.read_bytes())
    result = CliRunner().invoke(command, [str(folder)])
    assert result.exit_code == 0, result.output
    shown = str(tmp_path / "my hist\\x1b[31m")
    assert f"(`proctor history '{shown}'` summarises them all)" in result.stderr
    assert "\x1b" not in result.stderr
