"""A ``t.send`` the test's own ``asyncio.wait_for`` gives up on stops the scripted agent's
turn (a program in a terminal) as the case's timeout does: the case is the test's
``TimeoutError`` (eval-error), its turn is recorded ``interrupted``, and a later send is told
the session was stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

BODY = """\
import asyncio
from proctor.evals import define_eval

async def test(t):
    try:
        await asyncio.wait_for(t.send("one"), 0.3)
    finally:
        t.log(f"outcomes {[turn.outcome for turn in t.turns]}")
    {after}

eval = define_eval(test=test, timeout_ms=120000, plan={"turns": [{"sleep": 60}, {"say": "two"}]})
"""


def _eval_json(out: dict[str, Any], case: str) -> dict[str, Any]:
    [found] = Path(out["runDir"]).glob(f"trials/{case}/*/*/*/eval.json")
    return dict(json.loads(found.read_text()))


def test_a_cancelled_send_interrupts_the_agent_s_turn(proctor: Run, tmp_path: Path) -> None:
    files = {
        "waits.eval.py": BODY.replace("{after}", "pass"),
        "again.eval.py": BODY.replace(
            "    finally:", "    except TimeoutError:\n        pass\n    finally:"
        ).replace("{after}", 'await t.send("two")'),
    }
    result, out = run_json(proctor, project(tmp_path, files), tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    waits = by_id["waits"]
    assert waits["status"] == "eval-error", waits
    assert waits["error"].startswith('TimeoutError: await asyncio.wait_for(t.send("one"), 0.3)')
    assert waits["logs"] == ["outcomes ['interrupted']"], waits
    assert _eval_json(out, "waits")["turnOutcomes"] == ["interrupted"]
    again = by_id["again"]
    assert again["status"] == "eval-error", again
    assert again["error"].startswith(
        "RuntimeError: t.send('two'): turn 1 was interrupted (its send was cancelled), which "
        "stopped the agent's session; there is no session to send to"
    ), again
