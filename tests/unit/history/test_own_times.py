"""What a Codex rollout or a Gemini CLI chat is measured by: its own agent's records, and
something that ran. The context the CLI writes into a session when it opens is no session, a
line of another agent's pasted into a rollout moves none of its times, and a rollout of the
releases before the envelope has an end as it has a start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
