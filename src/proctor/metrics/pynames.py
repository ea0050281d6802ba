"""Which values a Python script's names are given, as its text says (for
:mod:`proctor.metrics.scripts`, which reads a script's syntax and never runs it)."""

from __future__ import annotations

import ast
from collections.abc import Iterator


def followed_bindings(
    node: ast.Assign | ast.AnnAssign | ast.For,
) -> Iterator[tuple[ast.Name, str, ast.expr]]:
    """The names a node gives a value the script's text says, each with how ("one" value, or
    "each" of a list a ``for`` walks) and the value: ``p = …``, ``p: Path = …``, ``a, b = x,
    y``, ``for f in [...]``, ``for path, old, new in [(…), (…)]``, ``for name in {…}`` or
    ``for name, (old, new) in {…}.items()`` (the dictionary's keys; of ``edits.items()``, the
    name ``edits``, whose dictionary is looked up where it is read)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name):
            yield target, "one", value
        elif (
            isinstance(target, ast.Tuple | ast.List)
            and isinstance(value, ast.Tuple | ast.List)
            and len(target.elts) == len(value.elts)
        ):
            for name, part in zip(target.elts, value.elts, strict=True):
                if isinstance(name, ast.Name):
                    yield name, "one", part
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        yield node.target, "one", node.value
    elif isinstance(node, ast.For):
        target, values = node.target, node.iter
        items = values.func if isinstance(values, ast.Call) and not values.args else None
        if (
            isinstance(items, ast.Attribute)
            and items.attr in ("items", "keys")
            and isinstance(items.value, ast.Dict | ast.Name)
            and (items.attr == "keys" or (isinstance(target, ast.Tuple) and len(target.elts) == 2))
        ):
            if isinstance(target, ast.Tuple):
                target = target.elts[0]
            # A dictionary written here: its keys; one a name stands for: the name, read on.
            values = _keys(items.value) if isinstance(items.value, ast.Dict) else items.value
        if isinstance(values, ast.Dict):
            values = _keys(values)
        if isinstance(target, ast.Name):
            yield target, "each", values
        elif isinstance(target, ast.Tuple) and isinstance(values, ast.List | ast.Tuple):
            rows = values.elts
            width = len(target.elts)
            if all(
                isinstance(row, ast.Tuple | ast.List) and len(row.elts) == width for row in rows
            ):
                for at, name in enumerate(target.elts):
                    if isinstance(name, ast.Name):
                        column = [row.elts[at] for row in rows]  # type: ignore[attr-defined]
                        yield name, "each", ast.List(elts=column, ctx=ast.Load())


def _keys(mapping: ast.Dict) -> ast.expr:
    """A dictionary's keys as a list (one that unpacks another, ``**d``, as no list)."""
    if any(key is None for key in mapping.keys):
        return ast.Constant(value=None)
    return ast.List(elts=[key for key in mapping.keys if key is not None], ctx=ast.Load())


def parameter_values(nodes: list[ast.AST]) -> Iterator[tuple[ast.arg, ast.List]]:
    """The parameters of each plain function (positional ones, no decorator, defaults only
    constants) whose name is only ever called, by calls that give every parameter a value
    (or leave it its default), plainly (no ``*args``, no ``**kwargs``), each with the list of
    the values its calls give it."""
    functions = {
        node.name: node
        for node in nodes
        if isinstance(node, ast.FunctionDef)
        and not node.decorator_list
        and all(isinstance(default, ast.Constant) for default in node.args.defaults)
        and not node.args.vararg
        and not node.args.kwarg
        and not node.args.kwonlyargs
    }
    names = [node.name for node in nodes if isinstance(node, ast.FunctionDef)]
    calls: dict[str, list[ast.Call]] = {}
    called: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.setdefault(node.func.id, []).append(node)
            called.add(id(node.func))
    loaded = {
        node.id
        for node in nodes
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in called
    }
    for name, function in functions.items():
        if names.count(name) != 1 or name in loaded or not calls.get(name):
            continue  # defined twice, handed on, or never called
        parameters = [*function.args.posonlyargs, *function.args.args]
        columns: list[list[ast.expr]] = [[] for _ in parameters]
        defaults = function.args.defaults  # the last parameters'
        for call in calls[name]:
            given = _given(call, parameters, defaults)
            if given is None:
                break
            for column, value in zip(columns, given, strict=True):
                column.append(value)
        else:
            for parameter, column in zip(parameters, columns, strict=True):
                yield parameter, ast.List(elts=column, ctx=ast.Load())


def _given(
    call: ast.Call, parameters: list[ast.arg], defaults: list[ast.expr]
) -> list[ast.expr] | None:
    """The value a call gives each parameter, by place or by name, else its default (a
    constant); None for a call that unpacks its arguments, or does not give each parameter
    without a default one value."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or len(call.args) > len(parameters):
        return None
    given: list[ast.expr | None] = [*call.args, *[None] * (len(parameters) - len(call.args))]
    names = [parameter.arg for parameter in parameters]
    for keyword in call.keywords:
        if keyword.arg not in names or given[names.index(keyword.arg)] is not None:
            return None
        given[names.index(keyword.arg)] = keyword.value
    first_default = len(parameters) - len(defaults)
    for place in range(first_default, len(parameters)):
        if given[place] is None:
            given[place] = defaults[place - first_default]
    return None if any(value is None for value in given) else given  # type: ignore[return-value]


def bound_names(node: ast.AST) -> Iterator[str]:
    """The names a node gives a value to, each as often as it counts: a parameter, a global
    or a nonlocal twice, for each may hold any value."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        yield node.id
    elif isinstance(node, ast.arg):
        yield from (node.arg, node.arg)
    elif isinstance(node, ast.alias):
        yield (node.asname or node.name).partition(".")[0]
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            yield from (name, name)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield from (node.name, node.name)  # the exception caught: any value
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        yield from (node.name, node.name)  # a case's capture: any value matched
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield from (node.rest, node.rest)
