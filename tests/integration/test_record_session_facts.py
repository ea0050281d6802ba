"""What ``proctor record`` reads from a session's transcript beyond its steps: the turns the
person interrupted (Esc or Ctrl-C, as each CLI writes it), and whether its responses came from
proctor's scripted model server, which costs nothing whatever model the CLI asked for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Run
from tests.integration.test_by_hand import CASE

CORPUS = Path(__file__).parents[1] / "corpus"
REAL_CLAUDE = (
    Path(__file__).parents[1]
    / "fixtures/transcripts/claude/7f3c2a10-0000-4000-8000-000000000001.jsonl"
)
RAN_ELSEWHERE = "the transcript's session ran in "


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def claude_interrupted(folder: Path) -> Path:
    """Claude Code 2.1.197's two-turn session, its first turn interrupted once its tool ran:
    the entry the CLI writes then, after the tool's result."""
    records = _lines(CORPUS / "claude-code-2.1.197-two-turns.transcript.jsonl")
    result = records[6]
    assert result["type"] == "user" and "toolUseResult" in result
    note = {
        k: v for k, v in result.items() if k not in ("toolUseResult", "sourceToolAssistantUUID")
    }
    note["uuid"] = "0b6c1c36-1d51-4c1e-9d0e-6c1b2d3e4f50"
    note["parentUuid"] = result["uuid"]
    note["message"] = {
        "role": "user",
        "content": [{"type": "text", "text": "[Request interrupted by user]"}],
    }
    return _write(folder / "claude.jsonl", [*records[:7], note, *records[7:]])


def codex_interrupted(folder: Path) -> Path:
    """Codex 0.171.0's two-turn rollout, its first turn aborted by the person (``turn_aborted``,
    reason ``interrupted``) and its second replaced (no interruption)."""
    records = _lines(CORPUS / "codex-0.171.0-two-turns.transcript.jsonl")
    ends = [i for i, r in enumerate(records) if r["payload"].get("type") == "task_complete"]
    assert len(ends) == 2
    for i, reason in zip(ends, ("interrupted", "replaced"), strict=True):
        turn = records[i]["payload"].get("turn_id")
        records[i]["payload"] = {"type": "turn_aborted", "turn_id": turn, "reason": reason}
    return _write(folder / "rollout.jsonl", records)


def gemini_interrupted(folder: Path) -> Path:
    """Gemini CLI 0.61.0's two-turn chat, its first turn's call cancelled by Esc, its second's
    refused at its prompt (a denial, no interruption)."""
    records = _lines(CORPUS / "gemini-cli-0.61.0-two-turns.transcript.jsonl")
    finals = [i for i, r in enumerate(records) if r.get("toolCalls")]
    answers = (
        "[Operation Cancelled] User cancelled tool execution.",
        "[Operation Cancelled] Reason: User denied execution.",
    )
    for i, said in zip(finals[-2:], answers, strict=True):
        call = records[i]["toolCalls"][0]
        call["status"] = "cancelled"
        response = call["result"][0]["functionResponse"]
        response["response"] = {"error": said}
    return _write(folder / "chat.jsonl", records)


CRAFTED = [
    ("claude-code", claude_interrupted),
    ("codex", codex_interrupted),
    ("gemini-cli", gemini_interrupted),
]


def _recorded(
    proctor: Run, tmp_path: Path, agent: str, given: Path, *more: str
) -> tuple[dict[str, Any], str]:
    """The trial ``proctor record`` writes of ``given`` for the by-hand case, and what it
    printed."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    out = tmp_path / "results"
    args = ["record", str(CASE), "--agent", agent, "--workspace", str(workspace)]
    result = proctor(*args, "--transcript", str(given), "--out", str(out), *more)
    assert result.code == 1, result.err  # b.txt is missing: the case fails
    (found,) = out.glob(f"run-*/trials/add-b/{agent}/default/1/trial.json")
    return json.loads(found.read_text()), result.out


@pytest.mark.parametrize(("agent", "craft"), CRAFTED, ids=[a for a, _ in CRAFTED])
def test_a_recorded_session_counts_the_turns_the_person_interrupted(
    proctor: Run, tmp_path: Path, agent: str, craft: Any
) -> None:
    """A turn the person interrupted was not counted (``timings.interruptions`` 0): counted
    once per turn, from what each CLI writes of it, never a turn aborted for another reason
    nor a call refused at its prompt."""
    trial, _ = _recorded(proctor, tmp_path, agent, craft(tmp_path))
    assert trial["timings"]["turnsTotal"] == 2
    assert trial["timings"]["interruptions"] == 1


SCRIPTED = [
    ("claude-code", "claude-code-2.1.197-basic", ()),
    ("codex", "codex-0.171.0-basic", ()),
    ("gemini-cli", "gemini-cli-0.61.0-basic", ("--model", "scripted")),
]


@pytest.mark.parametrize(("agent", "name", "more"), SCRIPTED, ids=[a for a, _, _ in SCRIPTED])
def test_a_session_on_the_scripted_model_costs_nothing_and_says_why(
    proctor: Run, tmp_path: Path, agent: str, name: str, more: tuple[str, ...]
) -> None:
    """A session run against the scripted model server was priced at the list price of the
    model the CLI asked for, which it never paid: priced at 0 with a note (Claude Code and
    Codex write the server's response ids; Gemini CLI none, so --model scripted says so)."""
    given = CORPUS / f"{name}.transcript.jsonl"
    trial, printed = _recorded(proctor, tmp_path, agent, given, *more)
    assert trial["usage"], "tokens were counted"
    assert trial["cost"]["totalUsd"] == 0
    assert set(trial["cost"]["byModel"].values()) == {0}
    # (The corpus sessions ran in another folder, which a note of its own says.)
    (note,) = [w for w in trial["warnings"] if not w.startswith(RAN_ELSEWHERE)]
    assert note.startswith("the session ran on proctor's scripted model (")
    assert "its responses cost nothing, priced at $0, not at the list price of " in note
    assert note in printed


def test_a_session_on_a_real_model_keeps_its_price_and_no_interruption(
    proctor: Run, tmp_path: Path
) -> None:
    trial, _ = _recorded(proctor, tmp_path, "claude-code", REAL_CLAUDE)
    assert trial["cost"]["totalUsd"] > 0
    assert all(w.startswith(RAN_ELSEWHERE) for w in trial.get("warnings", []))
    assert trial["timings"]["interruptions"] == 0
