"""More messages than the plan has turns: the scripted agent replies "I have nothing left in
my plan." to each message after the plan's last turn, and those turns play no step. The case
still passes or fails on its gates, and its result says so as a warning, as it says the
opposite (a plan with more turns than the test sent messages): under its progress line, in
the summary, in `--json`'s `warnings`, in `eval.json` and in `trial.json`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run
from tests.integration.test_evals_cli import project, run_json

LONG = """
    from proctor.evals import case, define_eval
    PLAN = {"turns": [{"say": "one"}, {"endTurn": True}]}
    async def thrice(t):
        for message in ("go", "again", "more"):
            (await t.send(message)).expect_ok()
    async def once(t):
        (await t.send("go")).expect_ok()
    eval = define_eval(plan=PLAN, cases=[case(id="thrice", test=thrice), case(id="once", test=once)])
"""
SAID = (
    "the plan has 1 turn (split by endTurn) and the test sent 3 messages, so these turns found "
    "no step left to play (the agent replied 'I have nothing left in my plan.'): turn 2, turn 3"
)


def test_messages_after_the_plan_s_last_turn_are_a_warning(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"long.eval.py": LONG})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["long/thrice"]["warnings"] == [SAID]
    assert by_id["long/once"]["warnings"] == []
    run_dir = Path(out["runDir"])
    eval_json = next(run_dir.glob("trials/long.thrice/*/*/1/eval.json"))
    assert json.loads(eval_json.read_text())["warnings"] == [SAID]
    trial = next(run_dir.glob("trials/long.thrice/*/*/1/trial.json"))
    assert json.loads(trial.read_text())["warnings"] == [SAID]
    once = next(run_dir.glob("trials/long.once/*/*/1/trial.json"))
    assert json.loads(once.read_text())["warnings"] == []
    # The progress line of the case, and the summary.
    text = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "o2"), "long/thrice")
    assert text.code == 0, text.err
    lines = text.err.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ long/thrice ("))
    assert lines[at + 1] == f"    warning: {SAID}", text.err
    assert f"    warning: {SAID}" in text.out


def test_a_plan_that_says_it_itself_is_not_taken_for_one_that_ran_out(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(
        tmp_path,
        {
            "own.eval.py": """
        from proctor.evals import define_eval
        PLAN = {"turns": [{"say": "I have nothing left in my plan."}, {"endTurn": True},
                          {"say": "I have nothing left in my plan."}]}
        async def test(t):
            await t.send("go")
            await t.send("again")
        eval = define_eval(plan=PLAN, test=test)
    """
        },
    )
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    assert out["results"][0]["warnings"] == []
