"""The type checks of the public Python functions' arguments: an argument of the wrong Python
type is a TypeError naming the function, the argument, what it expects and what it was given
(``proctor.run(): argument 'agents': expected a name or a list of names, got 5``), before it
can be read some other way (a string iterated into its letters, ``True`` taken for 1, a dict
for its keys). A value of the right type that says something wrong is the caller's to judge
(a ConfigError, a ValueError); one no call could mean (a count of -1) is a ValueError worded
as a TypeError is (:func:`wrong_value`)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from numbers import Real
from typing import Any


def given(value: object) -> str:
    """What an argument was, in Python's words: ``the string 'x'``, ``True (a bool)``,
    ``None``, ``5``, ``a list [...]``, ``a bytes value b'x'``, ``an EvalCase …``, cut to a
    readable length. A function, a class or what calling one returned is named for what it
    is (``a plain function 'test'``, ``a lambda``, ``the class 'Case'``, ``a coroutine object
    (what calling 'test' returned)``), and a value whose text already names its type
    (``PosixPath('x')``) is shown as it is, never with a memory address (``a Case object``,
    not ``<mod.Case object at 0x7f…>``)."""
    named = _named(value)
    if named is not None:
        return named
    text = repr(value)
    if not isinstance(value, str | bytes | bytearray):  # a user's text is shown as it is
        text = _ADDRESS.sub("", text)
    if len(text) > 60:
        text = text[:56] + "..." + text[-1]
    if isinstance(value, str):
        return f"the string {text}"
    if isinstance(value, bool):
        return f"{text} (a bool)"
    if value is None or isinstance(value, int | float):
        return text
    kind = type(value).__name__
    if text.startswith((f"{kind}(", "<")):
        return text
    noun = _NOUNS.get(kind, kind)
    return f"{_article(noun)} {noun} {text}"


_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
"""Where an object lives in memory, as its default text says: it tells the reader nothing."""


def _named(value: object) -> str | None:
    """A function, a class or what calling one returned, named for what it is; None for any
    other value."""
    if inspect.isclass(value):
        return f"the class {value.__qualname__!r}"
    for test, kind in (
        (inspect.iscoroutine, "a coroutine object"),
        (inspect.isgenerator, "a generator object"),
        (inspect.isasyncgen, "an async generator object"),
    ):
        if test(value):
            name = getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
            return f"{kind} (what calling {name!r} returned)" if name else kind
    if inspect.ismethod(value) or inspect.isfunction(value):
        name = value.__qualname__
        if value.__name__ == "<lambda>":
            return "a lambda"
        if inspect.isasyncgenfunction(value):
            return f"an async generator function {name!r} (async def with yield)"
        if inspect.iscoroutinefunction(value):
            return f"an async function {name!r}"
        if inspect.isgeneratorfunction(value):
            return f"a generator function {name!r} (def with yield)"
        return f"a plain function {name!r}"
    if inspect.isbuiltin(value):
        return f"the built-in function {value.__name__!r}"
    if inspect.ismodule(value):
        return f"the module {value.__name__!r}"
    if type(value).__repr__ is object.__repr__:  # <mod.Case object at 0x7f…>
        noun = type(value).__name__
        return f"{_article(noun)} {noun} object"
    return None


_NOUNS = {"bytes": "bytes value"}
"""Types whose name is no noun a sentence can take an article with."""


def _article(noun: str) -> str:
    """``a`` or ``an``, as the noun is said: ``an int64``, ``an EvalCase``, ``a UserDict``."""
    said_with_vowel = noun[:1].lower() in "aeiou" and not noun.lower().startswith(("u", "eu"))
    return "an" if said_with_vowel or noun.lower().startswith(("und", "unk", "ump")) else "a"


def wrong_type(where: str, name: str, expected: str, value: object) -> TypeError:
    """The TypeError of argument ``name`` of ``where`` (``proctor.run()``)."""
    return TypeError(f"{where}: argument '{name}': expected {expected}, got {given(value)}")


def wrong_value(where: str, name: str, expected: str, value: object) -> ValueError:
    """The ValueError of argument ``name`` of ``where``: of the right type, but a value no call
    could mean (``t.called_tool(): argument 'count': expected a count (a whole number of 0 or
    more), got -1``)."""
    return ValueError(f"{where}: argument '{name}': expected {expected}, got {given(value)}")


def names(
    value: object, where: str, name: str, *, one: bool = True, what: str = "name"
) -> list[str]:
    """The strings a list argument gives: any iterable of them but a string (with ``one``, a
    string is one name), bytes or a mapping."""
    expected = f"a {what} or a list of {what}s" if one else f"a list of {what}s"
    if isinstance(value, str):
        if one:
            return [value]
        raise wrong_type(where, name, expected, value)
    if isinstance(value, bytes | bytearray | Mapping) or not isinstance(value, Iterable):
        raise wrong_type(where, name, expected, value)
    found = list(value)
    for index, item in enumerate(found):
        if not isinstance(item, str):
            raise wrong_type(where, f"{name}[{index}]", f"a {what} (a string)", item)
    return found


def items(
    value: object,
    where: str,
    name: str,
    expected: str,
    accept: Callable[[Any], bool],
    *,
    many: str | None = None,
) -> list[Any]:
    """The items of a list argument (not a string, bytes or a mapping), each one ``accept``
    takes: a list of ``many`` (``expected`` + s unless given)."""
    if isinstance(value, str | bytes | bytearray | Mapping) or not isinstance(value, Iterable):
        raise wrong_type(where, name, f"a list of {many or expected + 's'}", value)
    found = list(value)
    for index, item in enumerate(found):
        if not accept(item):
            raise wrong_type(where, f"{name}[{index}]", f"a {expected}", item)
    return found


def whole(value: object, where: str, name: str, *, optional: bool = False) -> None:
    """An int, never a bool (``True`` is no count) nor a float."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_type(where, name, "an int" + (" or None" if optional else ""), value)


def count(value: object, where: str, name: str, *, optional: bool = False) -> None:
    """A whole number of 0 or more (:func:`whole`): a negative count could never be met, or
    would always be."""
    whole(value, where, name, optional=optional)
    if value is not None and value < 0:  # type: ignore[operator]
        raise wrong_value(where, name, "a count (a whole number of 0 or more)", value)


def number(value: object, where: str, name: str, *, optional: bool = False) -> None:
    """An int or a float, never a bool."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise wrong_type(where, name, "a number" + (" or None" if optional else ""), value)


def real(value: object, where: str, name: str, *, optional: bool = False) -> None:
    """A real number of any kind (an int, a float, a numpy float), never a bool nor a text
    (``float("0.8")`` would take one)."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, Real):
        raise wrong_type(where, name, "a number" + (" or None" if optional else ""), value)


def text(value: object, where: str, name: str, *, optional: bool = False) -> None:
    """A str."""
    if optional and value is None:
        return
    if not isinstance(value, str):
        raise wrong_type(where, name, "a string" + (" or None" if optional else ""), value)


def flag(value: object, where: str, name: str) -> None:
    """A bool, never 1 nor ``"yes"``."""
    if not isinstance(value, bool):
        raise wrong_type(where, name, "True or False", value)


def instance(value: object, where: str, name: str, cls: type, expected: str) -> None:
    """An instance of ``cls``."""
    if not isinstance(value, cls):
        raise wrong_type(where, name, expected, value)
