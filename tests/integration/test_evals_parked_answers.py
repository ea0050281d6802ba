"""A question that parked a turn, answered by the test's next send, is two lines of
``questions.jsonl`` (left pending, then answered) of one question: the trajectory's answer
took the first line's policy (``abort``, though the test answered it), and every later
answer's policy was shifted by one; and the trial counted two interruptions for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

EVAL = """
from proctor.evals import define_eval

PLAN = {
    "turns": [
        {"ask": "Where should I deploy?", "options": ["staging", "production"]},
        {"ask": "Run the migrations?", "options": ["yes", "no"]},
        {"write": {"path": "deploy.txt", "content": "staging\\n"}},
        {"say": "Deploying to staging."},
    ]
}


async def test(t):
    (await t.send("Deploy the app.")).parked()
    (await t.send("staging")).parked()
    (await t.send("yes")).expect_ok()


eval = define_eval(description="two questions, each answered by the test", plan=PLAN, test=test)
"""


def test_a_parked_question_answered_later_is_one_question_with_the_answers_policy(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"deploy.eval.py": EVAL})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    trial = next(Path(out["runDir"], "trials").glob("deploy/*/default/1"))
    records = [json.loads(line) for line in (trial / "questions.jsonl").read_text().splitlines()]
    assert [(r["question"], r.get("answer")) for r in records] == [
        ("Where should I deploy?", None),
        ("Where should I deploy?", "staging"),
        ("Run the migrations?", None),
        ("Run the migrations?", "yes"),
    ]
    events = [json.loads(line) for line in (trial / "trajectory.jsonl").read_text().splitlines()]
    answers = [(e["text"], e.get("policy")) for e in events if e["type"] == "answer"]
    assert answers == [("staging", "rule"), ("yes", "rule")]
    timings = json.loads((trial / "trial.json").read_text())["timings"]
    assert (timings["turnsTotal"], timings["interruptions"]) == (3, 2)
