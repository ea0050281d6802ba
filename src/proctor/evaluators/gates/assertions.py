"""Assertions: every gate a test calls is recorded by name, with whether it passed, whether it
is soft, its score and its message. The handle a gate returns adjusts it: ``.soft()`` (recorded,
never fails the case), ``.at_least(x)`` (a bar on the score), ``.gate(x)`` (hard, with a bar).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proctor.util import argtypes


class RequireFailed(Exception):
    """``t.require`` (or ``require_*``) failed: the test stops, the case fails, with no second
    error recorded."""


class Skipped(Exception):
    """``t.skip(reason)``."""


@dataclass
class Assertion:
    name: str
    passed: bool
    soft: bool = False
    score: float | None = None
    """0-1 when the gate measures something; None for a plain yes/no."""
    message: str = ""
    bar: float | None = None
    turn: int | None = None
    """The turn it was scoped to (1-based), when a turn's gate recorded it."""
    needs_bar: bool = False
    """Only a bar can fail it (``t.score``, a judge): it measures, and passes until given one."""
    at: str | None = None
    """Where the test called the gate (``FILE:LINE`` of the eval file), when known."""
    judge: str | None = None
    """The kind of judge that recorded it (``closed_qa``, …); None for any other gate."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "soft": self.soft,
            "score": self.score,
            "message": self.message,
            "at": self.at,
        }


class Handle:
    """What a gate returns: the assertion, adjustable; truthy when it passed."""

    def __init__(self, assertion: Assertion) -> None:
        self.assertion = assertion

    def __bool__(self) -> bool:
        return self.assertion.passed

    def __await__(self) -> Any:
        # A gate is checked when it is called; awaiting its handle is a slip (the judges are
        # the ones awaited), said as such rather than as Python's "object Handle can't be
        # used in 'await' expression".
        raise TypeError(
            f"{self.assertion.name} is a gate, checked when it is called, not awaited: "
            "remove the 'await' before it"
        )

    def __repr__(self) -> str:
        a = self.assertion
        return f"<{a.name}: {'passed' if a.passed else 'failed'}{' (soft)' if a.soft else ''}>"

    @property
    def passed(self) -> bool:
        return self.assertion.passed

    def soft(self) -> Handle:
        self.assertion.soft = True
        return self

    def at_least(self, bar: float) -> Handle:
        """Pass only with a score of at least ``bar`` (0-1). A bar makes a soft score or judge
        count: below it the case fails (call ``.soft()`` after it to keep it a record only)."""
        return self._bar(bar, "at_least")

    def _bar(self, bar: float, method: str) -> Handle:
        """``at_least(bar)``, a refused bar named as the ``method`` the test called: a bar
        that is no number is a TypeError (``"0.7"`` is no bar), one out of range a ValueError."""
        argtypes.real(bar, f"{self.assertion.name}.{method}()", "bar")
        if not 0 < bar <= 1:
            # 70 is a slip for 0.7, and a bar of 0 would pass everything, a failed gate too.
            raise ValueError(f"{method}({bar!r}): a bar is a score above 0 and at most 1 (0.7)")
        bar = float(bar)  # a number of any kind (a Fraction, a numpy float) as the record keeps it
        a = self.assertion
        a.bar = bar
        a.soft = False
        score = a.score if a.score is not None else (1.0 if a.passed else 0.0)
        a.passed = score >= bar
        if not a.passed and not a.message.endswith(f"< {bar:g}"):
            a.message = (a.message + "; " if a.message else "") + f"score {score:.2f} < {bar:g}"
        return self

    def gate(self, bar: float | None = None) -> Handle:
        """Make it hard (it fails the case), with a score bar when given. A score or a judge
        needs the bar: without one it could not fail."""
        if bar is None and self.assertion.needs_bar:
            name = self.assertion.name
            raise ValueError(
                f"{name}.gate(): a score or judge needs a bar to fail below, such as "
                ".gate(0.7) (a score of at least 0.7 passes)"
            )
        self.assertion.soft = False
        return self._bar(bar, "gate") if bar is not None else self
