"""The figures a history replay keeps of a session's steps, in one pass.

:func:`~proctor.metrics.process.metrics_of_steps` gives every process metric of a trial as
its models (each check, each loop, every context figure). A history replay keeps a dozen
numbers of each of its thousands of sessions, most of a few steps, where building those models
cost more than reading the steps. :func:`step_figures` gives the same numbers from the same
per-step rules (:func:`~proctor.metrics.trace.changes_code`,
:func:`~proctor.metrics.steps.check_outcome`, :func:`~proctor.metrics.loops.edit_key`, …);
``tests/unit/metrics/test_figures.py`` holds it to :func:`metrics_of_steps` on every session
of the fixtures and on thousands of random steps.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from datetime import datetime

import msgspec

from proctor.metrics.context import coverage_auc, redundancy
from proctor.metrics.loops import edit_key
from proctor.metrics.rules import task_rules_fired
from proctor.metrics.steps import check_outcome
from proctor.metrics.trace import (
    EDIT_KINDS,
    LOOKING_KINDS,
    READ_KINDS,
    SEARCH_KINDS,
    Step,
    is_code_edit,
    normalise_command,
    seconds_since,
    shell_command,
    took_effect,
)
from proctor.models.process import DEFAULT_METRICS_CONFIG, MetricsConfig


class StepFigures(msgspec.Struct, gc=False):
    """A session's figures, as :class:`~proctor.models.history.SessionSummary` holds them."""

    is_task: bool
    """An edit or write changed code (see :func:`~proctor.metrics.trace.changes_code`)."""
    verified: bool | None
    """A passing check ran after the last edit that changed code; None when not a task."""
    by_kind: dict[str, int]
    """Tool calls per kind, in the order each kind first came."""
    reads: int
    searches: int
    edits: int
    checks: int
    failed_checks: int
    reads_before_first_edit: int | None
    steps_before_first_edit: int | None
    seconds_to_first_edit: float | None
    loops: int
    rules_fired: list[str]
    edited_files: list[str]
    """The files edits and writes named, sorted: the proxy gold of the context figures."""
    redundancy: float | None
    auc_cov: float | None
    """AUC-Cov over :attr:`edited_files`; None when there are none."""


def step_figures(
    steps: Sequence[Step], start: datetime | None, config: MetricsConfig | None = None
) -> StepFigures:
    """The figures of ``steps`` as :func:`~proctor.metrics.trace.paired` builds them (each
    step's index its place), the first timestamp being ``start``, with no expected files."""
    config = config or DEFAULT_METRICS_CONFIG
    by_kind: dict[str, int] = {}
    first = last = None  # the first code edit attempted, the last that changed code
    looking = 0  # reads and searches before the first code edit
    checks: list[tuple[int, str]] = []
    failing: dict[str, int] = {}
    edit_counts: dict[Hashable, int] = {}
    edited: dict[str, None] = {}
    for step in steps:
        kind = step.kind
        by_kind[kind] = by_kind.get(kind, 0) + 1
        if kind in EDIT_KINDS:
            effective = took_effect(step)  # a failed or rejected edit changed no file
            if effective:
                edited.update(dict.fromkeys(step.files))
            key = edit_key(step)
            edit_counts[key] = edit_counts.get(key, 0) + 1
            if is_code_edit(step):
                if first is None:  # orientation ends at the first attempt
                    first = step
                if effective:  # (changes_code, its two rules read once)
                    last = step
            continue
        if first is None and kind in LOOKING_KINDS:
            looking += 1
        if step.call.kind != "shell":  # (shell_command's first test, without a call)
            continue
        command = shell_command(step)
        if command is None:
            continue
        outcome = check_outcome(step, command, config)
        if outcome is not None:
            checks.append((step.index, outcome))
        if step.outcome == "fail" and (normalised := normalise_command(command)):
            failing[normalised] = failing.get(normalised, 0) + 1
    repeat = config.loop_repeat
    loops = sum(n >= repeat for n in itertools.chain(failing.values(), edit_counts.values()))
    failed = sum(outcome == "fail" for _, outcome in checks)
    verified = None
    fired: list[str] = []
    reads_before = steps_before = seconds = None
    if first is not None and last is not None:
        after = last.index
        verified = any(at > after and outcome == "pass" for at, outcome in checks)
        reads_before, steps_before = looking, first.index
        seconds = seconds_since(start, first.call.ts)
        fired = task_rules_fired(verified, reads_before, failed, loops, config)
    proxy = frozenset(edited)
    return StepFigures(
        is_task=last is not None,
        verified=verified,
        by_kind=by_kind,
        # (Each kind's count looked up in C: a generator's frame cost more than the sum.)
        reads=sum(map(by_kind.get, READ_KINDS, itertools.repeat(0))),
        searches=sum(map(by_kind.get, SEARCH_KINDS, itertools.repeat(0))),
        edits=sum(map(by_kind.get, EDIT_KINDS, itertools.repeat(0))),
        checks=len(checks),
        failed_checks=failed,
        reads_before_first_edit=reads_before,
        steps_before_first_edit=steps_before,
        seconds_to_first_edit=seconds,
        loops=loops,
        rules_fired=fired,
        edited_files=sorted(proxy),
        redundancy=redundancy(steps),
        auc_cov=coverage_auc(steps, proxy),
    )
