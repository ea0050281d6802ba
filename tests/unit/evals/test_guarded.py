"""Whether a refusal raised where a call is made would be caught by the calls in progress:
read from the source of each frame, up to the frame proctor started from."""

from __future__ import annotations

import sys
from types import FrameType

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
