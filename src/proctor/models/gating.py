"""The gate a configuration applies (a light module: the planner imports it before any
trial, and the reporting stage is loaded only once the first worker is forked)."""

from __future__ import annotations

from proctor.models.config import DEFAULT_GATE, Gate


def applied_gate(gate: Gate | None) -> Gate:
    """The gate a configuration's ``gate`` applies: proctor's default when it gives none; its
    A/B gate added to the default per-group threshold when it sets no per-group threshold of
    its own (``{"ab": {…}}`` adds the A/B gate, as documented; it does not drop every group's
    gate). A gate object without any threshold (``{}``) gates nothing, as it says."""
    if gate is None:
        return DEFAULT_GATE
    if gate.ab is not None and gate.min_score is gate.min_pass_rate is gate.max_stddev is None:
        return gate.model_copy(update={"min_pass_rate": DEFAULT_GATE.min_pass_rate})
    return gate
