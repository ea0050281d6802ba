"""A misspelt keyword in an eval file, told in one sentence: Python's ``TypeError:
define_eval() got an unexpected keyword argument 'descripton'`` becomes ``define_eval() has no
argument 'descripton' (did you mean 'description'?)``, for the functions an eval file calls
(``define_eval``, ``case``, the expectations) and the methods of ``t``, a turn and
``t.judge``. So is a value given by position to one that takes it by keyword only:
``define_eval() takes 0 positional arguments but 1 was given`` becomes ``define_eval() takes
keyword arguments only (description, tags, …, qna), and 1 was given by position``; and one
left out: ``Gates.score() missing 1 required positional argument: 'value'`` becomes
``t.score() was not given 'value' (it takes name and value)``."""

from __future__ import annotations

import difflib
import inspect
import re
import traceback
from collections.abc import Callable
from typing import Any

from proctor.evals import define
from proctor.evals.context import TestContext
from proctor.evals.judges import Judge
from proctor.evals.names import innermost
from proctor.evals.turns import TurnResult
from proctor.evaluators.gates import expect
from proctor.evaluators.gates.vocabulary import Gates

_UNEXPECTED = re.compile(r"([\w.]+)\(\) got an unexpected keyword argument '(\w+)'")
_MISSING = re.compile(
    r"([\w.]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: (.+)"
)
_POSITIONAL = re.compile(
    r"([\w.]+)\(\) takes (?:from \d+ to )?\d+ positional arguments? but (\d+) "
    r"(?:positional arguments? )?(?:\(and \d+ keyword-only arguments?\) )?(?:was|were) given"
)

_OWNERS: dict[str, type] = {
    "TestContext": TestContext,
    "TurnResult": TurnResult,
    "Gates": Gates,
    "Judge": Judge,
}
_SHOWN = {"TestContext": "t.", "TurnResult": "turn.", "Gates": "t.", "Judge": "t.judge."}
"""How a method's owner is written in an eval file, when its line does not tell."""


def _function(qualname: str, error: BaseException) -> Callable[..., Any] | None:
    """Proctor's function or method the error's call named; None for one of the file's own."""
    owner, _, name = qualname.rpartition(".")
    if owner:
        cls = _OWNERS.get(owner)
        found = getattr(cls, name, None) if cls is not None else None
    else:
        found = getattr(define, name, None) or getattr(expect, name, None)
        if getattr(found, "__module__", None) not in (define.__name__, expect.__name__):
            return None  # a name those modules import (dataclasses' field): the file's own
        if not _called_as(error, name, found):
            return None  # the file's own function of the same name as one of proctor's
    return found if callable(found) else None


_UNSEEN: Any = object()


def _called_as(error: BaseException, name: str, function: object) -> bool:
    """Whether ``name``, where the call the error is about was made (a call refused for its
    arguments is refused in its caller's frame), is ``function`` or not to be seen there."""
    tb = innermost(error)
    if tb is None:
        return True
    frame = tb.tb_frame
    seen = frame.f_locals.get(name, frame.f_globals.get(name, _UNSEEN))
    return seen is _UNSEEN or seen is function


def argument_error(error: BaseException) -> str | None:
    """The sentence for a keyword an eval file gave one of proctor's functions that it does
    not take (``t.send() has no argument 'timout_ms' (it takes message, workspace_files
    and workspace_dir)``), or for values it gave by position to one that takes them by keyword
    only (:func:`_by_position`); None for any other error, or a function of the file's own."""
    if type(error) is not TypeError or not error.args:
        return None
    said = _UNEXPECTED.fullmatch(str(error.args[0]))
    if said is None:
        return _missing(error) or _by_position(error)
    qualname, wrong = said.groups()
    function = _function(qualname, error)
    if function is None:
        return None
    known = _named_parameters(function)
    close = difflib.get_close_matches(wrong, known, n=3, cutoff=0.6)
    if close:
        hint = f"did you mean {' or '.join(repr(c) for c in close)}?"
    elif known:
        hint = f"it takes {define.listed(known)}"
    else:
        hint = "it takes no arguments"
    return f"{_written(error, qualname)}() has no argument '{wrong}' ({hint})"


def _named_parameters(function: Callable[..., Any]) -> list[str]:
    """The arguments ``function`` takes by name (``self`` and ``*args``/``**kwargs`` aside)."""
    return [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def _missing(error: BaseException) -> str | None:
    """``t.score() was not given 'value' (it takes name and value)`` for Python's
    ``Gates.score() missing 1 required positional argument: 'value'``, which names a class
    the eval file never wrote; None for another error, or a function of the file's own."""
    said = _MISSING.fullmatch(str(error.args[0]))
    if said is None:
        return None
    qualname, absent = said.groups()
    function = _function(qualname, error)
    if function is None:
        return None
    known = _named_parameters(function)
    if not set(re.findall(r"'(\w+)'", absent)) <= set(known):
        return None  # a function of the file's own of the same name as one of proctor's
    return f"{_written(error, qualname)}() was not given {absent} (it takes {define.listed(known)})"


def _by_position(error: BaseException) -> str | None:
    """``define_eval() takes keyword arguments only (description, …, qna), and 1 was given by
    position``; for one that takes some by position, ``t.check() takes value and expectation
    by position and the others by keyword only (name), and 3 were given by position``. None
    for a function that takes no keyword-only argument (Python's own sentence says it)."""
    said = _POSITIONAL.fullmatch(str(error.args[0]))
    if said is None:
        return None
    qualname, count = said.groups()
    function = _function(qualname, error)
    if function is None:
        return None
    params = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    keywords = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    if not keywords:
        return None
    given = int(count) - (1 if "." in qualname else 0)  # Python counts a method's self
    by_position = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    were = "was" if given == 1 else "were"
    name = _written(error, qualname)
    if not by_position:
        return (
            f"{name}() takes keyword arguments only ({', '.join(keywords)}), and {given} "
            f"{were} given by position"
        )
    *others, last = by_position
    first = f"{', '.join(others)} and {last}" if others else last
    return (
        f"{name}() takes {first} by position and the others by keyword only "
        f"({', '.join(keywords)}), and {given} {were} given by position"
    )


def _written(error: BaseException, qualname: str) -> str:
    """The function as the eval file's line calls it (``first.called_tool``), else as its
    owner is usually named (``t.called_tool``)."""
    owner, _, name = qualname.rpartition(".")
    frames = traceback.extract_tb(error.__traceback__)
    line = (frames[-1].line or "") if frames else ""
    called: list[str] = re.findall(rf"([A-Za-z_][\w.]*\.)?\b{re.escape(name)}\s*\(", line)
    if owner and len(called) == 1 and called[0]:
        return called[0] + name
    return _SHOWN.get(owner, "") + name
