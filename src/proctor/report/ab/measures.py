"""What one trial measures, read from its ``trial.json``: the numbers A/B and repeat views compare.

Every function takes one :class:`TrialRecord` and never raises on missing data: a measure that
the record does not carry is None (or 0 for counts that default to 0).
"""

from __future__ import annotations

from proctor.models.trial import SCORED_STATUSES, TrialRecord

__all__ = [
    "INCOMPLETE_STATUSES",
    "elapsed_seconds",
    "first_relevant_file",
    "first_relevant_seconds",
    "is_scored",
    "succeeded",
    "tool_calls",
    "total_tokens",
]

#: Statuses that make a trial unusable as one side of a pair (a timeout is a failure, not here).
INCOMPLETE_STATUSES: frozenset[str] = frozenset(
    {"agent-error", "infra-error", "eval-error", "skipped"}
)


def is_scored(record: TrialRecord) -> bool:
    """Whether the trial counts in pass rates: passed, failed or timeout."""
    return record.status in SCORED_STATUSES


def succeeded(record: TrialRecord) -> bool:
    """Success is the status ``passed``; every other status (timeout included) is not."""
    return record.status == "passed"


def elapsed_seconds(record: TrialRecord) -> float | None:
    """``process.effort.elapsedSeconds``, else ``timings.agentMs / 1000``.

    None when neither is known: no process metrics and an agent time of 0 (never measured).
    """
    value = record.process.effort.elapsed_seconds if record.process else None
    if value is not None:
        return value
    agent_ms = record.timings.agent_ms
    return agent_ms / 1000 if agent_ms > 0 else None


def tool_calls(record: TrialRecord) -> int:
    """``process.steps.toolCalls``, else the record's ``toolCalls`` (0 when nothing was called)."""
    return record.process.steps.tool_calls if record.process else record.tool_calls


def total_tokens(record: TrialRecord) -> int:
    """Input + output + cache-read + cache-write tokens summed over every model; 0 without usage."""
    return sum(u.total_tokens for u in record.usage.values())


def first_relevant_seconds(record: TrialRecord) -> float | None:
    """``process.context.firstRelevantSeconds``: None when no relevant file was found or known."""
    return record.process.context.first_relevant_seconds if record.process else None


def first_relevant_file(record: TrialRecord) -> str | None:
    """``process.context.firstRelevantFile``: the first expected file the trial read, in the
    order it read them; None when it read none (or the trial has no process metrics)."""
    return record.process.context.first_relevant_file if record.process else None
