"""Whether an eval file catches the refusal of a call it is making: ``try: c = case(id='c',
test=t, retries=2)`` / ``except TypeError: c = case(id='c', test=t)`` guards a keyword an
older proctor lacks. Read from the source of each call in progress (the file's line, and the
line of every call that led to it: a ``case(...)`` made in a helper the ``try`` calls is
guarded too): a ``try`` whose body holds the call and whose first ``except`` clause that
matches, as Python picks it, names a class the refusal is an instance of (``TypeError``,
``(TypeError, ValueError)``, ``Exception``, a name holding a tuple of classes) or is a bare
``except:``; or a ``with contextlib.suppress(TypeError):`` around it. A clause that only
raises it again (``except TypeError: raise``) lets it on to the ``try`` around; one that
does anything else may recover, so it catches.

What is not known until Python matches the refusal may catch it too: a clause whose class
is not read from its names alone (``except errors():``, ``except ERRORS[0]:``, a
``suppress(*errors())``), which is never run here, a ``with`` of any other manager (its
``__exit__`` may swallow the refusal: it is never run here either) but one known not to (an
``open(...)``, a ``contextlib.nullcontext(...)``, ...), and a handler of code whose source is
not read (a string given to ``exec``), found in its code's exception table. The refusal is then
raised, and Python's own matching decides, as for its own TypeError: the file's ``except``
branch runs, or the import stops at the refusal, which is named. Only a refusal surely not
caught is kept (so the file's later problems are named too); one taken as caught is never
lost. Frames of importlib (its own handlers clean up and raise again) are not read."""

from __future__ import annotations

import ast
import contextlib
import dis
import functools
import importlib
import inspect
import io
import linecache
import os
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from types import FrameType

_Span = tuple[int, int | None, int, int | None]
"""A call's first line, first column, last line and end column (no columns when unknown)."""

_TRY = (ast.Try, ast.TryStar)
_WITH = (ast.With, ast.AsyncWith)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp)
"""What runs in a frame of its own, or later (a generator): a ``try`` around it guards no
call in it; the frame that runs it, when it is guarded, is found as the stack is walked."""


def caught(error: type[BaseException], frame: FrameType | None, outer: FrameType | None) -> bool:
    """Whether ``error`` raised at ``frame``'s current call may be caught by a ``try`` (or
    a ``with contextlib.suppress(...)``) of it or of a frame that called it, up to (not
    including) ``outer``: False only when it surely is not."""
    while frame is not None and frame is not outer:
        if not _importlibs(frame.f_code.co_filename) and _may_stop(error, frame):
            return True
        frame = frame.f_back
    return False


def _may_stop(error: type[BaseException], frame: FrameType) -> bool:
    """Whether ``error`` raised at ``frame``'s current call may go no further than
    ``frame``: read from its source, else from its code (any handler around the call)."""
    guards = _guards(frame)
    if guards is None:
        return _handled(frame)
    return any(_stops(error, guard, frame) is not False for guard in guards)


def _handled(frame: FrameType) -> bool:
    """Whether a handler of ``frame``'s code (an ``except``, a ``with``'s exit, a
    ``finally``) is around its current instruction, as its exception table says."""
    entries = getattr(dis.Bytecode(frame.f_code), "exception_entries", None)
    if entries is None:  # (a Python whose table is not read: unknown, so it may)
        return True
    return any(entry.start <= frame.f_lasti < entry.end for entry in entries)


_IMPORTLIB = os.path.dirname(importlib.__file__) + os.sep


def _importlibs(filename: str) -> bool:
    """Whether code of ``filename`` is importlib's (frozen, or read from its files when
    Python runs with ``-X frozen_modules=off``): its ``except`` clauses clean up and raise
    again, catching nothing of the eval file's."""
    return filename.startswith(("<frozen importlib.", _IMPORTLIB))


def _guards(frame: FrameType) -> list[ast.Try | ast.TryStar | ast.With | ast.AsyncWith] | None:
    """The ``try`` and ``with`` blocks of ``frame`` whose body holds its current call,
    innermost first; None when its source is not read (code run by ``exec``, a frozen
    module)."""
    filename = frame.f_code.co_filename
    linecache.checkcache(filename)  # (a file written again since it was read)
    tree = _tree(filename, "".join(linecache.getlines(filename, frame.f_globals)))
    span = _span(frame)
    if tree is None or span is None:
        return None
    path = _path(tree, span)
    guards: list[ast.Try | ast.TryStar | ast.With | ast.AsyncWith] = []
    for at in range(len(path) - 2, -1, -1):
        parent, child = path[at], path[at + 1]
        if isinstance(parent, _SCOPES) and not _runs_outside(parent, path[at + 1 : at + 3]):
            break
        if isinstance(parent, (*_TRY, *_WITH)) and any(child is s for s in parent.body):
            guards.append(parent)
    return guards


def _runs_outside(scope: ast.AST, below: list[ast.AST]) -> bool:
    """Whether the node ``below`` a function, class or generator leads to runs where it is
    written, not in its frame: a decorator, a default, a base class, a generator's first
    iterable."""
    child = below[0]
    if isinstance(scope, ast.GeneratorExp):
        first = scope.generators[0]
        return child is first and len(below) > 1 and below[1] is first.iter
    if isinstance(scope, ast.Lambda):
        return child is scope.args
    return not any(child is s for s in getattr(scope, "body", ()))


def _stops(error: type[BaseException], guard: ast.AST, frame: FrameType) -> bool | None:
    """Whether ``error`` raised in ``guard``'s body goes no further: the first ``except``
    clause that matches it does more than raise it again, or a manager of the ``with``
    swallows it; None when that is known only as Python matches it."""
    if isinstance(guard, _WITH):
        return _any(_swallows(error, item.context_expr, guard, frame) for item in guard.items)
    for handler in guard.handlers if isinstance(guard, _TRY) else ():
        matched = True if handler.type is None else _matches(error, handler.type, frame)
        if matched is False:
            continue
        # (except TypeError: raise: it goes on, to the try around this one)
        only = handler.body[0] if len(handler.body) == 1 else None
        if not (isinstance(only, ast.Raise) and only.exc is None):
            return matched
        if matched:
            return False
        # (a clause only raising again, whose class is not known: matched, it goes on; not
        # matched, the later clauses decide)
    return False


def _swallows(
    error: type[BaseException], manager: ast.expr, guard: ast.With | ast.AsyncWith, frame: FrameType
) -> bool | None:
    """Whether the ``with`` ``guard``'s ``manager`` swallows ``error`` as it exits: a call of
    ``contextlib.suppress`` given a class of it does, a call of a maker of managers known not
    to (``_QUIET``) does not; any other may (None): its exit is never run here to find out.
    The call is read from its names as they are now, so it is not known when the ``with``
    binds one of them again."""
    if not isinstance(manager, ast.Call) or _rebinds(guard, _names(manager.func)):
        return None  # (what it names now may not be what the with called)
    maker = _value(manager.func, frame)
    if maker is contextlib.suppress and isinstance(guard, ast.With):
        given = [a.value if isinstance(a, ast.Starred) else a for a in manager.args]
        return _any(_matches(error, a, frame) for a in given)
    leave = "__aexit__" if isinstance(guard, ast.AsyncWith) else "__exit__"
    known = any(maker is m and leave in made and _made(m) == made for m, made in _QUIET)
    return False if known else None


_LOOKED_UP = ("__new__", "__init__", "__exit__", "__aexit__")


def _made(maker: object) -> dict[str, object]:
    """What decides the manager a call of the class ``maker`` makes, and what its exit does:
    the methods its call runs and its exits, as Python finds them (never run); for a
    function of Python's own (``open``), the function. Read as proctor is imported, and again
    as a ``with`` calls it: a class (or a base, or its metaclass) given other methods since is
    not known."""
    if not isinstance(maker, type):
        return {"__exit__": maker}
    found = {name: inspect.getattr_static(maker, name, None) for name in _LOOKED_UP}
    found["call"] = inspect.getattr_static(type(maker), "__call__", None)
    return {name: method for name, method in found.items() if method is not None}


_QUIET: list[tuple[object, dict[str, object]]] = [
    (maker, _made(maker))
    for maker in (
        open,  # (io.open: a file of io's own classes, which cannot be given other methods)
        io.StringIO,
        io.BytesIO,
        contextlib.nullcontext,
        contextlib.closing,
        contextlib.redirect_stdout,
        contextlib.redirect_stderr,
        contextlib.chdir,
        tempfile.TemporaryDirectory,
        warnings.catch_warnings,
    )
]
"""The makers of managers whose exit swallows nothing, with what they were as proctor was
imported: each makes an instance of its own class (no subclass), whose exit returns None."""


def _names(node: ast.expr) -> set[str]:
    """The names a dotted name is read through (``contextlib.nullcontext``: both)."""
    names = set()
    while isinstance(node, ast.Attribute):
        names.add(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.add(node.id)
    return names


def _rebinds(guard: ast.AST, names: set[str]) -> bool:
    """Whether the code of ``guard`` (its managers, targets and body, the functions it
    defines too) binds or deletes a name, or sets or deletes an attribute, spelt as one of
    ``names`` (``open = ...``, ``del open``, ``import io as contextlib``,
    ``contextlib.nullcontext = ...``), or imports every name of a module."""
    return any(name in names or name == "*" for name in _bound(guard))


def _bound(tree: ast.AST) -> Iterator[str]:
    """The names bound, deleted or set as attributes in ``tree`` (``*`` for ``import *``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and not isinstance(node.ctx, ast.Load):
            yield node.id if isinstance(node, ast.Name) else node.attr
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".")[0]
        elif isinstance(node, ast.MatchMapping) and node.rest:
            yield node.rest
        elif (
            isinstance(node, (*_DEFS, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name
        ):
            yield node.name


def _matches(error: type[BaseException], node: ast.expr, frame: FrameType) -> bool | None:
    """Whether the class (or tuple of classes) ``node`` names in ``frame`` is one ``error``
    is a subclass of; None when it is not read from names alone (``errors()``)."""
    if isinstance(node, ast.Tuple):
        return _any(_matches(error, e, frame) for e in node.elts)
    return _among(error, _value(node, frame))


def _among(error: type[BaseException], found: object) -> bool | None:
    if found is _UNREAD:
        return None
    if isinstance(found, type):
        return issubclass(error, found)
    if isinstance(found, tuple):
        # (a tuple in a tuple: suppress reads it as issubclass does; an except refuses it, a
        # TypeError of its own as the refusal reaches it, so the import stops there either way)
        return _any(_among(error, f) for f in found)
    return False


def _any(found: Iterable[bool | None]) -> bool | None:
    """True when one is; else None when one is not known; else False."""
    seen: bool | None = False
    for one in found:
        if one:
            return True
        if one is None:
            seen = None
    return seen


_UNREAD = object()


def _value(node: ast.expr, frame: FrameType) -> object:
    """What a name (``TypeError``) or a dotted one (``builtins.TypeError``) is in ``frame``;
    anything else is not read, so never run."""
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals, frame.f_builtins):
            if node.id in scope:
                return scope[node.id]
        return _UNREAD
    if isinstance(node, ast.Attribute):
        owner = _value(node.value, frame)
        try:
            return getattr(owner, node.attr, _UNREAD)
        except Exception:  # a property that raises: no class read
            return _UNREAD
    return _UNREAD


def _span(frame: FrameType) -> _Span | None:
    """Where in its file ``frame``'s current call is written."""
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if 0 <= index < len(positions):
        line, end_line, column, end_column = positions[index]
        if line is not None and end_line is not None:
            return line, column, end_line, end_column
    line = frame.f_lineno
    return (line, None, line, None) if line is not None else None


def _path(tree: ast.AST, span: _Span) -> list[ast.AST]:
    """The nodes from ``tree`` down to the innermost one that holds ``span``."""
    path = [tree]
    while True:
        inner = next((c for c in ast.iter_child_nodes(path[-1]) if _holds(c, span)), None)
        if inner is None:
            return path
        path.append(inner)


def _holds(node: ast.AST, span: _Span) -> bool:
    if not isinstance(node, ast.expr | ast.stmt | ast.excepthandler | ast.keyword):
        # (a comprehension's for, a function's arguments: no place of their own)
        return any(_holds(c, span) for c in ast.iter_child_nodes(node))
    line, column, end_line, end_column = span
    start = (node.lineno, node.col_offset)
    if isinstance(node, _DEFS) and node.decorator_list:
        # (a decorator is called on its own line, before the def's)
        first = node.decorator_list[0]
        start = min(start, (first.lineno, first.col_offset))
    last = node.end_lineno if node.end_lineno is not None else node.lineno
    if column is None or end_column is None or node.end_col_offset is None:
        return start[0] <= line and end_line <= last
    return start <= (line, column) and (end_line, end_column) <= (last, node.end_col_offset)


@functools.lru_cache(maxsize=32)
def _tree(filename: str, source: str) -> ast.Module | None:
    """The file's syntax tree; None for one whose source is not to be read (a frozen module, a
    file written again since it ran, into one Python does not parse or whose expression is
    too long or too deep for its parser)."""
    if not source:
        return None
    try:
        return ast.parse(source, filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
