"""A keyword an eval file gives one of proctor's functions that it does not take (a typo) is
one sentence naming the file and line, the function, the unknown argument and the nearest ones
it takes, where it was Python's ``cannot be imported (TypeError: define_eval() got an
unexpected keyword argument 'descripton')``; and a value given by position to a function that
takes keywords only is one sentence naming them, where it was ``define_eval() takes 0
positional arguments but 1 was given``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import CONFIG, project, run_json

Run = Any

OK_EVAL = "from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval(test=t)\n"


def refused(proctor: Run, tmp_path: Path, body: str, config: str = CONFIG) -> str:
    """What ``proctor eval`` says of an eval file ``body`` (and ``evals.config.py``, a good
    one unless given) it refuses before anything runs (exit 2, no traceback)."""
    root = project(tmp_path, {"a.eval.py": body}, config=config)
    result = proctor("eval", "--dir", str(root), "--no-stream")
    assert result.code == 2, result.err
    assert "Traceback" not in result.err, result.err
    return str(result.err)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "from proctor.evals import define_eval\nasync def t(x): ...\n"
            "e = define_eval(descripton='x', test=t)\n",
            "a.eval.py:3: define_eval() has no argument 'descripton' (did you mean 'description'?)",
        ),
        (
            "from proctor.evals import case, define_eval\nasync def t(x): ...\n"
            "e = define_eval(\n    cases=[\n        case(id='a', test=t, tag=['x']),\n    ]\n)\n",
            "a.eval.py:5: case(id='a') has no argument 'tag' (did you mean 'tags'?)",
        ),
        (
            "from proctor.evals import define_eval, similarity\nasync def t(x): ...\n"
            "s = similarity('x', treshold=0.5)\ne = define_eval(test=t)\n",
            "a.eval.py:3: similarity() has no argument 'treshold' (did you mean 'threshold'?)",
        ),
    ],
)
def test_a_misspelt_keyword_in_an_eval_file_names_the_near_ones(
    proctor: Run, tmp_path: Path, body: str, expected: str
) -> None:
    err = refused(proctor, tmp_path, body)
    assert expected in err and "unexpected keyword" not in err, err


def test_a_misspelt_keyword_in_the_config_file_names_the_near_ones(
    proctor: Run, tmp_path: Path
) -> None:
    config = (
        "from proctor.evals import define_eval_config\nc = define_eval_config(max_concurency=2)\n"
    )
    err = refused(proctor, tmp_path, OK_EVAL, config)
    assert (
        "evals.config.py:2: define_eval_config() has no argument 'max_concurency' (did you mean "
        "'max_concurrency'?)"
    ) in err, err


def test_a_misspelt_keyword_inside_a_test_names_the_near_ones(proctor: Run, tmp_path: Path) -> None:
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                first = await t.send("go")
                {body}
            eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
        """
        for name, body in {
            "send": 'await t.send("again", timout_ms=5)',
            "turn": 'first.called_tool("shell", cont=1)',
            "t": "t.max_tool_calls(n=1, strict=True)",
        }.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "send": "t.send() has no argument 'timout_ms' (it takes message, workspace_files "
        "and workspace_dir)",
        "turn": "first.called_tool() has no argument 'cont' (did you mean 'count'?)",
        "t": "t.max_tool_calls() has no argument 'strict' (it takes n)",
    }.items():
        record = by_id[name]
        assert record["status"] == "eval-error", record
        assert record["error"] == f"TypeError: {said} (at {root / 'evals' / name}.eval.py:5)", (
            record
        )


DEFINE_EVAL_KEYWORDS = (
    "description, tags, timeout_ms, iterations, agent, plan, judge, test, cases, qna"
)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "from proctor.evals import define_eval\nasync def t(x): ...\n"
            "e = define_eval('x', test=t)\n",
            f"a.eval.py:3: define_eval() takes keyword arguments only ({DEFINE_EVAL_KEYWORDS}), "
            "and 1 was given by position",
        ),
        (
            "from proctor.evals import case, define_eval\nasync def t(x): ...\n"
            "e = define_eval(cases=[case('a', t)])\n",
            "a.eval.py:3: case() takes keyword arguments only (id, test, description, tags, "
            "timeout_ms, iterations, plan, agent, judge, qna), and 2 were given by position",
        ),
    ],
)
def test_a_value_given_by_position_to_a_keyword_only_function_names_its_keywords(
    proctor: Run, tmp_path: Path, body: str, expected: str
) -> None:
    err = refused(proctor, tmp_path, body)
    assert expected in err and "positional arguments but" not in err, err


def test_a_value_given_by_position_in_the_config_file_names_its_keywords(
    proctor: Run, tmp_path: Path
) -> None:
    config = "from proctor.evals import define_eval_config\nc = define_eval_config(2)\n"
    err = refused(proctor, tmp_path, OK_EVAL, config)
    assert (
        "evals.config.py:2: define_eval_config() takes keyword arguments only (max_concurrency, "
        "timeout_ms, judge, agent, model, reporters), and 1 was given by position"
    ) in err, err


def test_a_keyword_given_by_position_inside_a_test_names_the_keywords(
    proctor: Run, tmp_path: Path
) -> None:
    files = {
        "a.eval.py": """
            from proctor.evals import define_eval, equals
            async def test(t):
                first = await t.send("go")
                t.check(t.reply, equals("done"), "the reply")
            eval = define_eval(plan={"turns": [{"say": "done"}]}, test=test)
        """
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    (record,) = out["results"]
    said = (
        "t.check() takes value and expectation by position and the others by keyword only "
        "(name), and 3 were given by position"
    )
    assert record["error"] == f"TypeError: {said} (at {root / 'evals' / 'a'}.eval.py:5)", record


def test_a_misspelt_name_inside_a_test_names_the_near_one(proctor: Run, tmp_path: Path) -> None:
    """A misspelt method of a turn, of a gate's handle, or a misspelt name, is said with the
    near one, as Python's traceback would suggest it (its message alone does not)."""
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval, includes
            async def test(t):
                first = await t.send("go")
                {body}
            eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
        """
        for name, body in {
            "turn": 'first.caled_tool("write")',
            "handle": 'first.message_includes("done").sof()',
            "name": 't.check(t.reply, includs("done"))',
        }.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "turn": "AttributeError: 'TurnResult' object has no attribute 'caled_tool' "
        "(did you mean 'called_tool'?)",
        "handle": "AttributeError: 'Handle' object has no attribute 'sof' (did you mean 'soft'?)",
        "name": "NameError: name 'includs' is not defined (did you mean 'includes'?)",
    }.items():
        record = by_id[name]
        assert record["status"] == "eval-error", record
        assert record["error"] == f"{said} (at {root / 'evals' / name}.eval.py:5)", record


def test_a_misspelt_import_in_an_eval_file_names_the_near_one(proctor: Run, tmp_path: Path) -> None:
    err = refused(proctor, tmp_path, "from proctor.evals import define_evl\n")
    assert "a.eval.py:1: cannot be imported (ImportError: cannot import name 'define_evl'" in err
    assert err.rstrip().endswith("(did you mean 'define_eval'?))"), err


@pytest.mark.parametrize(
    ("name", "said"),
    [
        (
            "called_tool",
            "(called_tool is a method of the test context t or of a turn, not an import: "
            "call t.called_tool(...) or turn.called_tool(...)))",
        ),
        ("send", "(send is a method of the test context t, not an import: call t.send(...)))"),
        (
            "expect_ok",
            "(expect_ok is a method of a turn, not an import: call turn.expect_ok(...)))",
        ),
        ("reply", "(reply is a property of the test context t, not an import: read t.reply))"),
    ],
)
def test_an_import_of_a_method_of_t_or_a_turn_says_where_it_is(
    proctor: Run, tmp_path: Path, name: str, said: str
) -> None:
    err = refused(proctor, tmp_path, f"from proctor.evals import define_eval, {name}\n")
    assert f"a.eval.py:1: cannot be imported (ImportError: cannot import name '{name}'" in err
    assert err.rstrip().endswith(said), err


@pytest.mark.parametrize(
    ("name", "said"),
    [
        (
            "caled_tool",
            "(did you mean t.called_tool(...) or turn.called_tool(...)? it is a method of the "
            "test context t or of a turn, not an import))",
        ),
        (
            "sendd",
            "(did you mean t.send(...)? it is a method of the test context t, not an import))",
        ),
        (
            "expect_okk",
            "(did you mean turn.expect_ok(...)? it is a method of a turn, not an import))",
        ),
        (
            "workspce",
            "(did you mean t.workspace? it is a property of the test context t, not an import))",
        ),
    ],
)
def test_a_misspelt_import_of_a_method_of_t_or_a_turn_names_the_near_one(
    proctor: Run, tmp_path: Path, name: str, said: str
) -> None:
    err = refused(proctor, tmp_path, f"from proctor.evals import define_eval, {name}\n")
    assert f"a.eval.py:1: cannot be imported (ImportError: cannot import name '{name}'" in err
    assert err.rstrip().endswith(said), err


def test_a_misspelt_module_in_an_eval_file_names_the_near_one(proctor: Run, tmp_path: Path) -> None:
    err = refused(proctor, tmp_path, "from proctor.eval import define_eval\n")
    assert err.rstrip().endswith(
        "a.eval.py:1: cannot be imported (ModuleNotFoundError: No module named 'proctor.eval' "
        "(did you mean 'proctor.evals'?))"
    ), err
    err = refused(proctor, tmp_path, "import proctr\n")
    assert err.rstrip().endswith("No module named 'proctr' (did you mean 'proctor'?))"), err
    # The control: a module with no near one is named alone.
    err = refused(proctor, tmp_path, "import zzqqxx_nothing\n")
    assert err.rstrip().endswith("No module named 'zzqqxx_nothing')"), err


def test_a_method_of_t_or_a_turn_called_bare_in_a_test_says_whose_it_is(
    proctor: Run, tmp_path: Path
) -> None:
    """``called_tool("write")`` in a test, without ``t.``, is a NameError that says which
    object has the method, at the file and line of the call."""
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                first = await t.send("go")
                {body}
            eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
        """
        for name, body in {
            "tool": 'called_tool("write")',
            "ok": "expect_ok()",
            "typo": 'caled_tool("write")',
        }.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "tool": "NameError: name 'called_tool' is not defined (called_tool is a method of the "
        "test context t or of a turn: call t.called_tool(...) or turn.called_tool(...))",
        "ok": "NameError: name 'expect_ok' is not defined (expect_ok is a method of a turn: "
        "call turn.expect_ok(...))",
        "typo": "NameError: name 'caled_tool' is not defined (did you mean t.called_tool(...) or "
        "turn.called_tool(...)? it is a method of the test context t or of a turn)",
    }.items():
        record = by_id[name]
        assert record["status"] == "eval-error", record
        assert record["error"] == f"{said} (at {root / 'evals' / name}.eval.py:5)", record


def test_a_misspelt_keyword_does_not_stop_the_check_of_the_rest_of_the_file(
    proctor: Run, tmp_path: Path
) -> None:
    """A misspelt keyword of a ``case(...)`` is one problem among the file's others: the cases
    after it, and ``define_eval(...)``, are checked too, and every problem is named at once."""
    body = (
        "from proctor.evals import case, define_eval\nasync def t(x): ...\n"
        "e = define_eval(\n"
        "    cases=[\n"
        "        case(id='a', promt='hello', test=t),\n"
        "        case(id='b', tset=t),\n"
        "        case(test=t, tags='x'),\n"
        "        case(id='c', test=t, iterations=0),\n"
        "    ],\n"
        "    descripton='d',\n"
        ")\n"
    )
    err = refused(proctor, tmp_path, body)
    for said in (
        "a.eval.py:3: define_eval() has no argument 'descripton' (did you mean 'description'?)",
        "a.eval.py:5: case(id='a') has no argument 'promt' (it takes id, test, description, "
        "tags, timeout_ms, iterations, plan, agent, judge and qna)",
        "a.eval.py:6: case(id='b') has no argument 'tset' (did you mean 'test'?)",
        "a.eval.py:7: case() was not given 'id'",
        "a.eval.py:7: case(): argument 'tags': expected a list of names, got the string 'x'",
        "a.eval.py:8: case(id='c'): argument 'iterations': expected a whole number from 1 to 100",
    ):
        assert said in err, err
    assert "was not given 'test'" not in err, err  # 'tset' is said to be it
    assert "6 problems" in err, err


def test_a_misspelt_keyword_in_the_config_file_does_not_hide_its_other_problems(
    proctor: Run, tmp_path: Path
) -> None:
    config = (
        "from proctor.evals import define_eval_config\n"
        "c = define_eval_config(max_concurency=2, timeout_ms=0)\n"
    )
    err = refused(proctor, tmp_path, OK_EVAL, config)
    assert "define_eval_config() has no argument 'max_concurency'" in err, err
    assert "evals.config.py:2: define_eval_config(): argument 'timeout_ms'" in err, err


def test_an_argument_left_out_inside_a_test_names_the_method_as_written(
    proctor: Run, tmp_path: Path
) -> None:
    """``t.score(0.5)`` is one sentence naming ``t.score`` and what it takes, where it was
    Python's ``Gates.score() missing 1 required positional argument: 'value'``."""
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval
            async def test(t):
                first = await t.send("go")
                {body}
            eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
        """
        for name, body in {"score": "t.score(0.5)", "tool": "first.called_tool()"}.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "score": "t.score() was not given 'value' (it takes name and value)",
        "tool": "first.called_tool() was not given 'name' (it takes name, input, output, count "
        "and status)",
    }.items():
        record = by_id[name]
        assert record["error"] == f"TypeError: {said} (at {root / 'evals' / name}.eval.py:5)", (
            record
        )


@pytest.mark.parametrize(("wrong", "meant"), [("tests=t", "test"), ("case=[]", "cases")])
def test_a_misspelt_test_or_cases_is_said_once(
    proctor: Run, tmp_path: Path, wrong: str, meant: str
) -> None:
    """``define_eval(tests=test)`` is the misspelt keyword alone, not also 'give either test or
    cases', which the near one already says."""
    body = f"from proctor.evals import define_eval\nasync def t(x): ...\ne = define_eval({wrong})\n"
    err = refused(proctor, tmp_path, body)
    assert f"(did you mean '{meant}'?)" in err, err
    assert "give either" not in err, err


def test_a_misspelling_beside_both_test_and_cases_still_says_not_both(
    proctor: Run, tmp_path: Path
) -> None:
    """Given both ``test`` and ``cases``, a keyword near ``test`` is one more problem, not the
    reason neither was given: "give either" is said too."""
    body = (
        "from proctor.evals import case, define_eval\nasync def f(t): ...\n"
        "e = define_eval(test=f, cases=[case(id='a', test=f)], tset=1)\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "define_eval() has no argument 'tset' (did you mean 'test'?)" in err, err
    assert "give either 'test' or 'cases', not both or neither" in err, err


def test_names_of_the_files_own_are_left_to_python(proctor: Run, tmp_path: Path) -> None:
    """A function of the file's own named like one proctor's modules import (``field``) or
    like an expectation, called without its argument, is Python's sentence; a variable of the
    test's own that is not defined gets no hint of a method of ``t``; ``turn`` undefined is
    said to be what a send gives."""
    files = {
        f"{name}.eval.py": f"""
            from proctor.evals import define_eval
            def field(name):
                return name
            def matches(pattern):
                return pattern
            def similarity(expected):
                return expected
            async def test(t):
                first = await t.send("go")
                {body}
            eval = define_eval(plan={{"turns": [{{"say": "done"}}]}}, test=test)
        """
        for name, body in {
            "field": "field()",
            "matches": "matches()",
            "matches_kw": 'matches(patern="x")',
            "similarity": "similarity()",
            "second": 'second.called_tool("Bash")',
            "turn": 'turn.called_tool("Bash")',
        }.items()
    }
    root = project(tmp_path, files)
    result, out = run_json(proctor, root, tmp_path)
    assert result.code == 3, result.err
    by_id = {r["id"]: r for r in out["results"]}
    for name, said in {
        "field": "TypeError: field() missing 1 required positional argument: 'name'",
        "matches": "TypeError: matches() missing 1 required positional argument: 'pattern'",
        "matches_kw": "TypeError: matches() got an unexpected keyword argument 'patern'",
        "similarity": "TypeError: similarity() missing 1 required positional argument: 'expected'",
        "second": "NameError: name 'second' is not defined",
        "turn": "NameError: name 'turn' is not defined (a turn is what a send gives: "
        "turn = await t.send(...))",
    }.items():
        record = by_id[name]
        assert record["error"] == f"{said} (at {root / 'evals' / name}.eval.py:11)", record
