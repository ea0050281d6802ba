"""What a Codex rollout or a Gemini CLI chat is measured by: its own agent's records, and
something that ran. The context the CLI writes into a session when it opens is no session, a
line of another agent's pasted into a rollout moves none of its times, and a rollout of the
releases before the envelope has an end as it has a start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from proctor.cli.main import cli

CORPUS = Path(__file__).parents[2] / "corpus"
CODEX_BASIC = CORPUS / "codex-0.171.0-basic.transcript.jsonl"
CODEX_FAILURES = CORPUS / "codex-0.171.0-failures.transcript.jsonl"
GEMINI_BASIC = CORPUS / "gemini-cli-0.61.0-basic.transcript.jsonl"
GEMINI_RESUMED = CORPUS / "gemini-cli-0.61.0-two-turns.transcript.jsonl"
CLAUDE_BASIC = CORPUS / "claude-code-2.1.197-basic.transcript.jsonl"
CODEX_ID = "01a23203-f8c7-7fb3-b9cd-fc8c29877a31"
GEMINI_ID = "75a4b4a3-e78a-45f3-9068-3f88b894bbb4"
DAY = Path("sessions/2026/12/01")


def history(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["history", *args, "--no-cache", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def parsed(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["parse", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def lines_of(path: Path, *numbers: int) -> str:
    """The lines of ``path`` numbered (from 1), each with its newline."""
    lines = path.read_text().splitlines(keepends=True)
    return "".join(lines[n - 1] for n in numbers)


def rollout(home: Path, thread: str) -> Path:
    path = home / ".codex" / DAY / f"rollout-2026-12-01T14-30-50-{thread}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def chat(home: Path, short: str) -> Path:
    path = home / ".gemini" / "tmp" / "ws" / "chats" / f"session-2026-12-01T14-30-{short}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_a_session_of_the_cli_s_own_context_alone_is_no_session(tmp_path: Path) -> None:
    """Codex writes its header, a developer message and the ``<environment_context>`` when it
    opens, Gemini CLI its header and the ``<session_context>``: quit before a prompt, nothing
    ran, as in a file of the header alone. Both are unavailable, never sessions of 0 steps
    dated by the context."""
    home = tmp_path / "home"
    rollout(home, CODEX_ID).write_text(CODEX_BASIC.read_text())  # the controls: sessions
    chat(home, GEMINI_ID[:8]).write_text(GEMINI_BASIC.read_text())
    # (Lines 1, 3 and 4 of the rollout: session_meta, the developer message and the
    # <environment_context>; line 1 of the chat, its header, and 2, the <session_context>.)
    for name, numbers in (("a", (1,)), ("b", (1, 3, 4))):
        thread = CODEX_ID[:-1] + name
        text = lines_of(CODEX_BASIC, *numbers).replace(CODEX_ID, thread)
        rollout(home, thread).write_text(text)
    for name, numbers in (("a", (1,)), ("b", (1, 2))):
        session = name * 8 + GEMINI_ID[8:]
        chat(home, name * 8).write_text(
            lines_of(GEMINI_BASIC, *numbers).replace(GEMINI_ID, session)
        )
    report = history("--home", str(home), "--agent", "codex", "--agent", "gemini-cli")
    starts = {s["agent"]: s["startedAt"] for s in report["sessions"]}
    assert starts == {  # each session's first prompt
        "codex": "2026-12-01T14:30:50.863000+00:00",
        "gemini-cli": "2026-12-01T14:30:55.784000+00:00",
    }
    reasons = sorted(
        (u["agent"], Path(u["path"]).name[-7:], u["reason"]) for u in report["unavailable"]
    )
    assert reasons == [
        ("codex", "a.jsonl", "no message in it"),
        ("codex", "b.jsonl", "no message in it, the CLI's own context alone"),
        ("gemini-cli", "a.jsonl", "no message in it"),
        ("gemini-cli", "b.jsonl", "no message in it, the CLI's own context alone"),
    ]


@pytest.mark.parametrize(
    ("pasted", "record_type"),
    [
        (lines_of(CLAUDE_BASIC, 3), "user"),  # at 14:30:47.565, before the rollout's prompt
        (lines_of(GEMINI_BASIC, 3), "user"),  # at 14:30:55.784, after its last record
    ],
    ids=["claude-code", "gemini-cli"],
)
def test_a_line_of_another_agent_in_a_rollout_moves_none_of_its_times(
    tmp_path: Path, pasted: str, record_type: str
) -> None:
    """The rollout's prompt is at 14:30:51.660 and its last record at 14:30:51.845: 0.185 s,
    wherever another agent's line, with a time of its own, lies in it. The line is still an
    unknown record, and ``proctor parse`` shows it without a time."""
    lines = CODEX_FAILURES.read_text().splitlines(keepends=True)
    path = rollout(tmp_path / "home", "01a23203-fd5a-7a80-a0ac-9b3c1e0f1b01")
    path.write_text("".join([*lines[:12], pasted, *lines[12:]]))
    (control,) = history(str(CODEX_FAILURES))["sessions"]
    (session,) = history(str(path))["sessions"]
    assert (session["startedAt"], session["endedAt"]) == (
        "2026-12-01T14:30:51.660000+00:00",
        "2026-12-01T14:30:51.845000+00:00",
    )
    assert session["durationSeconds"] == pytest.approx(0.185)
    assert session["unknownRecords"] == 1 and control["unknownRecords"] == 0
    assert session["steps"] == control["steps"] and session["usage"] == control["usage"]
    # proctor parse agrees: the line is an unknown record, and no event's time is its.
    shown = parsed(path)
    assert shown["coverage"]["unknownRecordTypes"] == {record_type: 1}
    (other,) = [e for e in shown["events"] if e.get("recordType") == record_type]
    assert "ts" not in other and other["raw"]["timestamp"] in pasted
    events = shown["events"]
    times = sorted(
        e["ts"] for e in events if "ts" in e and e.get("recordType") != "harness-message"
    )
    assert (times[0], times[-1]) == ("2026-12-01T14:30:51.660Z", "2026-12-01T14:30:51.845Z")


def test_a_resumed_gemini_chat_is_timed_by_its_messages_not_its_resumed_context() -> None:
    """The resume writes the ``<session_context>`` again, at 14:31:03.380: it comes first in
    the chat's events, but its time is the CLI's, so the chat runs from its first prompt,
    14:31:01.909, to its last response, 14:31:03.469 (1.56 s)."""
    (session,) = history(str(GEMINI_RESUMED))["sessions"]
    assert (session["startedAt"], session["endedAt"]) == (
        "2026-12-01T14:31:01.909000+00:00",
        "2026-12-01T14:31:03.469000+00:00",
    )
    assert session["durationSeconds"] == pytest.approx(1.56)
    first = parsed(GEMINI_RESUMED)["events"][0]
    assert (first["recordType"], first["ts"]) == ("harness-message", "2026-12-01T14:31:03.380Z")
