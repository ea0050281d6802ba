"""Every public function given an argument of the wrong Python type raises a TypeError that
names the function, the argument, what it expects and what it was given (docs/api.md), before
it reads the value some other way: ``agents=5`` was a ConfigError, ``repeats=True`` ran one
repeat, ``keep_workspace=1`` kept the workspace, ``analyse_ab("ab", …)`` read the string's
letters as records, ``define_eval(tags=5)`` raised "'int' object is not iterable". A value of
the right type that says something wrong stays a ConfigError (or ValueError)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import proctor
from proctor.evals import (
    case,
    define_eval,
    define_eval_config,
    matches,
    normalized_similarity,
    satisfies,
    similarity,
)
from proctor.evals.define import EvalDefinitionError
from proctor.report.ab import (
    ab_gate,
    analyse_ab,
    compare_conditions,
    compare_runs,
    render_ab_markdown,
    render_runs_markdown,
)
from proctor.util.argtypes import given

MISSING = Path("/nonexistent-proctor-suite")
"""A source no run reaches: every check here is made before the source is read."""


async def _test(t: Any) -> None: ...


async def _async_show(event: object) -> None: ...


def _yielding_show(event: object) -> Iterator[None]:
    yield


class _AsyncDisplay:
    async def __call__(self, event: object) -> None: ...


def _run(**kwargs: Any) -> Callable[[], object]:
    return lambda: proctor.run(MISSING, **kwargs)


WRONG_TYPES: list[tuple[str, Callable[[], object], str]] = [
    # proctor.run: names, counts, flags, choices, the executor, and the CliOverrides options
    ("run agents int", _run(agents=5), "run(): argument 'agents': expected a name or a list of names, got 5"),
    ("run agents None", _run(agents=None), "argument 'agents': expected a name or a list of names, got None"),
    ("run agents dict", _run(agents={"scripted": 1}), "argument 'agents': expected a name or a list of names, got a dict {'scripted': 1}"),
    ("run agents item", _run(agents=["scripted", 1]), "argument 'agents[1]': expected a name (a string), got 1"),
    ("run cases bytes", _run(cases=b"fix"), "argument 'cases': expected a name or a list of names, got a bytes value b'fix'"),
    ("run tags int", _run(tags=3), "argument 'tags': expected a name or a list of names, got 3"),
    ("run conditions dict", _run(conditions={}), "argument 'conditions': expected a name or a list of names, got a dict {}"),
    ("run reporters item", _run(reporters=[5]), "argument 'reporters[0]': expected a name (a string), got 5"),
    ("run repeats bool", _run(repeats=True), "argument 'repeats': expected an int or None, got True (a bool)"),
    ("run repeats str", _run(repeats="3"), "argument 'repeats': expected an int or None, got the string '3'"),
    ("run repeats float", _run(repeats=2.5), "argument 'repeats': expected an int or None, got 2.5"),
    ("run concurrency str", _run(concurrency="2"), "argument 'concurrency': expected an int or None, got the string '2'"),
    ("run timeout bool", _run(timeout=True), "argument 'timeout': expected a number or None, got True (a bool)"),
    ("run mode int", _run(mode=5), "argument 'mode': expected a string or None, got 5"),
    ("run model list", _run(model=["scripted"]), "argument 'model': expected a string or None, got a list ['scripted']"),
    ("run keep_workspace str", _run(keep_workspace="no"), "argument 'keep_workspace': expected True or False, got the string 'no'"),
    ("run keep_workspace int", _run(keep_workspace=1), "argument 'keep_workspace': expected True or False, got 1"),
    ("run subscribers int", _run(subscribers=5), "argument 'subscribers': expected a list of callables, got 5"),
    ("run subscribers item", _run(subscribers=[print, 5]), "argument 'subscribers[1]': expected a callable taking one event (not an async or generator function), got 5"),
    ("run subscribers async", _run(subscribers=[_async_show]), "argument 'subscribers[0]': expected a callable taking one event (not an async or generator function), got an async function '_async_show'"),
    ("run subscribers generator", _run(subscribers=[_yielding_show]), "argument 'subscribers[0]': expected a callable taking one event (not an async or generator function), got a generator function '_yielding_show' (def with yield)"),
    ("run subscribers async object", _run(subscribers=[_AsyncDisplay()]), "argument 'subscribers[0]': expected a callable taking one event (not an async or generator function), got a _AsyncDisplay object"),
    ("run subscribers async partial", _run(subscribers=[functools.partial(_async_show)]), "argument 'subscribers[0]': expected a callable taking one event (not an async or generator function), got a partial functools.partial(<function _async_show>)"),
    ("run executor None", _run(executor=None), "argument 'executor': expected a string, got None"),
    ("run ray_address int", _run(ray_address=5), "argument 'ray_address': expected a string or None, got 5"),
    ("run option bool", _run(mirror="yes"), "argument 'mirror': expected True or False, got the string 'yes'"),
    ("run option int", _run(retry_errors=True), "argument 'retry_errors': expected an int, got True (a bool)"),
    ("run option number", _run(budget_usd="5"), "argument 'budget_usd': expected a number, got the string '5'"),
    ("run option list", _run(only_evaluators="tests"), "argument 'only_evaluators': expected a list, got the string 'tests'"),
    ("run option dict", _run(agent_models=5), "argument 'agent_models': expected a dict, got 5"),
    ("run option dict value", _run(agent_models={"codex": 1}), "argument 'agent_models['codex']': expected a string, got 1"),
    ("run option str", _run(first_condition=5), "argument 'first_condition': expected a string, got 5"),
    ("run source", lambda: proctor.run(5), "proctor.run(): argument 'source': expected a path (str or Path), got 5"),  # type: ignore[arg-type]
    ("run out", _run(out=3), "argument 'out': expected a path (str or Path), got 3"),
    # the other functions of proctor
    ("load_run", lambda: proctor.load_run(None), "proctor.load_run(): argument 'path': expected a path (str or Path), got None"),  # type: ignore[arg-type]
    ("recompute_run", lambda: proctor.recompute_run(MISSING, config=[]), "proctor.recompute_run(): argument 'config': expected a path (str or Path), got a list []"),  # type: ignore[arg-type]
    ("parse_transcript", lambda: proctor.parse_transcript("x", agent=["codex"]), "proctor.parse_transcript(): argument 'agent': expected an agent id (a string) or None, got a list ['codex']"),  # type: ignore[arg-type]
    # A/B
    ("analyse_ab records str", lambda: analyse_ab("ab", "a", "b"), "analyse_ab(): argument 'records': expected a list of TrialRecords, got the string 'ab'"),  # type: ignore[arg-type]
    ("analyse_ab records item", lambda: analyse_ab([{}], "a", "b"), "analyse_ab(): argument 'records[0]': expected a TrialRecord, got a dict {}"),  # type: ignore[list-item]
    ("analyse_ab treatment", lambda: analyse_ab([], 5, "b"), "analyse_ab(): argument 'treatment': expected a string, got 5"),  # type: ignore[arg-type]
    ("analyse_ab baseline", lambda: analyse_ab([], "a", None), "analyse_ab(): argument 'baseline': expected a string, got None"),  # type: ignore[arg-type]
    ("analyse_ab seed", lambda: analyse_ab([], "a", "b", seed="1"), "analyse_ab(): argument 'seed': expected an int, got the string '1'"),  # type: ignore[arg-type]
    ("analyse_ab min_samples", lambda: analyse_ab([], "a", "b", min_samples=True), "analyse_ab(): argument 'min_samples': expected an int, got True (a bool)"),
    ("analyse_ab planned", lambda: analyse_ab([], "a", "b", planned=5), "analyse_ab(): argument 'planned': expected a list of (case, agent, condition, repeat) tuples, got 5"),  # type: ignore[arg-type]
    ("compare_conditions", lambda: compare_conditions(5), "compare_conditions(): argument 'records': expected a list of TrialRecords, got 5"),  # type: ignore[arg-type]
    ("compare_conditions treatment", lambda: compare_conditions([], treatment=1), "compare_conditions(): argument 'treatment': expected a string or None, got 1"),  # type: ignore[arg-type]
    ("compare_runs baseline", lambda: compare_runs(None, []), "compare_runs(): argument 'baseline_records': expected a list of TrialRecords, got None"),  # type: ignore[arg-type]
    ("compare_runs candidate", lambda: compare_runs([], {}), "compare_runs(): argument 'candidate_records': expected a list of TrialRecords, got a dict {}"),  # type: ignore[arg-type]
    ("compare_runs min_samples", lambda: compare_runs([], [], min_samples=2.5), "compare_runs(): argument 'min_samples': expected an int, got 2.5"),  # type: ignore[arg-type]
    ("ab_gate", lambda: ab_gate([], "a", "b", "0.1"), "ab_gate(): argument 'max_pass_rate_drop': expected a number, got the string '0.1'"),  # type: ignore[arg-type]
    ("render_ab_markdown", lambda: render_ab_markdown({}), "render_ab_markdown(): argument 'report': expected an ABReport, got a dict {}"),  # type: ignore[arg-type]
    ("render_runs_markdown", lambda: render_runs_markdown(None), "render_runs_markdown(): argument 'comparison': expected a RunComparison, got None"),  # type: ignore[arg-type]
    # evals written as code
    ("define_eval tags str", lambda: define_eval(test=_test, tags="fast"), "define_eval(): argument 'tags': expected a list of names, got the string 'fast'"),
    ("define_eval tags int", lambda: define_eval(test=_test, tags=5), "define_eval(): argument 'tags': expected a list of names, got 5"),  # type: ignore[arg-type]
    ("define_eval iterations", lambda: define_eval(test=_test, iterations=True), "define_eval(): argument 'iterations': expected an int or None, got True (a bool)"),
    ("define_eval timeout_ms", lambda: define_eval(test=_test, timeout_ms="500"), "define_eval(): argument 'timeout_ms': expected an int or None, got the string '500'"),  # type: ignore[arg-type]
    ("define_eval description", lambda: define_eval(test=_test, description=5), "define_eval(): argument 'description': expected a string or None, got 5"),  # type: ignore[arg-type]
    ("define_eval test", lambda: define_eval(test=5), "define_eval(): argument 'test': expected an async function (async def test(t)), got 5"),  # type: ignore[arg-type]
    ("define_eval cases str", lambda: define_eval(cases="ab"), "define_eval(): argument 'cases': expected a list of case(...), got the string 'ab'"),  # type: ignore[arg-type]
    ("define_eval cases item", lambda: define_eval(cases=[{"id": "a"}]), "define_eval(): argument 'cases[0]': expected a case(...), got a dict {'id': 'a'}"),  # type: ignore[list-item]
    ("define_eval plan", lambda: define_eval(test=_test, plan=5), "define_eval(): argument 'plan': expected a dict or the path of a plan file (a string), got 5"),  # type: ignore[arg-type]
    ("define_eval qna", lambda: define_eval(test=_test, qna=["x"]), "define_eval(): argument 'qna': expected the text of a qna.md (a string) or None, got a list ['x']"),  # type: ignore[arg-type]
    ("case id", lambda: case(id=5, test=_test), "case(): argument 'id': expected a string, got 5"),  # type: ignore[arg-type]
    ("case agent", lambda: case(id="a", test=_test, agent=5), "case(id='a'): argument 'agent': expected a string or None, got 5"),  # type: ignore[arg-type]
    ("define_eval_config reporters", lambda: define_eval_config(reporters="json"), "define_eval_config(): argument 'reporters': expected a list of names, got the string 'json'"),
    ("define_eval_config max_concurrency", lambda: define_eval_config(max_concurrency=True), "define_eval_config(): argument 'max_concurrency': expected an int or None, got True (a bool)"),
    ("define_eval_config judge", lambda: define_eval_config(judge=5), "define_eval_config(): argument 'judge': expected a string or None, got 5"),  # type: ignore[arg-type]
    ("similarity threshold", lambda: similarity("a", threshold="0.5"), "similarity(): argument 'threshold': expected a number, got the string '0.5'"),  # type: ignore[arg-type]
    ("similarity bool", lambda: similarity("a", threshold=True), "similarity(): argument 'threshold': expected a number, got True (a bool)"),
    ("similarity expected", lambda: similarity(5), "similarity(): argument 'expected': expected a string, got 5"),  # type: ignore[arg-type]
    ("satisfies predicate", lambda: satisfies(5, "x"), "satisfies(): argument 'predicate': expected a callable, got 5"),  # type: ignore[arg-type]
    ("satisfies label", lambda: satisfies(bool, 5), "satisfies(): argument 'label': expected a string, got 5"),  # type: ignore[arg-type]
    ("normalized_similarity", lambda: normalized_similarity(5, "a"), "normalized_similarity(): argument 'a': expected a string, got 5"),  # type: ignore[arg-type]
    ("matches", lambda: matches(5), "matches(): argument 'schema': expected a pydantic model"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "said"), [(c, s) for _, c, s in WRONG_TYPES], ids=[i for i, _, _ in WRONG_TYPES]
)
def test_a_wrong_type_is_a_type_error_naming_the_argument(
    call: Callable[[], object], said: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(said)):
        call()


def test_an_eval_file_reports_a_wrong_type_as_any_bad_definition() -> None:
    """Discovery turns an EvalDefinitionError into the file's ConfigError: the TypeError of
    a wrong type is one too."""
    with pytest.raises(EvalDefinitionError):
        define_eval(test=_test, tags="fast")


@pytest.mark.parametrize(
    ("call", "error", "said"),
    [
        (_run(repeats=0), proctor.ConfigError, "argument 'repeats': expected greater than"),
        (_run(mode="fast"), proctor.ConfigError, "argument 'mode': expected 'headless' or"),
        (_run(executor="bogus"), proctor.ConfigError, "executor='bogus': expected one of"),
        (_run(agents=["scripted"]), proctor.ConfigError, "no such file or directory"),
        (lambda: analyse_ab([], "a", "a"), ValueError, "the same condition"),
        (lambda: compare_runs([], [], min_samples=0), ValueError, "min_samples must be >= 1"),
        (
            lambda: define_eval(test=_test, iterations=0),
            EvalDefinitionError,
            "define_eval(): argument 'iterations': expected a whole number from 1 to 100 or None, "
            "got 0",
        ),
        (
            lambda: case(id="a", test=_test, timeout_ms=-5),
            EvalDefinitionError,
            "case(id='a'): argument 'timeout_ms': expected a whole number from 1 to 86400000 or "
            "None, got -5",
        ),
        (
            lambda: define_eval_config(max_concurrency=0),
            EvalDefinitionError,
            "define_eval_config(): argument 'max_concurrency': expected a whole number from 1 to "
            "200 or None, got 0",
        ),
        (lambda: define_eval(test=_test, tags=[""]), EvalDefinitionError, "non-empty strings"),
        (lambda: case(id="a/b", test=_test), EvalDefinitionError, "one path segment"),
        # No '/' in them: they are refused for what they are.
        (lambda: case(id="..", test=_test), EvalDefinitionError, "must be a name, not '.' or"),
        (lambda: case(id=".", test=_test), EvalDefinitionError, "must be a name, not '.' or"),
        (lambda: case(id="", test=_test), EvalDefinitionError, "id '': must be a name, not empty"),
        (lambda: similarity("a", threshold=2), ValueError, "expected a number from 0 to 1, got 2"),
    ],
)
def test_control_a_wrong_value_of_the_right_type_is_no_type_error(
    call: Callable[[], object], error: type[Exception], said: str
) -> None:
    with pytest.raises(error, match=re.escape(said)) as raised:
        call()
    assert not isinstance(raised.value, TypeError)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (b"fix", "a bytes value b'fix'"),
        (["x"], "a list ['x']"),
        ({"a": 1}, "a dict {'a': 1}"),
        ((1,), "a tuple (1,)"),
        (1j, "a complex 1j"),
        (..., "an ellipsis Ellipsis"),
        (5, "5"),
        (2.5, "2.5"),
        (True, "True (a bool)"),
        (None, "None"),
        ("x", "the string 'x'"),
        (Path("a"), repr(Path("a"))),
        (bytearray(b"x"), "bytearray(b'x')"),
    ],
)
def test_a_wrong_value_is_described_with_its_type_in_words(value: object, said: str) -> None:
    """Each type with the article its noun takes, and a value whose text names its type as it
    is: bytes read ``a bytes b'fix'``, and a path ``a PosixPath PosixPath('a')``."""
    assert given(value) == said


def _plain(t: Any) -> None: ...


def _generator(t: Any) -> Any:
    yield t


async def _async_generator(t: Any) -> Any:
    yield t


class _Thing:
    def method(self, t: Any) -> None: ...


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (_plain, "a plain function '_plain'"),
        (_test, "an async function '_test'"),
        (lambda t: t, "a lambda"),
        (_generator, "a generator function '_generator' (def with yield)"),
        (_async_generator, "an async generator function '_async_generator' (async def with yield)"),
        (_Thing, "the class '_Thing'"),
        (_Thing(), "a _Thing object"),
        (_Thing().method, "a plain function '_Thing.method'"),
        (len, "the built-in function 'len'"),
        (re, "the module 're'"),
        (_generator(None), "a generator object (what calling '_generator' returned)"),
        ([_plain], "a list [<function _plain>]"),
    ],
)
def test_a_function_or_a_class_is_named_for_what_it_is(value: object, said: str) -> None:
    """Never as its default text, ``<function _plain at 0x7f84…>``: the address tells the
    reader nothing, and changes from run to run."""
    assert given(value) == said
    assert "0x" not in given(value)


@pytest.mark.parametrize(
    ("test", "said"),
    [
        (_plain, "got a plain function '_plain' (def, not async def)"),
        (lambda t: t, "got a lambda: a lambda cannot be async, so write async def test(t)"),
        (_generator, "got a generator function '_generator' (def with yield)"),
        (
            _async_generator,
            "got an async generator function '_async_generator' (async def with yield): a test "
            "yields nothing, so take the yield out",
        ),
        (_Thing, "got the class '_Thing'"),
        (_Thing(), "got a _Thing object"),
    ],
)
def test_a_test_that_is_no_async_function_is_named_for_what_it_is(test: Any, said: str) -> None:
    expected = "argument 'test': expected an async function (async def test(t)), "
    for call, where in ((lambda: define_eval(test=test), "define_eval()"),
                        (lambda: case(id="a", test=test), "case(id='a')")):  # fmt: skip
        with pytest.raises(TypeError) as raised:
            call()
        assert str(raised.value) == f"{where}: {expected}{said}"


def test_a_test_called_by_mistake_is_told_to_give_the_function_and_never_awaited() -> None:
    """``test=test(None)`` gives a coroutine object: the message says so, and the coroutine is
    closed (no "coroutine '_test' was never awaited" warning, an error under pytest here)."""
    with pytest.raises(TypeError) as raised:
        define_eval(test=_test(None))  # type: ignore[arg-type]
    assert str(raised.value) == (
        "define_eval(): argument 'test': expected an async function (async def test(t)), got a "
        "coroutine object (what calling '_test' returned): give the function itself, "
        "test=_test, not test=_test(…)"
    )


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("segfault at 0x7ffd1234", "the string 'segfault at 0x7ffd1234'"),
        (b"jump at 0xff", "a bytes value b'jump at 0xff'"),
    ],
)
def test_a_text_that_reads_like_a_memory_address_is_shown_whole(value: object, said: str) -> None:
    """Only an object's default text loses its address: a string an eval passed keeps its
    words (``'segfault'`` was shown for ``'segfault at 0x7ffd1234'``)."""
    assert given(value) == said
