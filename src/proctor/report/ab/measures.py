"""What one trial measures, read from its ``trial.json``: the numbers A/B and repeat views compare.

Every function takes one :class:`TrialRecord` and never raises on missing data: a measure that
the record does not carry is None (or 0 for counts that default to 0).
"""

from __future__ import annotations

from proctor.models.trial import SCORED_STATUSES, TrialRecord

__all__ = [
    "INCOMPLETE_STATUSES",
    "abandoned",
    "elapsed_seconds",
    "file_hit",
    "first_relevant_file",
    "first_relevant_seconds",
    "is_scored",
    "patch_in_area",
    "search_steps",
    "succeeded",
    "symbol_hit",
    "tool_calls",
    "total_tokens",
    "wrong_context",
]

#: Statuses that make a trial unusable as one side of a pair (a timeout is a failure, not here).
INCOMPLETE_STATUSES: frozenset[str] = frozenset(
    {"agent-error", "infra-error", "eval-error", "skipped"}
)


def is_scored(record: TrialRecord) -> bool:
    """Whether the trial counts in pass rates: passed, failed or timeout."""
    return record.status in SCORED_STATUSES


def excluded_by_hand(record: TrialRecord) -> bool:
    """Left out of the statistics by a person (``annotate --verdict excluded``): neither a
    sample nor an error."""
    return record.annotation is not None and record.annotation.verdict == "excluded"


def succeeded(record: TrialRecord) -> bool:
    """Success is the status ``passed``; every other status (timeout included) is not."""
    return record.status == "passed"


ELAPSED_MEANS = (
    "the agent's time, its transcript's first to last event (its agent time where the "
    "transcript has no span)"
)
"""What the reports' elapsed seconds are, said beside them (:func:`elapsed_seconds`)."""


def elapsed_seconds(record: TrialRecord) -> float | None:
    """``process.effort.elapsedSeconds``, else ``timings.agentMs / 1000``; for a trial that
    timed out, at least its agent time: its events stop at the last one written, but the
    agent worked on until the time limit stopped it (a single event made it 0 s, the
    fastest of its group).

    A transcript with no time span (every event at one instant, or a single event:
    ``elapsedSeconds`` 0) measured nothing, not a trial of 0 s: it gives the agent time, as
    one with no times does.

    None when neither is known: no process metrics and an agent time of 0 (never measured).
    """
    value = record.process.effort.elapsed_seconds if record.process else None
    agent_ms = record.timings.agent_ms
    # Milliseconds to three decimals are seconds to six: 107.581 ms is 0.107581 s, where
    # the division alone gives 0.10758100000000001.
    agent_seconds = round(agent_ms / 1000, 6)
    if record.status == "timeout" and agent_ms > 0:
        return max(value or 0.0, agent_seconds)
    if value:  # a span of 0 is no measure: the agent time stands in, as for no span at all
        return value
    return agent_seconds if agent_ms > 0 else None


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


def _rate(value: bool | None) -> float | None:
    return None if value is None else 1.0 if value else 0.0


def _expected(record: TrialRecord) -> list[str] | None:
    """The case's expected files (normalised), or None when the case names none."""
    if record.process is None or record.process.context.basis != "expected":
        return None
    return record.process.context.expected_files


def file_hit(record: TrialRecord) -> float | None:
    """1 when the agent read or edited an expected file, 0 when not; None without expected
    files."""
    if _expected(record) is None:
        return None
    return _rate(record.process.context.correct_file_hit) if record.process else None


def symbol_hit(record: TrialRecord) -> float | None:
    """1 when an expected symbol occurs in what the agent explored, 0 when not; None without
    expected symbols."""
    return _rate(record.process.context.correct_symbol_hit) if record.process else None


def patch_in_area(record: TrialRecord) -> float | None:
    """1 when every file the agent edited is an expected file or lies under the folder of one,
    0 when some edit lies elsewhere; None without expected files or without any edit."""
    expected = _expected(record)
    if expected is None or record.process is None or not record.process.context.edited_files:
        return None
    folders = {f.rsplit("/", 1)[0] + "/" for f in expected if "/" in f}
    inside = all(
        f in expected or any(f.startswith(d) for d in folders)
        for f in record.process.context.edited_files
    )
    return 1.0 if inside else 0.0


def search_steps(record: TrialRecord) -> float | None:
    """Search calls (grep, glob, find…) the agent made; None without process metrics."""
    return float(record.process.steps.searches) if record.process else None


def wrong_context(record: TrialRecord) -> float | None:
    """1 when the agent edited a file that is not expected (a wrong-context event), else 0;
    None without expected files."""
    if _expected(record) is None or record.process is None:
        return None
    return 1.0 if (record.process.context.wrong_context_events or 0) > 0 else 0.0


def abandoned(record: TrialRecord) -> float | None:
    """1 when the agent stopped without a code edit on a task that needed one (its case names
    expected files), else 0; None when the case names none."""
    if _expected(record) is None or record.process is None:
        return None
    return 0.0 if record.process.is_task else 1.0
