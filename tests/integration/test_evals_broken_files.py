"""Several broken eval files in one evals folder are named at once, one sentence each with
its file and line, and nothing runs (exit 2), as ``proctor validate`` names every broken case
folder; the run, the listing and --dry-run import each file once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proctor.evals import case
from proctor.evals.define import EvalDefinitionError
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


def test_every_problem_of_the_config_file_is_named_with_the_broken_files(
    proctor: Run, tmp_path: Path
) -> None:
    # Its reporters and model are named at once with its agent and judge and the broken
    # file's problem, each at the line of its define_eval_config(...), not one a run.
    config = """\
from proctor.evals import define_eval_config

config = define_eval_config(
    max_concurrency=2,
    model="Scripted",
    agent="scriptd",
    judge="bad",
    reporters=["nosuch"],
)
"""
    root = project(
        tmp_path, {"b_syntax.eval.py": BROKEN["b_syntax.eval.py"], "d.eval.py": GOOD}, config
    )
    c = root / "evals" / "evals.config.py"
    for args in ((), ("--dry-run",)):
        result = proctor("eval", "--dir", str(root), "--out", str(tmp_path / "out"), *args)
        assert result.code == 2, result.err
        lines = _lines(result.err)
        assert "b_syntax.eval.py:2: cannot be imported" in lines[0], result.err
        assert lines[1:-1] == [
            f"proctor: error: {c}:3: reporters: unknown reporter nosuch (known: html, json, "
            "junit, markdown)",
            f'proctor: error: {c}:3: model "Scripted": did you mean scripted (proctor\'s '
            "scripted model)?",
            f"proctor: error: {c}:3: agent: unknown agent 'scriptd' (did you mean 'scripted'? "
            "known: acp, acp:claude, acp:gemini, claude-code, codex, gemini-cli, scripted)",
            f"proctor: error: {c}:3: judge: expected 'provider/model' (e.g. "
            'anthropic/claude-x), got "bad"',
        ], result.err
        assert lines[-1] == (
            f"proctor: error: 5 problems in {root / 'evals'}, each named above; no eval was run"
        )
    # no max_concurrency is one more problem, beside the flags' (--reporter's over the
    # config's); a config file that does not load is not said to lack it
    c.write_text(config.replace("max_concurrency=2,", ""))
    result = proctor("eval", "--dir", str(root), "--reporter", "zz", "--judge-model", "x")
    lines = _lines(result.err)
    assert lines[1:4] == [
        f"proctor: error: {c}:3: define_eval_config(max_concurrency=…) is required to run evals",
        "proctor: error: --reporter: unknown reporter zz (known: html, json, junit, markdown)",
        f'proctor: error: {c}:3: model "Scripted": did you mean scripted (proctor\'s '
        "scripted model)?",
    ], result.err
    assert "--judge-model: expected 'provider/model'" in lines[4], result.err
    c.write_text(config.replace("max_concurrency=2,", "max_concurency=2,"))
    result = proctor("eval", "--dir", str(root))
    assert "required to run evals" not in result.err
    assert f"{c}:3: define_eval_config() has no argument 'max_concurency'" in result.err


def test_a_config_given_by_a_link_is_counted_by_the_name_its_lines_give(
    proctor: Run, tmp_path: Path
) -> None:
    # `--config -` is read as /dev/stdin, a link to a pipe: the count names /dev/stdin too
    root = project(tmp_path, {"d.eval.py": GOOD})
    real = tmp_path / "real.json"
    real.write_text('{"bogus": 1, "budgetUsd": "x"}\n')
    link = tmp_path / "link.json"
    link.symlink_to(real)
    result = proctor("eval", "--dir", str(root), "--config", str(link), "--dry-run")
    assert result.code == 2, result.err
    lines = _lines(result.err)
    assert all(line.startswith(f"proctor: error: {link}: ") for line in lines[:2]), lines
    assert lines[2] == (
        f"proctor: error: 2 problems in {root / 'evals'} and {link}, each named above; "
        "no eval was run"
    )


def test_every_bad_argument_of_every_case_is_named(proctor: Run, tmp_path: Path) -> None:
    # Two bad arguments in one case(...), a bad id and a bad argument in the next, a
    # misspelt keyword in a third: each its line, not only the first case's first.
    cases = """\
from proctor.evals import case, define_eval

async def test(t):
    pass

eval = define_eval(iterations=0, cases=[
    case(id="one", timeout_ms=-5, iterations=0, test=test),
    case(id="t/wo", tags="x", test=test),
    case(id="three", descripton="x", test=test),
])
"""
    config = "from proctor.evals import define_eval_config\n\n" + (
        'config = define_eval_config(max_concurrency=0, reporters="json")\n'
    )
    root = project(tmp_path, {"a.eval.py": cases}, config=config)
    a = root / "evals" / "a.eval.py"
    c = root / "evals" / "evals.config.py"
    for args in ((), ("--list",)):
        result = proctor("eval", "--dir", str(root), *args)
        assert result.code == 2, result.err
        assert _lines(result.err)[:-1] == [
            # the misspelt keyword of the third case stops nothing: define_eval(...) is checked
            f"proctor: error: {a}:6: define_eval(): argument 'iterations': expected a whole "
            "number from 1 to 100 or None, got 0",
            f"proctor: error: {a}:7: case(id='one'): argument 'timeout_ms': expected a whole "
            "number from 1 to 86400000 or None, got -5",
            f"proctor: error: {a}:7: case(id='one'): argument 'iterations': expected a whole "
            "number from 1 to 100 or None, got 0",
            f"proctor: error: {a}:8: case id 't/wo': must be one path segment (no '/')",
            f"proctor: error: {a}:8: case(id='t/wo'): argument 'tags': expected a list of "
            "names, got the string 'x'",
            f"proctor: error: {a}:9: case(id='three') has no argument 'descripton' (did you mean "
            "'description'?)",
            f"proctor: error: {c}:3: define_eval_config(): argument 'max_concurrency': expected "
            "a whole number from 1 to 200 or None, got 0",
            f"proctor: error: {c}:3: define_eval_config(): argument 'reporters': expected a "
            "list of names, got the string 'json'",
        ], result.err
    # and with the keyword mended, the rest is named as before
    (root / "evals" / "a.eval.py").write_text(cases.replace("descripton", "description"))
    (c).write_text(config.replace("max_concurrency=0, ", "max_concurrency=1, "))
    result = proctor("eval", "--dir", str(root))
    assert result.code == 2, result.err
    lines = _lines(result.err)
    assert lines[0] == (
        f"proctor: error: {a}:6: define_eval(): argument 'iterations': expected a whole number "
        "from 1 to 100 or None, got 0"
    ), result.err
    assert len(lines) == 7 and lines[-1].startswith("proctor: error: 6 problems in "), result.err


def test_control_a_call_outside_an_eval_file_raises_its_first_bad_argument() -> None:
    # The Python API's rule: a bad argument raises at the call, the first one found.
    async def test(t: object) -> None: ...

    with pytest.raises(EvalDefinitionError, match="argument 'timeout_ms'"):
        case(id="one", timeout_ms=-5, iterations=0, test=test)


def test_a_repeated_case_id_is_named_beside_a_bad_argument_of_one_of_them(
    proctor: Run, tmp_path: Path
) -> None:
    """Only `iterations` was said: the broken case's id was not counted."""
    cases = """\
from proctor.evals import case, define_eval

async def test(t):
    pass

eval = define_eval(cases=[
    case(id="x", test=test, iterations=0),
    case(id="x", test=test),
    case(id=1, test=test),
    case(id=2, test=test),
])
"""
    root = project(tmp_path, {"a.eval.py": cases})
    a = root / "evals" / "a.eval.py"
    result = proctor("eval", "--dir", str(root))
    assert result.code == 2, result.err
    assert _lines(result.err)[:-1] == [  # (two ids that are no string are no repeated id)
        f"proctor: error: {a}:6: define_eval: case ids must be unique; repeated: ['x']",
        f"proctor: error: {a}:7: case(id='x'): argument 'iterations': expected a whole number "
        "from 1 to 100 or None, got 0",
        f"proctor: error: {a}:9: case(): argument 'id': expected a string, got 1",
        f"proctor: error: {a}:10: case(): argument 'id': expected a string, got 2",
    ], result.err
