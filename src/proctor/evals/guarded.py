"""Whether an eval file catches the refusal of a call it is making: ``try: c = case(id='c',
test=t, retries=2)`` / ``except TypeError: c = case(id='c', test=t)`` guards a keyword an
older proctor lacks. Read from the source of each call in progress (the file's line, and the
line of every call that led to it: a ``case(...)`` made in a helper the ``try`` calls is
guarded too): a ``try`` whose body holds the call and one of whose ``except`` clauses names a
class the refusal is an instance of (``TypeError``, ``(TypeError, ValueError)``,
``Exception``), or a bare ``except:``. A clause whose class cannot be read from its names
alone (``except errors():``), or that raises it again (ends with ``raise``), is taken to
catch nothing."""

from __future__ import annotations

import ast
import functools
import linecache
from types import FrameType

_Span = tuple[int, int | None, int, int | None]
"""A call's first line, first column, last line and end column (no columns when unknown)."""

_TRY = (ast.Try, ast.TryStar)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp)
"""What runs in a frame of its own, or later (a generator): a ``try`` around it guards no
call in it; the frame that runs it, when it is guarded, is found as the stack is walked."""


def caught(error: type[BaseException], frame: FrameType | None, outer: FrameType | None) -> bool:
    """Whether ``error`` raised at ``frame``'s current call would be caught by a ``try`` of
    it or of a frame that called it, up to (not including) ``outer``."""
    while frame is not None and frame is not outer:
        if any(_catches(error, handler, frame) for handler in _handlers(frame)):
            return True
        frame = frame.f_back
    return False


def _handlers(frame: FrameType) -> list[ast.ExceptHandler]:
    """The ``except`` clauses of the ``try`` blocks of ``frame`` whose body holds its current
    call, innermost first."""
    filename = frame.f_code.co_filename
    linecache.checkcache(filename)  # (a file written again since it was read)
    tree = _tree(filename, "".join(linecache.getlines(filename, frame.f_globals)))
    span = _span(frame)
    if tree is None or span is None:
        return []
    path = _path(tree, span)
    handlers: list[ast.ExceptHandler] = []
    for at in range(len(path) - 2, -1, -1):
        parent, child = path[at], path[at + 1]
        if isinstance(parent, _SCOPES) and not _runs_outside(parent, path[at + 1 : at + 3]):
            break
        if isinstance(parent, _TRY) and any(child is s for s in parent.body):
            handlers += parent.handlers
    return handlers


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


def _catches(error: type[BaseException], handler: ast.ExceptHandler, frame: FrameType) -> bool:
    last = handler.body[-1] if handler.body else None
    if isinstance(last, ast.Raise) and last.exc is None:
        return False  # (except TypeError: ...; raise: it goes on, as importlib's does)
    if handler.type is None:
        return True  # except:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for name in names:
        found = _value(name, frame)
        if isinstance(found, type) and issubclass(error, found):
            return True
    return False


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
    last = node.end_lineno if node.end_lineno is not None else node.lineno
    if column is None or end_column is None or node.end_col_offset is None:
        return node.lineno <= line and end_line <= last
    return (node.lineno, node.col_offset) <= (line, column) and (end_line, end_column) <= (
        last,
        node.end_col_offset,
    )


@functools.lru_cache(maxsize=32)
def _tree(filename: str, source: str) -> ast.Module | None:
    """The file's syntax tree; None for one whose source is not to be read (a frozen module)."""
    if not source:
        return None
    try:
        return ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return None
