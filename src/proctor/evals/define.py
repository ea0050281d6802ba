"""What an eval file declares: ``define_eval(...)`` (one per ``*.eval.py`` file, assigned at
module level), its ``case(...)`` entries, and ``define_eval_config(...)`` in
``evals/evals.config.py``. They only record their arguments; discovery checks them and names
the file when something is wrong. Each argument's value is checked by
:mod:`proctor.evals.values`, whose errors and ``TestFn`` are importable from here too."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import inspect
import sys
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, ParamSpec, TypeVar

from proctor.evals import guarded
from proctor.evals.values import EvalDefinitionError as EvalDefinitionError
from proctor.evals.values import EvalDefinitionTypeError as EvalDefinitionTypeError
from proctor.evals.values import TestFn as TestFn
from proctor.evals.values import _names, _plan, _positive, _qna, _tags, _test, _text, _wrong_type
from proctor.models.base import MAX_TIMEOUT_SEC
from proctor.util import argtypes

Origin = tuple[str, int]
"""The file and line a definition was made at (its caller's frame)."""
MAX_ITERATIONS = 100
MAX_CONCURRENCY = 200
MAX_TIMEOUT_MS = int(MAX_TIMEOUT_SEC * 1000)
"""A case's longest time limit (a day), as a case folder's ``timeoutSec``."""


class EvalDefinitionProblems(EvalDefinitionError, TypeError):
    """Raised while an eval file is imported within :func:`problems_collected`: the
    definition is broken, and its every bad argument (its cases' too) is in the collected
    list, each with where its call was made. A TypeError too, as Python's own refusal of an
    unknown keyword is: a file that catches it (``except TypeError:``, to call again without
    a keyword an older proctor lacks) has its problems (``owned``) dropped from the list."""

    def __init__(self, message: str, owned: Sequence[Problem]) -> None:
        # Its message holds the problems' sentences, as Python's own refusal names the keyword
        # (a file may look: ``except TypeError as e: if "retries" not in str(e): raise``).
        super().__init__("; ".join(sentence for sentence, _ in owned) or message)
        self.owned = list(owned)
        collection = _collecting.get()
        if collection is not None:
            collection.raised.append(self)


Problem = tuple[str, Origin | None]
"""A bad argument's sentence and where the call that was given it was made."""


@dataclass
class _Collection:
    """What :func:`problems_collected` gathers while an eval file is imported."""

    problems: list[Problem] = field(default_factory=list)
    raised: list[EvalDefinitionProblems] = field(default_factory=list)
    """Each :class:`EvalDefinitionProblems` raised: its problems count only when it is the
    one that stopped the import."""
    outer: FrameType | None = None
    """The frame the collection was started from: a ``try`` of it, or of a frame above it,
    is proctor's, not the eval file's."""


_collecting: ContextVar[_Collection | None] = ContextVar("_collecting", default=None)


@contextlib.contextmanager
def problems_collected(
    found: list[Problem], dropped: list[Problem] | None = None
) -> Iterator[None]:
    """Within it (an eval file's import), ``define_eval``, ``case`` and
    ``define_eval_config`` name every bad argument, not only the first: each is added to the
    list ``found``, a ``case(...)`` with one is kept (so the cases after it are checked too),
    and a broken ``define_eval(...)`` or ``define_eval_config(...)`` raises
    :class:`EvalDefinitionProblems`, as does a broken ``case(...)`` whose refusal the file
    catches (``try: c = case(..., retries=2)`` / ``except TypeError: c = case(...)``, in the
    file or around the call of a helper that makes the case). Outside it, a call raises its
    first bad argument's error, as any Python function refuses a bad argument.

    The problems of a call whose :class:`EvalDefinitionProblems` the file caught (and of the
    cases it was given) are not added, but to ``dropped``: the file went on without that
    call's result (a problem the call that stopped the import owns too is added all the
    same: a broken case given to both; so is one of a refusal the error that stopped it was
    raised from, or while handling)."""
    collection = _Collection(outer=_outside(sys._getframe(1), contextlib.__file__))
    token = _collecting.set(collection)
    stopped: BaseException | None = None
    try:
        yield
    except BaseException as exc:
        stopped = exc
        raise
    finally:
        _collecting.reset(token)
        collection.outer = None
        kept = {id(p) for e in _chain(stopped) for p in e.owned}
        caught = {id(p) for e in collection.raised if e is not stopped for p in e.owned} - kept
        found += [p for p in collection.problems if id(p) not in caught]
        if dropped is not None:
            dropped += [p for p in collection.problems if id(p) in caught]


def _chain(stopped: BaseException | None) -> list[EvalDefinitionProblems]:
    """The refusals that stopped the import: ``stopped``, when it is one; else each one it
    was raised from or while handling (``except TypeError as e: raise ValueError('x') from
    e``), the error alone saying nothing of why. (A refusal that stopped it while handling
    another, caught, is that one's fallback: the caught one's problems are not named.)"""
    if isinstance(stopped, EvalDefinitionProblems):
        return [stopped]
    found: list[EvalDefinitionProblems] = []
    seen: set[int] = set()
    todo = [stopped]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        if isinstance(exc, EvalDefinitionProblems):
            found.append(exc)
        todo += [exc.__cause__, exc.__context__]
    return found


def _outside(frame: FrameType | None, filename: str) -> FrameType | None:
    """The first of ``frame`` and the frames that called it not run from ``filename``."""
    while frame is not None and frame.f_code.co_filename == filename:
        frame = frame.f_back
    return frame


def _refused_if_caught(problems: Sequence[Problem]) -> None:
    """Raises :class:`EvalDefinitionProblems` owning a broken case's ``problems`` when the
    eval file may catch it where the case is made: the file goes on without the case, as it
    would with Python's own refusal (its ``except`` branch runs), and the problems are not
    said; or, not caught after all (``except errors():`` matched something else), the
    import stops at it, named. Otherwise the broken case is returned, so the file's later
    problems are named."""
    collection = _collecting.get()
    if collection is None:
        return
    caller = _outside(sys._getframe(1), __file__)
    if guarded.caught(EvalDefinitionProblems, caller, collection.outer):
        raise EvalDefinitionProblems("case: bad arguments, each named", problems)


class _Collected:
    """The problems of one call's arguments, each checked whatever the others hold."""

    def __init__(self) -> None:
        self.errors: list[EvalDefinitionError] = []
        self.recorded: list[Problem] = []
        """The problems added to the collected list."""

    def take(self, check: Callable[..., Any], *args: Any) -> Any:
        """``check(*args)``, or None (with its error kept) when it refuses the value."""
        try:
            return check(*args)
        except EvalDefinitionError as exc:
            self.errors.append(exc)
            return None

    def said(self, origin: Origin | None) -> bool:
        """Whether a problem was found: outside :func:`problems_collected`, the first is
        raised; within, every one is added to the collected list."""
        if not self.errors:
            return False
        collection = _collecting.get()
        if collection is None:
            raise self.errors[0]
        self.recorded = [(str(exc), origin) for exc in self.errors]
        collection.problems += self.recorded
        return True


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
    broken: bool = field(default=False, compare=False, repr=False)
    """Whether it was given a bad argument (within :func:`problems_collected`, which keeps
    them): its eval file defines no eval."""
    problems: tuple[Problem, ...] = field(default=(), compare=False, repr=False)
    """A broken case's problems, as collected: a ``define_eval(...)`` given it owns them."""


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
    origin: Origin | None = field(default=None, compare=False, repr=False)
    """Where ``define_eval_config(...)`` was called: a problem of one of its settings that
    only a run finds (an unknown reporter or agent) is named at that line."""


def _origin() -> Origin | None:
    """The file and line that called the ``define_eval``/``case`` this is called from: an
    error about the definition (a repeated id) can then point at it."""
    try:
        frame = sys._getframe(2)
    except ValueError:
        return None
    while frame.f_code is _KEYWORDS_CODE and frame.f_back is not None:
        frame = frame.f_back  # the check of its keywords called it, not the eval file
    return frame.f_code.co_filename, frame.f_lineno


P = ParamSpec("P")
R = TypeVar("R")


def _keywords_checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` (``case``, ``define_eval``, ``define_eval_config``) that, within
    :func:`problems_collected`, names a keyword it does not take (``case() has no argument
    'promt' (it takes id, test, …)``) or a required one not given as one more problem of the
    call, and checks the arguments it does take as ever, so the import goes on and every
    problem of the file is named at once. Outside it, or given values by position, Python
    refuses the call as usual."""
    signature = inspect.signature(function)
    known = list(signature.parameters)
    required = [n for n, p in signature.parameters.items() if p.default is p.empty]
    name = function.__name__

    @functools.wraps(function)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        unknown = [k for k in kwargs if k not in signature.parameters]
        missing = [r for r in required if r not in kwargs]
        collection = _collecting.get()
        if collection is None or args or not (unknown or missing):
            return function(*args, **kwargs)
        origin = _origin()
        where = _called(name, kwargs.get("id"))
        said = []
        meant: set[str] = set()
        for wrong in unknown:
            close = difflib.get_close_matches(wrong, known, n=3, cutoff=0.6)
            meant.update(close)
            hint = (
                f"did you mean {' or '.join(map(repr, close))}?"
                if close
                else f"it takes {listed(known)}"
            )
            said.append((f"{where} has no argument '{wrong}' ({hint})", origin))
        for absent in missing:
            if absent not in meant:  # (a misspelt one said so already)
                said.append((f"{where} was not given '{absent}'", origin))
        given = {k: v for k, v in kwargs.items() if k in signature.parameters}
        found = collection.problems
        found += said
        # A required one left out is said already: the others are checked without it.
        given.update(dict.fromkeys(missing, _ABSENT))
        call: Callable[..., Any] = function
        before = len(found)
        try:
            result = call(**given)  # (which may raise, its cases being broken)
        except EvalDefinitionProblems as exc:
            exc.owned += said
            raise
        finally:
            if (meant & {"test", "cases"}) - kwargs.keys():
                # define_eval(tests=...) with no test: said once, as misspelt (given both, the
                # misspelling is another problem, and "not both" is said too)
                found[before:] = [f for f in found[before:] if not f[0].startswith(_EITHER)]
        if isinstance(result, EvalCase):
            problems = result.problems + tuple(said)
            _refused_if_caught(problems)
            return dataclasses.replace(result, broken=True, problems=problems)  # type: ignore[return-value]
        raise EvalDefinitionProblems(f"{name}: bad arguments, each named", said)

    return checked


def _called(name: str, id: object) -> str:
    """How a call is named in a sentence of its arguments: ``case(id='c')`` for a case given
    its id as a string, else ``define_eval()``, ``case()``."""
    return f"{name}(id={id!r})" if name == "case" and isinstance(id, str) else f"{name}()"


def listed(names: Sequence[str]) -> str:
    """``a, b and c``: the arguments a function takes, as a sentence names them."""
    *others, last = names
    return f"{', '.join(others)} and {last}" if others else last


_EITHER = "define_eval: give either"
_ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "<absent>"})()
"""What :func:`_keywords_checked` gives a required argument the call left out (said so)."""


async def _never_run(t: Any) -> None:
    """The test of a broken case, which never runs."""


@_keywords_checked
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
    """One case of an eval file; its settings replace the file's. Every bad argument is
    named (see :func:`problems_collected`); a broken case whose refusal the file catches
    raises it (a TypeError and a ValueError), as ``define_eval`` does."""
    origin = _origin()
    got = _Collected()
    where = _called("case", id)
    if id is _ABSENT:
        pass  # said where it was left out
    elif not isinstance(id, str):
        got.errors.append(_wrong_type("case()", "id", "a string", id))
    elif not id or "/" in id or id in (".", ".."):
        # Said for what it is: '..' holds no '/', and is still no name of a case.
        why = "a name, not empty" if not id else "a name, not '.' or '..'"
        if "/" in id:
            why = "one path segment (no '/')"
        got.errors.append(EvalDefinitionError(f"case id {id!r}: must be {why}"))
    found = EvalCase(
        id=id if isinstance(id, str) else "",
        test=got.take(_test, test, where) if test is not _ABSENT else _never_run,
        description=got.take(_text, description, "description", where),
        tags=got.take(_tags, tags, where) or (),
        timeout_ms=got.take(_positive, timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        iterations=got.take(_positive, iterations, "iterations", where, MAX_ITERATIONS),
        plan=got.take(_plan, plan, where),
        agent=got.take(_text, agent, "agent", where),
        judge=got.take(_text, judge, "judge", where),
        qna=got.take(_qna, qna, where),
        origin=origin,
    )
    if got.said(origin):
        problems = tuple(got.recorded)
        _refused_if_caught(problems)
        return EvalCase(id=found.id, test=found.test, origin=origin, broken=True, problems=problems)
    return found


@_keywords_checked
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
    """The eval of one ``*.eval.py`` file: one ``test``, or several ``cases``. Every bad
    argument is named, its own and its cases' (see :func:`problems_collected`)."""
    where = "define_eval()"
    origin = _origin()
    got = _Collected()
    if (test is None) == (cases is None):
        got.errors.append(EvalDefinitionError(f"{_EITHER} 'test' or 'cases', not both or neither"))
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
            got.errors.append(EvalDefinitionTypeError(str(exc)))
        else:
            if not found:
                got.errors.append(
                    EvalDefinitionError(
                        "define_eval: 'cases' must be a non-empty list of case(...)"
                    )
                )
        # A broken case's id too (its bad argument is said beside), but not the '' a case
        # whose id is no string stands under: each problem is named at once.
        ids = [c.id for c in found if c.id or not c.broken]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            got.errors.append(
                EvalDefinitionError(f"define_eval: case ids must be unique; repeated: {dupes}")
            )
    definition = EvalDefinition(
        description=got.take(_text, description, "description", where),
        tags=got.take(_tags, tags, where) or (),
        timeout_ms=got.take(_positive, timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        iterations=got.take(_positive, iterations, "iterations", where, MAX_ITERATIONS),
        agent=got.take(_text, agent, "agent", where),
        plan=got.take(_plan, plan, where),
        judge=got.take(_text, judge, "judge", where),
        test=got.take(_test, test, where) if test is not None else None,
        cases=found,
        qna=got.take(_qna, qna, where),
        origin=origin,
    )
    # A broken case's problems are collected already (outside, it raised): none runs.
    if got.said(origin) or any(c.broken for c in found):
        owned = [*got.recorded, *(p for c in found for p in c.problems)]
        raise EvalDefinitionProblems("define_eval: bad arguments, each named", owned)
    return definition


@_keywords_checked
def define_eval_config(
    *,
    max_concurrency: int | None = None,
    timeout_ms: int | None = None,
    judge: str | None = None,
    agent: str | None = None,
    model: str | None = None,
    reporters: Sequence[str] | None = None,
) -> EvalConfig:
    """The project's eval settings (``evals/evals.config.py``); every bad argument is named
    at once."""
    where = "define_eval_config()"
    origin = _origin()
    got = _Collected()
    config = EvalConfig(
        max_concurrency=got.take(
            _positive, max_concurrency, "max_concurrency", where, MAX_CONCURRENCY
        ),
        timeout_ms=got.take(_positive, timeout_ms, "timeout_ms", where, MAX_TIMEOUT_MS),
        judge=got.take(_text, judge, "judge", where),
        agent=got.take(_text, agent, "agent", where),
        model=got.take(_text, model, "model", where),
        reporters=got.take(_names, reporters, "reporters", where) or (),
        origin=origin,
    )
    if got.said(origin):
        raise EvalDefinitionProblems("define_eval_config: bad arguments, each named", got.recorded)
    return config


_KEYWORDS_CODE = _keywords_checked(_never_run).__code__  # (the same code for every function)
