"""A real CLI on the scripted model asks an ``ask`` step as plain text when it offers no
question tool: the turn ends there, and the test's answer is a message. Counting messages
by ``endTurn`` then took that answer for the plan's second turn, and steps after it never
played without a warning; the request log's ``played.steps`` says what played."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from proctor.drive.driver import TurnOutcome
from proctor.evals.context import TestContext
from proctor.evals.conversation import _unplayed
from proctor.evals.turns import TurnState
from proctor.scripted.offered import played_steps

PLAN = {
    "turns": [
        {"ask": "Which file?"},
        {"say": "ok"},
        {"endTurn": True},
        {"write": {"path": "a.txt", "content": "x"}},
        {"say": "done"},
    ]
}


def _context(trial_dir: Path, sent: int) -> TestContext:
    t = TestContext(cast(Any, SimpleNamespace(trial_dir=trial_dir)))
    for i in range(sent):
        t._turns.append(TurnState(i + 1, "", TurnOutcome("turn-end"), [], None, f"m{i}"))
    return t


def test_a_question_asked_as_text_does_not_hide_unplayed_steps(tmp_path: Path) -> None:
    log = tmp_path / "model-requests.jsonl"
    records = [
        {"played": {"segment": 1, "response": 1, "steps": [0], "endTurn": True}},
        {"played": {"segment": 2, "response": 1, "steps": [1], "endTurn": True}},
        {"played": "side request"},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert played_steps(log) == {0, 1}
    said = _unplayed(PLAN, 1, _context(tmp_path, 2))
    assert said == (
        "the plan has 2 turns (split by endTurn) and the test sent 2 messages, some answering "
        "a question the agent asked as plain text (which ended its turn), so these steps never "
        "played: turns[3] (write), turns[4] (say)"
    )


def test_without_a_log_messages_are_counted_by_end_turn(tmp_path: Path) -> None:
    """The scripted agent plays its plan itself (no request log), and a log of side requests
    alone (a judge's) says nothing of the plan."""
    assert played_steps(tmp_path / "model-requests.jsonl") is None
    assert _unplayed(PLAN, 1, _context(tmp_path, 2)) is None
    (tmp_path / "model-requests.jsonl").write_text('{"played": "side request"}\n')
    assert played_steps(tmp_path / "model-requests.jsonl") is None
    assert _unplayed(PLAN, 1, _context(tmp_path, 1)) == (
        "the plan has 2 turns (split by endTurn) and the test sent 1 message, so these steps "
        "never played: turns[3] (write), turns[4] (say)"
    )
