"""``proctor run`` on case folders whose scripted plan has more turns than the case sends
messages (its prompt and ``followUps``): the steps no message reached are a warning in the
trial's record and in suite.md, where they were cut short silently. It decides nothing, and a
case whose last turn did not complete gets none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import write_case

Run = Any

TWO_TURNS = {
    "turns": [
        {"say": "hi"},
        {"endTurn": True},
        {"write": {"path": "a.txt", "content": "x"}},
        {"say": "done"},
    ]
}
GATE = [{"use": "command", "run": "true", "gate": True}]


def _config(**more: Any) -> dict[str, Any]:
    return {"agents": ["scripted"], "timeoutSec": 30, "evaluators": GATE, **more}


def test_plan_steps_no_follow_up_reached_are_a_warning(proctor: Run, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    write_case(cases, "short", config=_config(), plan=TWO_TURNS)
    write_case(cases, "enough", config=_config(followUps=["now write"]), plan=TWO_TURNS)
    # Its first turn exits: the turn says why the plan stopped, so no warning.
    exits = {"turns": [{"exit": 1}, {"endTurn": True}, {"say": "never"}]}
    write_case(cases, "exits", config=_config(), plan=exits)
    out = tmp_path / "out"
    result = proctor("run", "--source", str(cases), "--out", str(out))
    (run,) = out.glob("run-*")

    def warnings(case: str) -> list[str]:
        trial = run / "trials" / case / "scripted" / "default" / "1" / "trial.json"
        return list(json.loads(trial.read_text())["warnings"])

    said = (
        "the plan has 2 turns (split by endTurn) and the case (prompt and followUps) sent 1 "
        "message, so these steps never played: turns[2] (write), turns[3] (say)"
    )
    assert warnings("short") == [said], result.err
    # The progress line of the trial is followed by its warning, as it runs.
    assert f"passed short/scripted/default/1 (score 100)\n    warning: {said}\n" in result.err
    assert warnings("enough") == [] and warnings("exits") == []
    suite_md = (run / "suite.md").read_text()
    assert f"## Warnings\n\n- `trials/short/scripted/default/1`: {said}\n" in suite_md
    assert "trials/enough" not in suite_md.split("## Warnings")[1].split("##")[0]
    # It decides nothing: the short case passed.
    short = json.loads((run / "trials/short/scripted/default/1/trial.json").read_text())
    assert short["status"] == "passed"
