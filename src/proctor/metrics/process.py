"""Every process metric of one trial, computed from its normalised events."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from proctor.metrics import steps as step_metrics
from proctor.metrics.context import context_metrics
from proctor.metrics.effort import effort
from proctor.metrics.loops import find_loops
from proctor.metrics.trace import Step, build_steps, changes_code, trial_start
from proctor.models.pricing import PriceTable
from proctor.models.process import DEFAULT_METRICS_CONFIG, Effort, MetricsConfig, ProcessMetrics
from proctor.models.trajectory import Event


def changed_code(steps: Sequence[Step]) -> bool:
    """True when an edit or write touched a file that is not documentation (or named none)
    and was neither rejected nor failed (see :func:`~proctor.metrics.trace.changes_code`)."""
    return any(changes_code(step) for step in steps)


def compute_process_metrics(
    events: Sequence[Event],
    *,
    expected_files: Sequence[str] = (),
    expected_symbols: Sequence[str] = (),
    config: MetricsConfig | None = None,
    workspace: str | None = None,
    pricing: PriceTable | None = None,
    with_effort: bool = True,
) -> ProcessMetrics:
    """Steps, checks, orientation, verification, rework, loops, context and effort.

    ``with_effort=False`` leaves ``effort`` empty, for a caller that has the tokens and times
    already (history replay takes them from the parsed transcript).
    Pure: the result depends only on the arguments. Empty ``events`` give zero counts,
    ``verified`` None, context basis ``none`` (unless files are expected) and null ratios.
    """
    steps = build_steps(events, workspace)
    metrics = metrics_of_steps(
        steps,
        trial_start(events),
        expected_files=expected_files,
        expected_symbols=expected_symbols,
        config=config,
        workspace=workspace,
    )
    if not with_effort:
        return metrics
    return metrics.model_copy(update={"effort": effort(events, metrics.steps.tool_calls, pricing)})


def metrics_of_steps(
    steps: Sequence[Step],
    start: datetime | None,
    *,
    expected_files: Sequence[str] = (),
    expected_symbols: Sequence[str] = (),
    config: MetricsConfig | None = None,
    workspace: str | None = None,
) -> ProcessMetrics:
    """:func:`compute_process_metrics` of a trajectory's steps (:func:`build_steps`, or
    :func:`~proctor.metrics.trace.plain_steps`) and first timestamp, without ``effort``."""
    config = config or DEFAULT_METRICS_CONFIG
    checks = step_metrics.find_checks(steps, config)
    counts = step_metrics.count_steps(steps, checks)
    loops = find_loops(steps, config.loop_repeat)
    return ProcessMetrics(
        is_task=changed_code(steps),
        steps=counts,
        checks=checks,
        orientation=step_metrics.orientation(steps, start),
        verified=step_metrics.verified(steps, checks),
        rework=step_metrics.rework(checks),
        loops=len(loops),
        loop_details=loops,
        context=context_metrics(
            steps,
            expected_files=expected_files,
            expected_symbols=expected_symbols,
            workspace=workspace,
            start=start,
        ),
        effort=Effort(tokens={}),  # given: a default dict would be deep-copied
    )
