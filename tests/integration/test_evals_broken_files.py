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


def test_every_problem_of_each_case_is_named(proctor: Run, tmp_path: Path) -> None:
    # A case with a bad judge and a bad plan, another with those and an unknown agent too:
    # each problem its own line, not only each case's first.
    two = """\
from proctor.evals import case, define_eval

async def test(t):
    pass

eval = define_eval(cases=[
    case(id="one", judge="nojudge", plan={"turns": [{"nosuch": 1}]}, test=test),
    case(id="two", agent="scriptd", judge="bad", plan={"turns": [{"say": 3}]}, test=test),
])
"""
    root = project(tmp_path, {"a.eval.py": two})
    a = root / "evals" / "a.eval.py"
    for args in ((), ("--dry-run",)):
        result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *args)
        assert result.code == 2, result.err
        lines = _lines(result.err)
        assert [line.split(": ")[2] for line in lines[:-1]] == [
            f"{a}:7",
            f"{a}:7",
            f"{a}:8",
            f"{a}:8",
            f"{a}:8",
        ], result.err
        assert "judge: expected 'provider/model'" in lines[0]
        assert "plan of a/one: field 'turns[0]'" in lines[1]
        assert "unknown agent 'scriptd'" in lines[2]
        assert "judge: expected 'provider/model'" in lines[3] and '"bad"' in lines[3]
        assert "plan of a/two: field 'turns[0].say'" in lines[4]
        assert lines[-1] == (
            f"proctor: error: 5 problems in {root / 'evals'}, each named above; no eval was run"
        )
    assert not (tmp_path / "out").exists()


def test_a_broken_proctor_json_is_named_with_the_broken_files(proctor: Run, tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"b_syntax.eval.py": BROKEN["b_syntax.eval.py"], "d.eval.py": GOOD},
    )
    (root / "proctor.json").write_text('{"bogus": 1, "budgetUsd": "x"}\n')
    result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"))
    assert result.code == 2, result.err
    lines = _lines(result.err)
    assert len(lines) == 4, result.err
    assert "b_syntax.eval.py:2: cannot be imported" in lines[0]
    assert sorted(lines[1:3]) == [
        f"proctor: error: {root / 'proctor.json'}: field 'budgetUsd': expected a number, "
        'got the string "x"',
        f"proctor: error: {root / 'proctor.json'}: unknown key 'bogus' (known keys: agents, "
        "budgetUsd, codingagents, concurrency, conditions, env, gate, limits, metrics, models, "
        "out, passThreshold, pricing, provision, repeats, setup, teardown, timeoutSec)",
    ]
    assert lines[3] == (
        f"proctor: error: 3 problems in {root / 'evals'} and {root / 'proctor.json'}, each "
        "named above; no eval was run"
    )
    # malformed JSON, one sentence, beside the broken file and a case's bad plan
    (root / "proctor.json").write_text('{"out": \n')
    (root / "evals" / "d.eval.py").write_text(GOOD.replace('"say": "hello"', '"say": 3'))
    result = proctor("eval", "--dir", str(root), "--dry-run")
    assert result.code == 2, result.err
    lines = _lines(result.err)
    assert len(lines) == 4, result.err
    assert "proctor.json: malformed JSON at line 2" in lines[1]
    assert "plan of d: field 'turns[0].say'" in lines[2]
