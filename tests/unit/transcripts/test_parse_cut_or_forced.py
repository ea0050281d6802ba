"""``proctor parse`` of a real transcript read as another agent's (a note names what it is)
and of one cut short inside its only line (said so, with the CLI it begins like)."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from proctor.cli.parse import command
from proctor.errors import ConfigError
from proctor.transcripts.cut_short import partial_record

CORPUS = Path(__file__).parents[2] / "corpus"
FILES = {
    "claude-code": CORPUS / "claude-code-2.1.197-basic.transcript.jsonl",
    "codex": CORPUS / "codex-0.171.0-basic.transcript.jsonl",
    "gemini-cli": CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl",
}
NAMES = {
    "claude-code": "a Claude Code transcript",
    "codex": "a Codex rollout",
    "gemini-cli": "a Gemini CLI chat",
}


@pytest.mark.parametrize(
    ("wrote", "forced"),
    [("claude-code", "codex"), ("codex", "claude-code"), ("gemini-cli", "codex")],
)
def test_a_transcript_forced_to_another_format_says_what_it_is(wrote: str, forced: str) -> None:
    """Forcing is allowed (exit 0), but every event came out `other` with no word why."""
    result = CliRunner().invoke(command, [str(FILES[wrote]), "--agent", forced])
    assert result.exit_code == 0, result.output
    assert (
        f"proctor: note: {FILES[wrote]} is {NAMES[wrote]}; --agent {forced} reads it as "
        f"{NAMES[forced]}, so most of its records are `other` events" in result.stderr
    )
    same = CliRunner().invoke(command, [str(FILES[wrote]), "--agent", wrote])
    assert same.exit_code == 0 and "note" not in same.stderr  # the control: its own format
    scripted = CliRunner().invoke(command, [str(FILES["claude-code"]), "--agent", "scripted"])
    assert scripted.exit_code == 0 and "note" not in scripted.stderr


@pytest.mark.parametrize("agent", sorted(FILES))
@pytest.mark.parametrize("kept", [0.5, 0.99])
def test_a_transcript_cut_inside_its_only_line_is_said_cut_short(
    tmp_path: Path, agent: str, kept: float
) -> None:
    """``head -c 300 session.jsonl > t.jsonl``: it was "not a Claude Code, Codex or Gemini CLI
    transcript"."""
    first = FILES[agent].read_bytes().split(b"\n")[0]
    cut = tmp_path / "t.jsonl"
    cut.write_bytes(first[: int(len(first) * kept)])
    result = CliRunner().invoke(command, [str(cut)])
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == (
        f"{cut}: looks like {NAMES[agent]} cut short: its only line ends inside its first "
        "record, so it holds no whole record: give the whole file, as it was written"
    )


def test_a_line_that_begins_no_known_record_is_no_transcript_cut_short(tmp_path: Path) -> None:
    for text in ('{"a": 1, "b": "x', '{"type":"system","subtype":"init","session_id":"s","mo'):
        cut = tmp_path / "t.jsonl"
        cut.write_text(text)  # the second: Claude Code's headless output, cut
        result = CliRunner().invoke(command, [str(cut)])
        assert "not a Claude Code, Codex or Gemini CLI transcript" in str(result.exception)


def test_the_pairs_a_cut_object_begins_with() -> None:
    assert partial_record('{"a": "x,}", "b": [1, {"c": 2}], "payload": {"id": "0') == {
        "a": "x,}",
        "b": [1, {"c": 2}],
        "payload": None,
    }
    assert partial_record('{"sessionId":"7","projectHash":"e9b4') == {
        "sessionId": "7",
        "projectHash": None,
    }
    assert partial_record('{"ty') == {}


def test_a_named_pipe_is_not_read_for_a_cut_first_line(tmp_path: Path) -> None:
    """Opened for its first line, a named pipe with no writer would block the command."""
    import os
    import threading

    from proctor.transcripts.cut_short import only_line_cut

    pipe = tmp_path / "session.jsonl"
    os.mkfifo(pipe)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(only_line_cut(pipe)), daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive() and found == [None]


ACP_LOG = Path(__file__).parents[2] / "fixtures" / "transcripts" / "acp" / "gemini-cli-0.61.0.jsonl"
EARLY = "looks cut short, too early to tell which CLI wrote it"
TAIL = ": its only line ends inside its first record, so it holds no whole record: give the whole file, as it was written"  # fmt: skip


@pytest.mark.parametrize(
    ("source", "kept", "said"),
    [
        (FILES["claude-code"], 1, ""),
        (
            FILES["claude-code"],
            3,
            " (it begins as a Claude Code transcript, a Codex rollout or an ACP session log may)",
        ),
        (FILES["claude-code"], 12, " (it begins as a Claude Code transcript does)"),
        (FILES["codex"], 2, ""),
        (FILES["codex"], 20, " (it begins as a Codex rollout does)"),
        (FILES["codex"], 50, " (it begins as a Codex rollout does)"),
        (FILES["gemini-cli"], 5, " (it begins as a Gemini CLI chat does)"),
        (FILES["gemini-cli"], 40, " (it begins as a Gemini CLI chat does)"),
        (ACP_LOG, 5, " (it begins as an ACP session log does)"),
    ],
)
@pytest.mark.parametrize("name", ["t.jsonl", "rollout-t.jsonl", "session-t.jsonl"])
def test_a_transcript_cut_before_its_keys_say_which_is_said_cut_short(
    tmp_path: Path, source: Path, kept: int, said: str, name: str
) -> None:
    """``head -c 20 session.jsonl``: cut before its first keys say which CLI wrote it, it was
    "not a Claude Code, Codex or Gemini CLI transcript" (or, named as a rollout, read as one
    of no record, exit 0): cut short, the CLIs it may begin named, never claimed."""
    cut = tmp_path / name
    cut.write_bytes(source.read_bytes()[:kept])
    result = CliRunner().invoke(command, [str(cut)])
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == f"{cut}: {EARLY}{said}{TAIL}"


@pytest.mark.parametrize(
    "text",
    [
        '{"level":"info","msg":"hel',  # another program's log, cut
        '{"timestamp":"2026-12-01T10:00:00Z","level":"in',  # keys no CLI's record begins with
        '{"type":"sessi',  # no type a CLI's first record has
        "{'type': 'user'",  # not JSON
        '{"type":"queue-operation"}}',  # whole, then wrong: not cut
        '{"parentUuid": nul}',
    ],
)
def test_a_line_of_another_file_is_not_said_cut_short(tmp_path: Path, text: str) -> None:
    cut = tmp_path / "t.jsonl"
    cut.write_text(text)
    result = CliRunner().invoke(command, [str(cut)])
    assert "not a Claude Code, Codex or Gemini CLI transcript" in str(result.exception)


@pytest.mark.parametrize(
    ("kept", "said"),
    [
        (30, f"{EARLY} (it begins as a Gemini CLI chat does)"),
        (2000, "looks like a Gemini CLI chat cut short"),
    ],
)
def test_an_early_gemini_chat_cut_short_is_said_cut_short(
    tmp_path: Path, kept: int, said: str
) -> None:
    """An early Gemini CLI chat is one JSON document over many lines: cut, it was "not a
    Claude Code, Codex or Gemini CLI transcript"."""
    import json

    records = [json.loads(line) for line in FILES["gemini-cli"].read_text().splitlines()]
    messages = [r for r in records[1:] if "id" in r and "type" in r]
    whole = tmp_path / "session-2026-12-01T14-30-75a4b4a3.json"
    whole.write_text(json.dumps({**records[0], "messages": messages}, indent=2))
    assert CliRunner().invoke(command, [str(whole)]).exit_code == 0  # the control: read whole
    cut = tmp_path / "session-cut.json"
    cut.write_bytes(whole.read_bytes()[:kept])
    result = CliRunner().invoke(command, [str(cut)])
    assert isinstance(result.exception, ConfigError), result.output
    assert str(result.exception) == (
        f"{cut}: {said}: its JSON document ends before it is whole, so it holds no whole "
        "record: give the whole file, as it was written"
    )


def test_a_document_of_another_program_cut_short_is_no_transcript(tmp_path: Path) -> None:
    cut = tmp_path / "t.json"
    cut.write_text('{\n  "level": "info",\n  "msg": "x')
    result = CliRunner().invoke(command, [str(cut)])
    assert "not a Claude Code, Codex or Gemini CLI transcript" in str(result.exception)


def _key_cuts(agent: str) -> list[tuple[str, str, str]]:
    """``agent``'s first record cut at each boundary of each of its top-level pairs: right
    after its key, after its colon, after its value and after the comma that follows."""
    import json

    first = FILES[agent].read_text().split("\n")[0]
    cuts, at = [], 1
    for key, value in json.loads(first).items():
        key_text = json.dumps(key, separators=(",", ":"), ensure_ascii=False)
        value_text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        assert first[at:].startswith(f"{key_text}:{value_text}")  # written compact
        ends = {"key": at + len(key_text), "colon": at + len(key_text) + 1}
        ends["value"] = ends["colon"] + len(value_text)
        ends["comma"] = ends["value"] + 1
        cuts += [(key, where, first[:end]) for where, end in ends.items() if end < len(first)]
        at = ends["comma"]
    return cuts


TELLS = {"claude-code": ("type", "value"), "codex": ("type", "value"), "gemini-cli": ("projectHash", "key")}  # fmt: skip
"""The first cut at which each CLI's first record says which CLI wrote it: Claude Code's
``type`` of ``queue-operation``, a rollout's ``type`` of ``session_meta`` after its
``timestamp`` (its whole opening: no other CLI's first record begins so), a chat's
``projectHash``."""


@pytest.mark.parametrize(
    ("agent", "key", "where", "text"),
    [(agent, *cut) for agent in sorted(FILES) for cut in _key_cuts(agent)],
    ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "",
)
def test_a_first_record_cut_at_a_key_boundary_is_said_cut_short(
    tmp_path: Path, agent: str, key: str, where: str, text: str
) -> None:
    """``{"type":"queue-operation"`` (a Claude Code session's first record, cut right after
    its type's value) was "too early to tell", where the same cut one comma later was "looks
    like a Claude Code transcript cut short": a value or a key whole at the cut counts, as it
    does before a comma."""
    cut = tmp_path / "t.jsonl"
    cut.write_text(text)
    result = CliRunner().invoke(command, [str(cut)])
    assert isinstance(result.exception, ConfigError), result.output
    order = [(k, w) for k, w, _ in _key_cuts(agent)]
    if order.index((key, where)) >= order.index(TELLS[agent]):
        said = f"looks like {NAMES[agent]} cut short"
    else:
        said = f"{EARLY} (it begins as {NAMES[agent]} does)"
    assert str(result.exception) == f"{cut}: {said}{TAIL}"


def test_a_whole_value_at_the_cut_is_kept_a_number_is_not() -> None:
    assert partial_record('{"type":"queue-operation"') == {"type": "queue-operation"}
    assert partial_record('{"a": {"b": [1]}, "c": true') == {"a": {"b": [1]}, "c": True}
    assert partial_record('{"a": "x", "ordinal": 1') == {"a": "x", "ordinal": None}
    assert partial_record('{"a": "x", "payload"') == {"a": "x", "payload": None}
    assert partial_record('{"a": "x", "pay') == {"a": "x"}
