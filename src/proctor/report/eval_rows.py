"""How a trial page shows an evaluator result of an eval written as code (``use: "eval"``, one
per assertion, and ``eval-metrics``, the test's ``t.metric`` values) in its Evaluators table,
read as a case folder's evaluators are: the assertion and what it said as the message, where
the test called it as the details, and no weight (an eval's verdict weighs no assertion: its
hard gates decide, and its score is the mean of all)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proctor.models.trial import EvaluatorResult

EVAL_USES = frozenset({"eval", "eval-metrics"})
"""The ``use`` of the results an eval's test records (see proctor.evals.conversation)."""


@dataclass(frozen=True)
class EvalRow:
    """An eval's result as its row shows it."""

    gate: str
    """``gate`` for a hard assertion, ``soft`` for one that only records, empty for metrics."""
    message: str
    """The assertion (``turn 1: message_includes('mean')``) and what it said, when it said
    anything: a failure's why, a judge's rationale, passing or not."""
    details: str
    """Where it stands: ``turn 1; bar 0.7; at evals/x.eval.py:7`` (empty when none is known)."""


def eval_row(result: EvaluatorResult) -> EvalRow | None:
    """The row of an eval's result; None for any other evaluator's (shown as it is)."""
    if result.use not in EVAL_USES:
        return None
    d: dict[str, Any] = result.details
    name = d.get("name")
    if result.use != "eval" or not isinstance(name, str):
        return EvalRow("", result.message, "")
    why = d.get("why")
    message = f"{name}: {why}" if isinstance(why, str) and why else name
    parts = []
    if isinstance(d.get("turn"), int):
        parts.append(f"turn {d['turn']}")
    if isinstance(d.get("bar"), int | float):
        parts.append(f"bar {d['bar']:g}")
    if isinstance(d.get("at"), str) and d["at"]:
        parts.append(f"at {d['at']}")
    return EvalRow("gate" if result.gate else "soft", message, "; ".join(parts))
