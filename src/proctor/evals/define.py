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

TestFn = Callable[[Any], Awaitable[None]]
Origin = tuple[str, int]
"""The file and line a definition was made at (its caller's frame)."""
MAX_ITERATIONS = 100
MAX_CONCURRENCY = 200
MAX_TIMEOUT_MS = int(MAX_TIMEOUT_SEC * 1000)
"""A case's longest time limit (a day), as a case folder's ``timeoutSec``."""


class EvalDefinitionError(ValueError):
    """A bad argument to ``define_eval``, ``case`` or ``define_eval_config``."""


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
    if tags is None:
        return ()
    if isinstance(tags, str) or not all(isinstance(t, str) and t for t in tags):
        raise EvalDefinitionError(f"{where}: 'tags' must be a list of non-empty strings")
    return tuple(tags)


def _positive(value: Any, name: str, where: str, most: int | None = None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EvalDefinitionError(f"{where}: '{name}' must be a whole number of at least 1")
    if most is not None and value > most:
        raise EvalDefinitionError(f"{where}: '{name}' is {value}; at most {most} is allowed")
    return value


def _plan(plan: Any, where: str) -> dict[str, Any] | str | None:
    if plan is None or isinstance(plan, (dict, str)):
        return plan
    raise EvalDefinitionError(f"{where}: 'plan' must be a dict or a path to a plan file")


def _test(test: Any, where: str) -> TestFn:
    if not inspect.iscoroutinefunction(test):
        raise EvalDefinitionError(f"{where}: 'test' must be an async function: async def test(t)")
    try:
        signature = inspect.signature(test)
    except (TypeError, ValueError):  # no signature to read (a builtin): the run will tell
        return test  # type: ignore[no-any-return]
    try:
        signature.bind(None)  # it is called with one argument, the test context t
    except TypeError:
        name = getattr(test, "__name__", "test")
        raise EvalDefinitionError(
            f"{where}: 'test' is called with one argument, the test context: async def "
            f"test(t), not async def {name}{signature}"
        ) from None
    return test  # type: ignore[no-any-return]


def _text(value: Any, name: str, where: str) -> str | None:
    if value is None or (isinstance(value, str) and value):
        return value
    raise EvalDefinitionError(f"{where}: '{name}' must be a non-empty string, got {value!r}")


def _names(values: Any, name: str, where: str) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str) or not all(isinstance(v, str) and v for v in values):
        raise EvalDefinitionError(f"{where}: '{name}' must be a list of names, got {values!r}")
    return tuple(values)


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
    where = f"case '{id}'"
    if not isinstance(id, str) or not id or "/" in id or id in (".", ".."):
        raise EvalDefinitionError(f"case id {id!r}: must be one path segment (no '/')")
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
    raise EvalDefinitionError(f"{where}: 'qna' must be the text of a qna.md (answering rules)")


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
    where = "define_eval"
    if (test is None) == (cases is None):
        raise EvalDefinitionError(f"{where}: give either 'test' or 'cases', not both or neither")
    found: tuple[EvalCase, ...] = ()
    if cases is not None:
        found = tuple(cases)
        if not found or not all(isinstance(c, EvalCase) for c in found):
            raise EvalDefinitionError(f"{where}: 'cases' must be a non-empty list of case(...)")
        ids = [c.id for c in found]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise EvalDefinitionError(f"{where}: case ids must be unique; repeated: {dupes}")
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
    where = "define_eval_config"
    return EvalConfig(
        max_concurrency=_positive(max_concurrency, "max_concurrency", where, MAX_CONCURRENCY),
        timeout_ms=_positive(timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        judge=_text(judge, "judge", where),
        agent=_text(agent, "agent", where),
        model=_text(model, "model", where),
        reporters=_names(reporters, "reporters", where),
    )
