"""Several broken eval files in one evals folder are named at once, one sentence each with
its file and line, and nothing runs (exit 2), as ``proctor validate`` names every broken case
folder; the run, the listing and --dry-run import each file once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.test_evals_cli import project, run_json

Run = Any

GOOD = """\
from proctor.evals import define_eval

print("imported good")

async def test(t):
    (await t.send("hi")).expect_ok()

eval = define_eval(test=test, plan={"turns": [{"say": "hello"}]})
"""

BROKEN = {
    "a_dup.eval.py": """\
from proctor.evals import case, define_eval

async def test(t):
    pass

eval = define_eval(cases=[case(id="x", test=test), case(id="x", test=test)])
""",
    "b_syntax.eval.py": "from proctor.evals import define_eval\nasync def test(t)\n    pass\n",
    "c_agent.eval.py": GOOD.replace("test=test,", 'agent="scriptd", test=test,'),
    "d_good.eval.py": GOOD,
}


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("proctor: error: ")]


def test_every_broken_eval_file_is_named_and_nothing_runs(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, BROKEN)
    evals = root / "evals"
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 2, result.err
    assert out == {}
    assert _lines(result.err) == [
        f"proctor: error: {evals / 'a_dup.eval.py'}:6: define_eval: case ids must be unique; "
        "repeated: ['x']",
        f"proctor: error: {evals / 'b_syntax.eval.py'}:2: cannot be imported (SyntaxError: "
        "expected ':' (b_syntax.eval.py, line 2))",
        f"proctor: error: {evals / 'c_agent.eval.py'}:8: unknown agent 'scriptd' (did you mean "
        "'scripted'? known: acp, acp:claude, acp:gemini, claude-code, codex, gemini-cli, "
        "scripted)",
        f"proctor: error: 3 problems in {evals}, each named above; no eval was run",
    ]
    assert not (tmp_path / "out").exists()  # the good file's eval did not run
    assert result.err.count("imported good") == 2  # c_agent and d_good, each once

    dry = proctor("eval", "--dir", str(root), "--dry-run")
    assert dry.code == 2 and len(_lines(dry.err)) == 4, dry.err

    # --list reads no agent: the files that do not load alone
    listed = proctor("eval", "--dir", str(root), "--list")
    assert listed.code == 2 and listed.out == ""
    assert _lines(listed.err)[2:] == [
        f"proctor: error: 2 problems in {evals}, each named above; none was listed"
    ]


def test_one_broken_file_is_the_one_sentence(proctor: Run, tmp_path: Path) -> None:
    root = project(tmp_path, {"b_syntax.eval.py": BROKEN["b_syntax.eval.py"], "d.eval.py": GOOD})
    result, _ = run_json(proctor, root, tmp_path)
    assert result.code == 2
    assert _lines(result.err) == [
        f"proctor: error: {root / 'evals' / 'b_syntax.eval.py'}:2: cannot be imported "
        "(SyntaxError: expected ':' (b_syntax.eval.py, line 2))"
    ]
    # the files that load still run when the broken one is mended
    (root / "evals" / "b_syntax.eval.py").unlink()
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 0, result.err
    assert [r["status"] for r in out["results"]] == ["passed"]
