"""The checks of the values given to ``define_eval``, ``case`` and ``define_eval_config``
(:mod:`proctor.evals.define`): each argument's type and range, refused with an
:class:`EvalDefinitionError` that names the function and the argument. They hold no state:
which problems are raised and which collected is the calls' to say."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from proctor.util import argtypes

TestFn = Callable[[Any], Awaitable[None]]


class EvalDefinitionError(ValueError):
    """A bad argument to ``define_eval``, ``case`` or ``define_eval_config``."""


class EvalDefinitionTypeError(EvalDefinitionError, TypeError):
    """An argument of the wrong Python type: a TypeError naming the function and the argument
    (``define_eval(): argument 'tags': expected a list of names, got the string 'x'``), which
    an eval file's discovery reports as any bad definition."""


def _wrong_type(where: str, name: str, expected: str, value: object) -> EvalDefinitionTypeError:
    return EvalDefinitionTypeError(str(argtypes.wrong_type(where, name, expected, value)))


def _tags(tags: Sequence[str] | None, where: str) -> tuple[str, ...]:
    found = _listed(tags, "tags", where)
    if not all(found):
        raise EvalDefinitionError(f"{_plain(where)}: 'tags' must be a list of non-empty strings")
    return tuple(found)


def _plain(where: str) -> str:
    """What a sentence of a wrong value opens with: ``define_eval`` for ``define_eval()``,
    ``case 'fix'`` for ``case(id='fix')``."""
    if where.startswith("case(id="):
        return f"case {where.removeprefix('case(id=').removesuffix(')')}"
    return where.removesuffix("()")


def _positive(value: Any, name: str, where: str, most: int | None = None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _wrong_type(where, name, "an int or None", value)
    if value < 1 or (most is not None and value > most):
        # Worded as a wrong type is: the function, the argument, what it takes, what it got.
        span = f"from 1 to {most}" if most is not None else "of at least 1"
        error = argtypes.wrong_value(where, name, f"a whole number {span} or None", value)
        raise EvalDefinitionError(str(error))
    return value


def _plan(plan: Any, where: str) -> dict[str, Any] | str | None:
    if plan is None or isinstance(plan, (dict, str)):
        return plan
    raise _wrong_type(where, "plan", "a dict or the path of a plan file (a string)", plan)


def _test(test: Any, where: str) -> TestFn:
    if not inspect.iscoroutinefunction(test):
        said = argtypes.given(test) + _why_not_async(test)
        if inspect.iscoroutine(test):
            test.close()  # called by mistake; never run, so never to be awaited either
        raise EvalDefinitionTypeError(
            f"{where}: argument 'test': expected an async function (async def test(t)), got {said}"
        )
    try:
        signature = inspect.signature(test)
    except (TypeError, ValueError):  # no signature to read (a builtin): the run will tell
        return test  # type: ignore[no-any-return]
    try:
        signature.bind(None)  # it is called with one argument, the test context t
    except TypeError:
        name = getattr(test, "__name__", "test")
        raise EvalDefinitionError(
            f"{_plain(where)}: 'test' is called with one argument, the test context: async def "
            f"test(t), not async def {name}{signature}"
        ) from None
    return test  # type: ignore[no-any-return]


def _why_not_async(test: Any) -> str:
    """What to change of a ``test`` that is no async function, when it is some other kind of
    function (or what calling one returned)."""
    if inspect.iscoroutine(test):
        name = test.__name__
        return f": give the function itself, test={name}, not test={name}(…)"
    if inspect.isasyncgenfunction(test):
        return ": a test yields nothing, so take the yield out"
    if getattr(test, "__name__", None) == "<lambda>" and inspect.isfunction(test):
        return ": a lambda cannot be async, so write async def test(t)"
    if (inspect.isfunction(test) or inspect.ismethod(test)) and not (
        inspect.isgeneratorfunction(test)
    ):
        return " (def, not async def)"
    return ""


def _text(value: Any, name: str, where: str) -> str | None:
    if value is None or (isinstance(value, str) and value):
        return value
    if not isinstance(value, str):
        raise _wrong_type(where, name, "a string or None", value)
    raise EvalDefinitionError(f"{_plain(where)}: '{name}' must be a non-empty string, got ''")


def _listed(values: Any, name: str, where: str) -> list[str]:
    """The strings of a list argument (None is none); a string, which read as a list was its
    letters, or anything but a list of strings is a TypeError naming the argument."""
    if values is None:
        return []
    try:
        return argtypes.names(values, where, name, one=False)
    except TypeError as exc:
        raise EvalDefinitionTypeError(str(exc)) from None


def _names(values: Any, name: str, where: str) -> tuple[str, ...]:
    found = _listed(values, name, where)
    if not all(found):
        raise EvalDefinitionError(
            f"{_plain(where)}: '{name}' must be a list of names, got {values!r}"
        )
    return tuple(found)


def _qna(qna: Any, where: str) -> str | None:
    if qna is None or isinstance(qna, str):
        return qna
    raise _wrong_type(where, "qna", "the text of a qna.md (a string) or None", qna)
