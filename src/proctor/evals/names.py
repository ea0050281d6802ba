"""The near names of a misspelt one in an eval file, as Python's own traceback suggests them
(``Did you mean: 'called_tool'?``) but its exception's text does not: proctor shows an
error of the test or of an import by that text alone, so ``turn.caled_tool(...)`` would say
only ``'TurnResult' object has no attribute 'caled_tool'``. The hint is added in proctor's
words: ``(did you mean 'called_tool'?)``. A name imported from proctor that is a method of
the test context or of a turn (``from proctor.evals import called_tool``) is said to be one:
``(called_tool is a method of the test context t or of a turn, not an import: call
t.called_tool(...) or turn.called_tool(...))``, and a misspelt one is said so with its
near one: ``(did you mean t.send(...)? it is a method of the test context t, not an
import)``. Such a method called bare in a test (``called_tool("Edit")``, a NameError) is said
to be one too: ``(called_tool is a method of the test context t or of a turn: call
t.called_tool(...) or turn.called_tool(...))``."""

from __future__ import annotations

import builtins
import difflib
import linecache
import pkgutil
import re
import sys
from collections.abc import Iterable
from types import TracebackType

from proctor.evals.context import TestContext
from proctor.evals.judges import Judge
from proctor.evals.turns import TurnResult

_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


def near_names(error: BaseException) -> str | None:
    """`` (did you mean 'x'?)`` for a name the error says is missing (an attribute, a
    variable, a name imported from a module) when a near one exists; None otherwise."""
    wrong: str | None = None
    known: Iterable[str] = ()
    if isinstance(error, AttributeError) and error.name and error.obj is not None:
        wrong, known = error.name, _attributes(error.obj)
    elif isinstance(error, NameError) and error.name:
        wrong, known = error.name, _visible(error)
        bare = _bare_method(wrong, known)
        if bare is not None:
            return bare
    elif isinstance(error, ModuleNotFoundError) and error.name:
        return _near_module(error.name)
    elif type(error) is ImportError:
        said = _CANNOT_IMPORT.match(str(error))
        module = sys.modules.get(said.group(2)) if said else None
        if said is not None and said.group(2).partition(".")[0] == "proctor":
            return _method_of_t(said.group(1)) or _near_import(said.group(1), module)
        if said is not None and module is not None:
            wrong, known = said.group(1), _attributes(module)
    if not wrong:
        return None
    # A private name is offered only for a private one, as Python offers it.
    names = [n for n in known if n != wrong and (wrong.startswith("_") or not n.startswith("_"))]
    close = difflib.get_close_matches(wrong, names, n=1, cutoff=0.75)
    if not close and isinstance(error, AttributeError) and isinstance(error.obj, Judge):
        return _judge_offers()  # a few methods, unlike t's many: all are named
    if not close and isinstance(error, NameError) and wrong == "turn":
        return " (a turn is what a send gives: turn = await t.send(...))"
    if not close and isinstance(error, NameError) and _called(error, wrong):
        return _near_method(wrong)  # caled_tool(...) for t.called_tool(...)
    return f" (did you mean {close[0]!r}?)" if close else None


def innermost(error: BaseException) -> TracebackType | None:
    """The last entry of the error's traceback: where it was raised (a call refused for its
    arguments, or a name not found, in the frame that made the call or read the name)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _called(error: NameError, name: str) -> bool:
    """Whether the line the error was raised at calls ``name`` (``caled_tool(...)``), as a
    method of ``t`` would be called, rather than reads it (``second.called_tool(...)``: a
    variable of the test's own, never a misspelt method)."""
    tb = innermost(error)
    if tb is None:
        return False
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
    return re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", line) is not None


def _judge_offers() -> str:
    """`` (t.judge has factuality, summarizes, closed_qa, sql and model)``."""
    *others, last = [n for n in vars(Judge) if not n.startswith("_") and callable(vars(Judge)[n])]
    return f" (t.judge has {', '.join(others)} and {last})"


_OWNERS = (("the test context", "t", TestContext), ("a turn", "turn", TurnResult))


def _method_of_t(name: str) -> str | None:
    """`` (x is a method of …, not an import: call t.x(...))`` when ``name`` (imported from
    proctor) is a public method or property of the test context or of a turn; None
    otherwise."""
    said = _where(name)
    if said is None:
        return None
    kind, of, use, uses = said
    return f" ({name} is {kind} of {of}, not an import: {use} {uses})"


def _bare_method(name: str, visible: Iterable[str]) -> str | None:
    """`` (called_tool is a method of the test context t or of a turn: call
    t.called_tool(...) or turn.called_tool(...))`` for a name used bare in a test
    (``called_tool("Edit")``) that is a public method or property of the test context or of
    a turn, unless a near name the test can read is likelier meant; None otherwise."""
    said = _where(name)
    if said is None:
        return None
    names = [n for n in visible if n != name and not n.startswith("_")]
    if difflib.get_close_matches(name, names, n=1, cutoff=0.9):
        return None  # a near name of its own (count_ for count) is likelier meant
    kind, of, use, uses = said
    return f" ({name} is {kind} of {of}: {use} {uses})"


def _near_method(wrong: str) -> str | None:
    """`` (did you mean t.called_tool(...)? it is a method of the test context t or of a
    turn)`` for a name near a public method or property of either; None otherwise."""
    theirs = sorted({n for _, _, cls in _OWNERS for n in dir(cls) if not n.startswith("_")})
    close = difflib.get_close_matches(wrong, theirs, n=1, cutoff=0.75)
    said = _where(close[0]) if close else None
    if said is None:
        return None
    kind, of, _, uses = said
    return f" (did you mean {uses}? it is {kind} of {of})"


def _where(name: str) -> tuple[str, str, str, str] | None:
    """What a public method or property ``name`` of the test context or of a turn is
    (``a method``), whose (``the test context t or a turn``), the verb of its use
    (``call``) and its uses (``t.x(...) or turn.x(...)``); None for another name."""
    if name.startswith("_"):
        return None
    owners = [(what, var, cls) for what, var, cls in _OWNERS if hasattr(cls, name)]
    if not owners:
        return None
    attribute = getattr(owners[0][2], name)
    kind, use = ("a method", "call") if callable(attribute) else ("a property", "read")
    args = "(...)" if callable(attribute) else ""
    of = " or of ".join(f"{what} {var}" if var == "t" else what for what, var, _ in owners)
    uses = " or ".join(f"{var}.{name}{args}" for _, var, _ in owners)
    return kind, of, use, uses


def _near_import(wrong: str, module: object) -> str | None:
    """The near name of one imported from proctor that it does not have: one of the module
    (`` (did you mean 'define_eval'?)``) or a method or property of the test context or of a
    turn (`` (did you mean t.called_tool(...)? it is a method of the test context t, not an
    import)``), whichever is nearer; None when none is near."""
    private = wrong.startswith("_")
    ours = [n for n in _attributes(module) if private or not n.startswith("_")] if module else []
    theirs = [n for _, _, cls in _OWNERS for n in dir(cls) if not n.startswith("_")]
    names = sorted({*ours, *theirs} - {wrong})
    close = difflib.get_close_matches(wrong, names, n=1, cutoff=0.75)
    if not close:
        return None
    said = None if close[0] in ours else _where(close[0])
    if said is None:
        return f" (did you mean {close[0]!r}?)"
    kind, of, _, uses = said
    return f" (did you mean {uses}? it is {kind} of {of}, not an import)"


def _near_module(name: str) -> str | None:
    """`` (did you mean 'proctor.evals'?)`` for a module that is not there (``proctor.eval``):
    a near module of the package its name is in, or, for a top-level one, a near module
    already imported (``proctr``)."""
    parts = name.split(".")
    for i in range(len(parts) - 1, -1, -1):
        if i == 0:
            known = {n.partition(".")[0] for n in list(sys.modules)}
        else:
            parent = sys.modules.get(".".join(parts[:i]))
            paths = getattr(parent, "__path__", None)
            if paths is None:
                continue
            known = {m.name for m in pkgutil.iter_modules(paths)}
        known.discard(parts[i])
        close = difflib.get_close_matches(parts[i], sorted(known), n=1, cutoff=0.75)
        if close:
            return f" (did you mean {'.'.join([*parts[:i], close[0]])!r}?)"
        return None
    return None


def _attributes(obj: object) -> list[str]:
    try:
        return list(dir(obj))
    except Exception:  # an object whose __dir__ raises offers nothing
        return []


def _visible(error: BaseException) -> list[str]:
    """The names the innermost frame of the error could read: its locals, its module's
    globals and the builtins."""
    tb = innermost(error)
    if tb is None:
        return list(vars(builtins))
    frame = tb.tb_frame
    return [*frame.f_locals, *frame.f_globals, *vars(builtins)]
