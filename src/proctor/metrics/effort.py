"""Effort: elapsed time, tool calls, tokens per model and cost."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from proctor.metrics.trace import event_stamps, time_span, trial_start
from proctor.models.pricing import PriceTable, price_usage
from proctor.models.process import Effort
from proctor.models.trajectory import Event, ModelUsage, ResponseTokens, Usage, usage_by_model
from proctor.util.clock import utc_day

UNKNOWN_MODEL = "unknown"


def elapsed_seconds(events: Sequence[Event]) -> float | None:
    """Seconds from the earliest to the latest time of the events (see
    :func:`~proctor.metrics.trace.event_stamps`); None without times, 0.0 with one."""
    start, end = time_span(event_stamps(events))
    return (end - start).total_seconds() if start and end else None


def responses(events: Iterable[Event]) -> list[ResponseTokens]:
    """Each usage event's tokens (one model response's), named as :func:`tokens_by_model`
    names its model: what prices a long prompt's response at its model's long-context rates."""
    return [
        (
            event.model or UNKNOWN_MODEL,
            event.input_tokens or 0,
            event.output_tokens or 0,
            event.cache_read_tokens or 0,
            event.cache_write_tokens or 0,
            event.cache_write_1h_tokens or 0,
        )
        for event in events
        if isinstance(event, Usage)
    ]


def tokens_by_model(events: Sequence[Event]) -> dict[str, ModelUsage]:
    """Usage events summed per model (``unknown`` if unnamed), missing counts 0. Empty: ``{}``."""
    return usage_by_model(responses(events))


def cost(
    usage: Mapping[str, ModelUsage],
    pricing: PriceTable | None,
    given_by: Iterable[ResponseTokens] | None = None,
    day: date | None = None,
) -> float | None:
    """Dollars for the tokens used, by :mod:`proctor.models.pricing`'s rule: None when a model
    used has no price, 0.0 when no model was used; with the responses that gave ``usage``
    (``given_by``), a long prompt's at its model's long-context rates; on ``day`` (see
    :func:`spent_on`)."""
    return price_usage(usage, pricing or PriceTable(), given_by, day).total_usd


def spent_on(events: Sequence[Event]) -> date | None:
    """The day a trial's tokens are priced on (a list price may change on a day): the day,
    in UTC, of its earliest time; None without times."""
    return utc_day(trial_start(events))


def effort(events: Sequence[Event], tool_calls: int, pricing: PriceTable | None = None) -> Effort:
    """Elapsed seconds, tool calls, tokens per model and cost of one trial.

    Empty events: None, the given ``tool_calls``, ``{}``, and 0.0 cost.
    """
    rows = responses(events)
    usage = usage_by_model(rows)
    return Effort(
        elapsed_seconds=elapsed_seconds(events),
        tool_calls=tool_calls,
        tokens=usage,
        cost=cost(usage, pricing, rows, spent_on(events)),
    )
