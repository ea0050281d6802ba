"""An eval file may guard a keyword an older proctor lacks with ``try: ... except
TypeError:``, calling again without it: a refused ``define_eval(...)`` is a TypeError, as
Python's own refusal of an unknown keyword is, and so is a refused ``case(...)`` the file
catches; what the file caught is no problem of it.
A problem that stops the import is still named, each one, at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_evals_cli import project
from tests.integration.test_evals_misspelt_arguments import refused

Run = Any

HEAD = "from proctor.evals import case, define_eval\nasync def f(t): ...\n"


@pytest.mark.parametrize(
    ("guarded", "fallback", "listed"),
    [
        ("test=f, retries=2", "test=f", "a"),
        ("cases=[case(id='c', test=f)], retries=2", "cases=[case(id='c', test=f)]", "a/c"),
        ("cases=[case(id='c', test=f, retry=1)]", "cases=[case(id='c', test=f)]", "a/c"),
    ],
)
def test_a_keyword_guarded_by_except_type_error_is_no_problem(
    proctor: Run, tmp_path: Path, guarded: str, fallback: str, listed: str
) -> None:
    """The fallback call defines the eval; the guarded call's problems (its cases' too) were
    caught by the file, so none is said."""
    body = (
        f"{HEAD}try:\n    eval = define_eval(plan='p.toml', {guarded})\n"
        f"except TypeError:\n    eval = define_eval(plan='p.toml', {fallback})\n"
    )
    root = project(tmp_path, {"a.eval.py": body})
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 0, result.err
    assert "retr" not in result.err, result.err
    assert listed in result.out.split(), result.out


def test_a_refused_definition_that_is_not_caught_is_still_named(
    proctor: Run, tmp_path: Path
) -> None:
    body = (
        f"{HEAD}try:\n"
        "    define_eval(test=f, retries=2)\n"
        "except ValueError:\n"
        "    pass\n"
        "eval = define_eval(cases=[case(id='a', test=f, retry=1), case(id='b', tset=f)])\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "retries" not in err, err  # caught (a ValueError still, as a bad value is)
    for said in (
        "a.eval.py:7: case(id='a') has no argument 'retry' (it takes id, test, description, "
        "tags, timeout_ms, iterations, plan, agent, judge and qna)",
        "a.eval.py:7: case(id='b') has no argument 'tset' (did you mean 'test'?)",
    ):
        assert said in err, err


def test_a_case_given_its_id_is_named_by_it_when_it_lacks_test(
    proctor: Run, tmp_path: Path
) -> None:
    body = f"{HEAD}eval = define_eval(cases=[case(id='c'), case(test=f, tags='x')])\n"
    err = refused(proctor, tmp_path, body)
    for said in (
        "a.eval.py:3: case(id='c') was not given 'test'",
        "a.eval.py:3: case() was not given 'id'",
        "a.eval.py:3: case(): argument 'tags': expected a list of names",
    ):
        assert said in err, err


@pytest.mark.parametrize(
    ("fallback", "said"),
    [
        ("define_eval(cases=[c])", ["case(id='c') has no argument 'retry'"]),
        (
            "define_eval(cases=[c], timeout_ms=0)",
            ["case(id='c') has no argument 'retry'", "argument 'timeout_ms'"],
        ),
        ("None", ["case(id='c') has no argument 'retry'", "has no argument 'retries'"]),
    ],
)
def test_a_broken_case_given_to_a_caught_call_and_the_next_is_still_named(
    proctor: Run, tmp_path: Path, fallback: str, said: list[str]
) -> None:
    """The case's problem is the call's that stopped the import too: named, never a traceback;
    a caught call with nothing made in its stead names why the file defines no eval."""
    body = (
        "from proctor.evals import case, define_eval\nasync def f(t): ...\n"
        "c = case(id='c', test=f, retry=1)\n"
        "try:\n    eval = define_eval(cases=[c], retries=2)\n"
        f"except TypeError:\n    eval = {fallback}\n"
    )
    root = project(tmp_path, {"a.eval.py": body})
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 2, result.err
    assert "Traceback" not in result.err, result.err
    for sentence in said:
        assert sentence in result.err, result.err
    assert "no define_eval(...) assigned" not in result.err, result.err


def test_a_broken_case_of_a_helper_module_a_caught_call_took_is_named_in_the_next_file(
    proctor: Run, tmp_path: Path
) -> None:
    """A helper module shared by two eval files, imported (and its case's problem collected)
    as the first caught its refusal: the second's refusal names that problem, not only 'bad
    arguments, each named'."""
    root = project(
        tmp_path,
        {
            "a.eval.py": HEAD + "from helper import c\ntry:\n    eval = define_eval(cases=[c])\n"
            "except TypeError:\n    eval = define_eval(test=f)\n",
            "b.eval.py": HEAD + "from helper import c\neval = define_eval(cases=[c])\n",
        },
    )
    (root / "helper.py").write_text(HEAD + "c = case(id='c', test=f, retry=1)\n")
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 2, result.err
    assert "case(id='c') has no argument 'retry'" in result.err, result.err


FALLBACK = "c = case(id='c', test=f)"


@pytest.mark.parametrize(
    "guard",
    [
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept TypeError:\n    {FALLBACK}\n",
        # a tuple of classes, a class it is a subclass of, a bare except, a dotted name
        f"try:\n    c = case(id='c', test=f, retries=2)\n"
        f"except (TypeError, ValueError):\n    {FALLBACK}\n",
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept Exception:\n    {FALLBACK}\n",
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept:\n    {FALLBACK}\n",
        "import builtins\n"
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept builtins.TypeError:\n"
        f"    {FALLBACK}\n",
        # the outer try catches what the inner one lets through
        "try:\n    try:\n        c = case(id='c', test=f, retries=2)\n"
        f"    except KeyError:\n        pass\nexcept TypeError:\n    {FALLBACK}\n",
        # a case made in a helper the try calls
        "def make():\n    return case(id='c', test=f, retries=2)\n"
        f"try:\n    c = make()\nexcept TypeError:\n    {FALLBACK}\n",
        # the try in a function of the file's own
        "def make():\n    try:\n        return case(id='c', test=f, retries=2)\n"
        "    except TypeError:\n        return case(id='c', test=f)\nc = make()\n",
        # a bad value, not only an unknown keyword
        f"try:\n    c = case(id='c', test=f, timeout_ms=0)\nexcept ValueError:\n    {FALLBACK}\n",
        # a list of cases made in the try
        "try:\n    cs = [case(id=i, test=f, retries=2) for i in 'c']\n"
        "except TypeError:\n    cs = [case(id=i, test=f) for i in 'c']\nc = cs[0]\n",
        # a decorator that makes the case, of a function or a class
        "def deco(fn):\n    return case(id='c', test=fn, retries=2)\n"
        f"try:\n    @deco\n    async def c(t): ...\nexcept TypeError:\n    {FALLBACK}\n",
        "def deco(cls):\n    cls.c = case(id='c', test=f, retries=2)\n    return cls\n"
        f"try:\n    @deco\n    class K: ...\n    c = K.c\nexcept TypeError:\n    {FALLBACK}\n",
        # an except that ends with raise but may recover before it
        "def make(**extra):\n    try:\n        return case(id='c', test=f, **extra)\n"
        "    except TypeError:\n        if extra:\n            return case(id='c', test=f)\n"
        "        raise\nc = make(retries=2)\n",
        # a name holding a tuple of classes
        "errors = (KeyError, TypeError)\n"
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept errors:\n    {FALLBACK}\n",
        # the first except that matches is the one run
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept TypeError:\n    {FALLBACK}\n"
        "except Exception:\n    raise\n",
        # contextlib.suppress, by either name
        "import contextlib\nc = None\nwith contextlib.suppress(TypeError):\n"
        f"    c = case(id='c', test=f, retries=2)\nif c is None:\n    {FALLBACK}\n",
        "from contextlib import suppress\nc = None\nwith suppress(KeyError, (OSError, (ValueError,))):\n"
        f"    c = case(id='c', test=f, retries=2)\nif c is None:\n    {FALLBACK}\n",
        # a class known only as Python matches it: called, picked from a list, made on the spot
        "def errors():\n    return (KeyError, TypeError)\n"
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept errors():\n    {FALLBACK}\n",
        "ERRS = [TypeError]\n"
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept ERRS[0]:\n    {FALLBACK}\n",
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept (lambda: TypeError)():\n"
        f"    {FALLBACK}\n",
        "import contextlib\nc = None\nwith contextlib.suppress(*[TypeError]):\n"
        f"    c = case(id='c', test=f, retries=2)\nif c is None:\n    {FALLBACK}\n",
        # a computed clause that only raises again, then one that catches
        "ERRS = [KeyError]\n"
        f"try:\n    c = case(id='c', test=f, retries=2)\nexcept ERRS[0]:\n    raise\n"
        f"except TypeError:\n    {FALLBACK}\n",
        # a try in code run by exec (no source read), or around it
        "exec(\"try:\\n    c = case(id='c', test=f, retries=2)\\n\"\n"
        "     \"except TypeError:\\n    c = case(id='c', test=f)\\n\")\n",
        f"try:\n    exec(\"c = case(id='c', test=f, retries=2)\")\nexcept TypeError:\n    {FALLBACK}\n",
        # a manager whose exit swallows it: of the file's own, an ExitStack given a suppress
        "class ignoring:\n    def __init__(self, *e):\n        self.e = e\n"
        "    def __enter__(self):\n        return self\n"
        "    def __exit__(self, t, v, tb):\n        return t is not None and issubclass(t, self.e)\n"
        "c = None\nwith ignoring(TypeError):\n    c = case(id='c', test=f, retries=2)\n"
        f"if c is None:\n    {FALLBACK}\n",
        "import contextlib\nc = None\nwith contextlib.ExitStack() as s:\n"
        "    s.enter_context(contextlib.suppress(TypeError))\n"
        f"    c = case(id='c', test=f, retries=2)\nif c is None:\n    {FALLBACK}\n",
    ],
    ids=[
        "TypeError",
        "a tuple",
        "Exception",
        "bare",
        "dotted",
        "nested",
        "helper",
        "in-function",
        "bad-value",
        "comprehension",
        "decorator",
        "class-decorator",
        "raise-after-return",
        "tuple-name",
        "first-match",
        "suppress",
        "suppress-name",
        "called",
        "subscript",
        "lambda",
        "suppress-computed",
        "computed-raises",
        "exec",
        "around-exec",
        "manager",
        "exit-stack",
    ],
)
def test_a_case_keyword_guarded_by_except_is_no_problem(
    proctor: Run, tmp_path: Path, guard: str
) -> None:
    """A refused case(...) the file catches is refused as define_eval(...) is (a TypeError
    and a ValueError): the except branch makes the case, and nothing is said of the keyword."""
    body = f"{HEAD}{guard}eval = define_eval(plan='p.toml', cases=[c])\n"
    root = project(tmp_path, {"a.eval.py": body})
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 0, result.err
    assert "retries" not in result.err and "timeout_ms" not in result.err, result.err
    assert "a/c" in result.out.split(), result.out


@pytest.mark.parametrize(
    "guard",
    [
        # no try around it
        "c = case(id='c', test=f, retries=2)\n",
        # a try whose except catches no TypeError
        "try:\n    c = case(id='c', test=f, retries=2)\nexcept KeyError:\n    pass\n",
        # the call is in the except branch, not the try's body
        "try:\n    pass\nexcept TypeError:\n    pass\nelse:\n    c = case(id='c', test=f, retries=2)\n",
        # a function defined in the try, called after it
        "try:\n    def make():\n        return case(id='c', test=f, retries=2)\n"
        "except TypeError:\n    pass\nc = make()\n",
        # a generator made in the try, run after it
        "try:\n    made = (case(id=i, test=f, retries=2) for i in 'c')\n"
        "except TypeError:\n    pass\nc = next(made)\n",
        # the first except that matches raises it again: the later one is not run
        "try:\n    c = case(id='c', test=f, retries=2)\nexcept TypeError:\n    raise\n"
        "except Exception:\n    pass\n",
        # a suppress of some other class
        "import contextlib\nwith contextlib.suppress(KeyError):\n"
        "    c = case(id='c', test=f, retries=2)\n",
        # code run by exec with no try around the call, or one of some other class
        "exec(\"c = case(id='c', test=f, retries=2)\")\n",
        "try:\n    exec(\"c = case(id='c', test=f, retries=2)\")\nexcept KeyError:\n    pass\n",
        # a manager known not to swallow it
        "with open(__file__) as source:\n    c = case(id='c', test=f, retries=2)\n",
        "import contextlib\nwith contextlib.nullcontext():\n    c = case(id='c', test=f, retries=2)\n",
    ],
    ids=[
        "no-try",
        "KeyError",
        "else",
        "function",
        "generator",
        "first-raises",
        "suppress",
        "exec",
        "around-exec",
        "open",
        "nullcontext",
    ],
)
def test_a_case_keyword_not_guarded_is_one_problem_among_the_others(
    proctor: Run, tmp_path: Path, guard: str
) -> None:
    """Not caught where it is made, a broken case(...) is kept, so the file's later problems
    are named with it."""
    body = f"{HEAD}{guard}eval = define_eval(cases=[c], timeout_ms=0)\n"
    err = refused(proctor, tmp_path, body)
    assert "case(id='c') has no argument 'retries' (it takes id, test, description" in err, err
    assert "define_eval(): argument 'timeout_ms'" in err, err


def test_an_except_that_raises_again_catches_nothing(proctor: Run, tmp_path: Path) -> None:
    """The case's problem is named, and the file's later ones with it."""
    body = (
        f"{HEAD}try:\n    c = case(id='c', test=f, retries=2)\n"
        "except TypeError:\n    raise\n"
        "eval = define_eval(cases=[c], timeout_ms=0)\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "a.eval.py:4: case(id='c') has no argument 'retries'" in err, err
    assert "a.eval.py:7: define_eval(): argument 'timeout_ms'" in err, err


def test_an_except_that_does_more_before_raise_again_stops_the_import_at_it(
    proctor: Run, tmp_path: Path
) -> None:
    """It may have recovered, so the case raises: as it raises again, the import stops there,
    the case's problem named."""
    body = (
        f"{HEAD}try:\n    c = case(id='c', test=f, retries=2)\n"
        "except TypeError:\n    print('old proctor')\n    raise\n"
        "eval = define_eval(cases=[c], timeout_ms=0)\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "a.eval.py:4: case(id='c') has no argument 'retries'" in err, err
    assert "define_eval(): argument 'timeout_ms'" not in err, err


def test_an_error_raised_from_a_caught_refusal_is_named_with_its_problems(
    proctor: Run, tmp_path: Path
) -> None:
    """``raise ValueError('x') from e``: the refusal is why the import stopped."""
    body = (
        f"{HEAD}try:\n    c = case(id='c', test=f, retries=2)\n"
        "except TypeError as e:\n    raise ValueError('x') from e\n"
        "eval = define_eval(cases=[c])\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "a.eval.py:4: case(id='c') has no argument 'retries'" in err, err
    assert "a.eval.py:6: cannot be imported (ValueError: x)" in err, err


@pytest.mark.parametrize(
    ("guard", "named"),
    [
        ("try:\n    from {m} import c\nexcept TypeError:\n    c = case(id='c', test=f)\n", False),
        ("from {m} import c\n", True),
    ],
    ids=["guarded", "unguarded"],
)
def test_a_case_of_a_helper_module_imported_in_a_try(
    proctor: Run, tmp_path: Path, guard: str, named: bool
) -> None:
    """The import of a helper module that makes a broken case is guarded as a call is; not
    guarded, the case's problem is named."""
    module = f"made_cases_{'un' if named else ''}guarded"  # (imported modules stay imported)
    body = f"{HEAD}{guard.format(m=module)}eval = define_eval(cases=[c])\n"
    root = project(tmp_path, {"a.eval.py": body})
    (root / f"{module}.py").write_text(HEAD + "c = case(id='c', test=f, retries=2)\n")
    result = proctor("eval", "--dir", str(root), "--list")
    assert "Traceback" not in result.err, result.err
    assert result.code == (2 if named else 0), result.err
    assert ("case(id='c') has no argument 'retries'" in result.err) is named, result.err


def test_a_guarded_case_then_an_unguarded_one_names_only_the_unguarded(
    proctor: Run, tmp_path: Path
) -> None:
    body = (
        f"{HEAD}try:\n    c = case(id='c', test=f, retries=2)\n"
        "except TypeError:\n    c = case(id='c', test=f)\n"
        "d = case(id='d', test=f, retry=1)\n"
        "eval = define_eval(cases=[c, d])\n"
    )
    err = refused(proctor, tmp_path, body)
    assert "retries" not in err, err
    assert "a.eval.py:7: case(id='d') has no argument 'retry'" in err, err


@pytest.mark.parametrize(
    "guard",
    [
        "try:\n    c = case(id='c', test=f, retries=2)\nexcept TypeError as e:\n"
        "    if 'retries' not in str(e):\n        raise\n    c = case(id='c', test=f)\n"
        "eval = define_eval(plan='p.toml', cases=[c])\n",
        "try:\n    eval = define_eval(plan='p.toml', test=f, retries=2)\nexcept TypeError as e:\n"
        "    if 'retries' not in str(e):\n        raise\n    eval = define_eval(plan='p.toml', test=f)\n",
    ],
    ids=["case", "define_eval"],
)
def test_a_caught_refusal_names_the_keyword_in_its_message(
    proctor: Run, tmp_path: Path, guard: str
) -> None:
    """A file may look in the caught error for the keyword it guarded, as in Python's own
    refusal (``got an unexpected keyword argument 'retries'``): the refusal's message holds
    its problems' sentences."""
    root = project(tmp_path, {"a.eval.py": f"{HEAD}{guard}"})
    result = proctor("eval", "--dir", str(root), "--list")
    assert result.code == 0, result.err
    assert "retries" not in result.err, result.err
    assert {"a", "a/c"} & set(result.out.split()), result.out


@pytest.mark.parametrize(
    "guard",
    [
        "def errors():\n    return KeyError\n"
        "try:\n    c = case(id='c', test=f, retries=2)\nexcept errors():\n    pass\n",
        "ERRS = [KeyError]\n"
        "try:\n    c = case(id='c', test=f, retries=2)\nexcept ERRS[0]:\n    pass\n",
        "exec(\"try:\\n    c = case(id='c', test=f, retries=2)\\nexcept KeyError:\\n    pass\\n\")\n",
        "import contextlib\nwith contextlib.ExitStack():\n    c = case(id='c', test=f, retries=2)\n",
    ],
    ids=["called", "subscript", "exec", "manager"],
)
def test_a_refusal_left_to_python_to_match_that_nothing_catches_stops_the_import_named(
    proctor: Run, tmp_path: Path, guard: str
) -> None:
    """A clause whose class is known only as Python matches it, a with of a manager whose exit
    is not read, or a try in code run by exec, may catch the refusal: it is raised, and, not caught, stops the import there, named (the
    file's later lines are not read)."""
    body = f"{HEAD}{guard}eval = define_eval(cases=[c], timeout_ms=0)\n"
    err = refused(proctor, tmp_path, body)
    assert "case(id='c') has no argument 'retries' (it takes id, test, description" in err, err
    assert "define_eval(): argument 'timeout_ms'" not in err, err
