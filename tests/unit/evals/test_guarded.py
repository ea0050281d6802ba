"""Whether a refusal raised where a call is made would be caught by the calls in progress:
read from the source of each frame, up to the frame proctor started from."""

from __future__ import annotations

import contextlib
import importlib
import io
import linecache
import os
import sys
import tempfile
import warnings
from contextlib import suppress
from types import FrameType
from typing import Any

import pytest

from proctor.evals import guarded


def _caught(error: type[BaseException], outer: FrameType | None) -> bool:
    """Whether ``error`` raised at the call of this function would be caught below ``outer``."""
    return guarded.caught(error, sys._getframe(1), outer)


def test_a_try_around_the_call_catches_what_its_except_names() -> None:
    outer = sys._getframe().f_back  # (pytest's own frames catch everything)
    try:
        assert _caught(TypeError, outer)
        assert _caught(KeyError, outer) is False
    except (TypeError, ValueError):
        pass


def test_a_call_outside_any_try_is_not_caught() -> None:
    assert _caught(TypeError, sys._getframe().f_back) is False


def test_a_try_of_a_frame_that_called_it_catches() -> None:
    outer = sys._getframe().f_back

    def made() -> bool:
        return _caught(TypeError, outer)

    try:
        found = made()
    except Exception:
        found = False
    assert found


def test_a_try_at_or_above_outer_is_not_the_callers() -> None:
    def made(outer: FrameType | None) -> bool:
        return _caught(TypeError, outer)

    try:
        assert made(sys._getframe()) is False
    except TypeError:
        pass


def test_an_except_that_raises_again_catches_nothing() -> None:
    outer = sys._getframe().f_back
    try:
        assert _caught(TypeError, outer) is False
    except TypeError:
        raise


def test_a_try_around_a_decorated_def_or_class_catches_its_decorators_call() -> None:
    """A decorator is called on its own line, above the def's."""
    outer = sys._getframe().f_back
    found: list[bool] = []

    def deco(made: Any) -> Any:
        found.append(guarded.caught(TypeError, sys._getframe(1), outer))
        return made

    try:

        @deco
        async def made() -> None: ...

        @deco
        class Made: ...

    except TypeError:
        pass

    @deco
    def after() -> None: ...

    assert found == [True, True, False]


def test_an_except_that_does_more_than_raise_again_may_recover() -> None:
    """Only a clause that is nothing but ``raise`` lets it on for sure."""
    outer = sys._getframe().f_back
    again = False
    try:
        found = _caught(TypeError, outer)
    except TypeError:
        if again:
            found = False
        raise
    assert found


def test_a_name_holding_a_tuple_of_classes_is_read() -> None:
    outer = sys._getframe().f_back
    errors = (KeyError, TypeError)
    others = (KeyError, OSError)
    try:
        try:
            found = _caught(TypeError, outer), _caught(ValueError, outer)
        except others:
            pass
    except errors:
        pass
    assert found == (True, False)


def test_the_first_except_that_matches_is_the_one_python_runs() -> None:
    """``except TypeError: raise`` before ``except Exception:``: it goes on."""
    outer = sys._getframe().f_back
    try:
        found = _caught(TypeError, outer), _caught(KeyError, outer)
    except TypeError:
        raise
    except Exception:
        found = (True, True)
    assert found == (False, True)


def test_a_with_of_contextlib_suppress_catches_what_it_names() -> None:
    outer = sys._getframe().f_back
    errors = (KeyError, TypeError)
    found: list[bool] = []
    with contextlib.suppress(TypeError):
        found.append(_caught(TypeError, outer))
    with suppress(KeyError), suppress(*errors):
        found.append(_caught(TypeError, outer))
    with suppress((KeyError, (OSError, TypeError))):  # (issubclass reads a tuple in a tuple)
        found.append(_caught(TypeError, outer))
    with suppress(KeyError), contextlib.nullcontext(TypeError):
        found.append(_caught(TypeError, outer))
    assert found == [True, True, True, False]


class _Ignoring:
    """A manager of the file's own whose exit swallows what it was given."""

    def __init__(self, *errors: type[BaseException]) -> None:
        self.errors = errors

    def __enter__(self) -> None: ...

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        return kind is not None and issubclass(kind, self.errors)

    async def __aenter__(self) -> None: ...

    async def __aexit__(self, kind: type[BaseException] | None, *rest: object) -> bool:
        return self.__exit__(kind)


class _Quiet(contextlib.nullcontext[None]):
    def __exit__(self, *rest: object) -> bool:  # type: ignore[override]
        return True


def test_a_with_of_any_other_manager_may_catch() -> None:
    """Its exit may swallow the refusal, and it is never run here to find out."""
    outer = sys._getframe().f_back
    ignoring, manager = _Ignoring(KeyError), _Ignoring(TypeError)
    found: list[bool] = []
    with _Ignoring(TypeError):
        found.append(_caught(TypeError, outer))
    with contextlib.ExitStack() as stack:
        stack.enter_context(suppress(TypeError))
        found.append(_caught(TypeError, outer))
    with manager:  # (not a call: what it is is not read)
        found.append(_caught(TypeError, outer))
    with _Quiet():  # (nullcontext's own class only)
        found.append(_caught(TypeError, outer))
    with ignoring:
        found.append(_caught(TypeError, outer))
    assert found == [True, True, True, True, True]
    assert ignoring.errors == (KeyError,) and manager.errors == (TypeError,)


def test_a_with_of_a_manager_known_not_to_swallow_catches_nothing(tmp_path: Any) -> None:
    outer = sys._getframe().f_back
    found: list[bool] = []
    with open(__file__) as read, open(__file__, "rb", buffering=0) as raw:
        found.append(_caught(TypeError, outer))
    with contextlib.nullcontext(), io.StringIO(), contextlib.closing(read):
        found.append(_caught(TypeError, outer))
    with tempfile.TemporaryDirectory(), warnings.catch_warnings(), contextlib.chdir(tmp_path):
        found.append(_caught(TypeError, outer))
    with contextlib.redirect_stdout(None), contextlib.redirect_stderr(None), io.BytesIO():
        found.append(_caught(TypeError, outer))
    with contextlib.nullcontext(), _Ignoring(TypeError):  # (one that may is enough)
        found.append(_caught(TypeError, outer))
    assert found == [False, False, False, False, True]
    assert raw.closed


def test_a_known_manager_given_another_exit_or_named_again_in_the_with_may_catch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the ``with`` called is read from its names now: bound again in the ``with``, they
    may name something else than they did; a class given another exit is not the one known."""
    outer = sys._getframe().f_back
    found: list[bool] = []
    nothing = contextlib.nullcontext
    with nothing():
        found.append(_caught(TypeError, outer))
    ignoring: Any = _Ignoring
    with ignoring(TypeError):
        ignoring = contextlib.nullcontext
        found.append(_caught(TypeError, outer))
    with contextlib.nullcontext():
        contextlib.nullcontext = contextlib.nullcontext  # type: ignore[misc]
        found.append(_caught(TypeError, outer))
    monkeypatch.setattr(contextlib.nullcontext, "__exit__", _Quiet.__exit__)
    with contextlib.nullcontext():
        found.append(_caught(TypeError, outer))
    assert found == [False, True, True, True]


def test_an_async_with_may_catch_unless_its_manager_is_known_not_to() -> None:
    outer = sys._getframe().f_back

    async def made() -> list[bool]:
        found: list[bool] = []
        async with _Ignoring(TypeError):
            found.append(_caught(TypeError, outer))
        async with contextlib.nullcontext():
            found.append(_caught(TypeError, outer))
        return found

    try:
        made().send(None)
    except StopIteration as stop:
        found = stop.value
    assert found == [True, False]


def test_a_clause_whose_class_is_not_read_may_catch() -> None:
    """``except errors():`` is never run here: what it catches is known as Python matches the
    refusal, so it may catch; one that only raises again leaves it to the later clauses."""
    outer = sys._getframe().f_back
    calls: list[str] = []

    def errors() -> type[BaseException]:
        calls.append("errors")
        return KeyError

    ERRS = [KeyError]
    found: list[bool] = []
    try:
        found.append(_caught(TypeError, outer))
    except errors():
        pass
    try:
        found.append(_caught(TypeError, outer))
    except (KeyError, ERRS[0]):
        pass
    try:
        found.append(_caught(TypeError, outer))
    except ERRS[0]:
        raise
    except OSError:
        pass
    try:
        found.append(_caught(TypeError, outer))
    except ERRS[0]:
        raise
    except TypeError:
        pass
    with suppress(*[KeyError]):
        found.append(_caught(TypeError, outer))
    assert found == [True, True, False, True, True]
    assert calls == []


@pytest.mark.parametrize(
    ("source", "read"),
    [
        ("try:\n    found = call()\nexcept KeyError:\n    pass\n", True),
        ("with nothing():\n    found = call()\n", True),
        ("try:\n    pass\nexcept KeyError:\n    pass\nfound = call()\n", False),
        ("found = call()\n", False),
    ],
    ids=["try", "with", "after-try", "none"],
)
def test_code_whose_source_is_not_read_may_catch_where_a_handler_is_around_the_call(
    source: str, read: bool
) -> None:
    """Code run by exec has no source to read: a handler of its code around the call (its
    exception table says) may catch."""
    outer = sys._getframe().f_back
    space: dict[str, Any] = {
        "call": lambda: guarded.caught(TypeError, sys._getframe(1), outer),
        "nothing": contextlib.nullcontext,
    }
    exec(compile(source, "<proctor test, not in linecache>", "exec"), space)
    assert space["found"] is read


@pytest.mark.parametrize(
    ("filename", "read"),
    [
        ("<frozen importlib._bootstrap>", False),
        (os.path.join(os.path.dirname(importlib.__file__), "_proctor_test.py"), False),
        ("<proctor test>", True),
    ],
    ids=["frozen", "importlib-file", "other"],
)
def test_the_handlers_of_importlib_are_not_read(filename: str, read: bool) -> None:
    """importlib cleans up and raises again (its source read with -X frozen_modules=off)."""
    outer = sys._getframe().f_back
    source = "try:\n    found = call()\nexcept BaseException:\n    cleaned = True\n    raise\n"
    space: dict[str, Any] = {"call": lambda: guarded.caught(TypeError, sys._getframe(1), outer)}
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        exec(compile(source, filename, "exec"), space)
    finally:
        del linecache.cache[filename]
    assert space["found"] is read


def test_a_source_too_deep_for_the_parser_is_not_read() -> None:
    # (a file written again since it ran, into one expression of a hundred thousand terms)
    assert guarded._tree("long.py", "x = 1" + "+1" * 100_000) is None
