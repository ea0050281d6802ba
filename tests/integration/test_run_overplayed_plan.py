"""``proctor run`` on case folders that send more messages (their prompt and ``followUps``)
than the scripted plan has turns: the scripted agent replies "I have nothing left in my plan."
to each message after the plan's last turn and plays no step, and the trial's record says so
as a warning, as it says the opposite (steps no message reached), in ``trial.json``, under the
trial's progress line and in suite.md. It decides nothing; matching counts give none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_case

Run = Any

ONE_TURN = {"turns": [{"write": {"path": "a.txt", "content": "x"}}, {"say": "done"}]}
TWO_TURNS = {"turns": [{"say": "hi"}, {"endTurn": True}, {"say": "done"}]}
GATE = [{"use": "command", "run": "true", "gate": True}]


def _config(**more: Any) -> dict[str, Any]:
    return {"agents": ["scripted"], "timeoutSec": 30, "evaluators": GATE, **more}


def test_follow_ups_after_the_plan_s_last_turn_are_a_warning(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "long", config=_config(followUps=["again", "more"]), plan=ONE_TURN)
    write_case(cases, "even", config=_config(followUps=["again"]), plan=TWO_TURNS)
    # A plan that says the sentence itself: such a reply is no sign it ran out.
    own = {"turns": [{"say": "I have nothing left in my plan."}]}
    write_case(cases, "own", config=_config(followUps=["again"]), plan=own)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(cases), "--out", str(out))
    (run,) = out.glob("run-*")

    def trial(case: str) -> dict[str, Any]:
        path = run / "trials" / case / "scripted" / "default" / "1" / "trial.json"
        return dict(json.loads(path.read_text()))

    said = (
        "the plan has 1 turn (split by endTurn) and the case (prompt and followUps) sent 3 "
        "messages, so these turns found no step left to play (the agent replied 'I have nothing "
        "left in my plan.'): turn 2, turn 3"
    )
    assert trial("long")["warnings"] == [said], result.err
    assert f"passed long/scripted/default/1 (score 100)\n    warning: {said}\n" in result.err
    assert trial("even")["warnings"] == [] and trial("own")["warnings"] == []
    suite_md = (run / "suite.md").read_text()
    assert f"## Warnings\n\n- `trials/long/scripted/default/1`: {said}\n" in suite_md
    assert "trials/even" not in suite_md.split("## Warnings")[1].split("##")[0]
    # It decides nothing: the case passed on its gate.
    assert trial("long")["status"] == "passed"
