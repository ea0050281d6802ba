"""Effort: elapsed time, tool calls, tokens per model and cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from proctor.metrics.results import Effort
from proctor.metrics.trace import parse_ts
from proctor.models.trajectory import Event, ModelUsage

#: Dollars per million tokens: (input, output, cache read, cache write).
Pricing = Mapping[str, tuple[float, float, float, float]]

UNKNOWN_MODEL = "unknown"


def elapsed_seconds(events: Sequence[Event]) -> float | None:
    """Seconds from the earliest to the latest timestamp; None without timestamps, 0.0 with one."""
    stamps = [t for t in (parse_ts(e.ts) for e in events) if t is not None]
    return (max(stamps) - min(stamps)).total_seconds() if stamps else None


def tokens_by_model(events: Sequence[Event]) -> dict[str, ModelUsage]:
    """Usage events summed per model (``unknown`` if unnamed), missing counts 0. Empty: ``{}``."""
    usage: dict[str, ModelUsage] = {}
    for event in events:
        if event.type != "usage":
            continue
        usage.setdefault(event.model or UNKNOWN_MODEL, ModelUsage()).add(
            ModelUsage(
                input_tokens=event.input_tokens or 0,
                output_tokens=event.output_tokens or 0,
                cache_read_tokens=event.cache_read_tokens or 0,
                cache_write_tokens=event.cache_write_tokens or 0,
                responses=1,
            )
        )
    return usage


def cost(usage: Mapping[str, ModelUsage], pricing: Pricing | None) -> float | None:
    """Dollars for the tokens used; None without pricing or when a used model is unpriced.

    0.0 when pricing is given and no model was used.
    """
    if pricing is None or any(model not in pricing for model in usage):
        return None
    total = 0.0
    for model, used in usage.items():
        per_input, per_output, per_cache_read, per_cache_write = pricing[model]
        total += (
            used.input_tokens * per_input
            + used.output_tokens * per_output
            + used.cache_read_tokens * per_cache_read
            + used.cache_write_tokens * per_cache_write
        ) / 1_000_000
    return total


def effort(events: Sequence[Event], tool_calls: int, pricing: Pricing | None = None) -> Effort:
    """Elapsed seconds, tool calls, tokens per model and cost of one trial.

    Empty events: None, the given ``tool_calls``, ``{}``, and 0.0 cost when priced (else None).
    """
    usage = tokens_by_model(events)
    return Effort(
        elapsed_seconds=elapsed_seconds(events),
        tool_calls=tool_calls,
        tokens=usage,
        cost=cost(usage, pricing),
    )
