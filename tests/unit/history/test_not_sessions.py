"""Files that hold an agent's lines but are no session of their own: a Claude Code subagent's
file saved under another name, and the CLIs' headless outputs (``claude -p --output-format
stream-json``, ``gemini --output-format stream-json``, ``codex exec --json``). A replay never
counts them as sessions (their steps would count twice, their tokens too), and a file given
alone says why it is left out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from proctor.errors import ConfigError
from proctor.history.replay import Filters, replay
from proctor.history.sniff import STRAY_SUBAGENT
from proctor.history.sources import sessions_under
from proctor.models.history import SessionSummary, Unavailable
from proctor.models.pricing import PriceTable
from proctor.transcripts.detect import classify_record, detect_format, headless_output

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "corpus"
NESTED = ROOT / "tests/fixtures/transcripts/claude/nested/-tmp-proctor-vhux1ro4-0-workspace"
SESSION = "2e315b70-a4cd-4086-8c5c-33ece1bf7bd1"
AGENTS = ["claude-code", "codex", "gemini-cli"]


def _replayed(folder: Path) -> tuple[list[SessionSummary], list[Unavailable]]:
    sessions, unavailable = sessions_under([folder], AGENTS)
    found = list(replay(sessions, Filters(), PriceTable(), workers=1))
    measured = [s for s in found if not isinstance(s, Unavailable)]
    return measured, unavailable + [s for s in found if isinstance(s, Unavailable)]


def _session_with_subagents(folder: Path) -> None:
    shutil.copy(NESTED / f"{SESSION}.jsonl", folder)
    shutil.copytree(NESTED / SESSION, folder / SESSION)


def test_a_subagent_file_under_another_name_is_read_with_its_session_only(
    tmp_path: Path,
) -> None:
    _session_with_subagents(tmp_path)
    alone, _ = _replayed(tmp_path)
    assert len(alone) == 1 and alone[0].is_task
    subagent = next((NESTED / SESSION / "subagents").glob("agent-*.jsonl"))
    renamed = tmp_path / "reader-subagent.jsonl"
    shutil.copy(subagent, renamed)
    measured, unavailable = _replayed(tmp_path)
    assert [s.session_id for s in measured] == [SESSION]
    assert measured[0].steps == alone[0].steps and measured[0].usage == alone[0].usage
    # In a folder: no session, and said (a copy of the file its session's folder holds).
    assert [(u.path, u.reason) for u in unavailable] == [(str(renamed), STRAY_SUBAGENT)]
    given, why = sessions_under([renamed], AGENTS)
    assert given == []
    assert [u.reason for u in why] == [
        "a subagent or side file: it is read with its main session (give that one)"
    ]


def test_control_a_session_s_own_file_renamed_is_still_a_session(tmp_path: Path) -> None:
    shutil.copy(NESTED / f"{SESSION}.jsonl", tmp_path / "saved.jsonl")
    measured, unavailable = _replayed(tmp_path)
    assert [s.session_id for s in measured] == [SESSION] and unavailable == []


@pytest.mark.parametrize(
    ("cli", "name"),
    [("claude-code", "Claude Code"), ("gemini-cli", "Gemini CLI"), ("codex", "Codex")],
)
def test_a_cli_s_headless_output_is_no_session(tmp_path: Path, cli: str, name: str) -> None:
    stem = next(CORPUS.glob(f"{cli}-*-basic.report.jsonl")).name.removesuffix(".report.jsonl")
    transcript = (CORPUS / f"{stem}.transcript.jsonl").read_bytes()
    (tmp_path / f"{stem}.jsonl").write_bytes(transcript)
    alone, _ = _replayed(tmp_path)
    assert len(alone) == 1 and alone[0].agent == cli
    output = tmp_path / "output.jsonl"
    shutil.copy(CORPUS / f"{stem}.report.jsonl", output)
    measured, unavailable = _replayed(tmp_path)
    assert len(measured) == 1 and measured[0].usage == alone[0].usage  # counted once
    assert unavailable == []  # in a folder: passed over, as a file that is no session is
    reason = (
        f"{name}'s headless output, not a session transcript: the session it ran is in "
        f"{name}'s history folder (read there)"
    )
    given, why = sessions_under([output], AGENTS)
    assert given == [] and [u.reason for u in why] == [reason]
    with pytest.raises(ConfigError, match=f"{name}'s headless output, not a session transcript"):
        detect_format(output)


@pytest.mark.parametrize(
    ("cli", "name"),
    [("claude-code", "Claude Code"), ("gemini-cli", "Gemini CLI"), ("codex", "Codex")],
)
def test_a_trial_s_agent_stdout_is_told_as_headless_output_not_as_a_subagent_file(
    tmp_path: Path, cli: str, name: str
) -> None:
    # A proctor trial keeps the CLI's headless output as agent-stdout.jsonl, a name that starts
    # as a Claude Code subagent's file does (agent-*.jsonl): given alone, it is still said to
    # be the CLI's headless output, and a folder of it alone holds no session (no subagents).
    report = next(CORPUS.glob(f"{cli}-*-basic.report.jsonl"))
    output = tmp_path / "trial" / "agent-stdout.jsonl"
    output.parent.mkdir()
    shutil.copy(report, output)
    given, why = sessions_under([output], AGENTS)
    assert given == [] and [u.reason for u in why] == [
        f"{name}'s headless output, not a session transcript: the session it ran is in "
        f"{name}'s history folder (read there)"
    ]
    given, why = sessions_under([output.parent], AGENTS)
    assert given == []
    assert [u.reason for u in why] == ["no session transcript"]


def test_headless_lines_are_told_apart_from_transcript_lines() -> None:
    for cli in ("claude-code", "gemini-cli", "codex"):
        report = next(CORPUS.glob(f"{cli}-*-basic.report.jsonl"))
        first = json.loads(report.read_text().splitlines()[0])
        assert headless_output(first) == cli
        transcript = next(CORPUS.glob(f"{cli}-*-basic.transcript.jsonl"))
        lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
        assert not any(headless_output(line) for line in lines)  # the control
    assert headless_output({"session_id": "x", "response": "hi", "stats": {}}) == "gemini-cli"


def test_a_chat_log_of_text_messages_is_not_a_codex_rollout(tmp_path: Path) -> None:
    chat = {"type": "message", "role": "user", "content": "hello"}
    assert classify_record(chat) is None
    (tmp_path / "chat.jsonl").write_text(json.dumps(chat) + "\n")
    measured, _ = _replayed(tmp_path)
    assert measured == []
    # The control: a bare message item of a Codex rollout of the older releases.
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}
    assert classify_record(item) == "codex"
