"""What an eval file declares: ``define_eval(...)`` (one per ``*.eval.py`` file, assigned at
module level), its ``case(...)`` entries, and ``define_eval_config(...)`` in
``evals/evals.config.py``. They only record their arguments; discovery checks them and names
the file when something is wrong."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from proctor.models.base import MAX_TIMEOUT_SEC
from proctor.util import argtypes

TestFn = Callable[[Any], Awaitable[None]]
Origin = tuple[str, int]
"""The file and line a definition was made at (its caller's frame)."""
MAX_ITERATIONS = 100
MAX_CONCURRENCY = 200
MAX_TIMEOUT_MS = int(MAX_TIMEOUT_SEC * 1000)
"""A case's longest time limit (a day), as a case folder's ``timeoutSec``."""


class EvalDefinitionError(ValueError):
    """A bad argument to ``define_eval``, ``case`` or ``define_eval_config``."""


class EvalDefinitionTypeError(EvalDefinitionError, TypeError):
    """An argument of the wrong Python type: a TypeError naming the function and the argument
    (``define_eval(): argument 'tags': expected a list of names, got the string 'x'``), which
    an eval file's discovery reports as any bad definition."""


def _wrong_type(where: str, name: str, expected: str, value: object) -> EvalDefinitionTypeError:
    return EvalDefinitionTypeError(str(argtypes.wrong_type(where, name, expected, value)))


@dataclass(frozen=True)
class EvalCase:
    id: str
    test: TestFn
    description: str | None = None
    tags: tuple[str, ...] = ()
    timeout_ms: int | None = None
    iterations: int | None = None
    plan: dict[str, Any] | str | None = None
    agent: str | None = None
    judge: str | None = None
    qna: str | None = None
    origin: Origin | None = field(default=None, compare=False, repr=False)
    """Where ``case(...)`` was called."""


@dataclass(frozen=True)
class EvalDefinition:
    description: str | None = None
    tags: tuple[str, ...] = ()
    timeout_ms: int | None = None
    iterations: int | None = None
    agent: str | None = None
    plan: dict[str, Any] | str | None = None
    judge: str | None = None
    test: TestFn | None = None
    cases: tuple[EvalCase, ...] = ()
    qna: str | None = None
    origin: Origin | None = field(default=None, compare=False, repr=False)
    """Where ``define_eval(...)`` was called."""


@dataclass(frozen=True)
class EvalConfig:
    max_concurrency: int | None = None
    timeout_ms: int | None = None
    judge: str | None = None
    agent: str | None = None
    model: str | None = None
    reporters: tuple[str, ...] = field(default_factory=tuple)


def _origin() -> Origin | None:
    """The file and line that called the ``define_eval``/``case`` this is called from: an
    error about the definition (a repeated id) can then point at it."""
    try:
        frame = sys._getframe(2)
    except ValueError:
        return None
    return frame.f_code.co_filename, frame.f_lineno


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


def case(
    *,
    id: str,
    test: TestFn,
    description: str | None = None,
    tags: Sequence[str] | None = None,
    timeout_ms: int | None = None,
    iterations: int | None = None,
    plan: dict[str, Any] | str | None = None,
    agent: str | None = None,
    judge: str | None = None,
    qna: str | None = None,
) -> EvalCase:
    """One case of an eval file; its settings replace the file's."""
    if not isinstance(id, str):
        raise _wrong_type("case()", "id", "a string", id)
    where = f"case(id={id!r})"
    if not id or "/" in id or id in (".", ".."):
        # Said for what it is: '..' holds no '/', and is still no name of a case.
        why = "a name, not empty" if not id else "a name, not '.' or '..'"
        if "/" in id:
            why = "one path segment (no '/')"
        raise EvalDefinitionError(f"case id {id!r}: must be {why}")
    return EvalCase(
        id=id,
        test=_test(test, where),
        description=_text(description, "description", where),
        tags=_tags(tags, where),
        timeout_ms=_positive(timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        iterations=_positive(iterations, "iterations", where, MAX_ITERATIONS),
        plan=_plan(plan, where),
        agent=_text(agent, "agent", where),
        judge=_text(judge, "judge", where),
        qna=_qna(qna, where),
        origin=_origin(),
    )


def _qna(qna: Any, where: str) -> str | None:
    if qna is None or isinstance(qna, str):
        return qna
    raise _wrong_type(where, "qna", "the text of a qna.md (a string) or None", qna)


def define_eval(
    *,
    description: str | None = None,
    tags: Sequence[str] | None = None,
    timeout_ms: int | None = None,
    iterations: int | None = None,
    agent: str | None = None,
    plan: dict[str, Any] | str | None = None,
    judge: str | None = None,
    test: TestFn | None = None,
    cases: Sequence[EvalCase] | None = None,
    qna: str | None = None,
) -> EvalDefinition:
    """The eval of one ``*.eval.py`` file: one ``test``, or several ``cases``."""
    where = "define_eval()"
    if (test is None) == (cases is None):
        raise EvalDefinitionError("define_eval: give either 'test' or 'cases', not both or neither")
    found: tuple[EvalCase, ...] = ()
    if cases is not None:
        try:
            found = tuple(
                argtypes.items(
                    cases,
                    where,
                    "cases",
                    "case(...)",
                    lambda c: isinstance(c, EvalCase),
                    many="case(...)",
                )
            )
        except TypeError as exc:
            raise EvalDefinitionTypeError(str(exc)) from None
        if not found:
            raise EvalDefinitionError("define_eval: 'cases' must be a non-empty list of case(...)")
        ids = [c.id for c in found]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise EvalDefinitionError(f"define_eval: case ids must be unique; repeated: {dupes}")
    return EvalDefinition(
        description=_text(description, "description", where),
        tags=_tags(tags, where),
        timeout_ms=_positive(timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        iterations=_positive(iterations, "iterations", where, MAX_ITERATIONS),
        agent=_text(agent, "agent", where),
        plan=_plan(plan, where),
        judge=_text(judge, "judge", where),
        test=_test(test, where) if test is not None else None,
        cases=found,
        qna=_qna(qna, where),
        origin=_origin(),
    )


def define_eval_config(
    *,
    max_concurrency: int | None = None,
    timeout_ms: int | None = None,
    judge: str | None = None,
    agent: str | None = None,
    model: str | None = None,
    reporters: Sequence[str] | None = None,
) -> EvalConfig:
    """The project's eval settings (``evals/evals.config.py``)."""
    where = "define_eval_config()"
    return EvalConfig(
        max_concurrency=_positive(max_concurrency, "max_concurrency", where, MAX_CONCURRENCY),
        timeout_ms=_positive(timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        judge=_text(judge, "judge", where),
        agent=_text(agent, "agent", where),
        model=_text(model, "model", where),
        reporters=_names(reporters, "reporters", where),
    )
