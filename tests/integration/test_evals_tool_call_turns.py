"""Each tool call in ``--json``'s ``toolCalls`` (and ``eval.json``'s) says the turn it was made
in and its normalised kind: a multi-turn eval's calls were one flat list of the agent's own
tool names, so what each turn did could not be told from the results, nor compared between
agents whose tools are named apart."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run
from tests.integration.test_evals_cli import project, run_json

TWO_TURNS = """
    from proctor.evals import define_eval
    PLAN = {"turns": [
        {"read": "a.txt"},
        {"edit": {"path": "a.txt", "old": "one", "new": "two"}},
        {"say": "edited"},
        {"endTurn": True},
        {"shell": "cat a.txt"},
        {"say": "checked"},
    ]}
    async def test(t):
        (await t.send("edit a.txt", workspace_files={"a.txt": "one\\n"})).expect_ok()
        (await t.send("check it")).expect_ok()
    eval = define_eval(plan=PLAN, test=test)
"""


def test_each_tool_call_names_its_turn_and_kind(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"two.eval.py": TWO_TURNS})
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    calls = [(c["toolName"], c["kind"], c["turn"]) for c in out["results"][0]["toolCalls"]]
    assert calls == [("Read", "read", 1), ("Edit", "edit", 1), ("Bash", "shell", 2)]
    eval_json = next(Path(out["runDir"]).glob("trials/two/*/*/1/eval.json"))
    kept = json.loads(eval_json.read_text())["toolCalls"]
    assert [(c["kind"], c["turn"]) for c in kept] == [("read", 1), ("edit", 1), ("shell", 2)]
