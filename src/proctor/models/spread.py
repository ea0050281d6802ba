"""The median and range of a quantity: a model of its own, so that the history summary can use
it without loading the suite's records."""

from __future__ import annotations

from proctor.models.base import CamelModel


class Spread(CamelModel):
    """Median and range of one per-trial quantity over a group (``n`` trials had a value)."""

    n: int = 0
    median: float | None = None
    min: float | None = None
    max: float | None = None
