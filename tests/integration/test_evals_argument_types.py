"""``proctor eval`` on a gate given an argument of the wrong Python type: the case is
``eval-error`` with the TypeError that names the method as the test called it, the argument,
what it expects and what it got, at the line of the eval file that called it (not a line of
proctor's), in the text output, ``--json`` and ``eval.json``; a case calling the same gates
with the right types passes in the same run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

PLAN = '{"turns": [{"write": {"path": "a.txt", "content": "x"}}, {"say": "done"}]}'

BAD = {
    "name": (
        "t.called_tool(5)",
        "t.called_tool(): argument 'name': expected a tool name (a string), got 5",
    ),
    "count": (
        't.called_tool("write", count=True)',
        "t.called_tool(): argument 'count': expected an int or None, got True (a bool)",
    ),
    "letters": (
        'turn.tool_order("write")',
        "turn.tool_order(): argument 'names': expected a list of tool names, got the string "
        "'write'",
    ),
    "threshold": (
        't.score("quality", 0.9).gate("0.8")',
        "score('quality').gate(): argument 'bar': expected a number, got the string '0.8'",
    ),
    "score": (
        't.score("quality", "0.9")',
        "t.score(): argument 'value': expected a number, got the string '0.9'",
    ),
    "globs": (
        't.no_hidden_reads("secret.txt")',
        "t.no_hidden_reads(): argument 'globs': expected a list of globs, got the string "
        "'secret.txt'",
    ),
    "judge": (
        "await t.judge.closed_qa(5)",
        "t.judge.closed_qa(): argument 'criteria': expected a string, got 5",
    ),
}


def eval_file(body: str) -> str:
    return f"""
        from proctor.evals import define_eval
        async def test(t):
            turn = await t.send("go")
            t.log("before")
            {body}
        eval = define_eval(plan={PLAN}, timeout_ms=20_000, test=test)
    """


def test_a_gate_argument_of_the_wrong_type_is_an_eval_error_at_its_line(
    proctor: Run, tmp_path: Path
) -> None:
    files = {f"{name}.eval.py": eval_file(body) for name, (body, _) in BAD.items()}
    # The control: the same gates with arguments of the right types pass.
    files["good.eval.py"] = eval_file(
        't.called_tool("write", count=1); turn.tool_order(["write"]); '
        't.score("quality", 0.9).gate(0.8); t.no_hidden_reads(["secret.txt"])'
    )
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    assert by_id["good"]["status"] == "passed", by_id["good"]
    for name, (_, said) in BAD.items():
        record = by_id[name]
        assert record["status"] == "eval-error", record
        where = f"(at {root / 'evals' / f'{name}.eval.py'}:6)"
        assert record["error"] == f"TypeError: {said} {where}", record
        eval_json = next((tmp_path / "out").glob(f"run-*/trials/{name}/*/default/1/eval.json"))
        assert json.loads(eval_json.read_text())["error"] == record["error"]


def test_the_text_output_shows_the_type_error_at_the_eval_file_line(
    proctor: Run, tmp_path: Path
) -> None:
    root = project(tmp_path, {"order.eval.py": eval_file('t.tool_order("write")')})
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"))
    assert result.code == 3, result.err
    said = (
        "error: TypeError: t.tool_order(): argument 'names': expected a list of tool names, got "
        f"the string 'write' (at {root / 'evals' / 'order.eval.py'}:6)"
    )
    assert said in result.err, result.err
    assert "vocabulary.py" not in result.err and "Traceback" not in result.err
